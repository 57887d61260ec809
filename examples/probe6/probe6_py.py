#!/usr/bin/env python3
"""probe6_py: held-out Python workloads for kp (see probe6.tsv).

  tl_layernorm  Triton: LayerNorm of 8192 rows of 8192 fp32, one row a program
  int8_mm       torch._int_mm: an 8192^3 int8 matrix product (cuBLASLt, IMMA)
  tl_fp64_poly  Triton: 512 fp64 multiply-adds an element over 16 Mi doubles

Usage: python3 probe6_py.py WHAT [--iters N]
"""
import sys

import torch


def tl_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def p6_tl_layernorm(x_ptr, y_ptr, w_ptr, b_ptr, n, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        m = cols < n
        x = tl.load(x_ptr + row * n + cols, mask=m, other=0.0)
        mean = tl.sum(x, axis=0) / n
        d = tl.where(m, x - mean, 0.0)
        var = tl.sum(d * d, axis=0) / n
        w = tl.load(w_ptr + cols, mask=m)
        b = tl.load(b_ptr + cols, mask=m)
        tl.store(y_ptr + row * n + cols, d * tl.rsqrt(var + eps) * w + b, mask=m)

    @triton.jit
    def p6_tl_fp64_poly(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        x = tl.load(x_ptr + i, mask=m, other=0.0)
        a = x
        for _ in range(ITERS):
            a = a * 0.999 + x
        tl.store(y_ptr + i, a, mask=m)

    return p6_tl_layernorm, p6_tl_fp64_poly


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    if what == "tl_layernorm":
        ln, _ = tl_kernels()
        n = 8192
        x = torch.randn(n, n).to(dev)
        y = torch.empty_like(x)
        w = torch.ones(n, device=dev)
        b = torch.zeros(n, device=dev)
        run = lambda: ln[(n,)](x, y, w, b, n, 1e-5, BLOCK=8192, num_warps=16)
    elif what == "int8_mm":
        n = 8192
        a = torch.randint(-8, 8, (n, n), dtype=torch.int8).to(dev)
        b = torch.randint(-8, 8, (n, n), dtype=torch.int8).to(dev)
        run = lambda: torch._int_mm(a, b)
    elif what == "tl_fp64_poly":
        _, poly = tl_kernels()
        n = 1 << 24
        x = torch.rand(n, dtype=torch.float64).to(dev)
        y = torch.empty_like(x)
        run = lambda: poly[(n // 256,)](x, y, n, ITERS=512, BLOCK=256, num_warps=4)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for _ in range(iters + 1):
        run()
    torch.cuda.synchronize()
    print("probe6_py %s: done" % what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
