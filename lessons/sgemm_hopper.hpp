// SGEMM step 10: the tuned Hopper shape (docs/research/sgemm_h100_prototype.cu,
// 90.8 % of cuBLAS at n = 4096 on an H100). The kernel of step 9 (warp tiles,
// float4 loads, A transposed, two shared stages, one barrier per k step) with
// the shape that measured fastest: a block of 256 threads computes 128 x 256
// outputs of C in k steps of 8, a warp 64 x 64, a thread 8 x 16 (128
// accumulators in registers). Each value a thread reads from shared memory now
// feeds 8 or 16 FMAs: 24 loads per 128 FMAs, against 2 per FMA in the tiled
// kernel of step 3.
//
// One change in the layout: a thread's 16 columns are not contiguous but four
// float4 groups 16 columns apart (and its 8 rows two groups 32 apart). With
// contiguous columns lane ln would read Bs at 16 ln, 4 float4s 64 bytes
// apart: a quarter-warp would span 64 words, two per bank. Interleaved, the
// 4 lanes across a warp read 4 neighbouring float4s: 64 contiguous bytes, no
// conflicts, whatever the thread tile's width.
#pragma once

#include "lessons/access.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_hopper {

enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

// A's shared rows are BM + 4 floats: the two float4 columns a warp stores in
// one step land 16 banks apart (4 (BM + 4) = 16 mod 32 words), not on top of
// each other, and rows stay 16-byte aligned for the float4 reads.
inline constexpr int kPadA = 4;

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, class Rec>
TS_DEVICE void sgemm_hopper(Rec& rec, const KernelArgs& args) {
  constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
  constexpr int LANES_N = WN / TN;       // lanes across a warp tile (4)
  constexpr int LANES_M = 32 / LANES_N;  // lanes down (8)
  static_assert(LANES_M * TM == WM && TM % 4 == 0 && TN % 4 == 0,
                "warp tile = lanes x thread tile");
  constexpr int A_LOADS = BM * BK / 4 / THREADS;  // float4s of the A tile per thread
  constexpr int B_LOADS = BK * BN / 4 / THREADS;
  static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN,
                "the threads load whole tiles");

  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)
  // Stage s holds rows s * BK .. s * BK + BK - 1.
  alignas(16) __shared__ float As_mem[2 * BK][BM + kPadA];  // transposed: As[k][m]
  alignas(16) __shared__ float Bs_mem[2 * BK][BN];
  SharedTile<float, 2 * BK, BM + kPadA, Rec> As(rec, As_mem, kAs);
  SharedTile<float, 2 * BK, BN, Rec> Bs(rec, Bs_mem, kBs);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / (BN / WN), wn = warp % (BN / WN);  // this warp's tile in the block
  const int lm = lane / LANES_N, ln = lane % LANES_N;      // this lane's tile in the warp
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  // The next k step's tiles, on their way from global memory to shared memory.
  float4 ra[A_LOADS], rb[B_LOADS];
  auto load_tiles = [&](int k0) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int f = tid + i * THREADS, r = f / (BK / 4), c = f % (BK / 4) * 4;
      ra[i] = A.vec4((row0 + r) * n + k0 + c);
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int f = tid + i * THREADS, r = f / (BN / 4), c = f % (BN / 4) * 4;
      rb[i] = B.vec4((k0 + r) * n + col0 + c);
    }
  };
  auto store_tiles = [&](int s) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int f = tid + i * THREADS, r = f / (BK / 4), c = f % (BK / 4) * 4;
      As[s * BK + c + 0][r] = ra[i].x;  // A's row r becomes column r of As
      As[s * BK + c + 1][r] = ra[i].y;
      As[s * BK + c + 2][r] = ra[i].z;
      As[s * BK + c + 3][r] = ra[i].w;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
      const int f = tid + i * THREADS, r = f / (BN / 4), c = f % (BN / 4) * 4;
      Bs[s * BK + r].vec4(c) = rb[i];
    }
  };

  float acc[TM][TN] = {};
  float a[TM], b[TN];
  load_tiles(0);
  store_tiles(0);
  SYNCTHREADS(1);  // stage 0 complete before anyone reads it
  int s = 0;
  for (int k0 = 0; k0 < n; k0 += BK) {
    const bool more = k0 + BK < n;
    if (more) load_tiles(k0 + BK);  // in flight while we compute
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
      DELAY_POINT(kk == BK / 2);
    }
    if (more) {
      store_tiles(s ^ 1);  // stage s ^ 1 was last read in the previous k step
      SYNCTHREADS(2);      // stage s ^ 1 complete, and everyone done with stage s
      s ^= 1;
    }
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
// tile 32 and 64: the same code with smaller constants, small enough to watch
// on the simulator (2 warps); 128: the tuned 128 x 256 x 8 (8 warps).
constexpr Shape shape_of(int tile) {
  return tile == 32   ? Shape{32, 64, 8, 32, 32, 4, 8}
         : tile == 64 ? Shape{64, 64, 8, 64, 32, 8, 8}
                      : Shape{128, 256, 8, 64, 64, 8, 16};
}

template <int TILE>
struct Body {
  static constexpr Shape S = shape_of(TILE);
  template <class Rec>
  static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {
    sgemm_hopper<S.bm, S.bn, S.bk, S.wm, S.wn, S.tm, S.tn>(rec, args);
  }
};

// Two stages of As (padded, kPadA) and Bs: one barrier per k step.
constexpr sgemm_kit::Layout layout(int tile) {
  const Shape s = shape_of(tile);
  return {s.bm, s.bn, s.bk, s.tm, s.tn, s.threads(), 2 * s.bk, s.bm + kPadA, 2};
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return sgemm_kit::visit_block_tile<Body, 32, 64, 128>(p.tile, f);
  }

  static LessonSpec descriptor() {
    return sgemm_kit::step<layout>({
        .title = "Tuned for Hopper: 128 x 256 blocks, 8 x 16 per thread",
        .summary = "Step 9's double-buffered kernel in the shape that measured fastest on an H100: "
                   "a 128 x 256 tile per block of 256 threads, 8 x 16 outputs per thread in float4 "
                   "groups. On an H100 it measured 84.5 % of cuBLAS at n = 4096, below step 9's "
                   "89.4 %: a larger tile is not always faster.",
        .tile_hint = "block tile of C: 32 (32 x 64, thread tile 4 x 8, 64 threads), 64 (64 x 64, "
                     "thread tile 8 x 8, 64 threads) or 128 (128 x 256, thread tile 8 x 16, 256 "
                     "threads: the tuned one)",
        .tile = 32,
        .barriers = {{"stage 0 complete before anyone reads it", kGuardsRaw},
                     {"the next stage complete before anyone reads it, and (the same barrier) "
                      "everyone done "
                      "with the current stage before the step after overwrites it",
                      kGuardsRaw | kGuardsWar}},
        .ladder_step = 10,
    });
  }
};

}  // namespace ts::lessons::sgemm_hopper
