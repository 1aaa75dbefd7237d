// Puzzle 13: axis sum.
// The statement and the hints: `tilescope-cli puzzles axis_sum`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check axis_sum this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle axis_sum */

__global__ void axis_sum_kernel(const float* a, float* out, int m, int n) {
  // a: m x n, row-major: a[row * n + col]; out: one sum per row.
  __shared__ float cache[64];
  const int t = threadIdx.x;   // 64 threads per block
  const int row = blockIdx.x;  // one block per row

  // TODO: your code. A barrier is __syncthreads();
}
