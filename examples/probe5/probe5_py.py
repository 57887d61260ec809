#!/usr/bin/env python3
"""probe5_py: held-out Python workloads for kp (see probe5.tsv).

  tl_dot_fp16  Triton: a 4096^3 fp16 matrix product with tl.dot (tensor cores)
  emb_gather   F.embedding: 65,536 random rows of a 262,144 x 256 fp32 table
  gelu_bf16    F.gelu (erf form) on an 8192^2 bf16 tensor (PyTorch's own kernel)

Usage: python3 probe5_py.py WHAT [--iters N]
"""
import sys

import torch
import torch.nn.functional as F


def tl_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def p5_tl_dot_fp16(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))

    return p5_tl_dot_fp16


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    if what == "tl_dot_fp16":
        dot = tl_kernels()
        n = 4096
        a = torch.randn(n, n, dtype=torch.float16).to(dev)
        b = torch.randn(n, n, dtype=torch.float16).to(dev)
        c = torch.empty(n, n, dtype=torch.float16, device=dev)
        grid = (n // 128, n // 128)
        run = lambda: dot[grid](a, b, c, n, n, n, BM=128, BN=128, BK=64, num_warps=8,
                                num_stages=3)
    elif what == "emb_gather":
        w = torch.randn(262144, 256).to(dev)
        idx = torch.randint(0, 262144, (65536,)).to(dev)
        run = lambda: F.embedding(idx, w)
    elif what == "gelu_bf16":
        x = torch.randn(8192, 8192).to(dev).to(torch.bfloat16)
        run = lambda: F.gelu(x)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for _ in range(iters + 1):
        run()
    torch.cuda.synchronize()
    print("probe5_py %s: done" % what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
