#!/usr/bin/env python3
"""probe3_py: held-out Python workloads for kp (see probe3.tsv).

  cumsum       torch.cumsum over 64 Mi fp32 values (CUB's device scan)
  index_add    torch.index_add_ of 16 Mi fp32 values into 64 slots
  sdpa         scaled_dot_product_attention, fp16, 8x16 heads, 2048 x 64
  tl_dot_ieee  Triton: a 2048^3 fp32 matrix product with tl.dot in IEEE fp32
  tl_exp2      Triton: 64 rounds of exp2 and rsqrt per element

Usage: python3 probe3_py.py WHAT [--iters N]
"""
import sys

import torch


def tl_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def p3_tl_dot_ieee(a_ptr, b_ptr, c_ptr, n, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, n, BK):
            a = tl.load(a_ptr + rm[:, None] * n + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * n + rn[None, :])
            acc += tl.dot(a, b, input_precision="ieee")
        tl.store(c_ptr + rm[:, None] * n + rn[None, :], acc)

    @triton.jit
    def p3_tl_exp2(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n, other=1.0)
        for _ in range(64):
            x = tl.exp2(x * 0.25) * 0.5 + tl.math.rsqrt(x * x + 1.0)
        tl.store(out_ptr + i, x, mask=i < n)

    return p3_tl_dot_ieee, p3_tl_exp2


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    if what == "cumsum":
        x = torch.randn(1 << 26, device=dev)
        run = lambda: torch.cumsum(x, 0)
    elif what == "index_add":
        src = torch.randn(1 << 24, device=dev)
        idx = torch.randint(0, 64, (1 << 24,), device=dev)
        out = torch.zeros(64, device=dev)
        run = lambda: out.index_add_(0, idx, src)
    elif what == "sdpa":
        q, k, v = (torch.randn(8, 16, 2048, 64, device=dev, dtype=torch.float16)
                   for _ in range(3))
        run = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)
    elif what == "tl_dot_ieee":
        dot, _ = tl_kernels()
        n = 2048
        a = torch.randn(n, n, device=dev)
        b = torch.randn(n, n, device=dev)
        c = torch.empty(n, n, device=dev)
        run = lambda: dot[(n // 64, n // 64)](a, b, c, n, BM=64, BN=64, BK=32)
    elif what == "tl_exp2":
        _, ex = tl_kernels()
        n = 1 << 24
        x = torch.rand(n, device=dev)
        out = torch.empty(n, device=dev)
        run = lambda: ex[(n // 1024,)](x, out, n, BLOCK=1024)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for _ in range(iters + 1):
        run()
    torch.cuda.synchronize()
    print(f"probe3_py {what}: {iters + 1} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
