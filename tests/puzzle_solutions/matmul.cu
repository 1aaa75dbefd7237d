// Puzzle 14: matrix multiply.
// The statement and the hints: `tilescope-cli puzzles matmul`.
// The reference solution (tests/test_puzzles.cpp); the @ markers name lines
// the wrong solutions edit.
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

  float sum = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {  // @TILES
    const int a_col = t * TILE + tx, b_row = t * TILE + ty;
    tileA[ty][tx] = row < n && a_col < n ? float(A[row * n + a_col]) : 0.0f;  // @LOADA
    tileB[ty][tx] = b_row < n && col < n ? float(B[b_row * n + col]) : 0.0f;  // @LOADB
    __syncthreads();                                                          // @BARRIER1
    for (int k = 0; k < TILE; ++k)                                            // @INNER
      sum += tileA[ty][k] * tileB[k][tx];                                     // @FMA
    __syncthreads();                                                          // @BARRIER2
  }
  if (row < n && col < n) C[row * n + col] = sum;
}
