extern "C" __global__ void saxpy4(float4* y, const float4* x, float a, int n4, int offset) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 xv = x[i + offset];
        float4 yv = y[i];
        yv.x += a * xv.x; yv.y += a * xv.y; yv.z += a * xv.z; yv.w += a * xv.w;
        y[i] = yv;
    }
}
extern "C" __global__ void copy_u64x2(ulonglong2* dst, const ulonglong2* src, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) dst[i] = __ldg(&src[i]);
}
extern "C" __global__ void stencil5(const float* in, float* out, int n) {
    __shared__ float s[256 + 4];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + 2;
    s[l] = g < n ? in[g] : 0.f;
    if (threadIdx.x < 2) {
        s[l - 2] = g >= 2 && g - 2 < n ? in[g - 2] : 0.f;
        s[l + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0.f;
    }
    __syncthreads();
    if (g < n) out[g] = s[l - 2] + s[l - 1] + s[l] + s[l + 1] + s[l + 2];
}
