#!/bin/sh
# make bench: kp on profiles shaped like a real program's.  Inputs are made
# under $TMPDIR from tests/fixtures/h200/torch_mix/basic_raw_200.csv (the 200
# launch rows of 15 kernels of a PyTorch transformer block, 566 columns), each
# row given a fresh ID (tests/bench/gen.sh):
#   torch_mix 10 MB, 100 MB, 1 GB   the rows in turn (15 kernels)
#   1000 kernels, 100 MB            the same rows, 1,000 distinct kernel names
#   1 kernel, 1 GB                  one kernel's rows only: many launches
# For each: kp-extract's MB/s (wall), its ratio to `wc -l`, to `cat >
# /dev/null` and to tests/bench/peer_extract.py (Python's csv module) on the
# same file in the same run, and peak RSS.  Then kp-collect's merge (the
# library's kp_merge_raw, through tests/bench/merge.c) of two stage files
# at 5,000 and 20,000 launches, kp-hotspots on a source page of 100 MB and
# 1 GB (tests/bench/gen-source.sh), and each program's start-up beside
# the I/O floor under kp-extract's small-fixture run (tests/bench/iofloor.c).
# kp-extract and kp-hotspots run by turns with `wc -l` and `cat` on the same
# file, BENCH_ROUNDS (7) rounds, each run timed by tests/bench/timeit.c; each
# figure is the median of its rounds, so a slow minute of a shared machine
# falls on both sides of a ratio.  The merge's figures are the median of
# BENCH_RUNS (3) runs; the Python peer runs once and is estimated from its
# 100 MB speed when that would take longer than BENCH_PY_MAX_S (120) seconds
# ("~").  BENCH_MAX_MB (1024) caps the sizes.  Start-up times are hyperfine's
# median where it is installed, else timeit's median of as many runs.
# BENCH_TOOLS names a folder of merge, timeit and iofloor built elsewhere
# (tests/bench/merge.c, timeit.c, iofloor.c; for a host with no compiler or
# no jansson headers, such as the GPU machine).
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BENCH_BIN:-$top/bin}
fix=$top/tests/fixtures/h200/torch_mix/basic_raw_200.csv
srcfix=$top/tests/fixtures/h200/hgemm_v0/source_cuda_sass.csv
max=${BENCH_MAX_MB:-1024}
runs=${BENCH_RUNS:-3}
rounds=${BENCH_ROUNDS:-7}
pymax=${BENCH_PY_MAX_S:-120}
LC_ALL=C
export LC_ALL
[ -x "$bin/kp-extract" ] || { echo "bench: build first (make)" >&2; exit 4; }
tmp=$(mktemp -d) || exit 4
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ -n "$BENCH_TOOLS" ]; then	# built elsewhere (a host with no compiler or headers)
	for t in merge timeit iofloor; do
		[ -x "$BENCH_TOOLS/$t" ] || { echo "bench: no $BENCH_TOOLS/$t" >&2; exit 4; }
		cp "$BENCH_TOOLS/$t" "$tmp/$t"
	done
else
	${CC:-cc} -O2 -I"$top/lib" $(pkg-config --cflags jansson 2>/dev/null) -o "$tmp/merge" \
	    "$top/tests/bench/merge.c" "${BENCH_LIB:-$top/build/libkp.a}" \
	    $(pkg-config --libs jansson libfyaml 2>/dev/null) -lm || exit 4
	${CC:-cc} -O2 -o "$tmp/timeit" "$top/tests/bench/timeit.c" || exit 4
	${CC:-cc} -O2 -static -o "$tmp/iofloor" "$top/tests/bench/iofloor.c" 2>/dev/null ||
	    ${CC:-cc} -O2 -o "$tmp/iofloor" "$top/tests/bench/iofloor.c" || exit 4
fi

# measure CMD...: median over $runs runs of "wall maxrss_kb"
measure() {
	i=0
	: > "$tmp/m"
	while [ "$i" -lt "$runs" ]; do
		"$tmp/timeit" "$@" >> "$tmp/m" 2>"$tmp/err" ||
		    { echo "bench: $* failed:" >&2; cat "$tmp/err" >&2; }
		i=$((i + 1))
	done
	sort -n "$tmp/m" | awk '{ w[NR] = $1; r[NR] = $2 } END { m = int((NR + 1) / 2); print w[m], r[m] }'
}
med() { sort -n "$1" | awk '{ w[NR] = $1; r[NR] = $2 } END { m = int((NR + 1) / 2); print w[m], r[m] }'; }
# turns F CMD...: CMD, `wc -l F` and `cat F` (to /dev/null) by turns, $rounds
# rounds: the medians "CMD's seconds, its RSS KiB, wc's seconds, cat's seconds"
turns() {
	tf=$1
	shift
	: > "$tmp/tk"
	: > "$tmp/tw"
	: > "$tmp/tc"
	i=0
	while [ "$i" -lt "$rounds" ]; do
		"$tmp/timeit" "$@" >> "$tmp/tk" 2>"$tmp/err" ||
		    { echo "bench: $* failed:" >&2; cat "$tmp/err" >&2; }
		"$tmp/timeit" wc -l "$tf" >> "$tmp/tw"
		"$tmp/timeit" cat "$tf" >> "$tmp/tc"
		i=$((i + 1))
	done
	echo "$(med "$tmp/tk") $(med "$tmp/tw" | cut -d' ' -f1) $(med "$tmp/tc" | cut -d' ' -f1)"
}
# hyperfine when present (GNU time counts in 10 ms steps): median seconds
hsec() {
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine -N -w 2 -r "${HRUNS:-$runs}" --export-json "$tmp/h.json" "$@" >/dev/null 2>&1 ||
		    { echo 0; return; }
		python3 -c 'import json,sys; print("%.5f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/h.json"
	else	# tests/bench/timeit.c: two runs to warm up, then the median of HRUNS
		"$tmp/timeit" $1 >/dev/null 2>&1
		"$tmp/timeit" $1 >/dev/null 2>&1
		set -- $(runs=${HRUNS:-$runs} measure $1)
		echo "$1"
	fi
}
mbps() { awk -v b="$1" -v t="$2" 'BEGIN { if (t <= 0) t = 0.001; printf "%.0f", b / 1048576 / t }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "-"; else printf "%.2f", a / b }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

uname -m | tr '\n' ' '; grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'
echo "$(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "kp-extract (MB/s wall; ratios of MB/s; RSS MiB; median of $rounds rounds by turns with wc and cat)"
printf '| %-14s | %5s | %7s | %8s | %6s | %5s | %5s | %12s | %6s | %6s | %6s |\n' input MB kernels launches \
    "MB/s" "/wc" "/cat" "python3 MB/s" "kp/py" "RSS" "py RSS"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
pyrate=
for c in "torch_mix 10 0" "torch_mix 100 0" "torch_mix 1024 0" "1000_kernels 100 1000" "1_kernel 1024 1"; do
	set -- $c
	name=$1 mb=$2 nk=$3
	[ "$mb" -le "$max" ] || { echo "| $name | $mb | skipped (BENCH_MAX_MB=$max) |"; continue; }
	f=$tmp/in.csv
	sh "$top/tests/bench/gen.sh" "$fix" "$mb" "$nk" "$f" || exit 4
	sync	# the new file's writeback would share the 2 CPUs with the timed runs
	bytes=$(wc -c < "$f")
	launches=$(($(grep -c '^"' "$f") - 2))
	kernels=$(sed '1,2d' "$f" | awk -F'","' '!s[$5]++' | wc -l)
	cat "$f" > /dev/null
	set -- $(turns "$f" "$bin/kp-extract" -o "$tmp/out" "$f")
	kt=$1 kr=$2 wt=$3 ct=$4
	kw=$(mbps "$bytes" "$kt")
	est=0
	[ -n "$pyrate" ] && est=$(awk -v b="$bytes" -v r="$pyrate" 'BEGIN { printf "%d", b / 1048576 / r }')
	if ! command -v python3 >/dev/null 2>&1; then
		pw="(none)" pr=- kp=-
	elif [ "$est" -gt "$pymax" ]; then
		pw="~$pyrate" pr=- kp="~$(ratio "$kw" "$pyrate")"
	else
		set -- $(runs=1 measure python3 "$top/tests/bench/peer_extract.py" "$f")
		pw=$(mbps "$bytes" "$1") pr=$(mib "$2") kp=$(ratio "$kw" "$pw")
		[ "$mb" -ge 100 ] && [ -z "$pyrate" ] && pyrate=$pw
	fi
	printf '| %-14s | %5s | %7s | %8s | %6s | %5s | %5s | %12s | %6s | %6s | %6s |\n' "$name" "$mb" \
	    "$kernels" "$launches" "$kw" "$(ratio "$kw" "$(mbps "$bytes" "$wt")")" \
	    "$(ratio "$kw" "$(mbps "$bytes" "$ct")")" "$pw" "$kp" "$(mib "$kr")" "$pr"
	rm -rf "$f" "$tmp/out"
done

echo
echo "kp-collect's merge into metrics_raw.csv: two stage files of torch_mix rows"
printf '| %-9s | %6s | %6s | %6s | %6s |\n' launches "in MB" "s" "MB/s" "RSS"
echo "|---|---|---|---|---|"
for n in 500 5000 20000; do
	sh "$top/tests/bench/gen.sh" "$fix" "${n}l" 0 "$tmp/a.csv" || exit 4
	cp "$tmp/a.csv" "$tmp/b.csv"
	sync
	bytes=$(($(wc -c < "$tmp/a.csv") * 2))
	set -- $(measure "$tmp/merge" "$tmp/m.csv" basic="$tmp/a.csv" memory="$tmp/b.csv")
	printf '| %-9s | %6s | %6s | %6s | %6s |\n' "$n" "$(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1048576 }')" \
	    "$(awk -v s="$1" 'BEGIN { printf "%.2f", s }')" "$(mbps "$bytes" "$1")" "$(mib "$2")"
	rm -f "$tmp/a.csv" "$tmp/b.csv" "$tmp/m.csv"
done

echo
echo "kp-hotspots on a source page (hgemm_v0's blocks as launch copies)"
printf '| %5s | %6s | %5s | %5s | %6s |\n' MB "MB/s" "/wc" "/cat" RSS
echo "|---|---|---|---|---|"
for mb in 100 1024; do
	[ "$mb" -le "$max" ] || continue
	f=$tmp/src.csv
	sh "$top/tests/bench/gen-source.sh" "$srcfix" "$mb" "$f" || exit 4
	sync
	bytes=$(wc -c < "$f")
	cat "$f" > /dev/null
	set -- $(turns "$f" "$bin/kp-hotspots" -o "$tmp/hs.csv" "$f")
	kw=$(mbps "$bytes" "$1")
	wt=$3 ct=$4
	printf '| %5s | %6s | %5s | %5s | %6s |\n' "$mb" "$kw" "$(ratio "$kw" "$(mbps "$bytes" "$wt")")" \
	    "$(ratio "$kw" "$(mbps "$bytes" "$ct")")" "$(mib "$2")"
	rm -f "$f" "$tmp/hs.csv"
done

# Start-up: --version, and a run on the small fixture (its inputs in place:
# torch_mix's 200-launch page for kp-extract, the profile made from it for
# kp-decide and kp-report, hgemm_v0's source page for kp-hotspots), and
# kp-extract on hgemm_v0's one-launch pages.
echo
if command -v hyperfine >/dev/null 2>&1; then how=hyperfine; else how=timeit; fi
echo "start-up (ms wall, $how median of ${HRUNS:-20} runs; /bin/true is this machine's floor)"
d=$tmp/prof
hv=$top/tests/fixtures/h200/hgemm_v0
"$bin/kp-extract" -o "$d/details" "$fix" >/dev/null
"$bin/kp-hotspots" -o "$d/details/source_hotspots.csv" "$hv/source_cuda_sass.csv" >/dev/null
"$bin/kp-decide" --metrics "$d/details/metrics_summary.json" -o "$d/details/bottleneck_decision.json" >/dev/null
ms() { awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }'; }
HRUNS=20
export HRUNS
# kp-extract also on hgemm_v0's one-launch pages: the basic set and the full set
printf '| %-14s | %9s | %16s | %12s | %12s |\n' program --version "small fixture" \
    "1 launch, basic" "1 launch, full"
echo "|---|---|---|---|---|"
printf '| %-14s | %9s | %16s | %12s | %12s |\n' /bin/true "$(ms "$(hsec /bin/true)")" "" "" ""
for p in "$bin"/kp-*; do
	[ -x "$p" ] || continue
	b=$(basename "$p")
	case $b in
	kp-extract) run="$p -o $d/x $fix" ;;
	kp-hotspots) run="$p -o $d/x.csv $hv/source_cuda_sass.csv" ;;
	kp-decide) run="$p --metrics $d/details/metrics_summary.json -o $d/x.json" ;;
	kp-report) run="$p $d" ;;
	*) run= ;;
	esac
	r= r1= r2=
	[ -n "$run" ] && r=$(ms "$(hsec "$run")")
	if [ "$b" = kp-extract ]; then
		r1=$(ms "$(hsec "$p -o $d/x1 $hv/basic_raw.csv")")
		r2=$(ms "$(hsec "$p -o $d/x2 $hv/full_raw.csv")")
	fi
	printf '| %-14s | %9s | %16s | %12s | %12s |\n' "$b" "$(ms "$(hsec "$p --version")")" "$r" "$r1" "$r2"
done
# The floor under kp-extract's small-fixture run: a static program that
# reads the same file and writes files of the sizes kp-extract wrote, through
# tmp names and rename(2) (tests/bench/iofloor.c).
mkdir -p "$d/io"
io="$tmp/iofloor $fix $d/io"
for x in "$d"/details/metrics_*.json*; do io="$io $(wc -c < "$x")"; done
printf '| %-14s | %9s | %16s | %12s | %12s |\n' "I/O floor" "" "$(ms "$(hsec "$io")")" "" ""
