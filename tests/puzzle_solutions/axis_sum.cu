// Puzzle 13: axis sum.
// The statement and the hints: `tilescope-cli puzzles axis_sum`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
//   tilescope-cli check axis_sum this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle axis_sum */

__global__ void axis_sum_kernel(const float* a, float* out, int m, int n) {
  // a: m x n, row-major: a[row * n + col]; out: one sum per row.
  __shared__ float cache[64];
  const int t = threadIdx.x;   // 64 threads per block
  const int row = blockIdx.x;  // one block per row

  float sum = 0.0f;
  for (int j = t; j < n; j += 64)  // @LOOP
    sum += a[row * n + j];         // @LOAD
  cache[t] = sum;
  __syncthreads();  // @BARRIER1
  for (int s = 32; s > 0; s /= 2) {
    if (t < s) cache[t] += cache[t + s];  // @ADD
    __syncthreads();                      // @BARRIER2
  }
  if (t == 0) out[row] = cache[0];
}
