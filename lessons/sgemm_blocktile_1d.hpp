// SGEMM ladder, step 4: 1D block tiling. A block computes a BM x BN tile of C
// and walks along k in steps of BK, with a BM x BK tile of A and a BK x BN
// tile of B in shared memory, as the tiled multiply of step 3 did. What is
// new: each thread computes TM outputs, TM consecutive rows of one column of
// C, in registers. In the inner loop it reads one value of Bs and reuses it
// for all TM rows: TM multiply-adds take TM + 1 shared loads instead of the
// 2 TM of step 3, and each element of A and B is read from global memory
// n / 64 times (tile 64) instead of n / 32.
//
// The tile shapes follow from the block tile `tile` (BM = BN = tile):
// TM = 8 rows per thread, BM * BN / TM threads, and BK = BN / TM, so that the
// A tile (BM x BK) and the B tile (BK x BN) each have exactly one element per
// thread: every thread loads one element of A and one of B per k step.
//   tile 32: BK = 4, 128 threads (4 warps)  -- the small one, for the window
//   tile 64: BK = 8, 512 threads (16 warps) -- the tuned one (siboehm's kernel 4)
// No bounds checks: n must be a multiple of the tiles, and the lesson refuses
// any other n.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_blocktile_1d {

enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

template <int BM, int BN, int BK, int TM, class Rec>
TS_DEVICE void sgemm_blocktile_1d(Rec& rec, const KernelArgs& args) {
  static_assert(BM * BK == BM * BN / TM && BK * BN == BM * BN / TM,
                "one element of each tile per thread");
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  __shared__ float As_mem[BM][BK];
  __shared__ float Bs_mem[BK][BN];
  SharedTile<float, BM, BK, Rec> As(rec, As_mem, kAs);
  SharedTile<float, BK, BN, Rec> Bs(rec, Bs_mem, kBs);

  const int tid = threadIdx.x;                   // a 1D block of BM * BN / TM threads
  const int thread_col = tid % BN;               // its column of the block tile
  const int thread_row = tid / BN * TM;          // its first of TM rows
  const int a_row = tid / BK, a_col = tid % BK;  // the element of As it loads
  const int b_row = tid / BN, b_col = tid % BN;  // the element of Bs it loads
  const int row0 = blockIdx.y * BM;              // the block tile's corner in C
  const int col0 = blockIdx.x * BN;

  float acc[TM] = {};
  for (int k0 = 0; k0 < n; k0 += BK) {
    As[a_row][a_col] = A[(row0 + a_row) * n + k0 + a_col];
    Bs[b_row][b_col] = B[(k0 + b_row) * n + col0 + b_col];
    SYNCTHREADS(1);  // both tiles complete before anyone reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k][thread_col];  // one shared load, reused TM times
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        acc[i] += As[thread_row + i][k] * b;
      }
      DELAY_POINT(k == BK / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    C[(row0 + thread_row + i) * n + col0 + thread_col] = acc[i];
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

// The shapes of block tile `tile`: see the top of the file.
struct Shape {
  int bm, bn, bk, tm;
  int threads() const { return bm * bn / tm; }
};
constexpr Shape shape(int tile) {
  const int t = tile < 8 ? 8 : tile;  // (never 0, even for a tile it refuses)
  return {t, t, t / 8, 8};
}

template <int TILE>
TS_KERNEL_BODY(Body,
               (sgemm_blocktile_1d<shape(TILE).bm, shape(TILE).bn, shape(TILE).bk, shape(TILE).tm>(
                   rec, args)));

inline sgemm_kit::Layout layout(int tile) {
  const Shape s = shape(tile);
  return {s.bm, s.bn, s.bk, s.tm, 1, s.threads(), s.bm, s.bk};
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return sgemm_kit::visit_block_tile<Body, 32, 64>(p.tile, f);
  }

  static LessonSpec descriptor() {
    return sgemm_kit::step<layout>({
        .title = "1D block tiling: TM outputs per thread",
        .summary = "BM x BN tiles of C per block, TM outputs of one column per thread: one shared "
                   "load of B feeds TM multiply-adds.",
        .tile_hint = "block tile: the block computes tile x tile outputs of C, 8 per thread down a "
                     "column; 32 (128 threads, k steps of 4) or 64 (512 threads, k steps of 8)",
        .tile = 32,
        .barriers = {{"both tiles complete before anyone reads them", kGuardsRaw},
                     {"everyone done with these tiles before the next ones overwrite them",
                      kGuardsWar}},
        .ladder_step = 4,
        .tile_choices = {32, 64},
    });
  }
};

}  // namespace ts::lessons::sgemm_blocktile_1d
