#define TD 32
#define BR 8
extern "C" __global__ void transpose_padded(float* odata, const float* idata, int width, int height) {
    __shared__ float tile[TD][TD + 1];
    int x = blockIdx.x * TD + threadIdx.x;
    int y = blockIdx.y * TD + threadIdx.y;
    for (int j = 0; j < TD; j += BR)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x;
    y = blockIdx.x * TD + threadIdx.y;
    for (int j = 0; j < TD; j += BR)
        if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
