#!/usr/bin/env python3
"""zoo_triton: two Triton kernels with known bottlenecks, for kp's zoo.

  zoo_tl_add      c = a + b over 64 Mi fp32 elements: DRAM bandwidth (roofline)
  zoo_tl_gather   reads a column of a row-major matrix (stride 67 floats per
                  lane): uncoalesced loads, one sector used per request
  zoo_tl_softmax  row softmax of a 16384x1024 fp32 matrix (exp on the XU pipe,
                  a reduction per row): memory bound

Usage: python3 zoo_triton.py KERNEL [--iters N]
"""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def zoo_tl_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=m) + tl.load(b_ptr + offs, mask=m), mask=m)


@triton.jit
def zoo_tl_gather(a_ptr, c_ptr, rows, stride, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = r < rows
    x = tl.load(a_ptr + r * stride, mask=m)
    tl.store(c_ptr + r, x * 2.0, mask=m)


@triton.jit
def zoo_tl_softmax(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=m)


def main():
    k = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    if k == "zoo_tl_add":
        n = 1 << 26
        a, b = torch.rand(n, device=dev), torch.rand(n, device=dev)
        c = torch.empty_like(a)
        run = lambda: zoo_tl_add[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)
    elif k == "zoo_tl_gather":
        stride = 67
        a = torch.rand(1 << 26, device=dev)
        rows = (a.numel() - 1) // stride
        c = torch.empty(rows, device=dev)
        run = lambda: zoo_tl_gather[(triton.cdiv(rows, 256),)](a, c, rows, stride, BLOCK=256)
    elif k == "zoo_tl_softmax":
        x = torch.randn(16384, 1024, device=dev)
        y = torch.empty_like(x)
        run = lambda: zoo_tl_softmax[(16384,)](x, y, 1024, BLOCK=1024)
    else:
        print("usage: zoo_triton.py zoo_tl_add|zoo_tl_gather|zoo_tl_softmax [--iters N]", file=sys.stderr)
        return 2
    for _ in range(iters + 1):
        run()
    torch.cuda.synchronize()
    print(f"zoo_triton {k}: {iters + 1} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
