// Puzzle 11: 1D convolution.
// The statement and the hints: `tilescope-cli puzzles conv1d`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
//   tilescope-cli check conv1d this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle conv1d */

__global__ void conv1d_kernel(const float* a, const float* w, float* out, int length, int radius) {
  // w: the 2 radius + 1 weights (radius 1 to 4).
  __shared__ float tile[64 + 2 * 4];                   // room for 4 halo cells a side
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  tile[t + radius] = i < length ? float(a[i]) : 0.0f;  // @LOAD
  if (t < radius) {
    const int left = i - radius, right = i + 64;  // @HALO
    tile[t] = left >= 0 && left < length ? float(a[left]) : 0.0f;
    tile[t + 64 + radius] = right < length ? float(a[right]) : 0.0f;
  }
  __syncthreads();  // @BARRIER
  if (i < length) {
    float sum = 0.0f;
    for (int j = 0; j <= 2 * radius; ++j)
      sum += tile[t + j] * w[j];  // @SUM
    out[i] = sum;
  }
}
