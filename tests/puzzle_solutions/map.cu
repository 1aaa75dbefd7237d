// Puzzle 1: map.
// The statement and the hints: `tilescope-cli puzzles map`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
//   tilescope-cli check map this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle map */

__global__ void map_kernel(const float* a, float* out, int length) {
  const int i = threadIdx.x;  // one block of `length` threads

  out[i] = a[i] + 10.0f;  // @STORE
}
