#!/bin/sh
# run-zoo.sh OUTDIR [NAME ...]: on a GPU host, build the zoo and run
# `kp-profile --stages auto` on each workload of zoo.tsv (kp's programs on
# PATH).  ZOO_TSV=FILE takes the workloads from another table (the held-out
# set: examples/probe/probe.tsv); the .cu and .py files beside it are built
# and copied.  Prints one line per workload, then the table: expected class, kp's
# primary class, the busiest unit, seconds.  Each profile stays in
# OUTDIR/prof/NAME.
#
# ZOO_REPLAY=FIXDIR replays instead, with no GPU: nothing is built, and
# tests/bin/ncu answers each workload from the stage files a run left in
# FIXDIR/NAME/ (to-fixture.sh); a workload without them is skipped.  With an
# earlier build first on PATH that scores the same captures by the rules that
# ran before a change (a held-out set's score before and after).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run-zoo.sh OUTDIR [NAME ...]}; shift
tsv=${ZOO_TSV:-$here/zoo.tsv}
src=$(cd "$(dirname "$tsv")" && pwd)
replay=${ZOO_REPLAY:-}
mkdir -p "$out/build" "$out/prof" || exit 1
out=$(cd "$out" && pwd)
if [ -n "$replay" ]; then
	replay=$(cd "$replay" && pwd) || exit 1
	PATH=$PATH:$here/../../tests/bin
else
	for cu in "$src"/*.cu; do
		b=$out/build/$(basename "$cu" .cu)
		[ -x "$b" ] || nvcc -O3 -lineinfo -arch=sm_90 -o "$b" "$cu" || exit 1
	done
	cp "$src"/*.py "$out/build/"
fi
want=" $* "
printf '%-17s %-28s %-28s %-5s %-7s %s\n' name expected kp ok seconds busiest > "$out/table.txt"
grep -v '^#' "$tsv" | while IFS='	' read -r name cmd re expect unit; do
	[ "$want" = "  " ] || case $want in *" $name "*) ;; *) continue ;; esac
	if [ -n "$replay" ]; then
		[ -f "$replay/$name/basic_raw.csv" ] ||
		    { echo "run-zoo.sh: no $replay/$name/basic_raw.csv" >&2; continue; }
		KP_FAKE_NCU_DIR=$replay/$name
		export KP_FAKE_NCU_DIR
	fi
	cd "$out/build" || exit 1
	rm -rf "$out/prof/$name"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	kp-profile --kernel "$re" --requirement "source, bottleneck rules" --stages auto \
		--clock-control none --launch-skip 1 --launch-count 1 --output-root "$out/prof" \
		--profile-id "$name" --no-plot -- $cmd > "$out/prof/$name.log" 2>&1 </dev/null
	rc=$?
	t1=$(date +%s.%N)
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("primary") or "none")' \
		"$out/prof/$name/details/bottleneck_decision.json" 2>/dev/null || echo "rc=$rc")
	bu=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])).get("busiest_unit") or {}; print("%s:%s" % (d.get("unit","-"), d.get("pct","-")))' \
		"$out/prof/$name/details/bottleneck_decision.json" 2>/dev/null || echo -)
	ok=no; [ "$got" = "$expect" ] && ok=yes; [ "$expect" = - ] && ok=-
	printf '%-17s %-28s %-28s %-5s %-7.1f %s\n' "$name" "$expect" "$got" "$ok" \
		"$(awk "BEGIN{print $t1 - $t0}")" "$bu" >> "$out/table.txt"
	tail -1 "$out/table.txt"
done
cat "$out/table.txt"
