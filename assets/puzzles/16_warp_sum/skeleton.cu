// Puzzle 16: warp-shuffle reduction.
// The statement and the hints: `tilescope-cli puzzles warp_sum`.
// Write the kernel's body where it says TODO, then
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

  // TODO: your code. A barrier is __syncthreads();
}
