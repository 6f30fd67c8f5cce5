struct Params { float* out; const float* in; int n; float scale; };
extern "C" __global__ void by_value(Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.out[i] = p.in[i] * p.scale;
}
extern "C" __global__ void hello(int* out) {
    printf("block %d thread %d value %f\n", blockIdx.x, threadIdx.x, 1.5f * threadIdx.x);
    out[threadIdx.x] = threadIdx.x;
}
extern "C" __global__ void bitonic(int* data, int j, int k) {
    unsigned i = threadIdx.x + blockDim.x * blockIdx.x;
    unsigned ixj = i ^ j;
    if (ixj > i) {
        if ((i & k) == 0) { if (data[i] > data[ixj]) { int t = data[i]; data[i] = data[ixj]; data[ixj] = t; } }
        else { if (data[i] < data[ixj]) { int t = data[i]; data[i] = data[ixj]; data[ixj] = t; } }
    }
}
extern "C" __global__ void syncwarp_half(int* out) {
    int lane = threadIdx.x & 31;
    if (lane < 16) {
        int v = lane;
        v += __shfl_down_sync(0xffff, v, 8);
        __syncwarp(0xffff);
        unsigned b = __ballot_sync(0xffff, v & 1);
        out[threadIdx.x] = v + b;
    }
}
extern "C" __global__ void divide(const int* a, int* out, int d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] / d + a[i] % d;
}
extern "C" __global__ void long_loop(float* out) {
    float acc = 0.f;
    for (int i = 0; i < 100000; ++i) acc = acc * 0.999f + 1.f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
