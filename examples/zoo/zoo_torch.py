#!/usr/bin/env python3
"""zoo_torch: library kernels (closed source, no lineinfo) for kp's zoo.

  gemm_bf16   torch.matmul of two 8192x8192 bf16 matrices (cuBLAS, tensor cores
              near their peak: a kernel at the tensor roofline)
  gemm_fp32   the same in fp32 with TF32 off (cuBLAS SGEMM on the FMA pipe)
  conv        a 3x3 fp16 convolution, N=64 C=256 H=W=56 (cuDNN)
  layernorm   torch.nn.functional.layer_norm of 65536x1024 fp32 (memory bound)

Usage: python3 zoo_torch.py WHAT [--iters N]
"""
import sys

import torch


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 3
    dev = "cuda"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if what == "gemm_bf16":
        a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
        b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
        run = lambda: torch.matmul(a, b)
    elif what == "gemm_fp32":
        a = torch.randn(4096, 4096, device=dev)
        b = torch.randn(4096, 4096, device=dev)
        run = lambda: torch.matmul(a, b)
    elif what == "conv":
        x = torch.randn(64, 256, 56, 56, device=dev, dtype=torch.float16)
        conv = torch.nn.Conv2d(256, 256, 3, padding=1).to(dev).half()
        run = lambda: conv(x)
    elif what == "layernorm":
        x = torch.randn(65536, 1024, device=dev)
        run = lambda: torch.nn.functional.layer_norm(x, (1024,))
    else:
        print("usage: zoo_torch.py gemm_bf16|gemm_fp32|conv|layernorm [--iters N]", file=sys.stderr)
        return 2
    with torch.no_grad():
        for _ in range(iters + 1):
            run()
    torch.cuda.synchronize()
    print(f"zoo_torch {what}: {iters + 1} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
