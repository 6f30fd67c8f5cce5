extern "C" __global__ void hist_shared(const unsigned char* in, unsigned* bins, int n) {
    __shared__ unsigned local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}
extern "C" __global__ void half_accum(const unsigned* in, unsigned* acc, unsigned short* acc1, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned v = in[i];
        asm volatile("red.global.add.noftz.f16x2 [%0], %1;" :: "l"(acc + (i & 7)), "r"(v) : "memory");
        unsigned short lo = (unsigned short)(v & 0xffff), old;
        asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;" : "=h"(old) : "l"(acc1 + (i & 3)), "h"(lo) : "memory");
    }
}
