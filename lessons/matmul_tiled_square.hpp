// Tiled matrix multiply for square n x n matrices, any n. Each block loads a
// TILE x TILE tile of A and of B into shared memory, multiplies them, and
// moves on along the shared dimension: every element of A and B is read from
// global memory n / TILE times instead of n times. Tiles that hang over the
// edge are padded with zeros, and threads outside C still load and still
// reach both barriers: a thread that skipped a barrier would leave its block
// waiting forever.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_tiled_square {

enum : ArraySlot { kA = 1, kB, kC, kTileA, kTileB };

template <int TILE, class Rec>
TS_DEVICE void matmul_tiled_square(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, kTileA);
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, kTileB);

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;  // the row of C this thread computes
  const int col = blockIdx.x * TILE + tx;  // the column of C this thread computes

  float sum = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    const int a_col = t * TILE + tx;
    const int b_row = t * TILE + ty;
    // Each thread loads one element of each tile; outside the matrix, a zero.
    tileA[ty][tx] = (row < n && a_col < n) ? float(A[row * n + a_col]) : 0.0f;
    tileB[ty][tx] = (b_row < n && col < n) ? float(B[b_row * n + col]) : 0.0f;
    SYNCTHREADS(1);  // both tiles complete before anyone reads them

    for (int kk = 0; kk < TILE; ++kk) {
      sum += tileA[ty][kk] * tileB[kk][tx];
      DELAY_POINT(kk == TILE / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }
  if (row < n && col < n) C[row * n + col] = sum;
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int TILE>
TS_KERNEL_BODY(Body, (matmul_tiled_square<TILE>(rec, args)));

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return lesson_kit::visit_tile(p.tile, [&]<int T>() { f(Body<T>{}); });
  }

  static LessonSpec descriptor() {
    using namespace matmul_kit;
    LessonSpec s = tiled<Sides::Square>(
        "Tiled, square, with bounds checks",
        "Tiles of A and B in shared memory, zero padding where a tile hangs over the edge: each "
        "element is read n / TILE times instead of n.",
        {{"both tiles complete before anyone reads them", kGuardsRaw},
         {"everyone done with these tiles before the next ones overwrite them", kGuardsWar}});
    s.opens_the_window = true;
    s.ladder = "sgemm";
    s.ladder_step = 3;
    return s;
  }
};

}  // namespace ts::lessons::matmul_tiled_square
