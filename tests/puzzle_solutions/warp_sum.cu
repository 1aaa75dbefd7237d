// Puzzle 16: warp-shuffle reduction.
// The statement and the hints: `tilescope-cli puzzles warp_sum`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
//   tilescope-cli check warp_sum this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle warp_sum */

__global__ void warp_sum_kernel(const float* in, float* out, int length) {
  // out: one sum per block.
  __shared__ float warp_sums[4];                        // one per warp
  const int t = threadIdx.x, i = blockIdx.x * 128 + t;  // blocks of 128 threads: 4 warps
  const int lane = t % 32, warp = t / 32;
  // v + __shfl_down_sync(0xffffffff, v, s): lane l adds lane l + s's v. Every lane
  // of the warp must reach it.

  float v = i < length ? float(in[i]) : 0.0f;
  for (int s = 16; s > 0; s /= 2)             // @SHUFFLES
    v += __shfl_down_sync(0xffffffff, v, s);  // @SHUFFLE
  if (lane == 0) warp_sums[warp] = v;         // @PARTIAL
  __syncthreads();                            // @BARRIER
  if (t == 0)
    out[blockIdx.x] = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];  // @STORE
}
