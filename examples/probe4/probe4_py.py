#!/usr/bin/env python3
"""probe4_py: held-out Python workloads for kp (see probe4.tsv).

  dgemm           torch.matmul of two 4096^2 fp64 matrices (cuBLAS, closed source)
  transpose_copy  x.t().contiguous() of an 8192^2 fp32 matrix made on the host
  tl_atomic_few   Triton: every element added with tl.atomic_add into 4 slots

Usage: python3 probe4_py.py WHAT [--iters N]
"""
import sys

import torch


def tl_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def p4_tl_atomic_few(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n, other=0.0)
        tl.atomic_add(out_ptr + (i % 4), x, mask=i < n)

    return p4_tl_atomic_few


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    if what == "dgemm":
        a = torch.randn(4096, 4096, dtype=torch.float64).to(dev)
        b = torch.randn(4096, 4096, dtype=torch.float64).to(dev)
        run = lambda: torch.matmul(a, b)
    elif what == "transpose_copy":
        x = torch.randn(8192, 8192).to(dev)
        run = lambda: x.t().contiguous()
    elif what == "tl_atomic_few":
        few = tl_kernels()
        n = 1 << 24
        x = torch.rand(n).to(dev)
        out = torch.zeros(4).to(dev)
        run = lambda: few[(n // 1024,)](x, out, n, BLOCK=1024)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for _ in range(iters + 1):
        run()
    torch.cuda.synchronize()
    print("probe4_py %s: done" % what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
