// Naive matrix multiply: every thread computes one element of C by walking a
// row of A and a column of B in global memory. Nothing is shared, so each
// element of A and of B is read from global memory n times (once by every
// thread that needs it): 2n loads per element of C.
#pragma once

#include "kernels/access.hpp"
#include "kernels/kernel_args.hpp"

namespace ts::kernels {

// One block of n x n threads, one thread per element of C. A block may hold at
// most 1024 threads, so this only works up to 32 x 32: a bigger matrix needs a
// grid of blocks (the next kernel).
template <class Rec>
TS_DEVICE void matmul_naive_one_block(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args.a, args.a_count, Buffer::A);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args.b, args.b_count, Buffer::B);  // (n, n)
  GlobalArray<float, Rec> C(rec, args.c, args.c_count, Buffer::C);        // (n, n)

  const int row = threadIdx.y;  // the thread's position in its block is its cell of C
  const int col = threadIdx.x;

  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += A[row * n + k] * B[k * n + col];  // two global loads per step
    }
    C[row * n + col] = sum;
  }
}

// A grid of blocks, each BLOCK x BLOCK threads: the block's position in the
// grid tells which part of C it computes, so any n works. The baseline every
// shared-memory kernel is measured against.
template <class Rec>
TS_DEVICE void matmul_naive_grid(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args.a, args.a_count, Buffer::A);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args.b, args.b_count, Buffer::B);  // (n, n)
  GlobalArray<float, Rec> C(rec, args.c, args.c_count, Buffer::C);        // (n, n)

  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;

  // The last blocks hang over the edge when n is not a multiple of the block.
  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += A[row * n + k] * B[k * n + col];
    }
    C[row * n + col] = sum;
  }
}

}  // namespace ts::kernels
