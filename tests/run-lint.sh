#!/bin/sh
# Assertions that can never fail.  Under sh -e (the check files of tests/cli)
# POSIX exempts from -e a pipeline that begins with "!" and every command of an
# AND-OR list but the last:
#     ! grep -q password log        # passes whatever log holds...
#     test -f a && test -f b        # ...and so does a missing a
#     echo done
# Such a line only counts when it is the script's last command (its status is
# the script's).  Anywhere else it must say what happens on failure:
#     ! grep -q password log || exit 1
#     if grep -q password log; then exit 1; fi
#     test -f a; test -f b          (one command a line)
# A line that ends in "|| ..." is an AND-OR list whose last command decides: fine.
# Prints one line for each offending line, then "lint: N passed, M failed"
# (N and M count files).
# Usage: tests/run-lint.sh [FILE...]   (default: every tests/cli/*/check)
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
[ $# -gt 0 ] || set -- "$top"/tests/cli/*/check
for f in "$@"; do
	out=$(awk -v file="${f#$top/}" '
	# one logical line: continuation lines and multi-line single-quoted text
	# joined; quoted text (awk programs, patterns), $(...) and comments blanked
	function flat(s,    t, q, dq, i, c, depth) {
		t = ""; q = 0; dq = 0; depth = 0
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (!dq && c == "\047") { q = !q; t = t "\047"; continue }
			if (q) { t = t "x"; continue }
			if (c == "\\") { t = t "xx"; i++; continue }
			if (c == "\"") { dq = !dq; t = t c; continue }
			if (c == "$" && substr(s, i + 1, 1) == "(") { depth++; t = t "$("; i++; continue }
			if (depth > 0) { if (c == "(") depth++; if (c == ")") depth--; t = t (depth ? "x" : ")"); continue }
			if (dq) { t = t "x"; continue }
			if (c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t]/)) break
			t = t c
		}
		return t
	}
	function open_quote(s,    i, c, q, dq) {
		q = 0; dq = 0
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (!dq && c == "\047") q = !q
			else if (!q && c == "\\") i++
			else if (!q && c == "\"") dq = !dq
			else if (!q && !dq && c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t]/)) break
		}
		return q || dq
	}
	{
		if (cont != "") { $0 = cont "\n" $0; cont = "" }
		if ($0 ~ /\\$/ || open_quote($0)) { cont = $0; if (!start) start = NR; next }
		n++; text[n] = $0; at[n] = start ? start : NR; start = 0; s[n] = flat($0)
		sub(/\n.*/, " ...", text[n])
	}
	END {
		last = n
		while (last > 0 && s[last] ~ /^[ \t]*$/) last--
		for (i = 1; i < last; i++) {
			l = s[i]
			if (l ~ /\|\|[^|]*$/ && l !~ /\|\|[ \t]*$/) continue	# ends in "|| handler"
			if (l ~ /^[ \t]*![ \t]/ || l ~ /(^|[;&|][ \t]*|then[ \t]+|do[ \t]+)![ \t]/)
				printf "%s:%d: a \"!\" pipeline is exempt from -e: add \"|| exit 1\" or use if: %s\n", file, at[i], text[i]
			else if (l ~ /&&/ && l !~ /^[ \t]*(if|while|until|elif)[ \t]/)
				printf "%s:%d: only the last command of an && list is checked by -e: %s\n", file, at[i], text[i]
		}
	}' "$f")
	if [ -z "$out" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		printf '%s\n' "$out"
	fi
done
echo "lint: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
