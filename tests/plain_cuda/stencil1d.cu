// Seed 002 ("Problem 3: 1D Stencil - Using Shared Memory"): the averaging
// filter with `extern __shared__`, as the tutorial prints steps 1, 3 and 4.
// Step 2 is described in words only ("the first and last threads load the
// halo elements, the others their own; clamp at the edges"): written so here.
/* tilescope:
   kernel stencil1D_kernel
   params length=100 block=32
   grid (length + block - 1) / block
   block block
   shared (block + 2 * 1) * sizeof(int)
   array d_A in length
   array d_C out length
   arg N = length
   reference stencil
*/

__global__ void stencil1D_kernel(int* d_A, int* d_C, int N) {
    extern __shared__ int s_data[];  // Dynamic shared memory

    const int radius = 1;
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;

    // Step 2: collaborative loading, halo cells by the first and last threads
    s_data[tid + radius] = d_A[min(gid, N - 1)];
    if (tid == 0)
        s_data[0] = d_A[max(gid - radius, 0)];
    if (tid == blockDim.x - 1)
        s_data[tid + 2 * radius] = d_A[min(gid + radius, N - 1)];

    __syncthreads();  // Wait for all threads to complete loading

    if (gid < N) {
        int left = s_data[tid + radius - 1];
        int center = s_data[tid + radius];
        int right = s_data[tid + radius + 1];

        d_C[gid] = (left + center + right) / 3;
    }
}
