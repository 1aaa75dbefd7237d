// SGEMM ladder, step 6: the 2D register tile of step 5 with 128-bit memory
// instructions. Each thread still computes a TM x TN tile of C from a BM x BN
// block tile, but every global load of A and B, every read of the shared
// tiles in the inner loop and every store of C moves a float4: one LDG.128 /
// LDS.128 / STG.128 where step 5 issued four 32-bit instructions.
//
// The catch is A. A's tile is read in the inner loop by COLUMNS (a thread
// needs A[m][k] for its TM rows m at one k), and a column of a row-major tile
// is not four neighbouring floats. So A is stored transposed: As[k][m]. Now a
// thread's TM values of A at one k are neighbours, and one float4 reads four
// of them. The price is the store into As: the float4 read from A's row holds
// four different k, which go to four different rows of As, as four 32-bit
// stores. Those stores have bank conflicts (step 7 removes them).
//
// Whole tiles only: n must be a multiple of the block tile (no bounds checks).
#pragma once

#include "lessons/access.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_vectorized {

enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

// Block tile BM x BN, k step BK, thread tile TM x TN: (BM / TM) * (BN / TN) threads.
template <int BM, int BN, int BK, int TM, int TN, class Rec>
TS_DEVICE void sgemm_vectorized(Rec& rec, const KernelArgs& args) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  alignas(16) __shared__ float As_mem[BK][BM];  // A's tile transposed: As[k][m]
  alignas(16) __shared__ float Bs_mem[BK][BN];
  SharedTile<float, BK, BM, Rec> As(rec, As_mem, kAs);
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
      // Transposed: four k of one row m go down a column of As, 4 scalar stores.
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

// A compiled configuration: Params::tile is the block tile's side.
struct Shape {
  int bm, bn, bk, tm, tn;
  constexpr int threads() const { return (bm / tm) * (bn / tn); }
};
// Smallest first; the last is siboehm's tuned kernel 6 shape, which the
// performance sweep times. 32: 64 threads, small enough to replay at n = 64.
inline constexpr Shape kShapes[] = {{32, 32, 8, 4, 4}, {64, 64, 8, 8, 8}, {128, 128, 8, 8, 8}};
constexpr Shape shape_of(int tile) {
  for (const Shape& s : kShapes)
    if (s.bm == tile) return s;
  return kShapes[0];
}

template <int TILE>
TS_KERNEL_BODY(Body, (sgemm_vectorized<shape_of(TILE).bm, shape_of(TILE).bn, shape_of(TILE).bk,
                                       shape_of(TILE).tm, shape_of(TILE).tn>(rec, args)));

// Calls f(BodyOf<tile>{}) for a compiled tile (also step 7's); false for any other.
template <template <int> class BodyOf, class F>
bool visit_shapes(int tile, F&& f) {
  return sgemm_kit::visit_block_tile<BodyOf, 32, 64, 128>(tile, f);
}

// As stored transposed, BK rows of `as_cols` floats (BM, or BM + 4 padded: step 7).
constexpr sgemm_kit::Layout layout_with(int tile, int pad) {
  const Shape s = shape_of(tile);
  return {s.bm, s.bn, s.bk, s.tm, s.tn, s.threads(), s.bk, s.bm + pad};
}
constexpr sgemm_kit::Layout layout(int tile) {
  return layout_with(tile, 0);
}

inline constexpr const char* kParamTileHint =
    "block tile side: 32 (4 x 4 per thread, 64 threads), 64 (8 x 8, 64 threads) or 128 "
    "(8 x 8, 256 threads: the tuned one)";

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return visit_shapes<Body>(p.tile, f);
  }

  static LessonSpec descriptor() {
    LessonSpec s = sgemm_kit::step<layout>({
        .title = "SGEMM 6: float4 loads, A transposed in shared memory",
        .summary = "The 2D register tile with 128-bit loads and stores: A is stored transposed "
                   "(As[k][m]) so that the inner loop reads both tiles as float4s.",
        .tile_hint = kParamTileHint,
        .tile = 32,
        .barriers = {{"both tiles complete before anyone reads them", kGuardsRaw},
                     {"everyone done with these tiles before the next ones overwrite them",
                      kGuardsWar}},
        .ladder_step = 6,
    });
    s.layout_group = "sgemm.as_layout";
    s.layout_label = "transposed [BK][BM]";
    return s;
  }
};

}  // namespace ts::lessons::sgemm_vectorized
