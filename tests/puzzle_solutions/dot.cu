// Puzzle 10: dot product.
// The statement and the hints: `tilescope-cli puzzles dot`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
//   tilescope-cli check dot this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle dot */

__global__ void dot_kernel(const float* a, const float* b, float* out, int length) {
  __shared__ float cache[64];
  const int t = threadIdx.x;  // one block of 64 threads; any length: more elements than threads

  float sum = 0.0f;
  for (int j = t; j < length; j += 64)  // @LOOP
    sum += a[j] * b[j];
  cache[t] = sum;
  __syncthreads();                        // @BARRIER1
  for (int s = 32; s > 0; s /= 2) {       // @TREE
    if (t < s) cache[t] += cache[t + s];  // @ADD
    __syncthreads();                      // @BARRIER2
  }
  if (t == 0) out[0] = cache[0];
}
