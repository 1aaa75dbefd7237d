// Puzzle 4: 2D map.
// The statement and the hints: `tilescope-cli puzzles map_2d`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
//   tilescope-cli check map_2d this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle map_2d */

__global__ void map_2d_kernel(const float* a, float* out, int n) {
  // a and out: n x n (1 to 8), row-major: a[row * n + col].
  // One block of 8 x 8 threads, whatever n is.
  const int tx = threadIdx.x, ty = threadIdx.y;

  const int row = ty, col = tx;                     // @INDEX
  if (row < n && col < n)                           // @GUARD
    out[row * n + col] = a[row * n + col] + 10.0f;  // @STORE
}
