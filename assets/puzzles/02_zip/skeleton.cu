// Puzzle 2: zip.
// The statement and the hints: `tilescope-cli puzzles zip`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check zip this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle zip */

__global__ void zip_kernel(const float* a, const float* b, float* out, int length) {
  const int i = threadIdx.x;  // one block of `length` threads

  // TODO: your code (one line)
}
