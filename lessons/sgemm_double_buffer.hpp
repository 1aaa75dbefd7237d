// SGEMM step 9: double buffering. The warp-tiled kernel with float4 loads and
// A stored transposed (As[k][m], padded to BM + 4 so that its transposed
// stores are conflict-free), now with TWO shared stages of each tile. While
// the block multiplies stage s, every thread has already fetched the next k
// step's float4s into registers; after the multiply it stores them into stage
// s ^ 1, and one barrier per k step hands the new stage over. The single-stage
// kernel needs two barriers per k step: one before reading a tile (it is
// complete), one before overwriting it (nobody reads it any more). With two
// stages, the store of step t goes into the stage that step t - 1 read, and
// every thread finished step t - 1 before it passed step t - 1's barrier: the
// barrier that publishes one stage also frees the other.
//
// The thread tile is TM x TN contiguous outputs; a warp is 8 x 4 threads
// (WM = 8 TM, WN = 4 TN), so that the 8 lanes of a quarter-warp read 4
// neighbouring float4s of Bs and 2 of As: no bank conflicts.
#pragma once

#include "lessons/access.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts::lessons::sgemm_double_buffer {

enum : ArraySlot { kA = 1, kB, kC, kAs, kBs };

// A's shared rows are BM + 4 floats: the two float4 columns a warp stores in
// one step land 16 banks apart (4 (BM + 4) = 16 mod 32 words), not on top of
// each other, and rows stay 16-byte aligned for the float4 reads.
inline constexpr int kPadA = 4;

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, class Rec>
TS_DEVICE void sgemm_double_buffer(Rec& rec, const KernelArgs& args) {
  constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
  constexpr int LANES_N = WN / TN;       // 4 lanes across a warp tile
  constexpr int LANES_M = 32 / LANES_N;  // 8 lanes down
  static_assert(LANES_M * TM == WM && TM % 4 == 0 && TN % 4 == 0, "warp tile = 8 x 4 threads");
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
        const float4 v = As[s * BK + kk].vec4(wm * WM + lm * TM + g * 4);
        a[g * 4 + 0] = v.x, a[g * 4 + 1] = v.y, a[g * 4 + 2] = v.z, a[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < TN / 4; ++g) {
        const float4 v = Bs[s * BK + kk].vec4(wn * WN + ln * TN + g * 4);
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
      const int r = row0 + wm * WM + lm * TM + i, c = col0 + wn * WN + ln * TN + g * 4;
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
// tile 32 and 64: small enough to watch on the simulator (2 warps); 128: the
// GPU's (8 warps, the prototype's 128 x 128 x 8 shape).
constexpr Shape shape_of(int tile) {
  return tile == 32   ? Shape{32, 32, 8, 32, 16, 4, 4}
         : tile == 64 ? Shape{64, 64, 8, 64, 32, 8, 8}
                      : Shape{128, 128, 8, 64, 32, 8, 8};
}

template <int TILE>
struct Body {
  static constexpr Shape S = shape_of(TILE);
  template <class Rec>
  static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {
    sgemm_double_buffer<S.bm, S.bn, S.bk, S.wm, S.wn, S.tm, S.tn>(rec, args);
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
        .title = "Double buffering: two shared stages, one barrier per k step",
        .summary =
            "The warp-tiled float4 kernel with two shared stages: the next k step's tiles "
            "are fetched while this one is multiplied, and one barrier per k step is enough.",
        .tile_hint = "block tile of C: 32 (32 x 32, thread tile 4 x 4, 64 threads), 64 (64 x 64, "
                     "thread tile 8 x 8, 64 threads) or 128 (128 x 128, 256 threads: the GPU's)",
        .tile = 32,
        .barriers = {{"stage 0 complete before anyone reads it", kGuardsRaw},
                     {"the next stage complete before anyone reads it, and (the same barrier) "
                      "everyone done "
                      "with the current stage before the step after overwrites it",
                      kGuardsRaw | kGuardsWar}},
        .ladder_step = 9,
    });
  }
};

}  // namespace ts::lessons::sgemm_double_buffer
