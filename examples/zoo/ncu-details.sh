#!/bin/sh
# ncu-details.sh OUTDIR [NAME ...]: on a GPU host, after run-zoo.sh OUTDIR has
# built the workloads, record for each workload of the table (ZOO_TSV, as in
# run-zoo.sh) ncu's own guided analysis: `ncu --set full --page details --csv`
# on the same launch kp profiled, into OUTDIR/ncu/NAME_details.csv.  kp-decide
# --ncu-details FILE reads it; its first rule by estimated speedup is ncu's
# own answer to compare kp's verdict against.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: ncu-details.sh OUTDIR [NAME ...]}; shift
tsv=${ZOO_TSV:-$here/zoo.tsv}
ncu=${NCU:-ncu}
mkdir -p "$out/ncu"
want=" $* "
grep -v '^#' "$tsv" | while IFS='	' read -r name cmd re expect unit; do
	[ "$want" = "  " ] || case $want in *" $name "*) ;; *) continue ;; esac
	cd "$out/build" || exit 1
	k=$re; [ "$re" = auto ] && k=.
	# shellcheck disable=SC2086
	$ncu --set full --page details --csv --kernel-name-base demangled -k "regex:$k" \
		--launch-skip 1 --launch-count 1 --clock-control none \
		$cmd > "$out/ncu/${name}_details.csv" 2> "$out/ncu/$name.stderr" </dev/null
	echo "$name rc=$?"
done
