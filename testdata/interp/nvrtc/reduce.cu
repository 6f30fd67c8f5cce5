extern "C" __global__ void reduce_sum(const float* in, float* out, int n) {
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.f;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float x = sdata[tid] + (blockDim.x > 32 ? sdata[tid + 32] : 0.f);
        for (int off = 16; off > 0; off /= 2) x += __shfl_down_sync(0xffffffff, x, off);
        if (tid == 0) out[blockIdx.x] = x;
    }
}
extern "C" __global__ void warp_max_partial(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = __ballot_sync(0xffffffff, i < n);
    if (i < n) {
        int v = in[i];
        for (int off = 16; off > 0; off /= 2) {
            int o = __shfl_xor_sync(mask, v, off);
            v = max(v, o);
        }
        out[i] = v;
    }
}
