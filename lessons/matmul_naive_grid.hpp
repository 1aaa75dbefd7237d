// Naive matrix multiply on a grid of blocks: every thread computes one
// element of C from a row of A and a column of B in global memory. The
// baseline every shared-memory lesson is measured against: each element of A
// and of B is read n times.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_naive_grid {

enum : ArraySlot { kA = 1, kB, kC };

// A grid of blocks, each BLOCK x BLOCK threads: the block's position in the
// grid tells which part of C it computes, so any n works.
template <class Rec>
TS_DEVICE void matmul_naive_grid(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

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

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, matmul_naive_grid(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace matmul_kit;
    LessonSpec s = naive(
        "Naive, a grid of blocks",
        "One thread per element of C, blocks tiling C: every element of A and B is read n times "
        "from global memory.",
        {square_n(10), block("block side", "threads per block: side x side", 4)},
        [](const Params& p) { return tiled_geometry(p.n, p.n, p.block); },
        [](const LessonInfo&, const Params& p, const DeviceLimits& lim) {
          if (auto e = check_side("n", p.n)) return e;
          return check_block_side(p.block, lim);
        },
        Params{.n = 10, .block = 4});
    s.ladder = "sgemm";
    s.ladder_step = 2;  // coalesced: lane x reads B[k][col + x], one broadcast of A
    return s;
  }
};

}  // namespace ts::lessons::matmul_naive_grid
