#!/bin/sh
# kp-profile: the whole kp pipeline in one command (see kp-profile(1)):
#   kp-gentarget | kp-collect | kp-hotspots | kp-decide | kp-report | kp-plot
# Each step is a separate kp program; this script only chains them and prints one
# JSONL record.  With --import REPORT an existing .ncu-rep is analysed instead:
#   kp-collect --import | kp-hotspots | kp-decide | kp-plot | kp-report
# A failed collection stops it with kp-collect's exit status; after a successful
# one every later step degrades (the report says what is missing).
version=@VERSION@
prog=kp-profile

usage() {
	cat <<USAGE
usage: kp-profile [--kernel NAME] [--requirement TEXT] [--stages LIST] [--runtime RUNTIME]
                  [--output-root DIR] [--profile-id ID] [--clock-control base | none]
                  [--privilege-mode none | full_sudo] [--ncu-bin PATH] [--launch-skip N]
                  [--launch-count N] [--launcher CMD] [--ranks LIST] [--no-plot]
                  [--no-decide] -- COMMAND [ARG ...]
       kp-profile --demo [--output-root DIR] [--clock-control base | none]
       kp-profile --import REPORT [--kernel NAME] [--output-root DIR] [--profile-id ID]
                  [--ncu-bin PATH] [--launch-skip N] [--launch-count N] [--no-plot]
                  [--no-decide]
       kp-profile -h | --help | --version
USAGE
}

# --help, --version: what every kp program does, a failed write to stdout exits 4
answer() {
	"$@" || { echo "$prog: write error on standard output" >&2; exit 4; }
	exit 0
}

# answered before anything forks: agents call --version in loops
case ${1-} in
--version) [ $# -eq 1 ] && answer echo "kp-profile (kp) $version" ;;
-h | --help) [ $# -eq 1 ] && answer usage ;;
esac

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
top=$(CDPATH= cd -- "$here/.." && pwd)
PATH=$here:$PATH
export PATH

die() {
	status=$1
	shift
	echo "$prog: $*" >&2
	exit "$status"
}

kernel= stages=auto demo= plot=1 decide=1 ncu=
import= root= id= skip= count= live_opt=
set_gen=
add() {	# append one word, quoted, to the kp-gentarget arguments
	q=$(printf '%s' "$1" | sed "s/'/'\\\\''/g")
	set_gen="$set_gen '$q'"
}
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) answer usage ;;
	--version) answer echo "kp-profile (kp) $version" ;;
	--demo) demo=1 ;;
	--import) [ $# -ge 2 ] || { usage >&2; exit 2; }; import=$2; shift ;;
	--no-plot) plot=0 ;;
	--no-decide) decide=0 ;;
	--stages) [ $# -ge 2 ] || { usage >&2; exit 2; }; stages=$2; live_opt=$1; shift ;;
	--ncu-bin) [ $# -ge 2 ] || { usage >&2; exit 2; }; ncu=$2; add "$1"; add "$2"; shift ;;
	--kernel) [ $# -ge 2 ] || { usage >&2; exit 2; }; kernel=$2; add "$1"; add "$2"; shift ;;
	--output-root | --profile-id | --launch-skip | --launch-count)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		case $1 in
		--output-root) root=$2 ;;
		--profile-id) id=$2 ;;
		--launch-skip) skip=$2 ;;
		--launch-count) count=$2 ;;
		esac
		add "$1"; add "$2"; shift ;;
	--requirement | --runtime | --clock-control | --privilege-mode | --workdir | --env | \
	--launcher | --ranks | \
	--extra-profiler-option)
		[ $# -ge 2 ] || { usage >&2; exit 2; }
		live_opt=$1
		add "$1"; add "$2"; shift ;;
	--) shift; break ;;
	-*) echo "$prog: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done

# After a successful collection no step stops the pipeline: a step that fails
# is named on stderr and in the record's "degraded" list, and the report says
# what is missing and why (kp-hotspots exit 8: the kernel has no lineinfo).
degraded=
step() {	# run one pipeline program on the record; note a failure, go on
	name=$1
	shift
	printf '%s\n' "$rec" | "$name" "$@" >/dev/null
	st=$?
	[ "$st" -eq 0 ] && return 0
	case $name:$st in
	kp-hotspots:8) echo "$prog: no source hotspots: the kernel has no lineinfo and no SASS page was collected; going on" >&2 ;;
	*) echo "$prog: $name failed (exit $st); going on without it; profile folder $dir" >&2 ;;
	esac
	degraded="$degraded${degraded:+,}\"$name (exit $st)\""
	return "$st"
}

# The picture (before the report, so that the report links it), the report,
# and the record on stdout.
finish() {
	plotted=false
	if [ "$plot" = 1 ]; then
		printf '%s\n' "$rec" | kp-plot >/dev/null
		st=$?
		case $st in
		0) plotted=true ;;
		4) echo "$prog: no picture: gnuplot is not installed (apt-get install gnuplot-nox)" >&2 ;;
		*) echo "$prog: kp-plot failed (exit $st); going on without a picture" >&2
		   degraded="$degraded${degraded:+,}\"kp-plot (exit $st)\"" ;;
		esac
	fi
	# the report is the end product: without it the run failed
	printf '%s\n' "$rec" | kp-report >/dev/null
	st=$?
	[ "$st" -eq 0 ] || { echo "$prog: kp-report failed (exit $st); profile folder $dir" >&2; exit "$st"; }
	echo "$prog: report $dir/final_report.md" >&2
	esc=$(printf '%s' "$dir" | sed 's/\\/\\\\/g; s/"/\\"/g')
	printf '{"degraded":[%s],"kind":"profile","plot":%s,"profile_dir":"%s","report":"%s/final_report.md"}\n' \
		"$degraded" "$plotted" "$esc" "$esc"
	exit 0
}

# --import REPORT: an existing report, no target run and no GPU (kp-collect(1)).
if [ -n "$import" ]; then
	[ -z "$demo" ] || die 2 "--import and --demo exclude each other"
	[ -z "$live_opt" ] || die 2 "--import reads a report, it runs no target: $live_opt does not apply"
	[ $# -eq 0 ] || die 2 "--import takes no command"
	set --
	[ -n "$ncu" ] && set -- "$@" --ncu-bin "$ncu"
	[ -n "$kernel" ] && set -- "$@" --kernel-name "$kernel"
	[ -n "$skip" ] && set -- "$@" --launch-skip "$skip"
	[ -n "$count" ] && set -- "$@" --launch-count "$count"
	if [ -n "$root" ] || [ -n "$id" ]; then
		if [ -z "$id" ]; then	# the label, else the report's name, then the UTC time
			id=${kernel:-$(basename -- "$import" .ncu-rep)}
			id=$(printf '%s' "$id" | tr -c 'A-Za-z0-9_.-' '_')_$(date -u +%Y%m%d_%H%M%S)
		fi
		set -- "$@" --output-dir "${root:-./profile}/$id"
	fi
	rec=$(kp-collect --import "$import" "$@" </dev/null)
	st=$?
	dir=$(printf '%s\n' "$rec" | sed -n 's/.*"profile_dir":"\([^"]*\)".*/\1/p')
	case $st in
	0) ;;
	5) echo "$prog: the kernel filter matched no launch of $import (kp-collect listed the kernels it holds)" >&2
	   exit 5 ;;
	*) exit "$st" ;;
	esac
	[ -n "$dir" ] || die 3 "kp-collect printed no profile_dir"
	# kp-hotspots when the report held Source Counters (kp-collect's record lists "source")
	case $rec in
	*'"stages":['*'"source"'*) step kp-hotspots ;;
	esac
	[ "$decide" = 1 ] && step kp-decide
	finish
fi

if [ -n "$demo" ]; then
	[ $# -eq 0 ] || die 2 "--demo takes no command"
	kernel=hgemm_byzj_v0
	add --kernel; add "$kernel"
	add --requirement; add "visual report, source, roofline, occupancy, bottleneck rules"
	if { command -v ncu >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ncu ]; } &&
	    nvidia-smi -L >/dev/null 2>&1 && command -v nvcc >/dev/null 2>&1 &&
	    [ -f "$top/examples/cuda/Makefile" ]; then
		echo "$prog: GPU found: building and profiling examples/cuda live" >&2
		make -s -C "$top/examples/cuda" >&2 || die 7 "cannot build examples/cuda"
		set -- "$top/examples/cuda/bench_gemm" --kernel v0 --iters 20
	else
		cap=$top/tests/fixtures/h200/hgemm_v0
		[ -x "$top/tests/bin/ncu" ] && [ -d "$cap" ] ||
			die 4 "--demo without a GPU needs the kp source tree (tests/bin/ncu and tests/fixtures)"
		echo "$prog: no GPU here: replaying the bundled H200 capture of $kernel" >&2
		# the stage passes were captured one section set each; a pass that
		# adds sections for the rules replays the capture's full set
		KP_FAKE_NCU_DIR=$cap KP_FAKE_NCU_EXTRA=full
		export KP_FAKE_NCU_DIR KP_FAKE_NCU_EXTRA
		add --ncu-bin; add "$top/tests/bin/ncu"
		set -- "$top/examples/cuda/bench_gemm" --kernel v0 --iters 20
	fi
fi
[ $# -gt 0 ] || { usage >&2; exit 2; }
[ -n "$kernel" ] || die 2 "--kernel NAME is required (run kp-discover to find one)"
add --executable; add "$1"
shift
if [ $# -gt 0 ]; then
	add --args
	for a in "$@"; do add "$a"; done
fi

eval "set -- $set_gen"
rec=$(kp-gentarget "$@") || exit $?
dir=$(printf '%s\n' "$rec" | sed -n 's/.*"profile_dir":"\([^"]*\)".*/\1/p')
[ -n "$dir" ] || die 3 "kp-gentarget printed no profile_dir"
target=$dir/profile-target.yaml

# Read a boolean under a top-level section of the target (written by libfyaml
# in block style: "section:" then "  key: value").
flag() {
	awk -v s="$1:" -v k="  $2:" '
		/^[^ ]/ { in_s = ($1 == s) }
		in_s && index($0, k) == 1 { sub(k, ""); gsub(/ /, ""); print; exit }
	' "$target"
}

printf '%s\n' "$rec" | kp-collect --stages "$stages" >/dev/null
st=$?
case $st in
0) ;;
5) echo "$prog: the kernel filter matched nothing: run 'kp-discover $target' to list the kernels" >&2
   exit 5 ;;
6) echo "$prog: ncu needs GPU counter permissions: follow the guide above, then run kp-profile again" >&2
   exit 6 ;;
*) exit "$st" ;;
esac
step kp-hotspots
if [ "$decide" = 1 ] && [ "$(flag analysis enable_bottleneck_decision_engine)" = true ]; then
	step kp-decide
fi
[ "$(flag visualization enabled)" = true ] || plot=0
finish
