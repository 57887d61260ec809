#!/bin/sh
# tests/bench/same-output.sh save DIR | compare DIR [BIG.csv...]
# Runs bin/kp-extract (plain and --all-metrics) on every raw, details and log
# capture in tests/fixtures (and on the big CSVs named, e.g. /tmp/big100.csv)
# and keeps stdout, stderr, the exit status, metrics_summary.json and
# metrics_extracted.jsonl under DIR (save), or checks that a new build writes
# the same bytes as those kept in DIR (compare).  Run `save` before a change
# to kp-extract or its library and `compare` after it.
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=$1 dir=$2
case $mode in save|compare) ;; *) echo "usage: $0 save|compare dir [file.csv ...]" >&2; exit 2 ;; esac
[ -n "$dir" ] || { echo "usage: $0 save|compare dir [file.csv ...]" >&2; exit 2; }
shift 2
LC_ALL=C TZ=UTC
export LC_ALL TZ
new=$dir
if [ "$mode" = compare ]; then
	new=$(mktemp -d) || exit 4
	trap 'rm -rf "$new"' EXIT INT TERM
fi
mkdir -p "$new" || exit 4
n=0
for f in "$top"/tests/fixtures/h200/*/*raw*.csv "$top"/tests/fixtures/h200/*/*details*.csv \
    "$top"/tests/fixtures/h200/*/*.log "$top"/tests/fixtures/live/*/details/0*_raw.csv "$@"; do
	[ -f "$f" ] || continue
	id=$(printf '%s' "$f" | sed "s|^$top/||; s|[/.]|_|g")
	for opt in plain --all-metrics; do
		o=$new/$id.$opt
		mkdir -p "$o/out"
		a=
		[ "$opt" = plain ] || a=$opt
		"$top/bin/kp-extract" $a -o "$o/out" "$f" > "$o/stdout" 2> "$o/stderr"
		echo $? > "$o/status"
		# the output folder and the checkout's own path are in the
		# records: keep runs from two checkouts (before and after a
		# change) comparable
		for k in "$o"/stdout "$o"/stderr "$o"/out/*; do
			[ -f "$k" ] || continue
			sed "s|$o/out|OUT|g; s|$top/|TOP/|g" "$k" > "$k.t" && mv "$k.t" "$k"
		done
		n=$((n + 1))
	done
done
if [ "$mode" = save ]; then
	echo "saved $n runs in $dir"
	exit 0
fi
if diff -r "$dir" "$new" > "$new.diff" 2>&1; then
	echo "same output: $n runs"
	rm -f "$new.diff"
	exit 0
fi
head -40 "$new.diff"
echo "DIFFERENT output (full diff: $new.diff)" >&2
trap - EXIT
exit 1
