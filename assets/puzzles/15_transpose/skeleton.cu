// Puzzle 15: transpose without bank conflicts.
// The statement and the hints: `tilescope-cli puzzles transpose`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check transpose this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle transpose */

#define TILE 32

__global__ void transpose_kernel(const float* in, float* out, int n) {
  // in, out: n x n, row-major; out[c * n + r] = in[r * n + c].
  // The tile's layout is yours: [TILE][TILE] or [TILE][TILE + 1] (both fit its room).
  __shared__ float tile[TILE][TILE];
  // Blocks of 32 x 32 threads, one per 32 x 32 tile of `in`.
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;

  // TODO: your code. A barrier is __syncthreads();
}
