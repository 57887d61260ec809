// probe6: a seventh held-out set of CUDA kernels, written on 2026-12-08 before
// any run and never used to tune the rules.  Each has one intended
// bottleneck; probe6.tsv names the class each should get, written before the
// first live run.  It leans on the classes the earlier sets tried least (L1
// throughput, bank conflicts, occupancy, a partial last wave) and on traps
// where a rule's premise shows but is not the cause (atomics spread over
// many words, barriers between equal work, a shared-memory stencil).
//
// Usage: probe6 KERNEL [--iters N]     (probe6 --list names the kernels)
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o probe6 probe6.cu

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "probe6: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// A 16 KB table read again and again, one float a lane, coalesced: every
// load hits L1, one FMA a load.  L1 serves it all.
__global__ void p6_l1_reuse(const float* __restrict__ tbl, float* __restrict__ out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int w = (threadIdx.x >> 5) * 97;
    float acc = 0.f;
    for (int k = 0; k < iters; ++k)
        acc = fmaf(acc, 0.999f, tbl[((k + w) * 32 + lane) & 4095]);
    out[i] = acc;
}

// A 32x32 float tile written by rows and read by columns, no padding: the 32
// lanes of a column read hit one bank.
__global__ void p6_smem_column(const float* __restrict__ in, float* __restrict__ out, int iters)
{
    __shared__ float tile[32][32];
    int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;  // 32 x 8
    size_t base = (size_t)blockIdx.x * 1024;
    for (int j = 0; j < 32; j += 8)
        tile[ty + j][tx] = in[base + (ty + j) * 32 + tx];
    __syncthreads();
    float acc = 0.f;
    for (int k = 0; k < iters; ++k)
#pragma unroll
        for (int j = 0; j < 32; j += 8)
            acc += tile[(tx + k) & 31][ty + j];
    out[blockIdx.x * 256 + threadIdx.x] = acc;
}

// A dependent walk through a 256 MiB permutation while each block holds
// 200 KB of shared memory it barely uses: one block (8 warps) an SM.
__global__ void p6_big_smem_chase(const unsigned* __restrict__ next, unsigned* __restrict__ out,
                                  int steps)
{
    extern __shared__ unsigned scratch[];
    unsigned p = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u;
    p &= (1u << 26) - 1;
    scratch[threadIdx.x] = p;
    __syncthreads();
    for (int s = 0; s < steps; ++s)
        p = next[p];
    out[blockIdx.x * blockDim.x + threadIdx.x] = p + scratch[(threadIdx.x + 1) & 255];
}

// FMA work in blocks of 1024 threads, two resident an SM: 265 blocks on 132
// SMs is one full wave and one block left over, run alone at the end.
__global__ void __launch_bounds__(1024, 2)
p6_tail_wave(const float* __restrict__ in, float* __restrict__ out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i] * 1e-3f, a0 = x, a1 = x + 1.f, a2 = x + 2.f, a3 = x + 3.f;
    for (int k = 0; k < iters; ++k) {
        a0 = fmaf(a0, 0.9991f, x); a1 = fmaf(a1, 0.9983f, x);
        a2 = fmaf(a2, 0.9975f, x); a3 = fmaf(a3, 0.9967f, x);
    }
    out[i] = a0 + a1 + a2 + a3;
}

// A streaming sum, each warp's partial added atomically to one of 4096
// words: few atomics a byte, spread wide.  DRAM is the limit.
__global__ void p6_warp_atomic_spread(const float4* __restrict__ in, float* __restrict__ bins,
                                      size_t n4)
{
    unsigned wid = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        float s = (v.x + v.y) + (v.z + v.w);
        for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        if ((threadIdx.x & 31) == 0)
            atomicAdd(&bins[(wid + (unsigned)(i >> 5)) & 4095], s);
    }
}

// Four independent dot products of packed bytes (dp4a) a thread.
__global__ void p6_dp4a_chain(const int* __restrict__ in, int* __restrict__ out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i], a0 = x, a1 = x ^ 1, a2 = x ^ 2, a3 = x ^ 3;
    for (int k = 0; k < iters; ++k) {
        a0 = __dp4a(a0, 0x01020304, x); a1 = __dp4a(a1, 0x05060708, x);
        a2 = __dp4a(a2, 0x090a0b0c, x); a3 = __dp4a(a3, 0x0d0e0f10, x);
    }
    out[i] = a0 + a1 + a2 + a3;
}

// A 5-point stencil over an 8192^2 grid through a shared tile with a halo:
// each value read once from DRAM, written once.
__global__ void p6_stencil_smem(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float t[10][34];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    int cx = min(max(x, 1), n - 2), cy = min(max(y, 1), n - 2);
    t[threadIdx.y + 1][threadIdx.x + 1] = in[(size_t)cy * n + cx];
    if (threadIdx.x == 0)
        t[threadIdx.y + 1][0] = in[(size_t)cy * n + cx - 1];
    if (threadIdx.x == 31)
        t[threadIdx.y + 1][33] = in[(size_t)cy * n + cx + 1];
    if (threadIdx.y == 0)
        t[0][threadIdx.x + 1] = in[(size_t)(cy - 1) * n + cx];
    if (threadIdx.y == 7)
        t[9][threadIdx.x + 1] = in[(size_t)(cy + 1) * n + cx];
    __syncthreads();
    float v = 0.2f * (t[threadIdx.y + 1][threadIdx.x + 1] + t[threadIdx.y][threadIdx.x + 1] +
                      t[threadIdx.y + 2][threadIdx.x + 1] + t[threadIdx.y + 1][threadIdx.x] +
                      t[threadIdx.y + 1][threadIdx.x + 2]);
    out[(size_t)y * n + x] = v;
}

// The textbook first SGEMM: one output a thread, A and B read from global
// memory for every multiply-add (L1 catches the reuse).
__global__ void p6_naive_sgemm(const float* __restrict__ a, const float* __restrict__ b,
                               float* __restrict__ c, int n)
{
    int col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
    float acc = 0.f;
    for (int k = 0; k < n; ++k)
        acc = fmaf(a[(size_t)row * n + k], b[(size_t)k * n + col], acc);
    c[(size_t)row * n + col] = acc;
}

// Xorshift rounds, four independent streams a thread: shifts and XORs only.
__global__ void p6_hash_xorshift(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                 int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x0 = in[i] | 1u, x1 = x0 ^ 0x9e3779b9u, x2 = x0 ^ 0x7f4a7c15u, x3 = x0 ^ 0x2545f491u;
    for (int k = 0; k < iters; ++k) {
#define XS(x) x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        XS(x0) XS(x1) XS(x2) XS(x3)
#undef XS
    }
    out[i] = x0 ^ x1 ^ x2 ^ x3;
}

// FMA work in blocks of 1024 with a block barrier every 64 FMAs: every warp
// does the same work, so the barrier costs little.
__global__ void p6_sync_compute(const float* __restrict__ in, float* __restrict__ out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i] * 1e-3f, a0 = x, a1 = x + 1.f, a2 = x + 2.f, a3 = x + 3.f;
    for (int k = 0; k < iters; ++k) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            a0 = fmaf(a0, 0.9991f, x); a1 = fmaf(a1, 0.9983f, x);
            a2 = fmaf(a2, 0.9975f, x); a3 = fmaf(a3, 0.9967f, x);
        }
        __syncthreads();
    }
    out[i] = a0 + a1 + a2 + a3;
}

// ---------------------------------------------------------------------------

static const char* names[] = {
    "l1_reuse", "smem_column", "big_smem_chase", "tail_wave", "warp_atomic_spread",
    "dp4a_chain", "stencil_smem", "naive_sgemm", "hash_xorshift", "sync_compute", NULL};

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
        fprintf(stderr, "usage: probe6 KERNEL [--iters N]; probe6 --list\n");
        return 2;
    }
    const size_t n = (size_t)1 << 26;  // 64 Mi elements, 256 MiB of floats
    float *fa, *fb, *fc;
    CK(cudaMalloc(&fa, n * sizeof(float)));
    CK(cudaMalloc(&fb, n * sizeof(float)));
    CK(cudaMalloc(&fc, n * sizeof(float)));
    {
        unsigned* h = (unsigned*)malloc(n * sizeof(unsigned));
        for (size_t i = 0; i < n; ++i)
            h[i] = 0x3f800000u ^ (unsigned)(((uint64_t)i * 2654435761u) & 0x007fffffu);
        CK(cudaMemcpy(fa, h, n * sizeof(unsigned), cudaMemcpyHostToDevice));
        // a random permutation of 2^26 words for the chase (one cycle would
        // need Sattolo; any permutation keeps every load dependent)
        for (size_t i = 0; i < n; ++i)
            h[i] = (unsigned)i;
        uint64_t s = 88172645463325252ull;
        for (size_t i = n - 1; i > 0; --i) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            size_t j = s % (i + 1);
            unsigned t = h[i]; h[i] = h[j]; h[j] = t;
        }
        CK(cudaMemcpy(fb, h, n * sizeof(unsigned), cudaMemcpyHostToDevice));
        free(h);
    }
    CK(cudaMemset(fc, 0, n * sizeof(float)));
    CK(cudaFuncSetAttribute(p6_big_smem_chase, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            200 * 1024));
    float total = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int it = 0; it <= iters; ++it) {
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "l1_reuse"))
            p6_l1_reuse<<<132 * 16, 256>>>(fa, fc, 4096);
        else if (!strcmp(k, "smem_column"))
            p6_smem_column<<<(1 << 24) / 1024, 256>>>(fa, fc, 64);
        else if (!strcmp(k, "big_smem_chase"))
            p6_big_smem_chase<<<132 * 4, 256, 200 * 1024>>>((unsigned*)fb, (unsigned*)fc, 64);
        else if (!strcmp(k, "tail_wave"))
            p6_tail_wave<<<265, 1024>>>(fa, fc, 16384);
        else if (!strcmp(k, "warp_atomic_spread"))
            p6_warp_atomic_spread<<<132 * 16, 256>>>((float4*)fa, fc, n / 4);
        else if (!strcmp(k, "dp4a_chain"))
            p6_dp4a_chain<<<(1 << 21) / 256, 256>>>((int*)fa, (int*)fc, 512);
        else if (!strcmp(k, "stencil_smem"))
            p6_stencil_smem<<<dim3(8192 / 32, 8192 / 8), dim3(32, 8)>>>(fa, fc, 8192);
        else if (!strcmp(k, "naive_sgemm"))
            p6_naive_sgemm<<<dim3(2048 / 16, 2048 / 16), dim3(16, 16)>>>(fa, fb, fc, 2048);
        else if (!strcmp(k, "hash_xorshift"))
            p6_hash_xorshift<<<(1 << 21) / 256, 256>>>((unsigned*)fa, (unsigned*)fc, 512);
        else if (!strcmp(k, "sync_compute"))
            p6_sync_compute<<<(1 << 21) / 1024, 1024>>>(fa, fc, 32);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("probe6 %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
