// Puzzle 14: matrix multiply.
// The statement and the hints: `tilescope-cli puzzles matmul`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check matmul this_file.cu          grades it
//   tilescope-cli run --lesson-file this_file.cu    runs it (the window: tilescope --lesson-file)
// It is plain CUDA: nvcc compiles it as it is. Keep the launch block and the
// kernel's parameters: the arrays, the launch and the sizes are the puzzle's.
/* tilescope: puzzle matmul */

#define TILE 8

__global__ void matmul_kernel(const float* A, const float* B, float* C, int n) {
  // A, B, C: n x n, row-major: A[row * n + col].
  __shared__ float tileA[TILE][TILE];  // tileA[row][col]
  __shared__ float tileB[TILE][TILE];
  // Blocks of TILE x TILE threads; block (bx, by) computes that tile of C.
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;

  // TODO: your code. A barrier is __syncthreads();
}
