// Puzzle 12: prefix sum.
// The statement and the hints: `tilescope-cli puzzles prefix_sum`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
//   tilescope-cli check prefix_sum this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle prefix_sum */

__global__ void prefix_sum_kernel(const float* a, float* out, int length) {
  __shared__ float buf[2][64];                         // two rows: buf[0][t], buf[1][t]
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  buf[0][t] = i < length ? float(a[i]) : 0.0f;
  __syncthreads();  // @BARRIER1
  int from = 0;
  for (int d = 1; d < 64; d *= 2) {  // @STEPS
    float v = buf[from][t];
    if (t >= d) v += buf[from][t - d];
    buf[1 - from][t] = v;  // @WRITE
    __syncthreads();       // @BARRIER2
    from = 1 - from;       // @SWAP
  }
  if (i < length) out[i] = buf[from][t];
}
