#!/bin/sh
# The command contract of every program (bin/kp-*):
#  (a) its usage text (--help) is the SYNOPSIS of its man page, word for word
#      (the mdoc macros .Nm .Op .Pq .Fl .Ar .Cm rendered as man(1) shows them);
#  (b) --help and --version to a full disk (/dev/full) exit non-zero.
# Run from the repository root by tests/run-docs.sh.
fail=0
# The SYNOPSIS section of an mdoc page as one line of words.
synopsis() {
	awk -v name="$2" '
	/^\.Sh / { on = ($2 == "SYNOPSIS"); next }
	!on || !/^\./ { next }
	{
		gsub(/\\-/, "-")
		n = split(substr($0, 2), w, /[ \t]+/)
		mode = ""; close_ = ""; glue = 0
		for (i = 1; i <= n; i++) {
			t = w[i]
			if (t == "Nm") { put(name); mode = ""; continue }
			if (t == "Op") { put("["); glue = 1; close_ = "]" close_; continue }
			if (t == "Pq") { put("("); glue = 1; close_ = ")" close_; continue }
			if (t == "Fl") {
				if (i < n && w[i + 1] == "Fl") { put("-"); glue = 1; continue }
				mode = "Fl"; if (i == n) put("-"); continue
			}
			if (t == "Ar" || t == "Cm") { mode = t; continue }
			if (mode == "Fl" && t != "|" && t != "...") t = "-" t
			put(t)
		}
		for (j = 1; j <= length(close_); j++) { out = out substr(close_, j, 1) }
	}
	function put(s) { out = out ((glue || out == "") ? "" : " ") s; glue = 0 }
	END { print out }' "$1"
}
for p in bin/kp-*; do
	prog=${p#bin/}
	page=man/$prog.1
	if [ ! -f "$page" ]; then echo "$prog: no man page $page"; fail=1; continue; fi
	want=$(synopsis "$page" "$prog")
	got=$("$p" --help 2>/dev/null | sed '1s/^usage: //' | tr -s ' \n\t' '   ' | sed 's/ *$//')
	if [ "$got" != "$want" ]; then
		echo "$prog: --help differs from the SYNOPSIS of $page"
		echo "  usage:    $got"
		echo "  man page: $want"
		fail=1
	fi
	for opt in --help --version; do
		if "$p" $opt >/dev/full 2>/dev/null; then
			echo "$prog: $opt >/dev/full exits 0"
			fail=1
		fi
	done
done
exit $fail
