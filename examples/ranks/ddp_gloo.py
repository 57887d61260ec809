#!/usr/bin/env python3
"""ddp_gloo: a small data-parallel job for profiling one rank of a launcher.

Each rank runs, per step, an fp32 matmul and an elementwise kernel on cuda:0
(both ranks share the one GPU), then all-reduces a vector over gloo.  Run as
    torchrun --nproc-per-node 2 ddp_gloo.py [--steps N]
"""
import sys

import torch
import torch.distributed as dist


def main():
    steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 4
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    dev = torch.device("cuda", 0)
    torch.manual_seed(rank)
    a = torch.randn(2048, 2048, device=dev)
    b = torch.randn(2048, 2048, device=dev)
    t = torch.zeros(1024, device=dev)
    for _ in range(steps):
        c = a @ b
        d = torch.relu(c) * 0.5
        t += d[0, :1024]
        dist.all_reduce(t)
    torch.cuda.synchronize()
    print(f"ddp_gloo rank {rank}: {steps} steps, t[0]={t[0].item():.3f}")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
