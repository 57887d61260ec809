#!/usr/bin/env python3
"""probe2_py: held-out Python workloads for kp (see probe2.tsv).

  sgemm      torch.matmul of two 4096x4096 fp32 matrices, TF32 off (cuBLAS)
  softmax    torch.softmax over the rows of an 8192x8192 fp32 matrix
  tl_column  Triton: each program reads one column of a row-major matrix

Usage: python3 probe2_py.py WHAT [--iters N]
"""
import sys

import torch


def tl_column_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def p2_tl_column(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
        col = tl.program_id(0)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for r0 in range(0, rows, BLOCK):
            r = r0 + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + r * cols + col, mask=r < rows, other=0.0)
        tl.store(out_ptr + col, tl.sum(acc))

    return p2_tl_column


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    if what == "sgemm":
        torch.backends.cuda.matmul.allow_tf32 = False
        a = torch.randn(4096, 4096, device=dev)
        b = torch.randn(4096, 4096, device=dev)
        run = lambda: torch.matmul(a, b)
    elif what == "softmax":
        x = torch.randn(8192, 8192, device=dev)
        run = lambda: torch.softmax(x, dim=1)
    elif what == "tl_column":
        k = tl_column_kernel()
        rows, cols = 8192, 4096
        x = torch.randn(rows, cols, device=dev)
        out = torch.empty(cols, device=dev)
        run = lambda: k[(cols,)](x, out, rows, cols, BLOCK=256)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for _ in range(iters + 1):
        run()
    torch.cuda.synchronize()
    print(f"probe2_py {what}: {iters + 1} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
