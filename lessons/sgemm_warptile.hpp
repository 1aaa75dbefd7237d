// SGEMM ladder, step 8: a warp tile between the block tile and the thread
// tile. Step 7 laid the threads' TM x TN tiles over the block tile row by
// row, so a warp covered a wide, flat strip of C, and the lanes of a
// quarter-warp read float4s of Bs 8 floats apart (a 2-way bank conflict at a
// thread tile of 8 x 8). Here each warp owns a WM x WN warp tile of the block
// tile and sweeps it in WMITER x WNITER sub-tiles; in every sub-tile its 32
// lanes compute a TM x TN tile each, next to one another. A thread's values
// of As and Bs at one k are WMITER and WNITER float4 groups, each group read
// by neighbouring lanes from neighbouring addresses: no bank conflicts, and
// each float4 of As or Bs is shared by the lanes of a row or column of the
// sub-tile (a broadcast). The warp tile is also what the hardware schedules:
// a warp's accesses now stay inside one compact WM x WN patch of C.
//
// A thread computes (WMITER * TM) x (WNITER * TN) outputs, as in step 7's
// 8 x 8 at the tuned shape (WMITER = WNITER = 2, TM = TN = 4). The tiles are
// loaded as in step 7 (float4 global loads, A transposed into a padded As).
//
// Whole tiles only: n must be a multiple of the block tile (no bounds checks).
#pragma once

#include "lessons/access.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_warptile {

// Spare floats per row of As, as in step 7: conflict-free transposed stores.
inline constexpr int kPad = 4;
enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

// Block tile BM x BN, k step BK; warp tile WM x WN, swept in WMITER x WNITER
// sub-tiles of (WM / WMITER) x (WN / WNITER); thread tile TM x TN in each sub-tile.
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int TM, int TN, class Rec>
TS_DEVICE void sgemm_warptile(Rec& rec, const KernelArgs& args) {
  constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
  constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;  // one sub-tile of the warp tile
  static_assert((WSUBM / TM) * (WSUBN / TN) == 32, "the 32 lanes of a warp cover a sub-tile");
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  alignas(16) __shared__ float As_mem[BK][BM + kPad];  // A's tile transposed: As[k][m]
  alignas(16) __shared__ float Bs_mem[BK][BN];
  SharedTile<float, BK, BM + kPad, Rec> As(rec, As_mem, kAs);
  SharedTile<float, BK, BN, Rec> Bs(rec, Bs_mem, kBs);

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_row = warp / (BN / WN), warp_col = warp % (BN / WN);        // the warp's tile
  const int lane_row = lane / (WSUBN / TN), lane_col = lane % (WSUBN / TN);  // in each sub-tile
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;  // the block's tile of C

  // Loading, as in step 7: one float4 per thread and pass.
  const int a_row = tid / (BK / 4), a_col = tid % (BK / 4) * 4;
  const int b_row = tid / (BN / 4), b_col = tid % (BN / 4) * 4;
  constexpr int A_ROWS_PER_PASS = THREADS / (BK / 4);
  constexpr int B_ROWS_PER_PASS = THREADS / (BN / 4);

  float acc[WMITER * TM][WNITER * TN] = {};
  float a_reg[WMITER * TM], b_reg[WNITER * TN];
  for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
    for (int r = 0; r < BM; r += A_ROWS_PER_PASS) {
      const float4 a = A.vec4((row0 + r + a_row) * n + k0 + a_col);
      As[a_col + 0][r + a_row] = a.x;
      As[a_col + 1][r + a_row] = a.y;
      As[a_col + 2][r + a_row] = a.z;
      As[a_col + 3][r + a_row] = a.w;
    }
#pragma unroll
    for (int r = 0; r < BK; r += B_ROWS_PER_PASS) {
      const float4 b = B.vec4((k0 + r + b_row) * n + col0 + b_col);
      Bs[r + b_row].vec4(b_col) = b;
    }
    SYNCTHREADS(1);  // both tiles complete before anyone reads them

#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // This thread's rows of A in each of the warp's WMITER sub-tile rows...
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const float4 a = As[k].vec4(warp_row * WM + wm * WSUBM + lane_row * TM + i);
          float* to = &a_reg[wm * TM + i];
          to[0] = a.x, to[1] = a.y, to[2] = a.z, to[3] = a.w;
        }
        // ...and its columns of B in each of the WNITER sub-tile columns.
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float4 b = Bs[k].vec4(warp_col * WN + wn * WSUBN + lane_col * TN + j);
          float* to = &b_reg[wn * TN + j];
          to[0] = b.x, to[1] = b.y, to[2] = b.z, to[3] = b.w;
        }
#pragma unroll
      for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j)
          acc[i][j] += a_reg[i] * b_reg[j];
      DELAY_POINT(k == BK / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }

#pragma unroll
  for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = row0 + warp_row * WM + wm * WSUBM + lane_row * TM + i;
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float* from = &acc[wm * TM + i][wn * TN + j];
          C.vec4(row * n + col0 + warp_col * WN + wn * WSUBN + lane_col * TN + j) =
              make_float4(from[0], from[1], from[2], from[3]);
        }
    }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

// A compiled configuration: Params::tile is the block tile's side.
struct Shape {
  int bm, bn, bk, wm, wn, wmiter, wniter, tm, tn;
  constexpr int threads() const { return 32 * (bm / wm) * (bn / wn); }
  // Outputs per thread along m and n.
  constexpr int thread_rows() const { return wmiter * tm; }
  constexpr int thread_cols() const { return wniter * tn; }
};
// Smallest first. 32: two warps of 32 x 16, one sub-tile each; 64: two warps
// of 64 x 32 in 2 x 2 sub-tiles (the tuned warp shape, small enough to replay
// at n = 64); 128: the tuned one, 8 warps of 64 x 32, 8 x 8 outputs a thread,
// 256 threads (docs/research/sgemm_h100_prototype.cu measured this shape,
// double-buffered, at 78 % of cuBLAS on an H100 at n = 4096).
inline constexpr Shape kShapes[] = {{32, 32, 8, 32, 16, 1, 1, 4, 4},
                                    {64, 64, 8, 64, 32, 2, 2, 4, 4},
                                    {128, 128, 8, 64, 32, 2, 2, 4, 4}};
constexpr Shape shape_of(int tile) {
  for (const Shape& s : kShapes)
    if (s.bm == tile) return s;
  return kShapes[0];
}

template <int TILE>
TS_KERNEL_BODY(Body,
               (sgemm_warptile<shape_of(TILE).bm, shape_of(TILE).bn, shape_of(TILE).bk,
                               shape_of(TILE).wm, shape_of(TILE).wn, shape_of(TILE).wmiter,
                               shape_of(TILE).wniter, shape_of(TILE).tm, shape_of(TILE).tn>(rec,
                                                                                            args)));

// A thread's outputs are (WMITER * TM) x (WNITER * TN); As is padded (kPad).
constexpr sgemm_kit::Layout layout(int tile) {
  const Shape s = shape_of(tile);
  return {s.bm, s.bn, s.bk, s.thread_rows(), s.thread_cols(), s.threads(), s.bk, s.bm + kPad};
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return sgemm_kit::visit_block_tile<Body, 32, 64, 128>(p.tile, f);
  }

  static LessonSpec descriptor() {
    return sgemm_kit::step<layout>({
        .title = "SGEMM 8: warp tiles",
        .summary = "Each warp computes a compact WM x WN tile of the block tile in sub-tiles, its "
                   "lanes side by side: every shared read of the inner loop is conflict-free.",
        .tile_hint =
            "block tile side: 32 (warps 32 x 16, 64 threads), 64 (warps 64 x 32 in 2 x 2 "
            "sub-tiles, 64 threads) or 128 (8 warps of 64 x 32, 256 threads: the tuned one)",
        .tile = 64,
        .barriers = {{"both tiles complete before anyone reads them", kGuardsRaw},
                     {"everyone done with these tiles before the next ones overwrite them",
                      kGuardsWar}},
        .ladder_step = 8,
    });
  }
};

}  // namespace ts::lessons::sgemm_warptile
