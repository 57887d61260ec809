#!/bin/sh
# device-run.sh SET ...: one device call (run from the repository root, kp's
# static binaries in bin/) for each held-out set named (examples/SET/SET.tsv):
# kp-profile on every workload (run-zoo.sh, ZOO_S seconds at most a set),
# then ncu's own guided analysis (ncu-details.sh, NCU_S seconds a set), all
# packed into $OUT/SET.tgz so the profiles come back as one file; the
# tables print last.
export PATH=$PWD/bin:/usr/local/cuda/bin:$PATH
for s in "$@"; do
	o=/tmp/dev-$s
	ZOO_TSV=$PWD/examples/$s/$s.tsv timeout "${ZOO_S:-200}" \
		sh examples/zoo/run-zoo.sh "$o" > "$OUT/$s-zoo.txt" 2>&1
done
for s in "$@"; do
	o=/tmp/dev-$s
	ZOO_TSV=$PWD/examples/$s/$s.tsv timeout "${NCU_S:-60}" \
		sh examples/zoo/ncu-details.sh "$o" > "$OUT/$s-ncu.txt" 2>&1
	tar czf "$OUT/$s.tgz" -C "$o" prof ncu table.txt 2>/dev/null
done
for s in "$@"; do
	echo "== $s"; cat "/tmp/dev-$s/table.txt"
done
