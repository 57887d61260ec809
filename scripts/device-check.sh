#!/bin/sh
# device-check.sh: kp-collect and kp-discover on a real GPU (issue 4's "done when").
# Run from the repository root ON THE GPU MACHINE, with the kp programs in ./bin
# (make STATIC=1), ncu at /usr/local/cuda/bin/ncu, nvcc, python3 with torch+triton:
#   sh scripts/device-check.sh
# Builds examples/cuda, then runs five cases, each bounded by a timeout:
#   cuda-auto     kp-gentarget + kp-collect --stages auto, hgemm_byzj_v0, --clock-control none
#   cuda-all      the same with --stages all
#   triton-auto   python3 examples/triton/bench_triton_hgemm.py, skip 20, --stages auto
#   torch-disc    kp-discover on python3 examples/torch/torch_mix.py
#   nomatch       a filter that matches nothing (exit 5 expected)
# For each: command, wall time, exit status, stages, follow-up, ncu passes (from
# the manifest).  Everything goes under $OUT when set (profile folders, logs,
# the table); the table is printed last.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:/usr/local/cuda/bin:$PATH
export PATH
work=$(mktemp -d /tmp/kp-device-check.XXXXXX)
out=${OUT:-$work/out}
mkdir -p "$out/logs" "$out/profiles"
table=$out/table.txt
: >"$table"
T=${KP_CHECK_TIMEOUT:-300}	# per ncu pass
cd "$work" || exit 1

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# row NAME WANT_STATUS STATUS SECONDS PROFILE_DIR RECORD_FILE COMMAND
row() {
	name=$1 want=$2 rc=$3 t=$4 pd=$5 rec=$6 cmd=$7
	stages=- fu=- passes=- st=-
	if [ -n "$pd" ] && [ -f "$pd/run_manifest.yaml" ]; then
		passes=$(grep -c '^- stage:' "$pd/run_manifest.yaml")
		st=$(sed -n 's/^status: //p' "$pd/run_manifest.yaml")
	fi
	if [ -s "$rec" ]; then
		stages=$(sed -n 's/.*"stages":\[\([^]]*\)\].*/\1/p' "$rec" | tr -d '"' | head -1)
		fu=$(sed -n 's/.*"followup":"\([^"]*\)".*/\1/p' "$rec" | head -1)
		[ -n "$fu" ] || fu=-
		[ -n "$stages" ] || stages=-
	fi
	ok=ok
	[ "$rc" = "$want" ] || ok=FAIL
	printf '%-12s %-4s rc=%-3s want=%-3s %6ss  status=%-18s passes=%-2s followup=%-15s stages=%s\n' \
	    "$name" "$ok" "$rc" "$want" "$t" "$st" "$passes" "$fu" "$stages" >>"$table"
	printf '  %s\n' "$cmd" >>"$table"
	if [ -n "$pd" ] && [ -f "$pd/run_manifest.yaml" ]; then
		printf '  kp cpu share: %s%%\n' "$(sed -n 's/^ *kp_cpu_share_pct: //p' "$pd/run_manifest.yaml")" >>"$table"
	fi
	[ -n "$pd" ] && [ -d "$pd" ] && cp -r "$pd" "$out/profiles/$name" 2>/dev/null
	return 0
}

# collect NAME WANT PROFILE_ID KP-COLLECT-ARGS... -- KP-GENTARGET-ARGS...
run_collect() {
	name=$1 want=$2 id=$3
	shift 3
	cargs=
	while [ "$1" != "--" ]; do cargs="$cargs $1"; shift; done
	shift
	kp-gentarget --profile-id "$id" --clock-control none "$@" \
	    >"$out/logs/$name.gentarget.jsonl" 2>"$out/logs/$name.gentarget.err" || {
		echo "$name: kp-gentarget failed:" >&2; cat "$out/logs/$name.gentarget.err" >&2; }
	t0=$(now)
	# shellcheck disable=SC2086
	kp-collect --timeout "$T" $cargs "profile/$id/profile-target.yaml" \
	    >"$out/logs/$name.jsonl" 2>"$out/logs/$name.err"
	rc=$?
	t=$(secs "$t0" "$(now)")
	echo "== $name (rc=$rc, ${t}s)" >&2
	cat "$out/logs/$name.err" >&2
	row "$name" "$want" "$rc" "$t" "profile/$id" "$out/logs/$name.jsonl" \
	    "kp-collect$cargs profile/$id/profile-target.yaml  [target: $*]"
}

echo "== build examples/cuda" >&2
if ! make -C "$top/examples/cuda" >"$out/logs/build.log" 2>&1; then
	tail -20 "$out/logs/build.log" >&2
fi
{ ncu --version; command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } \
    >"$out/logs/versions.txt" 2>&1
bench=$top/examples/cuda/bench_gemm

run_collect cuda-auto 0 cuda_auto --stages auto -- \
    --target-cmd "$bench --kernel v0 --iters 8" --kernel hgemm_byzj_v0 --launch-skip 2 --launch-count 1
run_collect cuda-all 0 cuda_all --stages all -- \
    --target-cmd "$bench --kernel v0 --iters 8" --kernel hgemm_byzj_v0 --launch-skip 2 --launch-count 1
run_collect triton-auto 0 triton_auto --stages auto -- \
    --target-cmd "python3 $top/examples/triton/bench_triton_hgemm.py --iters 30" \
    --runtime python-triton --kernel hgemm_byzj_v0 --launch-skip 20 --launch-count 1
run_collect nomatch 5 nomatch --stages auto -- \
    --target-cmd "$bench --kernel v0 --iters 2" --kernel does_not_exist_kernel --launch-skip 0

# discovery on a PyTorch program: one ncu pass, 200 launches at most
kp-gentarget --profile-id torch_disc --clock-control none --discover \
    --target-cmd "python3 $top/examples/torch/torch_mix.py --iters 2" \
    >"$out/logs/torch-disc.gentarget.jsonl" 2>"$out/logs/torch-disc.gentarget.err" ||
	cat "$out/logs/torch-disc.gentarget.err" >&2
t0=$(now)
kp-discover --timeout "$T" --max-launches 200 profile/torch_disc/profile-target.yaml \
    >"$out/logs/torch-disc.jsonl" 2>"$out/logs/torch-disc.err"
rc=$?
t=$(secs "$t0" "$(now)")
echo "== torch-disc (rc=$rc, ${t}s)" >&2
cat "$out/logs/torch-disc.err" >&2
ok=ok
[ "$rc" = 0 ] || ok=FAIL
n=$(grep -c '"kind":"candidate"' "$out/logs/torch-disc.jsonl" 2>/dev/null)
chosen=$(grep '"chosen":true' "$out/logs/torch-disc.jsonl" | sed -n 's/.*"function":"\([^"]*\)".*/\1/p' | cut -c1-60)
printf '%-12s %-4s rc=%-3s want=0   %6ss  passes=1  kernels=%s chosen=%s\n' \
    torch-disc "$ok" "$rc" "$t" "${n:-0}" "${chosen:--}" >>"$table"
printf '  kp-discover --max-launches 200 profile/torch_disc/profile-target.yaml\n' >>"$table"
[ -d profile/torch_disc ] && cp -r profile/torch_disc "$out/profiles/torch-disc"

# The offline programs on the live cuda-all profile: hotspots, rules, report.
pd=$PWD/profile/cuda_all
for p in kp-hotspots kp-decide kp-report; do
	printf '{"profile_dir":"%s"}\n' "$pd" | "$p" >"$out/logs/post.$p.jsonl" 2>"$out/logs/post.$p.err"
	printf '%-12s rc=%s  %s\n' "post" "$?" "$p on profile/cuda_all" >>"$table"
done
top1=$(sed -n 2p "$pd/details/source_hotspots.csv" 2>/dev/null | cut -c1-150)
printf '  top hotspot: %s\n' "${top1:--}" >>"$table"
prim=$(sed -n 's/.*"primary": *"\([^"]*\)".*/\1/p' "$pd/details/bottleneck_decision.json" 2>/dev/null | head -1)
printf '  primary class: %s\n' "${prim:--}" >>"$table"
[ -d "$pd" ] && cp -r "$pd" "$out/profiles/cuda-all"

# The quick start's command, live: kp-profile --demo builds and profiles examples/cuda.
t0=$(now)
kp-profile --demo --clock-control none --output-root "$work/demo" >"$out/logs/demo.jsonl" 2>"$out/logs/demo.err"
rc=$?
t=$(secs "$t0" "$(now)")
cat "$out/logs/demo.err" >&2
printf '%-12s rc=%-3s %6ss  %s\n' demo "$rc" "$t" "$(cat "$out/logs/demo.jsonl")" >>"$table"
dd=$(ls -d "$work"/demo/hgemm_byzj_v0_* 2>/dev/null | head -1)
[ -n "$dd" ] && cp -r "$dd" "$out/profiles/demo"

# The offline pipeline on the captured hgemm_v0 files, as make bench runs it
# (extract 7 stage files, hotspots, decide, report): median of 21 runs; and
# start-up: 200 runs of kp-decide --version against /bin/true.
fix=$top/tests/fixtures/h200/hgemm_v0
stages=$(ls "$fix"/*_raw.csv | grep -v import_)
: >"$out/logs/pipe.times"
i=0
while [ $i -lt 21 ]; do
	rm -rf pipe
	t0=$(now)
	# shellcheck disable=SC2086
	kp-extract -o pipe/details $stages >/dev/null &&
	kp-hotspots -o pipe/details/source_hotspots.csv "$fix/source_cuda_sass.csv" >/dev/null &&
	kp-decide --metrics pipe/details/metrics_summary.json -o pipe/details/bottleneck_decision.json >/dev/null &&
	kp-report pipe >/dev/null || echo "pipeline failed" >&2
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }' >>"$out/logs/pipe.times"
	i=$((i + 1))
done
med=$(sort -n "$out/logs/pipe.times" | sed -n 11p)
loop() {	# loop N CMD...: mean ms of one run
	n=$1
	shift
	t0=$(now)
	j=0
	while [ $j -lt "$n" ]; do "$@" >/dev/null; j=$((j + 1)); done
	awk -v a="$t0" -v b="$(now)" -v n="$n" 'BEGIN { printf "%.2f", (b - a) * 1000 / n }'
}
printf '%-12s median %s ms of 21 (final_report.md %s)  --version %s ms, /bin/true %s ms (200 runs)\n' \
    pipeline "$med" "$(test -s pipe/final_report.md && echo written || echo MISSING)" \
    "$(loop 200 kp-decide --version)" "$(loop 200 /bin/true)" >>"$table"
printf '  summary %s bytes, metrics_all %s bytes (live cuda_all)\n' \
    "$(wc -c <"$pd/details/metrics_summary.json" 2>/dev/null)" \
    "$(wc -c <"$pd/details/metrics_all.json" 2>/dev/null)" >>"$table"

echo
echo "kp device check ($(sed -n 's/^Version //p' "$out/logs/versions.txt" | head -1); $(tail -1 "$out/logs/versions.txt"))"
cat "$table"
