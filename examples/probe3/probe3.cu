// probe3: a fourth held-out set of CUDA kernels, written on 2026-12-07 after
// the rules of that day and never used to tune them.  Each has one intended
// bottleneck; probe3.tsv names the class each should get, written before the
// first live run.  The forms differ from examples/zoo, examples/probe and
// examples/probe2.
//
// Usage: probe3 KERNEL [--iters N]     (probe3 --list names the kernels)
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o probe3 probe3.cu

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
            fprintf(stderr, "probe3: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// Collatz steps of each thread's own number: neighbouring lanes leave the
// loop after very different trip counts, so most of a warp idles while its
// longest lane runs.
__global__ void p3_collatz(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = (in[i] & 0xfffffu) + 1;
    unsigned steps = 0;
    while (x != 1 && steps < 2000) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        ++steps;
    }
    out[i] = steps;
}

// Warp w of a block does 16 * (w + 1) dependent FMAs, then the block meets at
// a barrier: the light warps wait for the heaviest one, round after round.
__global__ void p3_uneven_barrier(const float* __restrict__ in, float* __restrict__ out,
                                  int rounds)
{
    int w = threadIdx.x / 32;
    float x = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int r = 0; r < rounds; ++r) {
        for (int k = 0; k < 16 * (w + 1); ++k)
            x = x * 0.9999f + 0.001f;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// FP64 division and square root per element, a few rounds of each: the
// double-precision pipe does the work.
__global__ void p3_fp64_divsqrt(const double* __restrict__ in, double* __restrict__ out,
                                int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = fabs(in[i]) * 1e-300 + 2.0, y = 1.0;
    for (int r = 0; r < reps; ++r) {
        y = sqrt(x + y) / (y + 1.5);
        x = x / (y + 0.75);
    }
    out[i] = x + y;
}

// A float sum kept by compare-and-swap loops on 256 addresses (an atomic
// add built by hand): every thread retries until its CAS lands.
__global__ void p3_cas_add(const float* __restrict__ in, float* __restrict__ sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = in[i] * 1e-6f;
    unsigned* a = (unsigned*)&sums[i & 255];
    unsigned old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __float_as_uint(__uint_as_float(assumed) + v));
    } while (old != assumed);
}

// Each element stored to a hashed position: reads are coalesced, every
// lane's 4-byte store lands in a sector of its own.
__global__ void p3_scatter_store(const float* __restrict__ in, float* __restrict__ out,
                                 unsigned mask)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = (i * 2654435761u) & mask;
    out[j] = in[i] * 3.0f;
}

// A write-only fill of 256 MiB in float4 stores, grid-stride.
__global__ void p3_fill4(float4* __restrict__ out, size_t n4, float v)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = make_float4(v, v + 1.0f, v + 2.0f, v + 3.0f);
}

// 32-bit integer division and remainder by divisors known only at run
// time, in a loop: the divisions expand to long integer instruction
// sequences.
__global__ void p3_int_divmod(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                              int n, unsigned d0, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = in[i] | 1u, d = d0 + (i & 7), acc = 0;
    for (int r = 0; r < reps; ++r) {
        acc += x / d + x % (d + 3);
        x = x * 1103515245u + 12345u;
    }
    out[i] = acc;
}

// Eight blocks of 64 threads stream a long slice each on a 132-SM GPU.
__global__ void p3_eight_blocks(const float* __restrict__ in, float* __restrict__ out,
                                int per)
{
    float s = 0.0f;
    const float* p = in + (size_t)blockIdx.x * per;
    for (int k = threadIdx.x; k < per; k += blockDim.x)
        s += p[k] * 1.5f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// 40 values kept live across a loop, with launch bounds that leave 32
// registers a thread: the compiler keeps the rest in local memory.
__global__ void __launch_bounds__(256, 8)
p3_bounded_regs(const float* __restrict__ in, float* __restrict__ out, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v[40];
#pragma unroll
    for (int k = 0; k < 40; ++k)
        v[k] = in[i] + (float)k;
    for (int r = 0; r < reps; ++r) {
#pragma unroll
        for (int k = 0; k < 40; ++k)
            v[k] = v[k] * v[(k + 7) % 40] + 0.5f;
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 40; ++k)
        s += v[k];
    out[i] = s;
}

// Doubles in shared memory read with a stride of 16: the lanes of a warp
// fall on two banks' worth of addresses.
__global__ void p3_smem_double_stride(const double* __restrict__ in, double* __restrict__ out,
                                      int reps)
{
    __shared__ double t[32 * 16];
    int lane = threadIdx.x & 31;
    for (int k = threadIdx.x; k < 32 * 16; k += blockDim.x)
        t[k] = in[blockIdx.x * 512 + k];
    __syncthreads();
    double s = 0.0;
    for (int r = 0; r < reps; ++r)
        s += t[(lane * 16 + r) & 511];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// A coalesced streaming read by blocks of 64 threads that each reserve
// 200 KiB of shared memory: one block (two warps) an SM, far too few loads
// in flight for the memory system.
__global__ void p3_one_block_per_sm(const float* __restrict__ in, float* __restrict__ out,
                                    int per)
{
    extern __shared__ float big[];
    const float* p = in + (size_t)blockIdx.x * per;
    float s = 0.0f;
    for (int k = threadIdx.x; k < per; k += blockDim.x)
        s += p[k];
    big[threadIdx.x] = s;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = big[threadIdx.x ^ 1];
}

// Each thread keeps eight half2 rows in registers and adds their outer
// product with four half2 columns a step: 32 fp16 multiply-adds a 16-byte
// load, on the FMA pipe (a matrix product written without tensor cores).
__global__ void p3_half2_outer(const uint4* __restrict__ A, const uint4* __restrict__ B,
                               __half2* __restrict__ out, int steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uint4 a0 = A[2 * i], a1 = A[2 * i + 1];
    __half2 a[8], acc[8][4];
    memcpy(&a[0], &a0, 16);
    memcpy(&a[4], &a1, 16);
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c)
            acc[r][c] = __float2half2_rn(0.0f);
    for (int k = 0; k < steps; ++k) {
        uint4 b4 = B[(k * 256 + threadIdx.x) & 4095];
        __half2 b[4];
        memcpy(b, &b4, 16);
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                acc[r][c] = __hfma2(a[r], b[c], acc[r][c]);
    }
    __half2 s = __float2half2_rn(0.0f);
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c)
            s = __hadd2(s, acc[r][c]);
    out[i] = s;
}

// Warps chase a chain of 128-byte nodes through 256 MiB: lane 0 holds the
// next index and shares it with the warp, each node one coalesced load.
__global__ void p3_node_chase(const unsigned* __restrict__ nodes, float* __restrict__ out,
                              unsigned nnodes, int steps)
{
    int lane = threadIdx.x & 31;
    unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned p = (w * 2654435761u) % nnodes;
    float s = 0.0f;
    for (int k = 0; k < steps; ++k) {
        unsigned v = nodes[(size_t)p * 32 + lane];
        s += (float)(v & 255);
        p = __shfl_sync(0xffffffffu, v, 0) % nnodes;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// ---------------------------------------------------------------------------

static const char* names[] = {
    "collatz", "uneven_barrier", "fp64_divsqrt", "cas_add", "scatter_store", "fill4",
    "int_divmod", "eight_blocks", "bounded_regs", "smem_double_stride",
    "one_block_per_sm", "half2_outer", "node_chase", NULL};

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
        fprintf(stderr, "usage: probe3 KERNEL [--iters N]; probe3 --list\n");
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
    const int big = 200 * 1024;
    CK(cudaFuncSetAttribute(p3_one_block_per_sm,
                            cudaFuncAttributeMaxDynamicSharedMemorySize, big));
    float total = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int it = 0; it <= iters; ++it) {
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "collatz"))
            p3_collatz<<<(1 << 20) / 256, 256>>>((unsigned*)fa, (unsigned*)fc, 1 << 20);
        else if (!strcmp(k, "uneven_barrier"))
            p3_uneven_barrier<<<132 * 4, 512>>>(fa, fc, 64);
        else if (!strcmp(k, "fp64_divsqrt"))
            p3_fp64_divsqrt<<<(1 << 21) / 256, 256>>>((double*)fa, (double*)fc, 1 << 21, 16);
        else if (!strcmp(k, "cas_add"))
            p3_cas_add<<<(1 << 20) / 256, 256>>>(fa, fc, 1 << 20);
        else if (!strcmp(k, "scatter_store"))
            p3_scatter_store<<<(1 << 24) / 256, 256>>>(fa, fc, (1u << 26) - 1);
        else if (!strcmp(k, "fill4"))
            p3_fill4<<<132 * 8, 256>>>((float4*)fc, n / 4, 1.0f);
        else if (!strcmp(k, "int_divmod"))
            p3_int_divmod<<<(1 << 22) / 256, 256>>>((unsigned*)fa, (unsigned*)fc, 1 << 22,
                                                   7u, 32);
        else if (!strcmp(k, "eight_blocks"))
            p3_eight_blocks<<<8, 64>>>(fa, fc, 1 << 20);
        else if (!strcmp(k, "bounded_regs"))
            p3_bounded_regs<<<(1 << 21) / 256, 256>>>(fa, fc, 8);
        else if (!strcmp(k, "smem_double_stride"))
            p3_smem_double_stride<<<132 * 16, 256>>>((double*)fa, (double*)fc, 512);
        else if (!strcmp(k, "one_block_per_sm"))
            p3_one_block_per_sm<<<132 * 3, 64, big>>>(fa, fc, 1 << 17);
        else if (!strcmp(k, "half2_outer"))
            p3_half2_outer<<<(1 << 20) / 256, 256>>>((uint4*)fa, (uint4*)fa + (1 << 22),
                                                    (__half2*)fc, 256);
        else if (!strcmp(k, "node_chase"))
            p3_node_chase<<<132 * 8, 256>>>((unsigned*)fa, fc, (unsigned)(n / 32), 64);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("probe3 %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
