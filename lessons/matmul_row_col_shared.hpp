// Matrix multiply with a block's rows of A and its columns of B in shared
// memory: after the loads, the sums read shared memory only. Both must fit:
// 2 * TILE * n floats, sized at launch with `extern __shared__`.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_row_col_shared {

enum : ArraySlot { kA = 1, kB, kC, kRowsA, kColsB };

// C = A x B, n x n, any n whose TILE rows and columns fit in shared memory.
template <int TILE, class Rec>
TS_DEVICE void matmul_row_col_shared(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  // One launch-sized array holds both: TILE rows of A, then TILE columns of B,
  // 2 * TILE * n * sizeof(float) bytes.
  TS_EXTERN_SHARED(float, smem);
  SharedArray<float, Rec> rowsA(rec, smem, TILE * n, kRowsA);             // (TILE, n)
  SharedArray<float, Rec> colsB(rec, smem + TILE * n, n * TILE, kColsB);  // (n, TILE)

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * TILE + tx;
  const int first_row = blockIdx.y * TILE;
  const int first_col = blockIdx.x * TILE;
  const int row = first_row + ty;
  const int col = first_col + tx;
  const int rows = n - first_row < TILE ? n - first_row : TILE;  // rows of A that exist
  const int cols = n - first_col < TILE ? n - first_col : TILE;  // columns of B that exist

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  for (int i = tid; i < rows * n; i += TILE * TILE) {
    rowsA[i] = A[first_row * n + i];
  }
  // Column c of the block is stored as colsB[k * TILE + c], so that threads
  // next to each other read neighbouring shared elements in the sums.
  for (int i = tid; i < n * cols; i += TILE * TILE) {
    const int k = i / cols, c = i % cols;
    colsB[k * TILE + c] = B[k * n + first_col + c];
  }
  SYNCTHREADS(1);  // rows and columns come from every warp: all loaded before anyone reads

  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += rowsA[ty * n + k] * colsB[k * TILE + tx];  // shared memory only
    }
    C[row * n + col] = sum;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int TILE>
TS_KERNEL_BODY(Body, (matmul_row_col_shared<TILE>(rec, args)));

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return lesson_kit::visit_tile(p.tile, [&]<int T>() { f(Body<T>{}); });
  }

  static LessonSpec descriptor() {
    using namespace matmul_kit;
    return staged<Staged::RowsAndColumns>(
        "Rows of A and columns of B in shared memory",
        "Each block loads its rows of A and its columns of B once; the sums read shared memory "
        "only.",
        {"rows and columns are loaded by every warp: all in place before anyone reads",
         kGuardsRaw});
  }
};

}  // namespace ts::lessons::matmul_row_col_shared
