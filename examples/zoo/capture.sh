#!/bin/sh
# capture.sh OUTDIR [NAME ...]: on a GPU host, build the zoo and record, for each
# workload of zoo.tsv, one `ncu --set full --import-source yes` report exported
# as the raw, details and source (cuda,sass and sass) pages: the ground truth
# that kp's verdicts are checked against.  Prints a table last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: capture.sh OUTDIR [NAME ...]}; shift
ncu=${NCU:-ncu}
mkdir -p "$out/build"
nvcc -O3 -lineinfo -arch=sm_90 -o "$out/build/zoo" "$here/zoo.cu" || exit 1
cp "$here"/*.py "$out/build/"
want=" $* "
printf '%-18s %-7s %s\n' name seconds kernel > "$out/table.txt"
grep -v '^#' "$here/zoo.tsv" | while IFS='	' read -r name cmd re expect unit; do
	[ "$want" = "  " ] || case $want in *" $name "*) ;; *) continue ;; esac
	d=$out/$name; mkdir -p "$d"
	cd "$out/build" || exit 1
	if [ "$re" = auto ]; then	# the longest kernel of the workload
		$ncu --metrics gpu__time_duration.sum --csv --page raw --kernel-name-base demangled \
			$cmd > "$d/discovery_raw.csv" 2> "$d/discovery.stderr" </dev/null
		re=$(python3 "$here/longest.py" "$d/discovery_raw.csv")
	fi
	t0=$(date +%s.%N)
	$ncu --set full --import-source yes -o "$d/full" -f --kernel-name-base demangled \
		-k "regex:$re" --launch-skip 1 --launch-count 1 --clock-control none \
		$cmd > "$d/full_rep.stdout" 2> "$d/full_rep.stderr" </dev/null
	echo "rc=$?" >> "$d/full_rep.stderr"
	t1=$(date +%s.%N)
	$ncu --import "$d/full.ncu-rep" --csv --page raw > "$d/full_raw.csv" 2>&1
	$ncu --import "$d/full.ncu-rep" --csv --page details > "$d/full_details.csv" 2>&1
	$ncu --import "$d/full.ncu-rep" --csv --page source --print-source cuda,sass > "$d/source_cuda_sass.csv" 2>&1
	$ncu --import "$d/full.ncu-rep" --csv --page source --print-source sass > "$d/source_sass.csv" 2>&1
	rm -f "$d/full.ncu-rep"
	printf '%-18s %-7.1f %s\n' "$name" "$(awk "BEGIN{print $t1 - $t0}")" "$re" >> "$out/table.txt"
done
cat "$out/table.txt"
