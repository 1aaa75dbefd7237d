// Matrix multiply with a block's rows of A kept in shared memory. A block
// computes a TILE x TILE patch of C; all its threads need the same TILE rows
// of A, so the block reads them from global memory once and every thread then
// reads them from shared memory.
//
// The whole rows must fit: TILE * n floats, sized at launch with `extern
// __shared__`. That is what limits this kernel, and why the tiled kernels walk
// along the rows in tiles instead.
//
// A tutorial version of this kernel indexes the rows with the tile width and
// waits with __syncwarp(). Both are wrong: a row has n elements, not TILE, and
// the threads that load an element and the threads that read it are in
// different warps, so only a barrier of the whole block (__syncthreads) makes
// the loads visible before they are used.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_row_shared {

enum : ArraySlot { kA = 1, kB, kC, kRowsA };

// C = A x B, n x n, any n whose TILE rows fit in shared memory.
template <int TILE, class Rec>
TS_DEVICE void matmul_row_shared(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  // The block's TILE rows of A, n floats each: TILE * n * sizeof(float) bytes at launch.
  TS_EXTERN_SHARED(float, rows_mem);
  SharedArray<float, Rec> rowsA(rec, rows_mem, TILE * n, kRowsA);  // (TILE, n)

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * TILE + tx;           // 0 .. TILE * TILE - 1
  const int first_row = blockIdx.y * TILE;  // the block's first row of C (and of A)
  const int row = first_row + ty;           // the row of C this thread computes
  const int col = blockIdx.x * TILE + tx;   // the column of C this thread computes
  const int rows = n - first_row < TILE ? n - first_row : TILE;  // rows that exist

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // Every thread of the block helps, consecutive threads taking consecutive
  // elements (coalesced reads): thread tid loads elements tid, tid + TILE*TILE, ...
  for (int i = tid; i < rows * n; i += TILE * TILE) {
    rowsA[i] = A[first_row * n + i];
  }
  SYNCTHREADS(1);  // the rows come from every warp of the block: all loaded before anyone reads

  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += rowsA[ty * n + k] * B[k * n + col];  // A from shared memory, B still from global
    }
    C[row * n + col] = sum;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int TILE>
TS_KERNEL_BODY(Body, (matmul_row_shared<TILE>(rec, args)));

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return lesson_kit::visit_tile(p.tile, [&]<int T>() { f(Body<T>{}); });
  }

  static LessonSpec descriptor() {
    using namespace matmul_kit;
    return staged<Staged::Rows>(
        "Rows of A in shared memory",
        "Each block loads its rows of A into shared memory once; B is still read from global "
        "memory.",
        {"the rows are loaded by every warp of the block: all in place before anyone reads",
         kGuardsRaw});
  }
};

}  // namespace ts::lessons::matmul_row_shared
