// probe5: a sixth held-out set of CUDA kernels, written on 2026-12-07 before
// any run and never used to tune the rules.  Each has one intended
// bottleneck; probe5.tsv names the class each should get, written before the
// first live run.  Most are traps where a rule's premise is visible on the
// page but is not the cause: warp-uniform branches, barriers in a streaming
// loop, shared-memory broadcasts, random rows read whole, shared memory that
// is padded right, lanes that share a word.
//
// Usage: probe5 KERNEL [--iters N]     (probe5 --list names the kernels)
// Build: nvcc -O3 -lineinfo -arch=sm_90 -o probe5 probe5.cu

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "probe5: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                    #call, cudaGetErrorString(e_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// Every third float: a warp's 32 loads span 384 bytes, so two thirds of each
// sector fetched from DRAM is never used.
__global__ void p5_stride3_read(const float* __restrict__ in, float* __restrict__ out,
                                size_t m)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[3 * i] * 2.0f;
}

// Eight code paths chosen by the warp's number: branches a plenty, but all
// lanes of a warp take the same one, so no lane idles.  FMA-bound.
__global__ void p5_warp_paths(const float* __restrict__ in, float* __restrict__ out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i] * 1e-3f, a0 = x, a1 = x + 1.f, a2 = x + 2.f, a3 = x + 3.f;
    switch ((threadIdx.x >> 5) & 7) {
#define PATH(n, c)                                                            \
    case n:                                                                   \
        for (int k = 0; k < iters; ++k) {                                     \
            a0 = fmaf(a0, c, x); a1 = fmaf(a1, c, x);                         \
            a2 = fmaf(a2, c, x); a3 = fmaf(a3, c, x);                         \
        }                                                                     \
        break;
        PATH(0, 0.9991f) PATH(1, 0.9983f) PATH(2, 0.9975f) PATH(3, 0.9967f)
        PATH(4, 0.9959f) PATH(5, 0.9951f) PATH(6, 0.9943f) PATH(7, 0.9935f)
#undef PATH
    }
    out[i] = a0 + a1 + a2 + a3;
}

// A streaming copy with a block-wide barrier between every load and store:
// the barrier stalls are there, but every warp waits on the same DRAM.
__global__ void p5_barrier_stream(const float4* __restrict__ in, float4* __restrict__ out,
                                  size_t n4)
{
    __shared__ float4 stage[256];
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        stage[threadIdx.x] = in[i];
        __syncthreads();
        out[i] = stage[(threadIdx.x + 1) & 255];
        __syncthreads();
    }
}

// Shared-memory reads that every lane makes at one address (a broadcast, no
// bank conflict), each feeding eight FMAs.  FMA-bound.
__global__ void p5_smem_broadcast(const float* __restrict__ in, float* __restrict__ out,
                                  int iters)
{
    __shared__ float table[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    table[threadIdx.x] = in[threadIdx.x] * 1e-3f + 0.5f;
    __syncthreads();
    float x = in[i], a[8];
#pragma unroll
    for (int j = 0; j < 8; ++j)
        a[j] = x + (float)j;
    for (int k = 0; k < iters; ++k) {
        float s = table[(k * 7) & 255];
#pragma unroll
        for (int j = 0; j < 8; ++j)
            a[j] = fmaf(a[j], s, x);
    }
    float t = 0.f;
#pragma unroll
    for (int j = 0; j < 8; ++j)
        t += a[j];
    out[i] = t;
}

// 64-bit unsigned division by a value only known at run time: no hardware
// divider, so each is a few dozen integer instructions.
__global__ void p5_int64_div(const unsigned long long* __restrict__ in,
                             unsigned long long* __restrict__ out, unsigned long long d,
                             int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long x = in[i] | (1ull << 62), y = 0;
    for (int k = 0; k < iters; ++k) {
        y += x / (d + (unsigned)k);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    }
    out[i] = y;
}

// A histogram of 64 bins a thread, indexed by the data: a per-thread array
// with a run-time index lives in local memory.
__global__ void p5_local_hist(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                              int words)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned h[64];
#pragma unroll
    for (int b = 0; b < 64; ++b)
        h[b] = 0;
    for (int w = 0; w < words; ++w) {
        unsigned v = in[(size_t)w * gridDim.x * blockDim.x + i];
        h[v & 63]++;
        h[(v >> 8) & 63]++;
        h[(v >> 16) & 63]++;
        h[(v >> 24) & 63]++;
    }
    unsigned s = 0;
#pragma unroll
    for (int b = 0; b < 64; ++b)
        s += h[b] * (unsigned)(b + 1);
    out[i] = s;
}

// Random rows, each read whole by one warp (32 float4, 512 bytes): random
// in which row, coalesced within it.
__global__ void p5_row_gather(const float4* __restrict__ table, const unsigned* __restrict__ idx,
                              float4* __restrict__ out, int rows_out)
{
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w < rows_out)
        out[(size_t)w * 32 + lane] = table[(size_t)idx[w] * 32 + lane];
}

// The textbook transpose through a 32x33 shared tile: reads and writes
// coalesced, the padding keeps the column reads off one bank.
__global__ void p5_smem_transpose(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// IEEE single-precision division, four independent chains a thread: a
// reciprocal on the XU and a few FMAs of correction each.
__global__ void p5_ieee_div(const float* __restrict__ in, float* __restrict__ out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i] * 1e-3f + 1.5f, y0 = x, y1 = x + 1.f, y2 = x + 2.f, y3 = x + 3.f;
    for (int k = 0; k < iters; ++k) {
        y0 = x / (y0 + 1.25f);
        y1 = x / (y1 + 1.5f);
        y2 = x / (y2 + 1.75f);
        y3 = x / (y3 + 2.0f);
    }
    out[i] = y0 + y1 + y2 + y3;
}

// Eight lanes read one word (a request touches a sector or less) and every
// lane writes its own: the stores stream to DRAM.
__global__ void p5_fanout_copy(const float* __restrict__ in, float4* __restrict__ out,
                               size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = in[i >> 3];
        out[i] = make_float4(v, v + 1.f, v + 2.f, v + 3.f);
    }
}

// ---------------------------------------------------------------------------

static const char* names[] = {
    "stride3_read", "warp_paths", "barrier_stream", "smem_broadcast", "int64_div",
    "local_hist", "row_gather", "smem_transpose", "ieee_div", "fanout_copy", NULL};

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
        fprintf(stderr, "usage: probe5 KERNEL [--iters N]; probe5 --list\n");
        return 2;
    }
    const size_t n = (size_t)1 << 26;  // 64 Mi elements, 256 MiB of floats
    float *fa, *fc;
    CK(cudaMalloc(&fa, n * sizeof(float)));
    CK(cudaMalloc(&fc, n * sizeof(float)));
    unsigned* idx;
    const int rows_out = 1 << 17, rows = (int)(n / 128);  // 512-byte rows
    CK(cudaMalloc(&idx, rows_out * sizeof(unsigned)));
    {
        unsigned* h = (unsigned*)malloc(n * sizeof(unsigned));
        for (size_t i = 0; i < n; ++i)
            h[i] = 0x3f800000u ^ (unsigned)(((uint64_t)i * 2654435761u) & 0x007fffffu);
        CK(cudaMemcpy(fa, h, n * sizeof(unsigned), cudaMemcpyHostToDevice));
        for (int i = 0; i < rows_out; ++i)
            h[i] = (unsigned)(((uint64_t)i * 2654435761u) % (uint64_t)rows);
        CK(cudaMemcpy(idx, h, rows_out * sizeof(unsigned), cudaMemcpyHostToDevice));
        free(h);
    }
    CK(cudaMemset(fc, 0, n * sizeof(float)));
    float total = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int it = 0; it <= iters; ++it) {
        CK(cudaEventRecord(e0));
        if (!strcmp(k, "stride3_read"))
            p5_stride3_read<<<132 * 16, 256>>>(fa, fc, n / 3);
        else if (!strcmp(k, "warp_paths"))
            p5_warp_paths<<<(1 << 21) / 256, 256>>>(fa, fc, 512);
        else if (!strcmp(k, "barrier_stream"))
            p5_barrier_stream<<<132 * 8, 256>>>((float4*)fa, (float4*)fc, n / 4);
        else if (!strcmp(k, "smem_broadcast"))
            p5_smem_broadcast<<<(1 << 21) / 256, 256>>>(fa, fc, 512);
        else if (!strcmp(k, "int64_div"))
            p5_int64_div<<<(1 << 20) / 256, 256>>>((unsigned long long*)fa,
                                                  (unsigned long long*)fc, 1000003ull, 32);
        else if (!strcmp(k, "local_hist"))
            p5_local_hist<<<(1 << 20) / 256, 256>>>((unsigned*)fa, (unsigned*)fc, 32);
        else if (!strcmp(k, "row_gather"))
            p5_row_gather<<<rows_out * 32 / 256, 256>>>((float4*)fa, idx, (float4*)fc, rows_out);
        else if (!strcmp(k, "smem_transpose"))
            p5_smem_transpose<<<dim3(8192 / 32, 8192 / 32), dim3(32, 8)>>>(fa, fc, 8192);
        else if (!strcmp(k, "ieee_div"))
            p5_ieee_div<<<(1 << 21) / 256, 256>>>(fa, fc, 256);
        else if (!strcmp(k, "fanout_copy"))
            p5_fanout_copy<<<132 * 16, 256>>>(fa, (float4*)fc, n / 4);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it > 0)
            total += ms;
    }
    printf("probe5 %s: %.3f ms per launch (%d launches)\n", k, total / iters, iters);
    return 0;
}
