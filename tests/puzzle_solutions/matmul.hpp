// The reference solution of puzzle matmul (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_matmul {

enum : ArraySlot { kA = 1, kB, kC, kTileA, kTileB };

constexpr int TILE = 8;

template <class Rec>
TS_DEVICE void matmul_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n), row-major
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)
  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, kTileA);  // tileA[row][col]
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, kTileB);
  // Blocks of TILE x TILE threads; block (bx, by) computes that tile of C.
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;

  float sum = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {  // @TILES
    const int a_col = t * TILE + tx, b_row = t * TILE + ty;
    tileA[ty][tx] = row < n && a_col < n ? float(A[row * n + a_col]) : 0.0f;  // @LOADA
    tileB[ty][tx] = b_row < n && col < n ? float(B[b_row * n + col]) : 0.0f;  // @LOADB
    SYNCTHREADS(1);                                                           // @BARRIER1
    for (int k = 0; k < TILE; ++k)                                            // @INNER
      sum += tileA[ty][k] * tileB[k][tx];                                     // @FMA
    SYNCTHREADS(2);                                                           // @BARRIER2
  }
  if (row < n && col < n) C[row * n + col] = sum;
}

TS_KERNEL_BODY(Body, matmul_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("matmul", __FILE__); }
};

}  // namespace ts::lessons::puzzle_matmul
