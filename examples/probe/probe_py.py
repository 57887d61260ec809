#!/usr/bin/env python3
"""probe_py: held-out Python workloads for kp (see probe.tsv).

  tl_hist     Triton: a 16-bin histogram with tl.atomic_add on global memory
  gemm_fp16   torch.matmul of two 4096x4096 fp16 matrices (cuBLAS)
  sum         torch.sum of 256 Mi fp32 elements (PyTorch's reduce kernel)
  gather      x[idx]: 16 Mi random 4-byte reads from a 256 MiB vector

Usage: python3 probe_py.py WHAT [--iters N]
"""
import sys

import torch


def tl_hist_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def probe_tl_hist(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x_ptr + offs, mask=m, other=0)
        tl.atomic_add(bins_ptr + (v & 15), 1, mask=m)

    return probe_tl_hist


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    if what == "tl_hist":
        k = tl_hist_kernel()
        n = 1 << 24
        x = torch.randint(0, 1 << 20, (n,), device=dev, dtype=torch.int32)
        bins = torch.zeros(16, device=dev, dtype=torch.int32)
        run = lambda: k[(n // 1024,)](x, bins, n, BLOCK=1024)
    elif what == "gemm_fp16":
        a = torch.randn(4096, 4096, device=dev, dtype=torch.float16)
        b = torch.randn(4096, 4096, device=dev, dtype=torch.float16)
        run = lambda: torch.matmul(a, b)
    elif what == "sum":
        x = torch.randn(1 << 28, device=dev)
        run = lambda: torch.sum(x)
    elif what == "gather":
        x = torch.randn(1 << 26, device=dev)
        idx = torch.randint(0, 1 << 26, (1 << 24,), device=dev)
        run = lambda: x[idx]
    else:
        print("usage: probe_py.py tl_hist|gemm_fp16|sum|gather [--iters N]", file=sys.stderr)
        return 2
    with torch.no_grad():
        for _ in range(iters + 1):
            run()
    torch.cuda.synchronize()
    print(f"probe_py {what}: {iters + 1} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
