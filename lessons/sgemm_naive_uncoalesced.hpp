// SGEMM ladder, step 1: the naive multiply as many first attempts write it.
// One thread per element of C, exactly as matmul.naive_grid, except that
// threadIdx.x picks the ROW of C instead of the column. The 32 lanes of a
// warp then walk DOWN a column of C: each lane reads its own row of A (n
// floats apart, 32 sectors for one warp request where the next step reads
// one broadcast word), they all read the same element of B, and their stores
// into C land in 32 different rows. Same arithmetic, same loads per output;
// only the mapping of threads to elements changes, and with it the traffic.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_naive_uncoalesced {

enum : ArraySlot { kA = 1, kB, kC };

// A grid of BLOCK x BLOCK blocks; any n works (the edge blocks check bounds).
template <class Rec>
TS_DEVICE void sgemm_naive_uncoalesced(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  // x -> row: consecutive lanes get consecutive ROWS of C (the mistake).
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;

  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += A[row * n + k] * B[k * n + col];  // lanes: 32 rows of A, one element of B
    }
    C[row * n + col] = sum;  // lanes: 32 rows of C, n floats apart
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, sgemm_naive_uncoalesced(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace matmul_kit;
    // One block of 32 warps, each walking down one column of C.
    LessonSpec s = naive(
        "Naive, lanes down a column",
        "One thread per element of C with threadIdx.x as the row: a warp reads 32 rows of A and "
        "stores 32 rows of C, 32 sectors per request instead of 1 to 4.",
        {square_n(32), block("block side", "side x side threads; threadIdx.x is the row of C", 32)},
        [](const Params& p) { return tiled_geometry(p.n, p.n, p.block); },
        [](const LessonInfo&, const Params& p, const DeviceLimits& lim) {
          if (auto e = check_side("n", p.n)) return e;
          return check_block_side(p.block, lim);
        },
        Params{.n = 10, .block = 4});
    s.ladder = sgemm_kit::kLadder;
    s.ladder_step = 1;
    return s;
  }
};

}  // namespace ts::lessons::sgemm_naive_uncoalesced
