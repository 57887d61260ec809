#!/usr/bin/env python3
"""torch_mix: a small bf16 transformer-block-like PyTorch workload for kp.

Each iteration runs one pre-norm transformer block in eager mode:
  layer norm -> QKV linear -> Q@K^T -> softmax -> P@V -> output linear -> residual add
  layer norm -> linear -> GELU -> linear -> residual add
so a run launches many different kernels (cuBLAS/cuBLASLt GEMMs, layer norm,
softmax, elementwise).  It is meant for testing kernel discovery, not for
speed: attention is written out by hand (no fused SDPA) so the softmax and the
batched GEMMs show up as their own kernels.

Usage: python3 torch_mix.py [--iters N] [--batch B] [--seq T] [--dim D] [--heads H]
"""

import argparse
import sys
import time

import torch
import torch.nn.functional as F


def positive_int(s: str) -> int:
    v = int(s)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {s!r}")
    return v


class Block(torch.nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.ln2 = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, 4 * dim)
        self.fc2 = torch.nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        H = self.heads
        hd = D // H

        h = self.ln1(x)
        q, k, v = self.qkv(h).split(D, dim=-1)
        q = q.view(B, T, H, hd).transpose(1, 2)  # B, H, T, hd
        k = k.view(B, T, H, hd).transpose(1, 2)
        v = v.view(B, T, H, hd).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) * (hd ** -0.5)
        p = F.softmax(scores, dim=-1)
        o = torch.matmul(p, v).transpose(1, 2).reshape(B, T, D)
        x = x + self.proj(o)

        h = self.ln2(x)
        h = F.gelu(self.fc1(h))
        return x + self.fc2(h)


def main() -> int:
    ap = argparse.ArgumentParser(description="bf16 transformer-block workload")
    ap.add_argument("--iters", type=positive_int, default=20)
    ap.add_argument("--batch", type=positive_int, default=8)
    ap.add_argument("--seq", type=positive_int, default=256)
    ap.add_argument("--dim", type=positive_int, default=1024)
    ap.add_argument("--heads", type=positive_int, default=16)
    args = ap.parse_args()

    if args.dim % args.heads:
        print("torch_mix: --dim must be a multiple of --heads", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_mix: no CUDA device available", file=sys.stderr)
        return 1

    torch.manual_seed(0)
    dev = torch.device("cuda")
    block = Block(args.dim, args.heads).to(device=dev, dtype=torch.bfloat16).eval()
    x = torch.randn((args.batch, args.seq, args.dim), device=dev, dtype=torch.bfloat16)

    t0 = time.perf_counter()
    with torch.inference_mode():
        y = x
        for _ in range(args.iters):
            y = block(x)
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0

    if not torch.isfinite(y).all().item():
        print("torch_mix: output is not finite", file=sys.stderr)
        return 1
    print(f"torch_mix done iters={args.iters} {elapsed:.3f} s "
          f"({1e3 * elapsed / args.iters:.3f} ms/iter)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
