// SGEMM ladder, step 7: step 6 with the transposed stores into As free of
// bank conflicts. In step 6 a warp stores a float4 of A's row as four scalar
// stores down a column of As[k][m]: lanes 0, 2, 4, .. store row m = 0..15 of
// As's row a_col + j = j, and lanes 1, 3, 5, .. the same m in row 4 + j.
// Rows of As are BM floats long, a multiple of 32, so row 4 + j starts in
// bank 0 like row j: every bank the warp touches is asked for two different
// words, a 2-way conflict on every store into As.
//
// The fix is one declaration: As[BK][BM + 4]. A row is now 4 floats longer,
// so row 4 + j starts 16 banks after row j and the two half-warps' stores
// fall into disjoint banks: one wavefront per store. The padding is 4 floats
// (not 1, as in the padded transpose) so that every row of As stays 16-byte
// aligned for the float4 reads of the inner loop. The padding is never read.
//
// Whole tiles only: n must be a multiple of the block tile (no bounds checks).
#pragma once

#include "lessons/access.hpp"
#include "lessons/sgemm_kit.hpp"
#include "lessons/sgemm_vectorized.hpp"

namespace ts::lessons::sgemm_conflict_free {

// Spare floats per row of As: a multiple of 4 (float4 alignment), and 4 rows
// of As then span 4 * 4 = 16 banks of offset.
inline constexpr int kPad = 4;

enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

// Block tile BM x BN, k step BK, thread tile TM x TN: (BM / TM) * (BN / TN) threads.
template <int BM, int BN, int BK, int TM, int TN, class Rec>
TS_DEVICE void sgemm_conflict_free(Rec& rec, const KernelArgs& args) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  // A's tile transposed, As[k][m], with 4 spare floats a row: row k starts 4k
  // banks further on, and a multiple of 4 keeps every row 16-byte aligned.
  alignas(16) __shared__ float As_mem[BK][BM + kPad];
  alignas(16) __shared__ float Bs_mem[BK][BN];
  SharedTile<float, BK, BM + kPad, Rec> As(rec, As_mem, kAs);
  SharedTile<float, BK, BN, Rec> Bs(rec, Bs_mem, kBs);

  const int tid = threadIdx.x;
  const int thread_row = tid / (BN / TN);  // this thread's TM x TN tile of the block's C tile
  const int thread_col = tid % (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;  // the block's tile of C

  // Loading: one float4 per thread and pass. A's BM x BK tile has BK / 4
  // float4s a row, B's BK x BN tile BN / 4; the block covers THREADS of them a pass.
  const int a_row = tid / (BK / 4), a_col = tid % (BK / 4) * 4;
  const int b_row = tid / (BN / 4), b_col = tid % (BN / 4) * 4;
  constexpr int A_ROWS_PER_PASS = THREADS / (BK / 4);
  constexpr int B_ROWS_PER_PASS = THREADS / (BN / 4);

  float acc[TM][TN] = {};
  float a_reg[TM], b_reg[TN];
  for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
    for (int r = 0; r < BM; r += A_ROWS_PER_PASS) {
      const float4 a = A.vec4((row0 + r + a_row) * n + k0 + a_col);
      // Transposed: four k of one row m go down a column of As, 4 scalar stores;
      // the padding puts the lanes that store into row a_col + j of As 16 banks apart.
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
      // A column of A's tile is a row of As: TM neighbours, read as float4s.
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 a = As[k].vec4(thread_row * TM + i);
        a_reg[i] = a.x, a_reg[i + 1] = a.y, a_reg[i + 2] = a.z, a_reg[i + 3] = a.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 b = Bs[k].vec4(thread_col * TN + j);
        b_reg[j] = b.x, b_reg[j + 1] = b.y, b_reg[j + 2] = b.z, b_reg[j + 3] = b.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] += a_reg[i] * b_reg[j];
      DELAY_POINT(k == BK / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }

#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      C.vec4((row0 + thread_row * TM + i) * n + col0 + thread_col * TN + j) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

// The shapes, launch, table, counts and checks are step 6's; only As's row is longer.
using sgemm_vectorized::kShapes;
using sgemm_vectorized::shape_of;

template <int TILE>
TS_KERNEL_BODY(Body, (sgemm_conflict_free<shape_of(TILE).bm, shape_of(TILE).bn, shape_of(TILE).bk,
                                          shape_of(TILE).tm, shape_of(TILE).tn>(rec, args)));

constexpr sgemm_kit::Layout layout(int tile) {
  return sgemm_vectorized::layout_with(tile, kPad);
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return sgemm_vectorized::visit_shapes<Body>(p.tile, f);
  }

  static LessonSpec descriptor() {
    LessonSpec s = sgemm_kit::step<layout>({
        .title = "SGEMM 7: conflict-free transposed stores (padded As)",
        .summary = "Step 6 with As declared [BK][BM + 4]: the transposed stores into As no longer "
                   "have bank conflicts, and every row stays 16-byte aligned for the float4 reads.",
        .tile_hint = sgemm_vectorized::kParamTileHint,
        .tile = 32,
        .barriers = {{"both tiles complete before anyone reads them", kGuardsRaw},
                     {"everyone done with these tiles before the next ones overwrite them",
                      kGuardsWar}},
        .ladder_step = 7,
    });
    s.layout_group = "sgemm.as_layout";
    s.layout_label = "padded [BK][BM+4]";
    return s;
  }
};

}  // namespace ts::lessons::sgemm_conflict_free
