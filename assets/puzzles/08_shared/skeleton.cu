// Puzzle 8: shared memory.
// The statement and the hints: `tilescope-cli puzzles shared`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check shared this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle shared */

__global__ void shared_kernel(const float* a, float* out, int length) {
  __shared__ float cache[64];  // one per block
  // Blocks of 64 threads (two warps): block b owns elements start .. start + count - 1.
  const int t = threadIdx.x, start = blockIdx.x * 64;
  const int count = length - start < 64 ? length - start : 64;

  // TODO: your code. A barrier is __syncthreads();
}
