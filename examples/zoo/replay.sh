#!/bin/sh
# replay.sh FIXDIR OUTDIR [NAME ...]: a held-out set's verdicts again, with no
# GPU, from the stage files a run left (FIXDIR/NAME/, as to-fixture.sh wrote
# them): each workload of the table (ZOO_TSV, as in run-zoo.sh) goes through
# `kp-profile --stages auto` as run-zoo.sh ran it, with tests/bin/ncu
# replaying its captures.  The kp programs are the first found on PATH, so
#   PATH=/tmp/old/bin:$PATH sh examples/zoo/replay.sh FIX OUT
# scores the same captures with an earlier build (the held-out score of the
# rules that ran before a change).  Prints the table as run-zoo.sh does.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fix=${1:?usage: replay.sh FIXDIR OUTDIR [NAME ...]}
out=${2:?usage: replay.sh FIXDIR OUTDIR [NAME ...]}
shift 2
fix=$(cd "$fix" && pwd) || exit 1
tsv=${ZOO_TSV:-$here/zoo.tsv}
PATH=$PATH:$here/../../tests/bin
mkdir -p "$out/prof" || exit 1
out=$(cd "$out" && pwd)
want=" $* "
printf '%-19s %-28s %-28s %s\n' name expected kp ok > "$out/table.txt"
grep -v '^#' "$tsv" | while IFS='	' read -r name cmd re expect unit; do
	[ "$want" = "  " ] || case $want in *" $name "*) ;; *) continue ;; esac
	[ -f "$fix/$name/basic_raw.csv" ] || { echo "replay.sh: no $fix/$name/basic_raw.csv" >&2; continue; }
	rm -rf "$out/prof/$name"
	# shellcheck disable=SC2086
	(cd "$out" && KP_FAKE_NCU_DIR=$fix/$name kp-profile --kernel "$re" \
		--requirement "source, bottleneck rules" --stages auto --clock-control none \
		--launch-skip 1 --launch-count 1 --output-root "$out/prof" --profile-id "$name" \
		--no-plot -- $cmd > "$out/prof/$name.log" 2>&1 </dev/null)
	got=$(sed -n 's/^  *"primary": "\([a-z_]*\)".*/\1/p' \
		"$out/prof/$name/details/bottleneck_decision.json" 2>/dev/null | head -1)
	[ -n "$got" ] || got=none
	ok=no; [ "$got" = "$expect" ] && ok=yes
	printf '%-19s %-28s %-28s %s\n' "$name" "$expect" "$got" "$ok" >> "$out/table.txt"
done
cat "$out/table.txt"
