// Puzzle 5: broadcast.
// The statement and the hints: `tilescope-cli puzzles broadcast`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check broadcast this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle broadcast */

__global__ void broadcast_kernel(const float* a, const float* b, float* out, int m, int n) {
  // a: a column of m, b: a row of n, out: m x n, row-major (m, n: 1 to 8).
  // One block of 8 x 8 threads.
  const int tx = threadIdx.x, ty = threadIdx.y;

  // TODO: your code
}
