// Shared by every Chorus kernel file. Conventions, relied upon by dev.chorus.gpu.kernel.Kernel:
//  - every kernel is extern "C" so that its PTX entry keeps its source name;
//  - one-dimensional kernels run with CHORUS_BLOCK threads per block and walk their elements with
//    a grid-stride loop, so any grid size is correct and the host may cap the grid;
//  - element counts are 64-bit, pointers to float32 data may sit at any 4-byte offset (views).
#pragma once

#define CHORUS_BLOCK 256

// Index of this thread's first element and the stride of a grid-stride loop.
#define CHORUS_FIRST ((long long)blockIdx.x * blockDim.x + threadIdx.x)
#define CHORUS_STRIDE ((long long)blockDim.x * gridDim.x)

__device__ __forceinline__ double chorus_warp_sum(double v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

__device__ __forceinline__ float chorus_warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    return v;
}

__device__ __forceinline__ float chorus_warp_sum_all(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
}

// Sum of v over a block of CHORUS_BLOCK threads, in a fixed order (deterministic); the result is
// valid in thread 0 only.
__device__ __forceinline__ double chorus_block_sum(double v) {
    __shared__ double warp_sums[CHORUS_BLOCK / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = chorus_warp_sum(v);
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    double total = 0.0;
    if (warp == 0) {
        total = lane < CHORUS_BLOCK / 32 ? warp_sums[lane] : 0.0;
        total = chorus_warp_sum(total);
    }
    return total;
}
