// Puzzle 6: blocks.
// The statement and the hints: `tilescope-cli puzzles blocks`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check blocks this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle blocks */

__global__ void blocks_kernel(const float* a, float* out, int length) {
  // Blocks of 8 threads (blockDim.x), as many blocks as the length needs.

  // TODO: your code
}
