// A whole program as a student pastes it: includes, the kernel, a helper
// with a barrier, and main() with cudaMalloc and a launch. TileScope leaves
// main out; the launch block says what it did.
/* tilescope:
   kernel histogram
   params length=300 block=64
   grid 4
   block block
   array data in length
   array bins out 16
   arg n = length
   reference histogram_cpu
*/
#include <cstdio>
#include <cuda_runtime.h>

#define BINS 16

__device__ void clear_then_wait(unsigned* s, int t) {
    if (t < BINS) s[t] = 0;
    __syncthreads();
}

__global__ void histogram(const int* data, unsigned* bins, int n) {
    __shared__ unsigned local[BINS];
    clear_then_wait(local, threadIdx.x);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[(data[i] % BINS + BINS) % BINS], 1u);
    __syncthreads();
    if (threadIdx.x < BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

void histogram_cpu(const int* data, unsigned* bins, int n) {
    for (int i = 0; i < n; ++i) bins[(data[i] % BINS + BINS) % BINS] += 1;
}

int main() {
    const int n = 300;
    int* d_data;
    unsigned* d_bins;
    cudaMalloc(&d_data, n * sizeof(int));
    cudaMalloc(&d_bins, BINS * sizeof(unsigned));
    cudaMemset(d_bins, 0, BINS * sizeof(unsigned));
    histogram<<<4, 64>>>(d_data, d_bins, n);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
