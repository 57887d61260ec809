// zoo: small CUDA kernels, each with one well-understood bottleneck, for
// checking kp's verdicts on a real GPU (examples/zoo/README.md lists the
// class each one should get and why).
//
// Usage: zoo KERNEL [--iters N]     (zoo --list names the kernels)
// Each launch of KERNEL is repeated N times (default 3) after one warm-up, so
// `ncu --launch-skip 1 --launch-count 1` sees a warm launch.
//
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o zoo zoo.cu

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
            fprintf(stderr, "zoo: %s:%d: %s: %s\n", __FILE__, __LINE__,       \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// 8-way switch on the lane: every warp runs all eight arms one after another,
// each with an eighth of its threads active.
__global__ void zoo_divergent_switch(const float* __restrict__ in,
                                     float* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    for (int r = 0; r < reps; ++r) {
        switch (threadIdx.x & 7) {
        case 0: x = x * 1.0001f + 0.5f; x = x * 0.9999f - 0.25f; break;
        case 1: x = x * 1.0002f - 0.5f; x = x * 0.9998f + 0.25f; break;
        case 2: x = x * 0.9997f + 0.1f; x = x * 1.0003f - 0.05f; break;
        case 3: x = x * 1.0004f - 0.1f; x = x * 0.9996f + 0.05f; break;
        case 4: x = x * 0.9995f + 0.2f; x = x * 1.0005f - 0.1f; break;
        case 5: x = x * 1.0006f - 0.2f; x = x * 0.9994f + 0.1f; break;
        case 6: x = x * 0.9993f + 0.3f; x = x * 1.0007f - 0.15f; break;
        default: x = x * 1.0008f - 0.3f; x = x * 0.9992f + 0.15f; break;
        }
    }
    out[i] = x;
}

// Two barriers around a shared-memory exchange in every iteration, with
// almost no work between them: warps spend their time waiting at the barrier.
__global__ void zoo_barrier_exchange(const float* __restrict__ in,
                                     float* __restrict__ out, int n, int reps)
{
    __shared__ float s[1024];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i < n ? in[i] : 0.0f;
    for (int r = 0; r < reps; ++r) {
        s[threadIdx.x] = x;
        __syncthreads();
        x += s[(threadIdx.x + 33 * (r + 1)) & (blockDim.x - 1)] * 0.5f;
        __syncthreads();
    }
    if (i < n)
        out[i] = x;
}

// Four dependent FP64 FMA chains per thread: the FP64 pipe does all the work.
__global__ void zoo_fp64_chain(const double* __restrict__ in,
                               double* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = in[i], b = a * 0.5, c = a * 0.25, d = a * 0.125;
    for (int r = 0; r < reps; ++r) {
        a = fma(a, 1.0000001, 0.5);
        b = fma(b, 0.9999999, 0.25);
        c = fma(c, 1.0000002, 0.125);
        d = fma(d, 0.9999998, 0.0625);
    }
    out[i] = a + b + c + d;
}

// Every thread adds into one of 8 global counters: the atomics serialise in
// the L2 slices that hold those 8 addresses.
__global__ void zoo_atomic_counters(const float* __restrict__ in,
                                    float* __restrict__ counters, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&counters[i & 7], in[i]);
}

// A WMMA GEMM that loads its fragments straight from global memory, one warp
// per 16x16 tile: the L1/TEX path carries every operand again and again.
__global__ void zoo_wmma_global(const __half* __restrict__ A,
                                const __half* __restrict__ B,
                                float* __restrict__ C, int M, int N, int K)
{
    using namespace nvcuda;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = N / 16;
    int tm = (warp / tiles_n) * 16, tn = (warp % tiles_n) * 16;
    if (tm >= M)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + (size_t)tm * K + k, K);
        wmma::load_matrix_sync(b, B + (size_t)tn * K + k, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + (size_t)tm * N + tn, acc, N, wmma::mem_row_major);
}

// Reads a 32x32 shared tile by column: all 32 lanes of a warp hit one bank.
__global__ void zoo_smem_column(const float* __restrict__ in,
                                float* __restrict__ out, int n, int reps)
{
    __shared__ float t[32][32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) & 31;
    t[w][lane] = i < n ? in[i] : 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int r = 0; r < reps; ++r)
        acc += t[(lane + r) & 31][w];
    if (i < n)
        out[i] = acc;
}

// Each thread reads with a stride of 32 floats: a warp's request touches 32
// sectors to use 4 bytes of each.
__global__ void zoo_strided_read(const float* __restrict__ in,
                                 float* __restrict__ out, size_t n, int stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[(i * stride) % n] * 2.0f;
}

// a = b + s*c in float4: DRAM bandwidth, at the roofline.
__global__ void zoo_triad(const float4* __restrict__ b,
                          const float4* __restrict__ c, float4* __restrict__ a,
                          float s, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (; i < n4; i += step) {
        float4 x = b[i], y = c[i];
        a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z,
                           x.w + s * y.w);
    }
}

// Each thread follows its own chain of dependent loads through an array that
// fits in L2: every load waits for the one before it; nothing is busy.
__global__ void zoo_pointer_chase(const unsigned* __restrict__ next,
                                  unsigned* __restrict__ out, unsigned mask,
                                  int steps)
{
    unsigned p = ((blockIdx.x * blockDim.x + threadIdx.x) * 97u) & mask;
    for (int s = 0; s < steps; ++s)
        p = next[p];
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

// All 32 lanes of a warp follow the same chain of dependent loads (one
// sector per request): the memory system idles while every load waits for
// the one before it.
__global__ void zoo_warp_chase(const unsigned* __restrict__ next,
                               unsigned* __restrict__ out, unsigned mask,
                               int steps)
{
    unsigned p = (((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 7919u) & mask;
    for (int s = 0; s < steps; ++s)
        p = next[p];
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

// One warp per block and one dependent chain of reciprocal square roots per
// thread: each MUFU result feeds the next.  Even with 17 warps an SM the XU
// pipe (16 lanes an SM) is the busiest unit, at about 70 % of its peak.
__global__ void zoo_mufu_chain(const float* __restrict__ in,
                               float* __restrict__ out, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i] + 1.0f;
    for (int r = 0; r < reps; ++r)
        x = rsqrtf(x) + 1.0f;
    out[i] = x;
}

// Every thread stores, then waits at a device-wide memory fence before the
// next store: warps spend their time in the fence (membar), while the stores
// themselves hardly load the memory system and few instructions issue.
__global__ void zoo_fence_chain(float* __restrict__ out, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (float)i;
    for (int r = 0; r < reps; ++r) {
        out[i] = x;
        __threadfence();
        x += 1.0f;
    }
}

// Four blocks for a GPU of 132 SMs, each with a long loop.
__global__ void zoo_tiny_grid(const float* __restrict__ in,
                              float* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i % n];
    for (int r = 0; r < reps; ++r)
        x = x * 1.0001f + 0.001f;
    out[i] = x;
}

// A local array indexed by data: it lives in local memory, and with the
// register cap of __launch_bounds__ live values spill too.
__global__ void __launch_bounds__(1024, 2)
zoo_local_spill(const int* __restrict__ idx, float* __restrict__ out, int n)
{
    float v[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < 64; ++k)
        v[k] = (float)(i + k);
    float acc = 0.0f;
    for (int k = 0; k < 64; ++k)
        acc += v[idx[(i + k) % n] & 63];
    out[i % n] = acc;
}

// 200 KiB of shared memory per block: one block of 128 threads per SM, so
// four warps an SM must hide the latency of every global load.
__global__ void zoo_big_smem(const float* __restrict__ in,
                             float* __restrict__ out, size_t n)
{
    extern __shared__ float big[];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t step = (size_t)gridDim.x * blockDim.x;
    big[threadIdx.x] = 0.0f;
    float acc = 0.0f;
    for (; i < n; i += step)
        acc += in[i];
    big[threadIdx.x] += acc;
    out[blockIdx.x * blockDim.x + threadIdx.x] = big[threadIdx.x];
}

// Eight independent FP32 FMA chains per thread at full occupancy: the FMA
// pipe runs near its peak (a kernel at the compute roofline).
__global__ void zoo_fma_peak(const float* __restrict__ in,
                             float* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a0 = in[i], a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4,
          a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    for (int r = 0; r < reps; ++r) {
        a0 = fmaf(a0, 0.9999f, 0.01f); a1 = fmaf(a1, 0.9998f, 0.02f);
        a2 = fmaf(a2, 0.9997f, 0.03f); a3 = fmaf(a3, 0.9996f, 0.04f);
        a4 = fmaf(a4, 0.9995f, 0.05f); a5 = fmaf(a5, 0.9994f, 0.06f);
        a6 = fmaf(a6, 0.9993f, 0.07f); a7 = fmaf(a7, 0.9992f, 0.08f);
    }
    out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// fp16 GEMM with 16x16 shared tiles and fp32 math on the FMA pipe: matrix
// work that never touches the tensor cores.
__global__ void zoo_hgemm_fma(const __half* __restrict__ A,
                              const __half* __restrict__ B,
                              __half* __restrict__ C, int M, int N, int K)
{
    __shared__ __half As[16][16], Bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = A[(size_t)row * K + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 16; ++kk)
            acc += __half2float(As[ty][kk]) * __half2float(Bs[kk][tx]);
        __syncthreads();
    }
    C[(size_t)row * N + col] = __float2half(acc);
}

// Transcendentals in independent chains: the XU (MUFU) pipe is the limit.
__global__ void zoo_xu_sincos(const float* __restrict__ in,
                              float* __restrict__ out, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = in[i], b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
    for (int r = 0; r < reps; ++r) {
        a = __sinf(a); b = __cosf(b); c = __expf(-c * c); d = rsqrtf(d + 2.0f);
    }
    out[i] = a + b + c + d;
}

// ---------------------------------------------------------------------------

static void fill_f(float* d, size_t n)
{
    float* h = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i)
        h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
    CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h);
}

static const char* names[] = {
    "divergent_switch", "barrier_exchange", "fp64_chain", "atomic_counters",
    "wmma_global", "smem_column", "strided_read", "triad", "pointer_chase",
    "tiny_grid", "local_spill", "big_smem", "fma_peak", "hgemm_fma",
    "xu_sincos", "warp_chase", "mufu_chain", "fence_chain", NULL};

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
        fprintf(stderr, "usage: zoo KERNEL [--iters N]; zoo --list\n");
        return 2;
    }

    const size_t n = (size_t)1 << 24;  // 16 Mi elements
    float *fa, *fb, *fc;
    CK(cudaMalloc(&fa, n * sizeof(float) * 4));
    CK(cudaMalloc(&fb, n * sizeof(float) * 4));
    CK(cudaMalloc(&fc, n * sizeof(float) * 4));
    fill_f(fa, n * 4);
    fill_f(fb, n * 4);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const int gm = 2048;
    __half *ha = (__half*)fa, *hb = (__half*)fb;

    if (strcmp(k, "pointer_chase") == 0 || strcmp(k, "warp_chase") == 0) {  // a random cycle over 4 Mi entries
        const unsigned m = 1u << 22;
        unsigned* h = (unsigned*)malloc(m * sizeof(unsigned));
        for (unsigned i = 0; i < m; ++i)
            h[i] = (unsigned)(((uint64_t)i * 2654435761u + 12345u) % m);
        CK(cudaMemcpy(fb, h, m * sizeof(unsigned), cudaMemcpyHostToDevice));
        free(h);
    }
    if (strcmp(k, "local_spill") == 0) {
        int* h = (int*)malloc(n * sizeof(int));
        for (size_t i = 0; i < n; ++i)
            h[i] = (int)((i * 7919u) & 63);
        CK(cudaMemcpy(fb, h, n * sizeof(int), cudaMemcpyHostToDevice));
        free(h);
    }
    if (strcmp(k, "big_smem") == 0)
        CK(cudaFuncSetAttribute(zoo_big_smem,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                200 * 1024));
    if (strcmp(k, "atomic_counters") == 0)
        CK(cudaMemset(fc, 0, 64));

    float total = 0.0f;
    for (int it = 0; it <= iters; ++it) {
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "divergent_switch"))
            zoo_divergent_switch<<<n / 256, 256>>>(fa, fc, (int)n, 64);
        else if (!strcmp(k, "barrier_exchange"))
            zoo_barrier_exchange<<<n / 1024, 1024>>>(fa, fc, (int)n, 32);
        else if (!strcmp(k, "fp64_chain"))
            zoo_fp64_chain<<<n / 2 / 256, 256>>>((double*)fa, (double*)fc,
                                                 (int)(n / 2), 256);
        else if (!strcmp(k, "atomic_counters"))
            zoo_atomic_counters<<<n / 256, 256>>>(fa, fc, (int)n);
        else if (!strcmp(k, "wmma_global"))
            zoo_wmma_global<<<(gm / 16) * (gm / 16) / 8, 256>>>(ha, hb, fc, gm,
                                                                 gm, gm);
        else if (!strcmp(k, "smem_column"))
            zoo_smem_column<<<n / 1024, 1024>>>(fa, fc, (int)n, 64);
        else if (!strcmp(k, "strided_read"))
            zoo_strided_read<<<n / 256, 256>>>(fa, fc, n, 33);
        else if (!strcmp(k, "triad"))
            zoo_triad<<<132 * 16, 256>>>((float4*)fa, (float4*)fb, (float4*)fc,
                                         3.0f, n);
        else if (!strcmp(k, "pointer_chase"))
            zoo_pointer_chase<<<132 * 8, 256>>>((unsigned*)fb, (unsigned*)fc,
                                                (1u << 22) - 1, 256);
        else if (!strcmp(k, "warp_chase"))
            zoo_warp_chase<<<132 * 8, 256>>>((unsigned*)fb, (unsigned*)fc,
                                             (1u << 22) - 1, 512);
        else if (!strcmp(k, "mufu_chain"))
            zoo_mufu_chain<<<132 * 17, 32>>>(fa, fc, 4096);
        else if (!strcmp(k, "fence_chain"))
            zoo_fence_chain<<<132 * 8, 256>>>(fc, 256);
        else if (!strcmp(k, "tiny_grid"))
            zoo_tiny_grid<<<4, 256>>>(fa, fc, (int)n, 1 << 16);
        else if (!strcmp(k, "local_spill"))
            zoo_local_spill<<<n / 1024, 1024>>>((int*)fb, fc, (int)n);
        else if (!strcmp(k, "big_smem"))
            zoo_big_smem<<<132, 128, 200 * 1024>>>(fa, fc, n * 4);
        else if (!strcmp(k, "fma_peak"))
            zoo_fma_peak<<<n / 4 / 256, 256>>>(fa, fc, (int)(n / 4), 512);
        else if (!strcmp(k, "hgemm_fma"))
            zoo_hgemm_fma<<<dim3(gm / 16, gm / 16), dim3(16, 16)>>>(
                ha, hb, (__half*)fc, gm, gm, gm);
        else if (!strcmp(k, "xu_sincos"))
            zoo_xu_sincos<<<n / 4 / 256, 256>>>(fa, fc, (int)(n / 4), 256);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("zoo %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
