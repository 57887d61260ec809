#!/bin/sh
# tests/bench/gen.sh FIXTURE MB KERNELS OUT: a raw page of about MB megabytes
# made of FIXTURE's real launch rows (header and units once, then its rows in
# turn, each with a fresh ID).  KERNELS 0 keeps the rows' own kernel names
# (torch_mix: 15 kernels); N > 0 renames row i's kernel to one of N distinct
# names (i mod N); 1 also keeps only the rows of FIXTURE's first kernel, so the
# file is one kernel's many launches.  MB "Nl" asks for N launches instead.
fix=$1 mb=$2 nk=$3 out=$4
nl=0
case $mb in *l) nl=${mb%l} mb=0 ;; esac
LC_ALL=C
export LC_ALL
grep '^"' "$fix" | head -2 > "$out" || exit 4
grep '^"' "$fix" | sed '1,2d' | awk -v mb="$mb" -v nl="$nl" -v nk="$nk" '
{ t[n++] = $0 }
END {
	# split each row at its kernel name (the 5th field): pre NAME post
	for (j = 0; j < n; j++) {
		s = t[j]; p = ""
		for (f = 0; f < 4; f++) { i = index(s, "\",\""); p = p substr(s, 1, i + 2); s = substr(s, i + 3) }
		i = index(s, "\",\""); name[j] = substr(s, 1, i - 1); post[j] = substr(s, i)
		sub(/^"[0-9]*"/, "", p); pre[j] = p
		bytes += length(t[j]) + 1
	}
	if (nk == 1) {		# the first kernel rows only
		m = 0
		for (j = 0; j < n; j++) if (name[j] == name[0]) { pre[m] = pre[j]; post[m] = post[j]; name[m++] = name[0] }
		n = m
	}
	want = mb * 1048576; got = 0
	for (i = 0; nl > 0 ? i < nl : got < want; i++) {
		j = i % n
		k = nk > 1 ? sprintf("void kp_bench_kernel_%04d<%d>(int, T2, T3)", i % nk, i % nk) : name[j]
		line = "\"" i "\"" pre[j] k post[j]
		print line
		got += length(line) + 1
	}
}' >> "$out"
