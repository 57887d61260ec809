// probe7: kernels that wait for other threads without a barrier, and
// kernels whose largest stall has a remedy of its own.  Written on
// 2026-12-08 after kp-decide learned to read membar and sleeping stalls as
// synchronization (sync_stall_share) and latency_bound's advice to follow
// its stall: so this set checks that the live metrics behave as those rules
// assume; it is no held-out test of them.  probe7.tsv names the class each
// should get, written before the first live run.
//
// Usage: probe7 KERNEL [--iters N]     (probe7 --list names the kernels)
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o probe7 probe7.cu

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "probe7: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// Each thread publishes a value and fences after every write, as a
// producer that hands each element to a reader on another SM would: the
// fence waits until the write is visible GPU-wide.
__global__ void p7_fence_per_write(float* __restrict__ out, int iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)threadIdx.x;
    for (int k = 0; k < iters; ++k) {
        v = fmaf(v, 1.0001f, 0.5f);
        out[i] = v;  // 16 MiB written again and again: L2 holds it
        __threadfence();
    }
}

// 64 rows of 32 counters, each row behind one spin lock: a warp takes the
// lock (lane 0's atomicCAS, its answer shared with the warp, so the whole
// warp spins and sleeps together), adds one to its row, fences, releases.
// Warps spend their time asleep waiting for the lock.
__global__ void p7_spin_lock(int* __restrict__ locks, float* __restrict__ bins, int iters)
{
    int lane = threadIdx.x & 31;
    unsigned s = blockIdx.x * 977u + (threadIdx.x >> 5) * 131u;
    for (int k = 0; k < iters; ++k) {
        s = s * 1664525u + 1013904223u;
        int b = (s >> 10) & 63;
        unsigned ns = 32;
        for (;;) {
            int got = 0;
            if (lane == 0)
                got = atomicCAS(&locks[b], 0, 1) == 0;
            if (__shfl_sync(0xffffffffu, got, 0))
                break;
            __nanosleep(ns);
            if (ns < 1024)
                ns *= 2;
        }
        __threadfence();
        bins[b * 32 + lane] += 1.0f;
        __threadfence();
        __syncwarp();
        if (lane == 0)
            atomicExch(&locks[b], 0);
    }
}

// A 16 KB __constant__ table read at an index that differs per lane: the
// constant cache serves one address a warp per pass, so a warp's 32
// addresses serialise.
__constant__ float p7_ctab[4096];
__global__ void p7_const_divergent(float* __restrict__ out, int iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = (unsigned)i * 2654435761u;
    float acc = 0.f;
    for (int k = 0; k < iters; ++k) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        acc += p7_ctab[s & 4095];
    }
    out[i] = acc;
}

// A chained hand-off: block b (one warp) waits for block b-1's flag, adds,
// then raises its own, like a decoupled look-back scan with no look-back.
// The whole warp polls the flag (one address) and sleeps between polls, so
// its lanes stay together; blocks spend their time asleep on the flag of
// the one before.
__global__ void p7_flag_chain(volatile int* flags, volatile float* vals)
{
    int b = blockIdx.x;
    if (b > 0)
        while (flags[b - 1] == 0)
            __nanosleep(64);
    __threadfence();
    float v = (b > 0 ? vals[b - 1] : 0.f) + 1.0f;
    if (threadIdx.x == 0)
        vals[b] = v;
    __threadfence();
    if (threadIdx.x == 0)
        flags[b] = 1;
}

// ---------------------------------------------------------------------------

static const char* names[] = {"fence_per_write", "spin_lock", "const_divergent", "flag_chain",
                              NULL};

int main(int argc, char** argv)
{
    const char* k = argc > 1 ? argv[1] : "";
    int iters = 3;
    for (int a = 2; a + 1 < argc; ++a)
        if (strcmp(argv[a], "--iters") == 0)
            iters = atoi(argv[a + 1]);
    if (strcmp(k, "--list") == 0) {
        for (int i = 0; names[i]; ++i)
            puts(names[i]);
        return 0;
    }
    int known = 0;
    for (int i = 0; names[i]; ++i)
        known |= strcmp(k, names[i]) == 0;
    if (!known) {
        fprintf(stderr, "usage: probe7 KERNEL [--iters N]; probe7 --list\n");
        return 2;
    }
    const size_t n = (size_t)1 << 25;  // 32 Mi floats, 128 MiB
    const int chain = 132 * 16;        // blocks in the flag chain: half a wave
    float* fa;
    int *locks, *flags;
    CK(cudaMalloc(&fa, n * sizeof(float)));
    CK(cudaMalloc(&locks, 64 * sizeof(int)));
    CK(cudaMalloc(&flags, chain * sizeof(int)));
    {
        float h[4096];
        for (int i = 0; i < 4096; ++i)
            h[i] = 1.0f / (float)(i + 1);
        CK(cudaMemcpyToSymbol(p7_ctab, h, sizeof h));
    }
    CK(cudaMemset(fa, 0, n * sizeof(float)));
    CK(cudaMemset(locks, 0, 64 * sizeof(int)));
    float total = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int it = 0; it <= iters; ++it) {
        CK(cudaMemset(flags, 0, chain * sizeof(int)));
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "fence_per_write"))
            p7_fence_per_write<<<(1 << 22) / 256, 256>>>(fa, 64);
        else if (!strcmp(k, "spin_lock"))
            p7_spin_lock<<<132 * 4, 256>>>(locks, fa, 64);
        else if (!strcmp(k, "const_divergent"))
            p7_const_divergent<<<(1 << 22) / 256, 256>>>(fa, 256);
        else if (!strcmp(k, "flag_chain"))
            // 2,112 one-warp blocks are all resident at once (32 blocks an
            // SM), so block b-1 runs while block b spins: no deadlock
            p7_flag_chain<<<chain, 32>>>(flags, fa);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("probe7 %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
