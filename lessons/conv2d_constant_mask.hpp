// 2D convolution, the 4 x 4 register tile with the mask in constant memory.
// The same kernel as conv2d.register_tile, one change: the weights are read
// from the __constant__ mask again instead of a copy in shared memory. Every
// thread of a warp reads the same weight at the same time, and the weight's
// index is known at compile time (the loops are unrolled, R is a template
// parameter), so nvcc does not load it at all inside the loop: on sm_90 it
// puts the weights in uniform registers once per warp (ULDC) and each
// multiply-add takes its weight from there (FFMA R, R, UR, R). From shared
// memory, every weight is a load (LDS) into an ordinary register of every
// thread: more instructions and 16 more registers per thread, hence fewer
// blocks per SM.
#pragma once

#include <array>

#include "lessons/access.hpp"
#include "lessons/conv2d_kit.hpp"

namespace ts::lessons::conv2d_constant_mask {

using conv2d_kit::kMaxMaskElems;
using conv2d_kit::kQuadHalo;
using conv2d_kit::kQuadOutputs;
enum : ArraySlot { kIn = 1, kMask, kOut, kTile };

// The mask in constant memory, sized for the largest radius (3: 7 x 7).
TS_CONSTANT float mask_c[kMaxMaskElems];

// T x T threads, each 4 x 4 outputs; radius R.
template <int T, int R, class Rec>
TS_DEVICE void conv2d_constant_mask(Rec& rec, const KernelArgs& args) {
  constexpr int kW = 2 * R + 1;
  constexpr int kOutSide = kQuadOutputs * T;  // the block's tile of out: 4T x 4T
  constexpr int kSideRows = kOutSide + 2 * R, kSideCols = kOutSide + 2 * kQuadHalo;
  constexpr int kQuadsPerRow = kSideCols / 4, kQuads = kSideRows * kQuadsPerRow;
  constexpr int kThreads = T * T, kLoadsPerThread = (kQuads + kThreads - 1) / kThreads;
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);          // (rows, cols), 16-byte aligned
  ConstantArray<float, Rec> mask(rec, mask_c, args, kMask);  // (kW, kW), in constant memory
  GlobalArray<float, Rec> out(rec, args, kOut);              // (rows, cols), 16-byte aligned

  alignas(16) __shared__ float tile_mem[kSideRows][kSideCols];
  SharedTile<float, kSideRows, kSideCols, Rec> tile(rec, tile_mem, kTile);

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
  // Tile cell (r, s) is image pixel (top + r, left + s); left is a multiple of 4.
  const int top = blockIdx.y * kOutSide - R, left = blockIdx.x * kOutSide - kQuadHalo;

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // The input tile a float4 at a time, float4 q row-major, by all threads in
  // turn. 0 outside the image; one float at a time where a float4 is partly
  // outside it or the rows are not 16-byte aligned (n not a multiple of 4).
#pragma unroll
  for (int u = 0; u < kLoadsPerThread; ++u) {
    const int q = tid + u * kThreads;
    if (q >= kQuads) break;
    const int r = q / kQuadsPerRow, s = 4 * (q % kQuadsPerRow), y = top + r, x = left + s;
    float4 v = {0.0f, 0.0f, 0.0f, 0.0f};
    if (y >= 0 && y < rows) {
      if (cols % 4 == 0 && x >= 0 && x + 3 < cols) {
        v = in.vec4(y * cols + x);  // one 16-byte load
      } else {
        if (x >= 0 && x < cols) v.x = in[y * cols + x];
        if (x + 1 >= 0 && x + 1 < cols) v.y = in[y * cols + x + 1];
        if (x + 2 >= 0 && x + 2 < cols) v.z = in[y * cols + x + 2];
        if (x + 3 >= 0 && x + 3 < cols) v.w = in[y * cols + x + 3];
      }
    }
    tile[r].vec4(s) = v;  // one 16-byte store
  }
  SYNCTHREADS(1);  // a thread's window was stored by other threads, other warps: wait for all

  // Outputs (4ty + k, 4tx + c), k, c = 0 .. 3. Input row ir of the window:
  // tile row 4ty + ir, columns 4tx + 4 - R .. 4tx + 7 + R (each read once),
  // used by every output row k whose window holds it (mask row ir - k).
  float acc[kQuadOutputs][4] = {};
#pragma unroll
  for (int ir = 0; ir < kQuadOutputs + 2 * R; ++ir) {
    // The window's columns 4tx + 4 - R .. 4tx + 7 + R of this row, each read
    // once, as nvcc loads them: the float4s it needs whole where 3 or 4 of
    // their words are used (R = 3), else the middle float4 and, each side, the
    // pair (R = 2) or the single word (R = 1) that is used.
    float v[12];
    const auto row = tile[kQuadOutputs * ty + ir];
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
    const int row = blockIdx.y * kOutSide + kQuadOutputs * ty + k;
    if (row >= rows) continue;
    if (cols % 4 == 0 && col + 3 < cols) {
      out.vec4(row * cols + col) = make_float4(acc[k][0], acc[k][1], acc[k][2], acc[k][3]);
    } else {
      for (int c = 0; c < 4; ++c)
        if (col + c < cols) out[row * cols + col + c] = acc[k][c];
    }
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int T, int R>
struct Body {
  template <class Rec>
  static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {
    conv2d_constant_mask<T, R>(rec, args);
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
    return conv2d_kit::quad_tile_lesson<MaskIn::Constant, 1>({
        .title = "2D convolution, register tile, mask in constant memory",
        .summary = "The 4 x 4 register tile reading its weights from constant memory: with "
                   "compile-time indices they become operands of the multiply-adds, no loads.",
        .barriers = {{"the input tile is stored by all threads in turn: all of it in place "
                      "before anyone reads a window",
                      kGuardsRaw}},
    });
  }
};

}  // namespace ts::lessons::conv2d_constant_mask
