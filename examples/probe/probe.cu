// probe: a second, held-out set of CUDA kernels with one known bottleneck
// each, written after kp's rules and never used to tune them.  Each differs
// in form from its examples/zoo twin, so a verdict that holds on both comes
// from the metrics, not from one kernel's shape.  probe.tsv names the class
// each should get; its expectations were written before the first live run.
//
// Usage: probe KERNEL [--iters N]     (probe --list names the kernels)
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o probe probe.cu

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
            fprintf(stderr, "probe: %s:%d: %s: %s\n", __FILE__, __LINE__,     \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__device__ __forceinline__ unsigned mix(unsigned x)
{
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU;
    return x ^ (x >> 16);
}

// Data-dependent branch: each lane takes one of two long loops by a hash of
// its index, so every warp runs both with about half its lanes.
__global__ void probe_branch_data(const float* __restrict__ in,
                                  float* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    if (mix(i) & 1) {
        for (int r = 0; r < reps; ++r)
            x = x * 1.0001f + 0.25f;
    } else {
        for (int r = 0; r < reps; ++r)
            x = x * 0.9997f - 0.125f;
    }
    out[i] = x;
}

// Tree reduction in shared memory, a barrier at every level, over a little
// data per block that is loaded once: the block waits at its barriers.
__global__ void probe_reduce_sync(const float* __restrict__ in,
                                  float* __restrict__ out, int reps)
{
    __shared__ float s[512];
    int t = threadIdx.x;
    float v = in[blockIdx.x * 512 + t];
    float acc = 0.0f;
    for (int r = 0; r < reps; ++r) {
        s[t] = v + (float)r;
        __syncthreads();
        for (int w = 256; w > 0; w >>= 1) {
            if (t < w)
                s[t] += s[t + w];
            __syncthreads();
        }
        acc += s[0];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = acc;
}

// FP64 Horner polynomials, four independent per thread.
__global__ void probe_fp64_horner(const double* __restrict__ in,
                                  double* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = in[i], a = 0.1, b = 0.2, c = 0.3, d = 0.4;
    for (int r = 0; r < reps; ++r) {
        a = a * x + 1.000001; b = b * x - 0.999999;
        c = c * x + 0.500001; d = d * x - 0.499999;
    }
    out[i] = a + b + c + d;
}

// A 16-bin histogram in global memory: every thread adds to one of 16 words.
__global__ void probe_histogram(const unsigned* __restrict__ in,
                                unsigned* __restrict__ bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[mix(in[i]) & 15], 1u);
}

// Naive transpose: coalesced reads, writes a column stride apart.
__global__ void probe_transpose_naive(const float* __restrict__ in,
                                      float* __restrict__ out, int w)
{
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    for (int k = 0; k < 32; k += 8)
        out[(size_t)x * w + y + k] = in[(size_t)(y + k) * w + x];
}

// Tiled transpose through a 32x32 shared tile with no padding: the column
// read of the tile hits one bank 32 times.
__global__ void probe_transpose_smem(const float* __restrict__ in,
                                     float* __restrict__ out, int w)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8)
        tile[threadIdx.y + k][threadIdx.x] = in[(size_t)(y + k) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int k = 0; k < 32; k += 8)
        out[(size_t)(y + k) * w + x] = tile[threadIdx.x][threadIdx.y + k];
}

// Grid-stride scalar copy of 256 MiB.
__global__ void probe_copy(const float* __restrict__ in,
                           float* __restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

// Integer hashing: shifts, xors and multiplies, four independent chains.
__global__ void probe_int_hash(const unsigned* __restrict__ in,
                               unsigned* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned a = in[i], b = a + 1, c = a + 2, d = a + 3;
    for (int r = 0; r < reps; ++r) {
        a = (a ^ (a >> 13)) + (a << 5); b = (b ^ (b >> 11)) + (b << 7);
        c = (c ^ (c >> 9)) + (c << 3);  d = (d ^ (d >> 7)) + (d << 9);
    }
    out[i] = a ^ b ^ c ^ d;
}

// One block of 128 threads for a long loop: 131 of 132 SMs idle.
__global__ void probe_single_block(const float* __restrict__ in,
                                   float* __restrict__ out, int reps)
{
    float x = in[threadIdx.x];
    for (int r = 0; r < reps; ++r)
        x = x * 1.00001f + 0.5f;
    out[threadIdx.x] = x;
}

// A per-thread table indexed by data: it lives in local memory.
__global__ void probe_local_table(const unsigned* __restrict__ in,
                                  float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float t[96];
    for (int k = 0; k < 96; ++k)
        t[k] = (float)(k * i);
    unsigned h = in[i];
    float s = 0.0f;
    for (int k = 0; k < 64; ++k) {
        h = mix(h + k);
        s += t[h % 96];
        t[(h >> 8) % 96] = s;
    }
    out[i] = s;
}

// WMMA GEMM staged through shared memory (64x64 block tile, 4 warps).
__global__ void probe_wmma_smem(const __half* __restrict__ A,
                                const __half* __restrict__ B,
                                float* __restrict__ C, int n)
{
    using namespace nvcuda;
    __shared__ __half sa[64][32 + 8], sb[32][64 + 8];
    int warp = threadIdx.x / 32, bm = blockIdx.y * 64, bn = blockIdx.x * 64;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q)
            wmma::fill_fragment(acc[p][q], 0.0f);
    int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    for (int k0 = 0; k0 < n; k0 += 32) {
        for (int e = threadIdx.x; e < 64 * 32; e += 128) {
            sa[e / 32][e % 32] = A[(size_t)(bm + e / 32) * n + k0 + e % 32];
            sb[e / 64][e % 64] = B[(size_t)(k0 + e / 64) * n + bn + e % 64];
        }
        __syncthreads();
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2];
            for (int p = 0; p < 2; ++p) {
                wmma::load_matrix_sync(fa[p], &sa[wm + 16 * p][kk], 40);
                wmma::load_matrix_sync(fb[p], &sb[kk][wn + 16 * p], 72);
            }
            for (int p = 0; p < 2; ++p)
                for (int q = 0; q < 2; ++q)
                    wmma::mma_sync(acc[p][q], fa[p], fb[q], acc[p][q]);
        }
        __syncthreads();
    }
    for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q)
            wmma::store_matrix_sync(&C[(size_t)(bm + wm + 16 * p) * n + bn + wn + 16 * q],
                                    acc[p][q], n, wmma::mem_row_major);
}

// A hundred and twenty-eight live accumulators a thread and one dependent
// load chain: the register count caps the warps per SM, and with so few warps
// nothing hides the chain's load latency (16 FMAs a load).
__global__ void probe_reg_heavy(const unsigned* __restrict__ next,
                                float* __restrict__ out, unsigned mask,
                                int steps)
{
    float v[128];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < 128; ++k)
        v[k] = (float)(mix(i * 128 + k) & 255);
    unsigned p = mix(i) & mask;
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int g = 0; g < 8; ++g) {
            p = next[p];
            float f = (float)(p & 1);
#pragma unroll
            for (int j = 0; j < 16; ++j)
                v[g * 16 + j] = v[g * 16 + j] * 0.999f + f;
        }
    }
    float x = 0.0f;
#pragma unroll
    for (int k = 0; k < 128; ++k)
        x += v[k];
    out[i] = x;
}

// ---------------------------------------------------------------------------

static const char* names[] = {
    "branch_data", "reduce_sync", "fp64_horner", "histogram",
    "transpose_naive", "transpose_smem", "copy", "int_hash", "single_block",
    "local_table", "wmma_smem", "reg_heavy", NULL};

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
        fprintf(stderr, "usage: probe KERNEL [--iters N]; probe --list\n");
        return 2;
    }
    const size_t n = (size_t)1 << 26;  // 64 Mi elements, 256 MiB of floats
    float *fa, *fc;
    CK(cudaMalloc(&fa, n * sizeof(float)));
    CK(cudaMalloc(&fc, n * sizeof(float)));
    {
        unsigned* h = (unsigned*)malloc(n * sizeof(unsigned));
        const unsigned m = (1u << 22) - 1;
        for (size_t i = 0; i < n; ++i)
            h[i] = (unsigned)(((uint64_t)i * 2654435761u + 12345u) & m);
        CK(cudaMemcpy(fa, h, n * sizeof(unsigned), cudaMemcpyHostToDevice));
        free(h);
    }
    CK(cudaMemset(fc, 0, n * sizeof(float)));
    const int w = 8192, gm = 4096;
    float total = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int it = 0; it <= iters; ++it) {
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "branch_data"))
            probe_branch_data<<<(1 << 22) / 256, 256>>>(fa, fc, 1 << 22, 256);
        else if (!strcmp(k, "reduce_sync"))
            probe_reduce_sync<<<132 * 32, 512>>>(fa, fc, 64);
        else if (!strcmp(k, "fp64_horner"))
            probe_fp64_horner<<<(1 << 22) / 256, 256>>>((double*)fa, (double*)fc,
                                                         1 << 22, 128);
        else if (!strcmp(k, "histogram"))
            probe_histogram<<<(1 << 24) / 256, 256>>>((unsigned*)fa,
                                                       (unsigned*)fc, 1 << 24);
        else if (!strcmp(k, "transpose_naive"))
            probe_transpose_naive<<<dim3(w / 32, w / 32), dim3(32, 8)>>>(fa, fc, w);
        else if (!strcmp(k, "transpose_smem"))
            probe_transpose_smem<<<dim3(w / 32, w / 32), dim3(32, 8)>>>(fa, fc, w);
        else if (!strcmp(k, "copy"))
            probe_copy<<<132 * 8, 512>>>(fa, fc, n);
        else if (!strcmp(k, "int_hash"))
            probe_int_hash<<<(1 << 22) / 256, 256>>>((unsigned*)fa,
                                                      (unsigned*)fc, 1 << 22, 256);
        else if (!strcmp(k, "single_block"))
            probe_single_block<<<1, 128>>>(fa, fc, 1 << 20);
        else if (!strcmp(k, "local_table"))
            probe_local_table<<<(1 << 22) / 256, 256>>>((unsigned*)fa, fc, 1 << 22);
        else if (!strcmp(k, "wmma_smem"))
            probe_wmma_smem<<<dim3(gm / 64, gm / 64), 128>>>((__half*)fa,
                                                              (__half*)fa + (size_t)gm * gm,
                                                              fc, gm);
        else if (!strcmp(k, "reg_heavy"))
            probe_reg_heavy<<<132 * 16, 128>>>((unsigned*)fa, fc, (1u << 22) - 1,
                                                16);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("probe %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
