// Puzzle 7: 2D blocks.
// The statement and the hints: `tilescope-cli puzzles blocks_2d`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check blocks_2d this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle blocks_2d */

__global__ void blocks_2d_kernel(const float* a, float* out, int n) {
  // a and out: n x n, row-major: a[row * n + col].
  // Blocks of 8 x 8 threads; a grid of ceil(n / 8) x ceil(n / 8) blocks.

  // TODO: your code
}
