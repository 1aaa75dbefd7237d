// Puzzle 3: guards.
// The statement and the hints: `tilescope-cli puzzles guards`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check guards this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle guards */

__global__ void guards_kernel(const float* a, float* out, int length) {
  const int i = threadIdx.x;  // one block of 32 threads, whatever the length (1 to 32)

  // TODO: your code
}
