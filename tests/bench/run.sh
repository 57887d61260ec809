#!/bin/sh
# make bench: kp-extract's throughput and peak memory on big raw CSVs made by
# repeating the real launch row of tests/fixtures/h200/hgemm_v0/full_raw.csv
# (header and units once, then rows with distinct IDs), next to `wc -l`,
# `cat > /dev/null` and tests/bench/peer_extract.py (Python's csv module doing
# the same job); then the offline pipeline on the hgemm_v0 capture and each
# program's start-up.  Every figure is the median of BENCH_RUNS (3) runs.
# MB/s is wall clock; "cpu" is MB per CPU second (user + sys), the figure
# that does not move when other jobs share the machine.
# BENCH_SIZES (MB, default "10 100 1024"), BENCH_MAX_MB (default 1024),
# BENCH_PY_MAX_S (skip the Python peer when it would take longer, default 180)
# and TMPDIR choose what runs and where the files go.
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/tests/fixtures/h200/hgemm_v0
src=$fix/full_raw.csv
max=${BENCH_MAX_MB:-1024}
sizes=${BENCH_SIZES:-10 100 1024}
runs=${BENCH_RUNS:-3}
pymax=${BENCH_PY_MAX_S:-180}
LC_ALL=C
export LC_ALL
[ -x "$top/bin/kp-extract" ] || { echo "bench: build first (make)" >&2; exit 4; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (GNU time)" >&2; exit 4; }
tmp=$(mktemp -d) || exit 4
trap 'rm -rf "$tmp"' EXIT INT TERM

# measure CMD...: median over $runs runs of "wall user+sys maxrss_kb"
measure() {
	i=0
	: > "$tmp/m"
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
		    { echo "bench: $* failed:" >&2; cat "$tmp/err" >&2; }
		awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >> "$tmp/m"
		i=$((i + 1))
	done
	sort -n "$tmp/m" | awk '{ w[NR] = $1; c[NR] = $2; r[NR] = $3 }
	    END { m = int((NR + 1) / 2); print w[m], c[m], r[m] }'
}
mbps() { awk -v b="$1" -v t="$2" 'BEGIN { if (t <= 0) t = 0.005; printf "%.0f", b / 1048576 / t }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "-"; else printf "%.2f", a / b }'; }

# hyperfine when present (/usr/bin/time counts in 10 ms steps): median ms
hmedian() {
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine -N -w 3 -r "${BENCH_PIPE_RUNS:-30}" --export-json "$tmp/h.json" "$@" \
		    >/dev/null 2>&1 || { echo "?"; return; }
		python3 -c 'import json,sys; print("%.1f" % (1000 * json.load(open(sys.argv[1]))["results"][0]["median"]))' "$tmp/h.json"
	else
		runs=${BENCH_PIPE_RUNS:-11}
		set -- $(measure $1)
		awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }'
	fi
}

grep '^"' "$src" | head -2 > "$tmp/head.csv"
grep '^"' "$src" | sed -n 3p | sed 's/^"[0-9]*"//' > "$tmp/row.tail"
rowbytes=$(wc -c < "$tmp/row.tail")
avail=$(df -Pk "$tmp" | awk 'NR == 2 { print int($4 / 1024) }')

echo "kp-extract on repeated hgemm_v0 raw rows ($rowbytes bytes, 2,238 columns each);"
echo "MB/s wall (cpu: MB per CPU second), peak RSS MiB; median of $runs runs"
printf '%-7s %8s %14s %9s %9s %14s %8s %8s %7s %7s\n' size launches kp-extract \
    wc-l cat python3 kp/wc kp/py kp-RSS py-RSS
py100=
for mb in $sizes; do
	if [ "$mb" -gt "$max" ]; then
		echo "${mb}MB: skipped (BENCH_MAX_MB=$max)"
		continue
	fi
	if [ $((mb * 2 + 64)) -gt "$avail" ]; then
		echo "${mb}MB: skipped, only $avail MB free in $tmp"
		continue
	fi
	f=$tmp/big_$mb.csv
	n=$((mb * 1048576 / rowbytes))
	cp "$tmp/head.csv" "$f"
	awk -v n="$n" -v f="$tmp/row.tail" 'BEGIN {
		getline tail < f
		for (i = 0; i < n; i++) printf "\"%d\"%s\n", i, tail
	}' >> "$f"
	bytes=$(wc -c < "$f")
	cat "$f" > /dev/null	# warm the page cache
	set -- $(measure "$top/bin/kp-extract" -o "$tmp/out" "$f")
	kw=$(mbps "$bytes" "$1") kc=$(mbps "$bytes" "$2") kr=$(awk -v k="$3" 'BEGIN { printf "%.1f", k / 1024 }')
	set -- $(measure wc -l "$f")
	ww=$(mbps "$bytes" "$1")
	set -- $(measure sh -c 'cat "$1" > /dev/null' sh "$f")
	cw=$(mbps "$bytes" "$1")
	pw=- pc=- pr=- kp=-
	est=0
	[ -n "$py100" ] && est=$(awk -v s="$py100" -v m="$mb" 'BEGIN { printf "%d", s * m / 100 }')
	if ! command -v python3 >/dev/null 2>&1; then
		pw="(none)"
	elif [ "$est" -gt "$pymax" ]; then
		pw="(skip:~${est}s)"
	else
		set -- $(runs=1 measure python3 "$top/tests/bench/peer_extract.py" "$f")
		[ "$mb" -eq 100 ] && py100=$1
		[ -z "$py100" ] && py100=$(awk -v s="$1" -v m="$mb" 'BEGIN { print s * 100 / m }')
		pw=$(mbps "$bytes" "$1") pc=$(mbps "$bytes" "$2")
		pr=$(awk -v k="$3" 'BEGIN { printf "%.1f", k / 1024 }')
		kp=$(ratio "$kw" "$pw")
		pw="$pw ($pc)"
	fi
	printf '%-7s %8d %14s %9s %9s %14s %8s %8s %7s %7s\n' "${mb}MB" "$n" "$kw ($kc)" "$ww" \
	    "$cw" "$pw" "$(ratio "$kw" "$ww")" "$kp" "$kr" "$pr"
	# /usr/bin/time counts in 10 ms steps: small files get a finer second look
	if [ "$mb" -le 100 ] && command -v hyperfine >/dev/null 2>&1; then
		hk=$(BENCH_PIPE_RUNS=10 hmedian "$top/bin/kp-extract -o $tmp/out $f")
		hw=$(BENCH_PIPE_RUNS=10 hmedian "wc -l $f")
		echo "        hyperfine medians: kp-extract $hk ms ($(mbps "$bytes" "$(awk -v m="$hk" 'BEGIN { print m / 1000 }')") MB/s), wc -l $hw ms"
	fi
	rm -f "$f"
	rm -rf "$tmp/out"
done

# The offline pipeline on the hgemm_v0 capture (gnuplot excluded).
echo
echo "offline pipeline on hgemm_v0 (ms, median of $runs runs):"
stages=$(ls "$fix"/*_raw.csv | grep -v import_)
# the pipeline, and each step alone below (its inputs in place; no shell)
d=$tmp/prof
step1="$top/bin/kp-extract -o $d/details $(echo $stages)"
step2="$top/bin/kp-hotspots -o $d/details/source_hotspots.csv $fix/source_cuda_sass.csv"
step3="$top/bin/kp-decide --metrics $d/details/metrics_summary.json -o $d/details/bottleneck_decision.json"
step4="$top/bin/kp-report $d"
cat > "$tmp/pipe.sh" <<PIPE
set -e
rm -rf "$d"
$step1 >/dev/null
$step2 >/dev/null
$step3 >/dev/null
$step4 >/dev/null
test -s "$d/final_report.md"
PIPE
have="kp-extract kp-hotspots kp-decide kp-report"
sh "$tmp/pipe.sh" || echo "bench: the pipeline failed" >&2
echo "  $have: $(hmedian "sh $tmp/pipe.sh") ms wall (median)"
echo "  each step alone (the same command, its inputs in place):"
i=1
for p in $have; do
	eval "c=\$step$i"
	printf '    %-12s %6s ms\n' "$p" "$(hmedian "$c")"
	i=$((i + 1))
done
echo "start-up (--version, ms wall, median; /bin/true is this machine's floor):"
printf '  %-14s %6s\n' /bin/true "$(hmedian /bin/true)"
for p in "$top"/bin/kp-*; do
	[ -x "$p" ] || continue
	printf '  %-14s %6s\n' "$(basename "$p")" "$(hmedian "$p --version")"
done
