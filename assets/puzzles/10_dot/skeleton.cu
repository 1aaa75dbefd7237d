// Puzzle 10: dot product.
// The statement and the hints: `tilescope-cli puzzles dot`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check dot this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle dot */

__global__ void dot_kernel(const float* a, const float* b, float* out, int length) {
  __shared__ float cache[64];
  const int t = threadIdx.x;  // one block of 64 threads; any length: more elements than threads

  // TODO: your code. A barrier is __syncthreads();
}
