// SGEMM ladder, step 5: 2D block tiling. As in step 4 a block computes a
// BM x BN tile of C from a BM x BK tile of A and a BK x BN tile of B in shared
// memory, but now each thread computes a TM x TN square of outputs. For each
// k it copies a column of TM values of As and a row of TN values of Bs into
// registers and adds their outer product into its TM x TN accumulators:
// TM * TN multiply-adds for TM + TN shared loads (64 for 16 with 8 x 8),
// where step 4 needed 9 loads for 8.
//
// The tile shapes of each block tile `tile` (BM = BN = tile, BK = 8):
//   tile  32: TM = TN = 4,  64 threads (2 warps) -- small, for the window
//   tile  64: TM = TN = 8,  64 threads (2 warps)
//   tile 128: TM = TN = 8, 256 threads (8 warps) -- the tuned one (siboehm's kernel 5)
// The tiles have more elements than the block has threads: each thread loads
// (BM * BK) / threads elements of A per k step, rows `stride` apart, and as
// many of B (4, 8 and 4 of each). No bounds checks: n must be a multiple of
// the tiles, and the lesson refuses any other n.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_blocktile_2d {

enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

template <int BM, int BN, int BK, int TM, int TN, class Rec>
TS_DEVICE void sgemm_blocktile_2d(Rec& rec, const KernelArgs& args) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kStrideA = kThreads / BK;  // rows of As one pass of the block loads
  constexpr int kStrideB = kThreads / BN;  // rows of Bs one pass of the block loads
  static_assert(kStrideA > 0 && BM % kStrideA == 0 && kStrideB > 0 && BK % kStrideB == 0,
                "the block loads whole tiles in whole passes");
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  __shared__ float As_mem[BM][BK];
  __shared__ float Bs_mem[BK][BN];
  SharedTile<float, BM, BK, Rec> As(rec, As_mem, kAs);
  SharedTile<float, BK, BN, Rec> Bs(rec, Bs_mem, kBs);

  const int tid = threadIdx.x;                   // a 1D block of kThreads threads
  const int thread_row = tid / (BN / TN) * TM;   // its first of TM rows
  const int thread_col = tid % (BN / TN) * TN;   // its first of TN columns
  const int a_row = tid / BK, a_col = tid % BK;  // its first element of As to load
  const int b_row = tid / BN, b_col = tid % BN;  // its first element of Bs to load
  const int row0 = blockIdx.y * BM;              // the block tile's corner in C
  const int col0 = blockIdx.x * BN;

  float acc[TM][TN] = {};
  float a_reg[TM];
  float b_reg[TN];
  for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
    for (int r = 0; r < BM; r += kStrideA) {
      As[a_row + r][a_col] = A[(row0 + a_row + r) * n + k0 + a_col];
    }
#pragma unroll
    for (int r = 0; r < BK; r += kStrideB) {
      Bs[b_row + r][b_col] = B[(k0 + b_row + r) * n + col0 + b_col];
    }
    SYNCTHREADS(1);  // both tiles complete before anyone reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        a_reg[i] = As[thread_row + i][k];  // a column of As into registers
      }
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        b_reg[j] = Bs[k][thread_col + j];  // a row of Bs into registers
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          acc[i][j] += a_reg[i] * b_reg[j];  // their outer product: TM x TN FMAs
        }
      }
      DELAY_POINT(k == BK / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      C[(row0 + thread_row + i) * n + col0 + thread_col + j] = acc[i][j];
    }
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

// The shapes of block tile `tile`: see the top of the file.
struct Shape {
  int bm, bn, bk, tm, tn;
  int threads() const { return (bm / tm) * (bn / tn); }
};
constexpr Shape shape(int tile) {
  const int t = tile < 1 ? 1 : tile;  // (never 0, even for a tile it refuses)
  const int reg = t == 32 ? 4 : 8;
  return {t, t, 8, reg, reg};
}

template <int TILE>
TS_KERNEL_BODY(Body, (sgemm_blocktile_2d<shape(TILE).bm, shape(TILE).bn, shape(TILE).bk,
                                         shape(TILE).tm, shape(TILE).tn>(rec, args)));

inline sgemm_kit::Layout layout(int tile) {
  const Shape s = shape(tile);
  return {s.bm, s.bn, s.bk, s.tm, s.tn, s.threads(), s.bm, s.bk};
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return sgemm_kit::visit_block_tile<Body, 32, 64, 128>(p.tile, f);
  }

  static LessonSpec descriptor() {
    return sgemm_kit::step<layout>({
        .title = "2D block tiling: a TM x TN register tile per thread",
        .summary = "Each thread keeps a TM x TN tile of C in registers and adds the outer product "
                   "of a column of As and a row of Bs: TM * TN FMAs for TM + TN shared loads.",
        .tile_hint = "block tile: the block computes tile x tile outputs of C, k steps of 8; 32: 4 "
                     "x 4 per thread, 64 threads; 64: 8 x 8 per thread, 64 threads; 128: 8 x 8 per "
                     "thread, 256 threads",
        .tile = 32,
        .barriers = {{"both tiles complete before anyone reads them", kGuardsRaw},
                     {"everyone done with these tiles before the next ones overwrite them",
                      kGuardsWar}},
        .ladder_step = 5,
    });
  }
};

}  // namespace ts::lessons::sgemm_blocktile_2d
