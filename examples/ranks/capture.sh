#!/bin/sh
# capture.sh OUTDIR: on a GPU host, record what ncu prints for one rank of a
# 2-rank torchrun job (gloo, both ranks on cuda:0), profiled by hand: rank 1
# runs under ncu (--set basic, raw page to a log file), rank 0 runs plain.
# The ground truth for kp's launcher support; prints a summary last.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: capture.sh OUTDIR}
mkdir -p "$out"
cp "$here/ddp_gloo.py" "$out/"
cd "$out" || exit 1
tr=${TORCHRUN:-torchrun}
t0=$(date +%s.%N)
$tr --nproc-per-node 2 --no-python sh -c '
if [ "$RANK" = 1 ]; then
	exec ncu --set basic --csv --page raw --log-file rank1_basic_raw.csv \
		--kernel-name-base demangled -k regex:.*elementwise.* --launch-skip 1 \
		--launch-count 1 --clock-control none python3 ddp_gloo.py --steps 4
else
	exec python3 ddp_gloo.py --steps 4
fi' > job.stdout 2> job.stderr
echo "rc=$?" >> job.stderr
t1=$(date +%s.%N)
env | grep -E '^(RANK|LOCAL_RANK|WORLD_SIZE)=' > /dev/null
$tr --nproc-per-node 2 --no-python sh -c 'env | grep -E "^(RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|GROUP_RANK|ROLE_RANK|MASTER_ADDR|MASTER_PORT|TORCHELASTIC_RUN_ID)=" | sort > env_rank$RANK.txt' 2>/dev/null
printf 'job %.1f s, %s\n' "$(awk "BEGIN{print $t1 - $t0}")" "$(tail -1 job.stderr)"
grep -c '^"' rank1_basic_raw.csv 2>/dev/null | sed 's/^/rank1 csv rows: /'
cat job.stdout
