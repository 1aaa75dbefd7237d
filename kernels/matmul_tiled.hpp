// Tiled matrix multiply: each block loads a TILE x TILE tile of A and of B
// into shared memory, multiplies them, and moves on along the shared dimension.
// Every element of A and B is read from global memory n / TILE times instead
// of n times.
#pragma once

#include "kernels/access.hpp"
#include "kernels/kernel_args.hpp"

namespace ts::kernels {

// Square n x n matrices, n a multiple of TILE -- and nothing checks that it
// is. The tile loop runs n / TILE times (rounding down) and no index is
// checked, as in many tutorials. When n is not a multiple of TILE the last,
// partial tile is never added (every sum comes out short), and the threads of
// the blocks that hang over the edge read past the end of a row (into the next
// row) or past the end of the matrix, and write C where they should not. The
// trace marks each out-of-range access; the next kernel is the fix.
template <int TILE, class Rec>
TS_DEVICE void matmul_tiled_exact(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args.a, args.a_count, Buffer::A);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args.b, args.b_count, Buffer::B);  // (n, n)
  GlobalArray<float, Rec> C(rec, args.c, args.c_count, Buffer::C);        // (n, n)

  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, Buffer::TileA);
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, Buffer::TileB);

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;

  float sum = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {             // rounds down: a partial last tile is dropped
    tileA[ty][tx] = A[row * n + t * TILE + tx];    // no check: row may be past the last row
    tileB[ty][tx] = B[(t * TILE + ty) * n + col];  // no check: col may be past the last column
    SYNCTHREADS(1);                                // both tiles complete before anyone reads them

    for (int kk = 0; kk < TILE; ++kk) {
      sum += tileA[ty][kk] * tileB[kk][tx];
      DELAY_POINT(kk == TILE / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }
  C[row * n + col] = sum;  // no check: threads outside C write into other cells
}

// Square n x n matrices, any n. Tiles that hang over the edge are padded with
// zeros, and threads outside C still load and still reach both barriers: a
// thread that skipped a barrier would leave its block waiting forever.
template <int TILE, class Rec>
TS_DEVICE void matmul_tiled_square(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args.a, args.a_count, Buffer::A);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args.b, args.b_count, Buffer::B);  // (n, n)
  GlobalArray<float, Rec> C(rec, args.c, args.c_count, Buffer::C);        // (n, n)

  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, Buffer::TileA);
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, Buffer::TileB);

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

// Rectangular C (m x n) = A (m x k) x B (k x n), any sizes. A tile can hang
// over any edge: over the bottom of A and C (row >= m), the right of B and C
// (col >= n), or the end of the shared dimension (k). Each gets zeros, and
// every thread takes part in every load and every barrier.
template <int TILE, class Rec>
TS_DEVICE void matmul_tiled_rect(Rec& rec, const KernelArgs& args) {
  const int m = args.m, k = args.k, n = args.n;
  GlobalArray<const float, Rec> A(rec, args.a, args.a_count, Buffer::A);  // (m, k)
  GlobalArray<const float, Rec> B(rec, args.b, args.b_count, Buffer::B);  // (k, n)
  GlobalArray<float, Rec> C(rec, args.c, args.c_count, Buffer::C);        // (m, n)

  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, Buffer::TileA);
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, Buffer::TileB);

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

}  // namespace ts::kernels
