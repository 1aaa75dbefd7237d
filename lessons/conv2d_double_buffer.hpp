// 2D convolution, double buffered: the 4 x 4 register tile with the mask in
// constant memory (conv2d.constant_mask), now walking 4 output tiles down
// the image per block, with two shared stages of the input tile. In the
// kernel before, a block loads its tile, waits at the barrier for the
// slowest load, computes, and ends: while its loads are on their way its
// warps have nothing to do, and other blocks must fill the gap, which 4
// blocks of 256 threads per SM do only in part. Here, before a block computes
// tile s from one stage, its threads issue the loads of tile s + 1 into
// registers; they arrive while the multiply-adds run, and after the compute
// each thread stores them into the other stage. One barrier per tile is
// enough: the stage a step overwrites is the one the step before read, and
// every thread finished reading it before it passed that step's barrier.
#pragma once

#include <array>

#include "lessons/access.hpp"
#include "lessons/conv2d_kit.hpp"

namespace ts::lessons::conv2d_double_buffer {

using conv2d_kit::kMaxMaskElems;
using conv2d_kit::kQuadHalo;
using conv2d_kit::kQuadOutputs;
enum : ArraySlot { kIn = 1, kMask, kOut, kTile };

// The mask in constant memory, sized for the largest radius (3: 7 x 7).
TS_CONSTANT float mask_c[kMaxMaskElems];

inline constexpr int kSteps = 4;  // output tiles a block walks down the image

// T x T threads, each 4 x 4 outputs of each of kSteps tiles; radius R.
template <int T, int R, class Rec>
TS_DEVICE void conv2d_double_buffer(Rec& rec, const KernelArgs& args) {
  constexpr int kW = 2 * R + 1;
  constexpr int kOutSide = kQuadOutputs * T;  // a tile of out: 4T x 4T
  constexpr int kSideRows = kOutSide + 2 * R, kSideCols = kOutSide + 2 * kQuadHalo;
  constexpr int kQuadsPerRow = kSideCols / 4, kQuads = kSideRows * kQuadsPerRow;
  constexpr int kThreads = T * T, kLoadsPerThread = (kQuads + kThreads - 1) / kThreads;
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);          // (rows, cols), 16-byte aligned
  ConstantArray<float, Rec> mask(rec, mask_c, args, kMask);  // (kW, kW), in constant memory
  GlobalArray<float, Rec> out(rec, args, kOut);              // (rows, cols), 16-byte aligned

  // Two stages of the input tile: stage s is rows s * kSideRows .. of the array.
  alignas(16) __shared__ float tile_mem[2 * kSideRows][kSideCols];
  SharedTile<float, 2 * kSideRows, kSideCols, Rec> tile(rec, tile_mem, kTile);

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
  const int left = blockIdx.x * kOutSide - kQuadHalo;    // a multiple of 4
  const int first_row = blockIdx.y * kOutSide * kSteps;  // the strip's first output row
  float4 next[kLoadsPerThread];                          // the next input tile, in flight

  // Loads this thread's float4s of the input tile whose first row is image
  // row `top` into next[] (0 outside the image; one float at a time where a
  // float4 is partly outside it or the rows are not 16-byte aligned).
  const auto fetch = [&](int top) {
#pragma unroll
    for (int u = 0; u < kLoadsPerThread; ++u) {
      const int q = tid + u * kThreads;
      next[u] = float4{0.0f, 0.0f, 0.0f, 0.0f};
      if (q >= kQuads) break;
      const int r = q / kQuadsPerRow, s = 4 * (q % kQuadsPerRow), y = top + r, x = left + s;
      if (y < 0 || y >= rows) continue;
      if (cols % 4 == 0 && x >= 0 && x + 3 < cols) {
        next[u] = in.vec4(y * cols + x);  // one 16-byte load
      } else {
        if (x >= 0 && x < cols) next[u].x = in[y * cols + x];
        if (x + 1 >= 0 && x + 1 < cols) next[u].y = in[y * cols + x + 1];
        if (x + 2 >= 0 && x + 2 < cols) next[u].z = in[y * cols + x + 2];
        if (x + 3 >= 0 && x + 3 < cols) next[u].w = in[y * cols + x + 3];
      }
    }
  };
  // Stores next[] into stage `stage` of the shared tile.
  const auto stash = [&](int stage) {
#pragma unroll
    for (int u = 0; u < kLoadsPerThread; ++u) {
      const int q = tid + u * kThreads;
      if (q >= kQuads) break;
      const int r = q / kQuadsPerRow, s = 4 * (q % kQuadsPerRow);
      tile[stage * kSideRows + r].vec4(s) = next[u];  // one 16-byte store
    }
  };

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  fetch(first_row - R);
  stash(0);
  SYNCTHREADS(1);  // stage 0 stored by all threads in turn: complete before anyone reads it

  for (int step = 0; step < kSteps; ++step) {
    const int row0 = first_row + step * kOutSide;  // this tile's first output row
    const bool more = step + 1 < kSteps && row0 + kOutSide < rows;
    if (more) fetch(row0 + kOutSide - R);  // the next tile's loads: in flight during the compute
    const int stage = step % 2;

    // The 4 x 4 outputs of this tile, as in conv2d.constant_mask.
    float acc[kQuadOutputs][4] = {};
#pragma unroll
    for (int ir = 0; ir < kQuadOutputs + 2 * R; ++ir) {
      // The window's columns 4tx + 4 - R .. 4tx + 7 + R of this row, each read
      // once, as nvcc loads them: the float4s it needs whole where 3 or 4 of
      // their words are used (R = 3), else the middle float4 and, each side, the
      // pair (R = 2) or the single word (R = 1) that is used.
      float v[12];
      const auto row = tile[stage * kSideRows + kQuadOutputs * ty + ir];
      const int c0 = kQuadOutputs * tx;
      if constexpr (R == 3) {
#pragma unroll
        for (int q = 0; q < 3; ++q) {
          const float4 t = row.vec4(c0 + 4 * q);  // 16-byte shared loads
          v[4 * q] = t.x, v[4 * q + 1] = t.y, v[4 * q + 2] = t.z, v[4 * q + 3] = t.w;
        }
      } else {
        const float4 t = row.vec4(c0 + 4);  // the middle: one 16-byte shared load
        v[4] = t.x, v[5] = t.y, v[6] = t.z, v[7] = t.w;
        if constexpr (R == 2)  // two pairs
          v[2] = row[c0 + 2], v[3] = row[c0 + 3], v[8] = row[c0 + 8], v[9] = row[c0 + 9];
        else
          v[3] = row[c0 + 3], v[8] = row[c0 + 8];  // two single words
      }
#pragma unroll
      for (int k = 0; k < kQuadOutputs; ++k) {
        const int i = ir - k;
        if (i < 0 || i >= kW) continue;
#pragma unroll
        for (int j = 0; j < kW; ++j) {
          const float weight = mask[i * kW + j];  // constant, compile-time index: an FFMA operand
#pragma unroll
          for (int c = 0; c < 4; ++c)
            acc[k][c] += weight * v[kQuadHalo - R + c + j];
        }
      }
    }
    const int col = blockIdx.x * kOutSide + kQuadOutputs * tx;
#pragma unroll
    for (int k = 0; k < kQuadOutputs; ++k) {
      const int row = row0 + kQuadOutputs * ty + k;
      if (row >= rows) continue;
      if (cols % 4 == 0 && col + 3 < cols) {
        out.vec4(row * cols + col) = make_float4(acc[k][0], acc[k][1], acc[k][2], acc[k][3]);
      } else {
        for (int c = 0; c < 4; ++c)
          if (col + c < cols) out[row * cols + col + c] = acc[k][c];
      }
    }
    if (!more) break;
    stash(1 - stage);  // the stage the step before read: everyone passed the barrier since
    SYNCTHREADS(2);    // the next stage complete before anyone reads it
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int T, int R>
struct Body {
  template <class Rec>
  static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {
    conv2d_double_buffer<T, R>(rec, args);
  }
};

// The constant-memory symbol the backends fill before a launch (lessons/access.hpp).
template <int T, int R>
static inline std::array<ConstantSymbol, 1> constant_symbols(Body<T, R>) {
  return {{{kMask, &mask_c, sizeof mask_c}}};
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return conv2d_kit::visit_thread_tile<Body>(p, f);
  }

  static LessonSpec descriptor() {
    using conv2d_kit::MaskIn;
    return conv2d_kit::quad_tile_lesson<MaskIn::Constant, kSteps>({
        .title = "2D convolution, double buffered: two shared stages",
        .summary = "The constant-mask register tile walking 4 tiles down the image: the next "
                   "tile's float4s are loaded while this one is computed, one barrier per tile.",
        .barriers = {{"stage 0 complete before anyone reads it", kGuardsRaw},
                     {"the next stage complete before anyone reads it, and (the same barrier) "
                      "everyone done with the current stage before the step after overwrites it",
                      kGuardsRaw | kGuardsWar}},
    });
  }
};

}  // namespace ts::lessons::conv2d_double_buffer
