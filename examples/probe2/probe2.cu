// probe2: a third held-out set of CUDA kernels, written after the rules of
// 2026-12-03 and never used to tune them.  Each has one intended bottleneck;
// probe2.tsv names the class each should get, written before the first live
// run.  The forms differ from examples/zoo and examples/probe.
//
// Usage: probe2 KERNEL [--iters N]     (probe2 --list names the kernels)
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o probe2 probe2.cu

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "probe2: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// An 8-way switch on a value loaded from memory: the lanes of a warp take
// eight different FMA loops.
__global__ void p2_switch8(const unsigned* __restrict__ in, float* __restrict__ out,
                           int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = (float)(in[i] & 1023);
    switch ((in[i] >> 3) & 7) {
    case 0: for (int r = 0; r < reps; ++r) x = x * 1.0001f + 0.5f; break;
    case 1: for (int r = 0; r < reps; ++r) x = x * 0.9999f - 0.5f; break;
    case 2: for (int r = 0; r < reps; ++r) x = x * 1.0002f + 0.25f; break;
    case 3: for (int r = 0; r < reps; ++r) x = x * 0.9998f - 0.25f; break;
    case 4: for (int r = 0; r < reps; ++r) x = x * 1.0003f + 0.125f; break;
    case 5: for (int r = 0; r < reps; ++r) x = x * 0.9997f - 0.125f; break;
    case 6: for (int r = 0; r < reps; ++r) x = x * 1.0004f + 1.0f; break;
    default: for (int r = 0; r < reps; ++r) x = x * 0.9996f - 1.0f; break;
    }
    out[i] = x;
}

// A block loads a tile, then one warp works on it alone while the other
// seven wait at the barrier.
__global__ void p2_tile_barrier(const float* __restrict__ in, float* __restrict__ out,
                                int tiles)
{
    __shared__ float t[256];
    float acc = 0.0f;
    for (int k = 0; k < tiles; ++k) {
        t[threadIdx.x] = in[((size_t)blockIdx.x * tiles + k) * 256 + threadIdx.x];
        __syncthreads();
        if (threadIdx.x < 32) {
            float v = t[threadIdx.x];
            for (int r = 0; r < 64; ++r)
                v = v * 0.999f + t[(threadIdx.x + r) & 255];
            acc += v;
        }
        __syncthreads();
    }
    out[blockIdx.x * 256 + threadIdx.x] = acc;
}

// One long dependent FP64 multiply-add chain per thread, a full GPU of them.
__global__ void p2_fp64_dep(const double* __restrict__ in, double* __restrict__ out,
                            int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = in[i] * 1e-9;
    for (int r = 0; r < reps; ++r)
        x = x * 0.99999999 + 1e-7;
    out[i] = x;
}

// Every thread adds a float into one of four addresses.
__global__ void p2_atomic_float(const float* __restrict__ in, float* __restrict__ sums,
                                int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&sums[i & 3], in[i] * 1e-6f);
}

// Naive WMMA GEMM: every warp loads its A and B fragments straight from
// global memory for every k step (no shared-memory tiles).
__global__ void p2_wmma_naive(const __half* __restrict__ A, const __half* __restrict__ B,
                              float* __restrict__ C, int n)
{
    using namespace nvcuda;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (n / 16), tn = warp % (n / 16);
    if (tm >= n / 16)
        return;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < n; k += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, A + (size_t)tm * 16 * n + k, n);
        wmma::load_matrix_sync(fb, B + (size_t)k * n + tn * 16, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(C + (size_t)tm * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}

// Array of 32-byte structures, one field read: each lane its own sector.
struct rec { float x, y, z, w, a, b, c, d; };
__global__ void p2_aos_field(const rec* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i].x * 2.0f + 1.0f;
}

// A grid-stride float4 sum with warp shuffles and one atomic per block: a
// well-built stream.
__global__ void p2_shfl_sum(const float4* __restrict__ in, float* __restrict__ sum,
                            size_t n4)
{
    float s = 0.0f;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        s += v.x + v.y + v.z + v.w;
    }
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    __shared__ float w[32];
    if ((threadIdx.x & 31) == 0)
        w[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < blockDim.x / 32 ? w[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0)
            atomicAdd(sum, s);
    }
}

// Four blocks of long loops on a 132-SM GPU.
__global__ void p2_four_blocks(const float* __restrict__ in, float* __restrict__ out,
                               int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i], y = in[i + 1];
    for (int r = 0; r < reps; ++r) {
        x = x * y + 0.5f;
        y = y * x - 0.25f;
    }
    out[i] = x + y;
}

// A per-thread array indexed by loaded data, read and written in a loop: it
// lives in local memory.
__global__ void p2_local_rmw(const unsigned* __restrict__ in, float* __restrict__ out,
                             int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a[64];
    for (int k = 0; k < 64; ++k)
        a[k] = (float)k;
    unsigned h = in[i];
    for (int r = 0; r < 128; ++r) {
        h = h * 1664525u + 1013904223u;
        a[h & 63] += a[(h >> 8) & 63] * 0.5f;
    }
    out[i] = a[h & 63];
}

// Columns of a shared 32x32 tile read by the lanes of a warp: 32 lanes on
// one bank.
__global__ void p2_smem_columns(const float* __restrict__ in, float* __restrict__ out,
                                int reps)
{
    __shared__ float t[32][32];
    int lane = threadIdx.x & 31, wid = threadIdx.x / 32;
    for (int r = wid; r < 32; r += blockDim.x / 32)
        t[r][lane] = in[blockIdx.x * 1024 + r * 32 + lane];
    __syncthreads();
    float s = 0.0f;
    for (int q = 0; q < reps; ++q)
        for (int k = 0; k < 32; ++k)
            s += t[lane][(k + q) & 31];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// 48 KiB of shared memory per 128-thread block caps the SM at 4 blocks (16
// warps, 25 %), and each thread chases pointers through a table that sits in
// L2: warps wait on memory with too few of them to hide it.
__global__ void p2_smem_capped_chase(const unsigned* __restrict__ next,
                                     float* __restrict__ out, unsigned mask, int steps)
{
    extern __shared__ unsigned pad[];
    unsigned p = (blockIdx.x * blockDim.x + threadIdx.x) & mask;
    pad[threadIdx.x] = p;
    __syncthreads();
    for (int s = 0; s < steps; ++s)
        p = next[p] & mask;
    out[blockIdx.x * blockDim.x + threadIdx.x] = (float)(p + pad[threadIdx.x ^ 1]);
}

// ---------------------------------------------------------------------------

static const char* names[] = {
    "switch8", "tile_barrier", "fp64_dep", "atomic_float", "wmma_naive",
    "aos_field", "shfl_sum", "four_blocks", "local_rmw", "smem_columns",
    "smem_capped_chase", NULL};

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
        fprintf(stderr, "usage: probe2 KERNEL [--iters N]; probe2 --list\n");
        return 2;
    }
    const size_t n = (size_t)1 << 26;  // 64 Mi elements, 256 MiB of floats
    float *fa, *fc;
    CK(cudaMalloc(&fa, n * sizeof(float)));
    CK(cudaMalloc(&fc, n * sizeof(float)));
    {
        unsigned* h = (unsigned*)malloc(n * sizeof(unsigned));
        for (size_t i = 0; i < n; ++i)
            h[i] = (unsigned)(((uint64_t)i * 2654435761u + 12345u) >> 3);
        CK(cudaMemcpy(fa, h, n * sizeof(unsigned), cudaMemcpyHostToDevice));
        free(h);
    }
    CK(cudaMemset(fc, 0, n * sizeof(float)));
    const int gm = 4096;
    const unsigned l2mask = (1u << 18) - 1;  // 1 MiB of next[]: lives in L2
    CK(cudaFuncSetAttribute(p2_smem_capped_chase,
                            cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024));
    float total = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int it = 0; it <= iters; ++it) {
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "switch8"))
            p2_switch8<<<(1 << 22) / 256, 256>>>((unsigned*)fa, fc, 1 << 22, 256);
        else if (!strcmp(k, "tile_barrier"))
            p2_tile_barrier<<<132 * 8, 256>>>(fa, fc, 16);
        else if (!strcmp(k, "fp64_dep"))
            p2_fp64_dep<<<(1 << 22) / 256, 256>>>((double*)fa, (double*)fc, 1 << 22, 512);
        else if (!strcmp(k, "atomic_float"))
            p2_atomic_float<<<(1 << 24) / 256, 256>>>(fa, fc, 1 << 24);
        else if (!strcmp(k, "wmma_naive"))
            p2_wmma_naive<<<(gm / 16) * (gm / 16) / 8, 256>>>((__half*)fa,
                                                               (__half*)fa + (size_t)gm * gm,
                                                               fc, gm);
        else if (!strcmp(k, "aos_field"))
            p2_aos_field<<<(1 << 23) / 256, 256>>>((rec*)fa, fc, 1 << 23);
        else if (!strcmp(k, "shfl_sum"))
            p2_shfl_sum<<<132 * 8, 256>>>((float4*)fa, fc + 16, n / 4);
        else if (!strcmp(k, "four_blocks"))
            p2_four_blocks<<<4, 256>>>(fa, fc, 1 << 16);
        else if (!strcmp(k, "local_rmw"))
            p2_local_rmw<<<(1 << 22) / 256, 256>>>((unsigned*)fa, fc, 1 << 22);
        else if (!strcmp(k, "smem_columns"))
            p2_smem_columns<<<132 * 16, 256>>>(fa, fc, 64);
        else if (!strcmp(k, "smem_capped_chase"))
            p2_smem_capped_chase<<<132 * 8, 128, 48 * 1024>>>((unsigned*)fa, fc, l2mask, 256);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("probe2 %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
