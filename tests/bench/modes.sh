#!/bin/sh
# tests/bench/modes.sh TIMEIT ROUNDS FILE...: kp-hotspots on each source page
# FILE read in one part (KP_SOURCE_PARTS=1) with its threads in each of the
# three modes (none; the reader thread alone, KP_SOURCE_THREAD=0; the reader
# and the parse threads, both forced) and by default ("one"); then read in
# parts, by default ("default"); and `wc -l`, by turns, ROUNDS rounds; prints
# each one's median and minimum wall time (ms).  TIMEIT is tests/bench/timeit.c
# built.  For choosing the defaults of KP_SOURCE_THREAD and KP_SOURCE_PARTS on
# a machine (kp(7)).
timeit=$1 rounds=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
hs=$top/bin/kp-hotspots
tmp=$(mktemp -d) || exit 4
trap 'rm -rf "$tmp"' EXIT INT TERM
for f in "$@"; do
	r=0
	while [ "$r" -lt "$rounds" ]; do
		export KP_SOURCE_PARTS=1
		KP_SOURCE_THREAD=0 KP_CSV_READAHEAD=0 "$timeit" "$hs" -o "$tmp/h.csv" "$f" |
		    sed 's/^/none /'
		KP_SOURCE_THREAD=0 KP_CSV_READAHEAD=1 "$timeit" "$hs" -o "$tmp/h.csv" "$f" |
		    sed 's/^/reader /'
		KP_SOURCE_THREAD=1 KP_CSV_READAHEAD=1 "$timeit" "$hs" -o "$tmp/h.csv" "$f" |
		    sed 's/^/both /'
		"$timeit" "$hs" -o "$tmp/h.csv" "$f" | sed 's/^/one /'
		unset KP_SOURCE_PARTS
		"$timeit" "$hs" -o "$tmp/h.csv" "$f" | sed 's/^/default /'
		"$timeit" wc -l "$f" | sed 's/^/wc /'
		r=$((r + 1))
	done >"$tmp/t"
	for m in none reader both one default wc; do
		awk -v m="$m" '$1 == m { print $2 * 1000 }' "$tmp/t" | sort -n |
		    awk -v m="$m" -v f="$(basename "$f")" '{ a[NR] = $1 }
		    END { printf "%-14s %-8s median %8.1f ms  min %8.1f\n", f, m, a[int((NR + 1) / 2)], a[1] }'
	done
done
