#!/bin/sh
# make bench: kp-extract's throughput and peak memory on big raw CSVs made by
# repeating the real launch row of tests/fixtures/h200/hgemm_v0/full_raw.csv
# (header and units once, then rows with distinct IDs), next to `wc -l`,
# `cat > /dev/null` and, when python3 exists, a Python csv-module peer.
# BENCH_SIZES (MB, default "10 100 1024"), BENCH_MAX_MB (default 1024) and
# TMPDIR choose the sizes and where the files go.
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/tests/fixtures/h200/hgemm_v0/full_raw.csv
max=${BENCH_MAX_MB:-1024}
sizes=${BENCH_SIZES:-10 100 1024}
tmp=$(mktemp -d) || exit 4
trap 'rm -rf "$tmp"' EXIT INT TERM
LC_ALL=C
export LC_ALL

now() { date +%s.%N; }
mbps() { awk -v b="$1" -v t="$2" 'BEGIN { if (t <= 0) t = 1e-9; printf "%.0f", b / 1048576 / t }'; }
# peak RSS in MiB of a command, by /usr/bin/time -v when present
rss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ { printf "%.1f", $NF / 1024 }'
	else
		echo "?"
	fi
}
timeit() {	# prints seconds
	t0=$(now)
	"$@" >/dev/null 2>&1 || echo "bench: $* failed" >&2
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

peer=$tmp/peer.py
cat > "$peer" <<'EOF'
import csv, sys, statistics
def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None
vals = {}
with open(sys.argv[1], newline="") as f:
    r = csv.reader(line for line in f if line.startswith('"'))
    hdr = next(r); next(r)
    k = hdr.index("Kernel Name")
    for row in r:
        d = vals.setdefault(row[k], {})
        for i in range(11, len(row)):
            v = num(row[i])
            if v is not None:
                d.setdefault(i, []).append(v)
for d in vals.values():
    for v in d.values():
        statistics.median(v)
EOF

grep '^"' "$src" | head -2 > "$tmp/head.csv"
grep '^"' "$src" | sed -n 3p | sed 's/^"[0-9]*"//' > "$tmp/row.tail"
rowbytes=$(wc -c < "$tmp/row.tail")
printf '%-8s %10s %10s %10s %10s %10s %12s\n' size kp-extract wc-l cat python3 kp-RSS py-RSS
for mb in $sizes; do
	[ "$mb" -le "$max" ] || continue
	f=$tmp/big_$mb.csv
	n=$((mb * 1048576 / rowbytes))
	cp "$tmp/head.csv" "$f"
	awk -v n="$n" -v f="$tmp/row.tail" 'BEGIN {
		getline tail < f
		for (i = 0; i < n; i++) printf "\"%d\"%s\n", i, tail
	}' >> "$f"
	bytes=$(wc -c < "$f")
	cat "$f" > /dev/null	# warm the page cache
	out=$tmp/out
	mkdir -p "$out"
	tk=$(timeit "$top/bin/kp-extract" -o "$out" "$f")
	tw=$(timeit wc -l "$f")
	tc=$(timeit sh -c "cat '$f' > /dev/null")
	rk=$(rss "$top/bin/kp-extract" -o "$out" "$f")
	tp=- rp=-
	if command -v python3 >/dev/null 2>&1 && [ "$mb" -le 100 ]; then
		tp=$(timeit python3 "$peer" "$f")
		rp=$(rss python3 "$peer" "$f")
		tp=$(mbps "$bytes" "$tp")
	fi
	printf '%-8s %10s %10s %10s %10s %10s %12s   (MB/s; RSS MiB; %d launches)\n' \
	    "${mb}MB" "$(mbps "$bytes" "$tk")" "$(mbps "$bytes" "$tw")" \
	    "$(mbps "$bytes" "$tc")" "$tp" "$rk" "$rp" "$n"
	rm -f "$f"
	rm -rf "$out"
done
