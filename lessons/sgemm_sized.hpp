// SGEMM step 11: sized for the GPU. Step 10's kernel (warp tiles, float4
// loads into registers, A transposed, two shared stages, one barrier per k
// step, the thread tile in interleaved float4 groups) with three changes,
// each measured on an H200 (docs/measurements.md, session 10):
//
// 1. k steps of 16, not 8: half as many barriers per FMA.
// 2. The loads kept ahead. The compiler issues a load only a few hundred
//    instructions before its first use, and it may move a read-only load
//    (LDG.CONSTANT) past a barrier or behind a branch: with k steps of 16,
//    step 10's loads ended up right before their stores, and the block waited
//    for global memory every k step. Here the next k step's tiles are stored
//    HALFWAY through the k step (the other stage is free from its start: it
//    was last read before the previous barrier), and the tiles of the k step
//    after that are fetched right then, with plain loads that no compiler may
//    move past the barrier: a whole barrier and half a k step hide them. The
//    loop has no branch: past the end it fetches the last tile again.
// 3. The block tile is chosen by n, at launch: 128 x 256 where its waves of
//    blocks keep at least 90 % of the 132 SMs busy (n = 2048, 4096), else
//    64 x 128. At n = 1024 a 128 x 256 tile makes 32 blocks for the H200's
//    132 SMs: three quarters of the GPU would idle (step 10 reached 31 % of
//    cuBLAS there); at n = 3072 it makes 288, and the third wave of 24 blocks
//    costs as much as a full one.
//
// Every address is an index the compiler can step by a constant per k step:
// the loop is 2,048 FMAs, 96 shared loads, 12 shared stores, 6 global loads
// and 27 other instructions at 128 x 256 (step 10: 1,024 FMAs and 97 others
// per k step of 8).
#pragma once

#include "lessons/access.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_sized {

enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

// A's shared rows are BM + 4 floats: the two float4 columns a warp stores in
// one step land 16 banks apart (4 (BM + 4) = 16 mod 32 words), not on top of
// each other, and rows stay 16-byte aligned for the float4 reads.
inline constexpr int kPadA = 4;

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, class Rec>
TS_DEVICE void sgemm_sized(Rec& rec, const KernelArgs& args) {
  constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
  constexpr int LANES_N = WN / TN;       // lanes across a warp tile (4)
  constexpr int LANES_M = 32 / LANES_N;  // lanes down (8)
  static_assert(LANES_M * TM == WM && TM % 4 == 0 && TN % 4 == 0,
                "warp tile = lanes x thread tile");
  // Who loads what: A_TPR threads per row of the A tile (BK / 4 float4s), each
  // A_PER_ROW float4s A_TPR apart, in A_PASSES passes of A_ROWS rows; B the same,
  // with at least 16 threads on a row of B (a quarter-warp stores 128 bytes of one row).
  constexpr int A_TPR = BK / 4 < THREADS / BM ? BK / 4 : THREADS / BM;
  constexpr int A_PER_ROW = BK / 4 / A_TPR, A_ROWS = THREADS / A_TPR, A_PASSES = BM / A_ROWS;
  constexpr int B_TPR0 = THREADS / BK > 16 ? THREADS / BK : 16;
  constexpr int B_TPR = BN / 4 < B_TPR0 ? BN / 4 : B_TPR0;
  constexpr int B_PER_ROW = BN / 4 / B_TPR, B_ROWS = THREADS / B_TPR, B_PASSES = BK / B_ROWS;
  static_assert(A_PASSES * A_ROWS == BM && B_PASSES * B_ROWS == BK, "the threads load whole tiles");

  const int n = args.n;
  // A and B through plain loads, not the read-only path (const arrays compile to
  // LDG.CONSTANT): ptxas may move a read-only load past a barrier, never a plain one.
  GlobalArray<float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);  // (n, n)
  // Two stages of each tile, 49,664 bytes at 128 x 256 x 16: more than the 48 KB a static
  // __shared__ array may have, so sized at launch. Stage s holds rows s * BK .. s * BK + BK - 1.
  TS_EXTERN_SHARED(float, smem);
  auto* const as_mem = reinterpret_cast<float(*)[BM + kPadA]>(smem);  // transposed: As[k][m]
  auto* const bs_mem = reinterpret_cast<float(*)[BN]>(smem + 2 * BK * (BM + kPadA));
  SharedTile<float, 2 * BK, BM + kPadA, Rec> As(rec, as_mem, kAs);
  SharedTile<float, 2 * BK, BN, Rec> Bs(rec, bs_mem, kBs);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / (BN / WN), wn = warp % (BN / WN);  // this warp's tile in the block
  const int lm = lane / LANES_N, ln = lane % LANES_N;      // this lane's tile in the warp
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int ar = tid / A_TPR, ac = tid % A_TPR * 4;  // this thread's first float4 of each tile
  const int br = tid / B_TPR, bc = tid % B_TPR * 4;

  // A k step's tiles, on their way from global memory to shared memory.
  float4 ra[A_PASSES][A_PER_ROW], rb[B_PASSES][B_PER_ROW];
  auto load_tiles = [&](int k0) {
#pragma unroll
    for (int p = 0; p < A_PASSES; ++p)
#pragma unroll
      for (int j = 0; j < A_PER_ROW; ++j)
        ra[p][j] = A.vec4((row0 + ar + p * A_ROWS) * n + k0 + ac + j * A_TPR * 4);
#pragma unroll
    for (int p = 0; p < B_PASSES; ++p)
#pragma unroll
      for (int j = 0; j < B_PER_ROW; ++j)
        rb[p][j] = B.vec4((k0 + br + p * B_ROWS) * n + col0 + bc + j * B_TPR * 4);
  };
  auto store_tiles = [&](int s) {
#pragma unroll
    for (int p = 0; p < A_PASSES; ++p)
#pragma unroll
      for (int j = 0; j < A_PER_ROW; ++j) {
        const int r = ar + p * A_ROWS, c = ac + j * A_TPR * 4;
        As[s * BK + c + 0][r] = ra[p][j].x;  // A's row r becomes column r of As
        As[s * BK + c + 1][r] = ra[p][j].y;
        As[s * BK + c + 2][r] = ra[p][j].z;
        As[s * BK + c + 3][r] = ra[p][j].w;
      }
#pragma unroll
    for (int p = 0; p < B_PASSES; ++p)
#pragma unroll
      for (int j = 0; j < B_PER_ROW; ++j)
        Bs[s * BK + br + p * B_ROWS].vec4(bc + j * B_TPR * 4) = rb[p][j];
  };

  float acc[TM][TN] = {};
  float a[TM], b[TN];
  load_tiles(0);
  store_tiles(0);
  load_tiles(BK < n ? BK : 0);  // k step 1's tiles (held in registers until step 0's middle)
  SYNCTHREADS(1);               // stage 0 complete before anyone reads it
  int s = 0;
  // No branch in the loop: past the end it fetches and stores the last tile again
  // (2 spare tile loads and 1 spare store per block); behind a branch ptxas moved the loads.
  for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int g = 0; g < TM / 4; ++g) {
        const float4 v = As[s * BK + kk].vec4(wm * WM + g * LANES_M * 4 + lm * 4);
        a[g * 4 + 0] = v.x, a[g * 4 + 1] = v.y, a[g * 4 + 2] = v.z, a[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < TN / 4; ++g) {
        const float4 v = Bs[s * BK + kk].vec4(wn * WN + g * LANES_N * 4 + ln * 4);
        b[g * 4 + 0] = v.x, b[g * 4 + 1] = v.y, b[g * 4 + 2] = v.z, b[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] += a[i] * b[j];
      // Halfway: the next k step's tiles into stage s ^ 1 (read last in the previous
      // k step, before its barrier); then the registers fetch the k step after it.
      if (kk == BK / 2 - 1) {
        store_tiles(s ^ 1);
        load_tiles(k0 + 2 * BK < n ? k0 + 2 * BK : n - BK);
      }
      DELAY_POINT(kk == BK / 2);
    }
    SYNCTHREADS(2);  // stage s ^ 1 complete, and everyone done with stage s
    s ^= 1;
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int g = 0; g < TN / 4; ++g) {
      // Row i of the thread tile: group i / 4, element i % 4.
      const int r = row0 + wm * WM + i / 4 * LANES_M * 4 + lm * 4 + i % 4;
      const int c = col0 + wn * WN + g * LANES_N * 4 + ln * 4;
      C.vec4(r * n + c) =
          make_float4(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
    }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

// A configuration: block tile BM x BN x BK, warp tile WM x WN, thread tile TM x TN.
struct Shape {
  int bm, bn, bk, wm, wn, tm, tn;
  constexpr int threads() const { return (bm / wm) * (bn / wn) * 32; }
};
// The compiled shapes. 0 and 1 (tiles 32 and 64): small enough to watch on
// the simulator (2 and 4 warps). 2 and 3 (tile 128): the GPU's, chosen by n.
inline constexpr Shape kShapes[] = {
    {32, 64, 16, 32, 32, 4, 8},     // tile 32: 64 threads
    {64, 64, 16, 32, 32, 4, 8},     // tile 64: 128 threads
    {64, 128, 16, 32, 64, 8, 8},    // tile 128, small tile: 128 threads
    {128, 256, 16, 64, 64, 8, 16},  // tile 128, large tile: 256 threads, step 10's shape
};

// The GPUs this step is sized for: an H100 or H200 has 132 SMs, and each runs
// one 128 x 256 block at a time (256 threads of about 230 registers). The
// blocks go out in waves of 132; a last wave that leaves many SMs idle costs
// as much time as a full one.
inline constexpr int kSms = 132;

// The share of the SMs the 128 x 256 tiles keep busy over all their waves
// (1 = every wave full): 0 where the tile does not divide n.
constexpr double large_tile_fill(int n) {
  const Shape big = kShapes[3];
  if (n % big.bm != 0 || n % big.bn != 0) return 0;
  const int64_t blocks = int64_t(n / big.bm) * (n / big.bn);
  const int64_t waves = (blocks + kSms - 1) / kSms;
  return double(blocks) / double(waves * kSms);
}

// Tile 128 takes the 128 x 256 tile where its waves keep at least 90 % of the
// SMs busy (n = 2048: 128 blocks, 97 %; 4096: 512 blocks in 4 waves, 97 %),
// else the 64 x 128 tile, 4 times as many blocks (n = 1024: 32 large blocks,
// 24 %; 3072: 288 in 3 waves, 73 %).
constexpr int shape_index(int tile, int n) {
  if (tile == 32) return 0;
  if (tile == 64) return 1;
  return large_tile_fill(n) >= 0.9 ? 3 : 2;
}

template <int SHAPE>
struct Body {
  static constexpr Shape S = kShapes[SHAPE];
  template <class Rec>
  static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {
    sgemm_sized<S.bm, S.bn, S.bk, S.wm, S.wn, S.tm, S.tn>(rec, args);
  }
};

// Two stages of As (padded, kPadA) and Bs in dynamic shared memory: one barrier per k step.
constexpr sgemm_kit::Layout layout(const Params& p) {
  const Shape s = kShapes[shape_index(p.tile, p.n)];
  // Past the end: k steps n / BK and n / BK + 1 fetched again, the latter stored, one more barrier.
  return {s.bm, s.bn, s.bk, s.tm, s.tn, s.threads(), 2 * s.bk, s.bm + kPadA, 2, true, {2, 1, 1}};
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    if (p.tile != 32 && p.tile != 64 && p.tile != 128) return false;
    return lesson_kit::visit_value<0, 1, 2, 3>(shape_index(p.tile, p.n),
                                               [&]<int S>() { f(Body<S>{}); });
  }

  static LessonSpec descriptor() {
    return sgemm_kit::step_by_params<layout>({
        .title = "Sized for the GPU: the block tile by n, k steps of 16",
        .summary = "Step 10's kernel with k steps of 16, loads issued a barrier ahead of their "
                   "stores (where the compiler cannot delay them), and a block tile chosen by n "
                   "so that the waves of blocks keep the GPU's 132 SMs busy: 128 x 256 at "
                   "n = 2048 and 4096, 64 x 128 at 1024 and 3072.",
        .tile_hint = "block tile of C: 32 (32 x 64, thread tile 4 x 8, 64 threads), 64 (64 x 64, "
                     "thread tile 4 x 8, 128 threads) or 128 (the GPU's, chosen by n: 128 x 256 "
                     "with 256 threads where its waves keep 90 % of 132 SMs busy, else 64 x 128 "
                     "with 128 threads)",
        .tile = 32,
        .barriers = {{"stage 0 complete before anyone reads it", kGuardsRaw},
                     {"the next stage complete before anyone reads it, and (the same barrier) "
                      "everyone done with the current stage before the next k step's stores "
                      "overwrite it",
                      kGuardsRaw | kGuardsWar}},
        .ladder_step = 11,
    });
  }
};

}  // namespace ts::lessons::sgemm_sized
