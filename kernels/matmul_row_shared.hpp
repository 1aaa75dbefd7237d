// Matrix multiply with a block's rows of A (and then also its columns of B)
// kept in shared memory. A block computes a TILE x TILE patch of C; all its
// threads need the same TILE rows of A, so the block reads them from global
// memory once and every thread then reads them from shared memory.
//
// The whole rows must fit: TILE * n floats (and as many again for the columns
// of B), sized at launch with `extern __shared__`. That is what limits these
// kernels, and why the tiled kernels walk along the rows in tiles instead.
//
// A tutorial version of this kernel indexes the rows with the tile width and
// waits with __syncwarp(). Both are wrong: a row has n elements, not TILE, and
// the threads that load an element and the threads that read it are in
// different warps, so only a barrier of the whole block (__syncthreads) makes
// the loads visible before they are used.
#pragma once

#include "kernels/access.hpp"
#include "kernels/kernel_args.hpp"

namespace ts::kernels {

// C = A x B, n x n, any n whose TILE rows fit in shared memory.
template <int TILE, class Rec>
TS_DEVICE void matmul_row_shared(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args.a, args.a_count, Buffer::A);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args.b, args.b_count, Buffer::B);  // (n, n)
  GlobalArray<float, Rec> C(rec, args.c, args.c_count, Buffer::C);        // (n, n)

  // The block's TILE rows of A, n floats each: TILE * n * sizeof(float) bytes at launch.
  TS_EXTERN_SHARED(float, rows_mem);
  SharedArray<float, Rec> rowsA(rec, rows_mem, TILE * n, Buffer::TileA);  // (TILE, n)

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

// The same, with the block's TILE columns of B in shared memory as well: after
// the loads, the sums read shared memory only.
template <int TILE, class Rec>
TS_DEVICE void matmul_row_col_shared(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args.a, args.a_count, Buffer::A);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args.b, args.b_count, Buffer::B);  // (n, n)
  GlobalArray<float, Rec> C(rec, args.c, args.c_count, Buffer::C);        // (n, n)

  // One launch-sized array holds both: TILE rows of A, then TILE columns of B,
  // 2 * TILE * n * sizeof(float) bytes.
  TS_EXTERN_SHARED(float, smem);
  SharedArray<float, Rec> rowsA(rec, smem, TILE * n, Buffer::TileA);             // (TILE, n)
  SharedArray<float, Rec> colsB(rec, smem + TILE * n, n * TILE, Buffer::TileB);  // (n, TILE)

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

}  // namespace ts::kernels
