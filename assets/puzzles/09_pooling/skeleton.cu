// Puzzle 9: pooling.
// The statement and the hints: `tilescope-cli puzzles pooling`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check pooling this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle pooling */

__global__ void pooling_kernel(const float* a, float* out, int length) {
  __shared__ float cache[64 + 2];                      // the block's 64, and the 2 before them
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  // TODO: your code. A barrier is __syncthreads();
}
