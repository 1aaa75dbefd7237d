// Tiled matrix multiply for any shapes: C (m x n) = A (m x k) x B (k x n). A
// tile can hang over any edge: over the bottom of A and C (row >= m), the
// right of B and C (col >= n), or the end of the shared dimension (k). Each
// gets zeros, and every thread takes part in every load and every barrier.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_tiled_rect {

enum : ArraySlot { kA = 1, kB, kC, kTileA, kTileB };

template <int TILE, class Rec>
TS_DEVICE void matmul_tiled_rect(Rec& rec, const KernelArgs& args) {
  const int m = args.m, k = args.k, n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (m, k)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (k, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (m, n)

  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, kTileA);
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, kTileB);

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;  // row of A and C: must be < m
  const int col = blockIdx.x * TILE + tx;  // column of B and C: must be < n

  float sum = 0.0f;
  for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
    const int a_col = t * TILE + tx;  // column of A: must be < k
    const int b_row = t * TILE + ty;  // row of B: must be < k
    tileA[ty][tx] = (row < m && a_col < k) ? float(A[row * k + a_col]) : 0.0f;
    tileB[ty][tx] = (b_row < k && col < n) ? float(B[b_row * n + col]) : 0.0f;
    SYNCTHREADS(1);  // both tiles complete before anyone reads them

    for (int kk = 0; kk < TILE; ++kk) {
      sum += tileA[ty][kk] * tileB[kk][tx];
      DELAY_POINT(kk == TILE / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int TILE>
TS_KERNEL_BODY(Body, (matmul_tiled_rect<TILE>(rec, args)));

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return lesson_kit::visit_tile(p.tile, [&]<int T>() { f(Body<T>{}); });
  }

  static LessonSpec descriptor() {
    using namespace matmul_kit;
    return tiled<Sides::Rect>(
        "Tiled, rectangular M x K times K x N",
        "The tiled multiply for any shapes, zero padding at every edge of A, B and C.",
        {{"both tiles complete before anyone reads them", kGuardsRaw},
         {"everyone done with these tiles before the next ones overwrite them", kGuardsWar}});
  }
};

}  // namespace ts::lessons::matmul_tiled_rect
