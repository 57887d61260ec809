#!/bin/sh
# Every program on a real fixture (and on one error path) under valgrind memcheck:
# a memory error or a leak fails the run.  Prints "valgrind: N passed, M failed".
# Usage: tests/valgrind.sh [PATTERN]   (a grep -E on the case names)
top=$(cd "$(dirname "$0")/.." && pwd)
FIX=$top/tests/fixtures
PATH=$top/bin:$top/tests/bin:$PATH
LC_ALL=C
TZ=UTC
export FIX PATH LC_ALL TZ
pat=${1:-.}
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed (apt-get install valgrind)" >&2
	echo "valgrind: 0 passed, 1 failed"
	exit 4
fi
# memcheck finds a program's malloc through the dynamic loader: on a static
# binary it would see no heap, and pass every leak.
if ! readelf -l "$top/bin/kp-extract" 2>/dev/null | grep -q 'program interpreter'; then
	echo "valgrind: $top/bin/kp-extract is not dynamically linked: build with make STATIC=0" >&2
	echo "valgrind: 0 passed, 1 failed"
	exit 4
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
pass=0 fail=0
B=$top/bin
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible"
F=$FIX/h200/hgemm_v0

# vg NAME WANT CMD...: run CMD (a kp program first) under valgrind in $work/NAME;
# WANT: the program's expected status.  Status 99 is valgrind's own verdict.
vg() {
	name=$1 want=$2
	shift 2
	printf '%s\n' "$name" | grep -qE -- "$pat" || return 0
	d=$work/$name
	mkdir -p "$d"
	(cd "$d" && eval "$PREP" && $VG "$@" >stdout 2>stderr </dev/null)
	got=$?
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: valgrind/$name: status $got, expected $want"
		grep -E '==[0-9]+==' "$d/stderr" | head -15
	fi
}
profile='mkdir -p p/details && i=1 && for s in basic speed_of_light memory compute occupancy roofline; do cp "$F/${s}_raw.csv" "p/details/0${i}_${s}_raw.csv"; i=$((i + 1)); done && cp "$F/source_cuda_sass.csv" p/details/07_source_raw.csv'
staged="$profile"' && kp-extract -o p/details p/details/0[1-6]_*_raw.csv >/dev/null && kp-hotspots -o p/details/source_hotspots.csv p/details/07_source_raw.csv >/dev/null && kp-decide --metrics p/details/metrics_summary.json --hotspots p/details/source_hotspots.csv -o p/details/bottleneck_decision.json >/dev/null'
target='KP_FAKE_NCU_DIR=$F; export KP_FAKE_NCU_DIR; kp-gentarget --target-cmd "./bench --iters 3" --kernel hgemm_byzj_v0 --profile-id t >/dev/null 2>&1'

PREP=$profile
vg extract 0 "$B/kp-extract" -o p/details p/details/01_basic_raw.csv p/details/02_speed_of_light_raw.csv p/details/03_memory_raw.csv
vg extract-all-metrics 0 "$B/kp-extract" --all-metrics -o p/details "$F/full_raw.csv"
vg extract-garbage 3 "$B/kp-extract" -o p/details "$F/source_sass.stderr"
vg hotspots 0 "$B/kp-hotspots" -o out.csv "$F/source_cuda_sass.csv"
vg hotspots-ptx 0 "$B/kp-hotspots" -o out.csv "$F/source_ptx.csv"
vg hotspots-raw-page 3 "$B/kp-hotspots" -o out.csv "$F/full_raw.csv"
vg hotspots-sass-ranges 0 "$B/kp-hotspots" -o out.csv "$FIX/h200/zoo/gemm_bf16/source_sass.csv"
vg hotspots-no-lineinfo 8 "$B/kp-hotspots" -o out.csv "$FIX/h200/zoo/gemm_bf16/source_cuda_sass.csv"
PREP=$staged
vg decide 0 "$B/kp-decide" --metrics p/details/metrics_summary.json --hotspots p/details/source_hotspots.csv -o d.json
vg decide-bad-rules 3 "$B/kp-decide" --rules p/details/01_basic_raw.csv --metrics p/details/metrics_summary.json
vg report 0 "$B/kp-report" p
vg compare 0 "$B/kp-compare" --current p --baseline p
vg plot 0 "$B/kp-plot" -n p
PREP=:
vg gentarget 0 "$B/kp-gentarget" --target-cmd './bench "a b" $(x)' --kernel 'k.*[' --profile-id v --requirement 'with source and roofline, no sudo'
vg gentarget-check 0 "$B/kp-gentarget" --check "$top/tests/fuzz/seeds/fuzz_target/triton.yaml"
vg gentarget-check-bad 3 "$B/kp-gentarget" --check "$top/references/rules/bottleneck_rules.yaml"
vg discover-csv 0 "$B/kp-discover" --from-csv "$FIX/h200/gemm_discovery/discovery_raw.csv" --output-dir d
PREP=$target
vg collect 0 "$B/kp-collect" --stages auto profile/t/profile-target.yaml
PREP='KP_FAKE_NCU_DIR=$FIX/h200/zoo/conv; export KP_FAKE_NCU_DIR; kp-gentarget --target-cmd "python3 conv.py" --kernel sm90_xmma_fprop --profile-id t --requirement source >/dev/null 2>&1'
vg collect-sass-fallback 0 "$B/kp-collect" --stages source profile/t/profile-target.yaml
PREP='KP_FAKE_NCU_DIR=$F KP_FAKE_NCU_DIR_RANK1=$FIX/h200/hgemm_v1; export KP_FAKE_NCU_DIR KP_FAKE_NCU_DIR_RANK1; kp-gentarget --target-cmd "./bench" --launcher "fake-launcher -n 2" --ranks 0,1 --kernel hgemm_byzj --profile-id t >/dev/null 2>&1'
vg collect-ranks 0 "$B/kp-collect" --stages auto profile/t/profile-target.yaml
PREP="$PREP"' && kp-collect --stages basic profile/t/profile-target.yaml >/dev/null 2>&1'
vg report-ranks 0 "$B/kp-report" profile/t
PREP='RANK=1; export RANK'
vg rank-exec-other 0 "$B/kp-rank-exec" --ranks 0 -- ncu -- true
PREP='RANK=x; export RANK'
vg rank-exec-bad-rank 4 "$B/kp-rank-exec" -- ncu -- true
PREP='KP_FAKE_NCU_DIR=$F; export KP_FAKE_NCU_DIR'
vg collect-import 0 "$B/kp-collect" --import "$F/full.ncu-rep" --ncu-bin "$top/tests/bin/ncu" --output-dir p
vg collect-import-nomatch 5 "$B/kp-collect" --import "$F/full.ncu-rep" --ncu-bin "$top/tests/bin/ncu" --kernel-name nope --output-dir p
vg collect-import-missing 3 "$B/kp-collect" --import nothere.ncu-rep --ncu-bin "$top/tests/bin/ncu"
PREP='KP_FAKE_NCU_DIR=$FIX/h200/hgemm_v0_basic_import; export KP_FAKE_NCU_DIR; echo x >bad.ncu-rep'
vg collect-import-basic 0 "$B/kp-collect" --import "$FIX/h200/hgemm_v0_basic_import/basic.ncu-rep" --ncu-bin "$top/tests/bin/ncu" --output-dir p
vg collect-import-bad-report 3 "$B/kp-collect" --import bad.ncu-rep --ncu-bin "$top/tests/bin/ncu" --output-dir p
PREP="$target"'; KP_FAKE_NCU_DIR=$FIX/h200/gemm_discovery'
vg discover 0 "$B/kp-discover" profile/t/profile-target.yaml
# the live captures of 2026-12-03 (tests/fixtures/live/README.md): an import of a
# full report, and a PyTorch kernel whose name is 1110 bytes, on rank 1 of a job
L=$FIX/live
PREP='KP_FAKE_NCU_DIR=$L/zoo_import; export KP_FAKE_NCU_DIR'
vg collect-import-zoo 0 "$B/kp-collect" --import "$L/zoo_import/x.ncu-rep" --ncu-bin "$top/tests/bin/ncu" --kernel-name zoo_smem_column --output-dir p
vg hotspots-long-kernel 0 "$B/kp-hotspots" -o out.csv "$L/ddp_gloo/rank1/source_sass.csv"
vg hotspots-long-kernel-no-lineinfo 8 "$B/kp-hotspots" -o out.csv "$L/ddp_gloo/rank1/source_cuda_sass.csv"
PREP='KP_FAKE_NCU_DIR=$L/ddp_gloo/rank1; export KP_FAKE_NCU_DIR; kp-gentarget --target-cmd true --launcher "fake-launcher -n 2" --ranks 1 --kernel elementwise --launch-skip 1 --launch-count 1 --profile-id t >/dev/null 2>&1'
vg collect-rank1-long-kernel 0 "$B/kp-collect" --stages auto profile/t/profile-target.yaml
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
