// probe4: a fifth held-out set of CUDA kernels, written on 2026-12-07 after
// that day's rules and never used to tune them.  Each has one intended
// bottleneck; probe4.tsv names the class each should get, written before the
// first live run.  The forms differ from examples/zoo and examples/probe*:
// several are traps where a rule's premise holds but is not the cause (fp16
// arithmetic that is no matrix product, low occupancy that costs nothing).
//
// Usage: probe4 KERNEL [--iters N]     (probe4 --list names the kernels)
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o probe4 probe4.cu

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "probe4: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// A polynomial of degree `deg` in packed half2, four independent values a
// thread: fp16 arithmetic on the FMA pipe that is no matrix product, so
// tensor cores have nothing to offer it.
__global__ void p4_half_poly(const __half2* __restrict__ in, __half2* __restrict__ out,
                             int deg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 x0 = in[4 * i], x1 = in[4 * i + 1], x2 = in[4 * i + 2], x3 = in[4 * i + 3];
    const __half2 c = __float2half2_rn(0.5f);
    __half2 y0 = c, y1 = c, y2 = c, y3 = c;
    for (int k = 0; k < deg; ++k) {
        y0 = __hfma2(y0, x0, c);
        y1 = __hfma2(y1, x1, c);
        y2 = __hfma2(y2, x2, c);
        y3 = __hfma2(y3, x3, c);
    }
    out[i] = __hadd2(__hadd2(y0, y1), __hadd2(y2, y3));
}

// 96 independent FMA accumulators a thread: about a hundred registers, so
// only a quarter of the warp slots can be filled, yet every warp has 96
// independent instructions to issue and the FMA pipe stays full.
__global__ void __launch_bounds__(256, 1)
p4_regcap_fma(const float* __restrict__ in, float* __restrict__ out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float m = in[i] * 1e-3f + 0.5f, a[96];
#pragma unroll
    for (int k = 0; k < 96; ++k)
        a[k] = in[i] + (float)k;
    for (int it = 0; it < iters; ++it)
#pragma unroll
        for (int k = 0; k < 96; ++k)
            a[k] = fmaf(a[k], m, 0.25f);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 96; ++k)
        s += a[k];
    out[i] = s;
}

// A float4 copy with 16 loads in flight a thread, run one block an SM (the
// dynamic shared memory allows no second): few warps, but enough bytes in
// flight to keep DRAM busy.
__global__ void p4_lowocc_stream(const float4* __restrict__ in, float4* __restrict__ out,
                                 size_t n4)
{
    extern __shared__ float pad[];
    size_t stride = (size_t)gridDim.x * blockDim.x * 16;
    for (size_t base = (size_t)blockIdx.x * blockDim.x * 16 + threadIdx.x; base < n4;
         base += stride) {
        float4 v[16];
#pragma unroll
        for (int k = 0; k < 16; ++k)
            v[k] = in[base + (size_t)k * blockDim.x];
#pragma unroll
        for (int k = 0; k < 16; ++k)
            out[base + (size_t)k * blockDim.x] = v[k];
    }
    if (threadIdx.x == 1u << 30)
        pad[0] = 0.0f;
}

// Passes over a 16 MiB buffer that fits in L2, read with ld.global.cg (not
// kept in L1): every byte comes from L2, none from DRAM after the first pass.
// n4 is a power of two.
__global__ void p4_l2_reread(const float4* __restrict__ buf, float* __restrict__ out,
                             unsigned n4, int passes)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x, all = gridDim.x * blockDim.x;
    float s = 0.0f;
    for (int p = 0; p < passes; ++p)
        for (unsigned j = t; j < n4; j += all) {
            float4 v = __ldcg(&buf[(j + (unsigned)p * 4099u) & (n4 - 1)]);
            s += v.x + v.y + v.z + v.w;
        }
    out[t] = s;
}

// Every thread of a block adds into one of two shared-memory counters, 256
// times: the 32 lanes of a warp update the same word, which serialises.
__global__ void p4_smem_atomic_hot(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                   int rounds)
{
    __shared__ unsigned ctr[2];
    if (threadIdx.x < 2)
        ctr[threadIdx.x] = 0;
    __syncthreads();
    unsigned v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int r = 0; r < rounds; ++r)
        atomicAdd(&ctr[(threadIdx.x >> 5) & 1], v + (unsigned)r);
    __syncthreads();
    if (threadIdx.x < 2)
        out[blockIdx.x * 2 + threadIdx.x] = ctr[threadIdx.x];
}

// Only every fourth lane does the arithmetic: 8 of 32 lanes are active in
// the loop that takes the kernel's time.
__global__ void p4_quarter_lanes(const float* __restrict__ in, float* __restrict__ out,
                                 int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    if ((threadIdx.x & 3) == 0) {
        float a = x, b = x + 1.0f, c = x + 2.0f, d = x + 3.0f;
        for (int k = 0; k < iters; ++k) {
            a = fmaf(a, 0.999f, 0.01f);
            b = fmaf(b, 0.999f, 0.02f);
            c = fmaf(c, 0.999f, 0.03f);
            d = fmaf(d, 0.999f, 0.04f);
        }
        x = a + b + c + d;
    }
    out[i] = x;
}

// The first warp of each block computes a value per round while the other
// seven wait for it at the barrier, then all read it.
__global__ void p4_one_warp_works(const float* __restrict__ in, float* __restrict__ out,
                                  int rounds)
{
    __shared__ float v[32];
    float acc = 0.0f, x = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int r = 0; r < rounds; ++r) {
        if (threadIdx.x < 32) {
            float y = x + (float)r;
            for (int k = 0; k < 64; ++k)
                y = fmaf(y, 0.9999f, 0.001f);
            v[threadIdx.x] = y;
        }
        __syncthreads();
        acc += v[threadIdx.x & 31];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 528 blocks of one warp each: four warps an SM, an eighth of one wave, each
// running a long dependent FMA chain.
__global__ void p4_thin_blocks(const float* __restrict__ in, float* __restrict__ out,
                               int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i], y = x + 1.0f;
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, 0.9999f, 0.001f);
        y = fmaf(y, 0.9999f, 0.002f);
    }
    out[i] = x + y;
}

// A copy that reads one element ahead: each warp's 128 bytes straddle five
// 32-byte sectors instead of four, a small waste on a DRAM-bound stream.
__global__ void p4_offset_copy(const float* __restrict__ in, float* __restrict__ out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i + 1] * 2.0f;
}

// Sums 256 MiB one byte a thread a step: every warp request brings 32 bytes
// (one sector), so even a full SM has few bytes in flight per load.
__global__ void p4_byte_sum(const unsigned char* __restrict__ in, unsigned* __restrict__ out,
                            size_t n)
{
    unsigned s = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        s += in[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// ---------------------------------------------------------------------------

static const char* names[] = {
    "half_poly", "regcap_fma", "lowocc_stream", "l2_reread", "smem_atomic_hot",
    "quarter_lanes", "one_warp_works", "thin_blocks", "offset_copy", "byte_sum", NULL};

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
        fprintf(stderr, "usage: probe4 KERNEL [--iters N]; probe4 --list\n");
        return 2;
    }
    const size_t n = (size_t)1 << 26;  // 64 Mi elements, 256 MiB of floats
    float *fa, *fc;
    CK(cudaMalloc(&fa, n * sizeof(float) + 64));
    CK(cudaMalloc(&fc, n * sizeof(float)));
    {
        unsigned* h = (unsigned*)malloc(n * sizeof(unsigned));
        for (size_t i = 0; i < n; ++i)
            h[i] = 0x3c003c00u ^ (unsigned)(((uint64_t)i * 2654435761u) & 0x00ff00ffu);
        CK(cudaMemcpy(fa, h, n * sizeof(unsigned), cudaMemcpyHostToDevice));
        free(h);
    }
    CK(cudaMemset(fc, 0, n * sizeof(float)));
    const int big = 200 * 1024;
    CK(cudaFuncSetAttribute(p4_lowocc_stream, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            big));
    float total = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int it = 0; it <= iters; ++it) {
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "half_poly"))
            p4_half_poly<<<(1 << 22) / 256, 256>>>((__half2*)fa, (__half2*)fc, 256);
        else if (!strcmp(k, "regcap_fma"))
            p4_regcap_fma<<<132 * 8, 256>>>(fa, fc, 64);
        else if (!strcmp(k, "lowocc_stream"))
            p4_lowocc_stream<<<132, 256, big>>>((float4*)fa, (float4*)fc, n / 4);
        else if (!strcmp(k, "l2_reread"))
            p4_l2_reread<<<132 * 8, 256>>>((float4*)fa, fc, (16u << 20) / 16, 16);
        else if (!strcmp(k, "smem_atomic_hot"))
            p4_smem_atomic_hot<<<(1 << 20) / 256, 256>>>((unsigned*)fa, (unsigned*)fc, 256);
        else if (!strcmp(k, "quarter_lanes"))
            p4_quarter_lanes<<<(1 << 21) / 256, 256>>>(fa, fc, 512);
        else if (!strcmp(k, "one_warp_works"))
            p4_one_warp_works<<<132 * 8, 256>>>(fa, fc, 64);
        else if (!strcmp(k, "thin_blocks"))
            p4_thin_blocks<<<528, 32>>>(fa, fc, 1 << 16);
        else if (!strcmp(k, "offset_copy"))
            p4_offset_copy<<<132 * 16, 256>>>(fa, fc, n);
        else if (!strcmp(k, "byte_sum"))
            p4_byte_sum<<<132 * 16, 256>>>((unsigned char*)fa, (unsigned*)fc, n * 4);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("probe4 %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
