#!/bin/sh
# tests/bench/gen-source.sh FIXTURE MB OUT: a source page (--page source) of
# about MB megabytes: FIXTURE's blocks repeated as launch copies, the first
# sample column of each row moved by the copy's number so that no copy is an
# exact repeat of another (ncu prints one copy per profiled launch).
fix=$1 mb=$2 out=$3
LC_ALL=C
export LC_ALL
awk -v mb="$mb" '
/^"/ { t[n++] = $0 }
END {
	for (j = 0; j < n; j++) {	# pre "V" post, V the 5th field of a data row
		s = t[j]; p = ""; ok = 1
		for (f = 0; f < 4 && ok; f++) {
			i = index(s, "\",\"")
			if (i == 0) ok = 0; else { p = p substr(s, 1, i + 2); s = substr(s, i + 3) }
		}
		i = index(s, "\",\"")
		v = substr(s, 1, i - 1)
		if (ok && i > 0 && v ~ /^[0-9]+$/) { pre[j] = p; val[j] = v + 0; post[j] = substr(s, i) }
		else pre[j] = ""
		bytes += length(t[j]) + 1
	}
	want = mb * 1048576
	for (c = 0; got < want; c++)
		for (j = 0; j < n; j++) {
			if (pre[j] == "") line = t[j]
			else line = pre[j] (val[j] + c) post[j]
			print line
			got += length(line) + 1
		}
}' "$fix" > "$out"
