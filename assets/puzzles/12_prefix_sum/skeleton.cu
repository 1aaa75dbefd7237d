// Puzzle 12: prefix sum.
// The statement and the hints: `tilescope-cli puzzles prefix_sum`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check prefix_sum this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle prefix_sum */

__global__ void prefix_sum_kernel(const float* a, float* out, int length) {
  __shared__ float buf[2][64];                         // two rows: buf[0][t], buf[1][t]
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  // TODO: your code. A barrier is __syncthreads();
}
