// 2D convolution, a 4 x 4 register tile per thread, float4 loads, the mask
// in shared memory. The column kernel (conv2d.several_outputs) reused each
// input row for the 8 outputs below each other; here a thread computes a
// 4 x 4 square of outputs and reuses its inputs both ways: input row ir of
// its window (4 + 2R values, columns 4tx + 4 - R .. 4tx + 7 + R) is read from
// shared memory once, a float4 in the middle and the rest in the widest
// aligned pieces that hold only what is used (at R = 3 whole float4s, as nvcc
// loads them anyway): 3 loads per row, 4 + 2R rows, for 16 outputs. The
// weights are read into registers once per thread. Global memory moves
// float4s too: the input tile's rows start 4 columns left of the output tile
// (the halo rounded up to a float4), so every row of it is whole, aligned
// float4s. The mask is copied from global memory into shared memory by each
// block, as a kernel must do when the weights change per block or do not fit
// in constant memory (64 KB); conv2d.constant_mask reads them from constant
// memory instead.
#pragma once

#include "lessons/access.hpp"
#include "lessons/conv2d_kit.hpp"

namespace ts::lessons::conv2d_register_tile {

using conv2d_kit::kQuadHalo;
using conv2d_kit::kQuadOutputs;
enum : ArraySlot { kIn = 1, kMask, kOut, kTile, kMaskShared };

// T x T threads, each 4 x 4 outputs; radius R.
template <int T, int R, class Rec>
TS_DEVICE void conv2d_register_tile(Rec& rec, const KernelArgs& args) {
  constexpr int kW = 2 * R + 1;
  constexpr int kOutSide = kQuadOutputs * T;  // the block's tile of out: 4T x 4T
  constexpr int kSideRows = kOutSide + 2 * R, kSideCols = kOutSide + 2 * kQuadHalo;
  constexpr int kQuadsPerRow = kSideCols / 4, kQuads = kSideRows * kQuadsPerRow;
  constexpr int kThreads = T * T, kLoadsPerThread = (kQuads + kThreads - 1) / kThreads;
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);      // (rows, cols), 16-byte aligned
  GlobalArray<const float, Rec> mask(rec, args, kMask);  // (kW, kW)
  GlobalArray<float, Rec> out(rec, args, kOut);          // (rows, cols), 16-byte aligned

  alignas(16) __shared__ float tile_mem[kSideRows][kSideCols];
  SharedTile<float, kSideRows, kSideCols, Rec> tile(rec, tile_mem, kTile);
  alignas(16) __shared__ float mask_mem[kW * kW];
  SharedArray<float, Rec> mask_s(rec, mask_mem, kW * kW, kMaskShared);

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
  // Tile cell (r, s) is image pixel (top + r, left + s); left is a multiple of 4.
  const int top = blockIdx.y * kOutSide - R, left = blockIdx.x * kOutSide - kQuadHalo;

  DELAY_POINT(true);                           // race lab: the chosen warps start loading late
  if (tid < kW * kW) mask_s[tid] = mask[tid];  // the weights, once per block (T x T >= 49)
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
  SYNCTHREADS(1);  // windows and weights were stored by other threads, other warps: wait for all

  // The (2R + 1)^2 weights into registers, once: an odd count, read as float4s
  // and a last word (every thread reads the same address: a broadcast).
  float weight[kW * kW];
#pragma unroll
  for (int w = 0; w < kW * kW / 4; ++w) {
    const float4 f = mask_s.vec4(4 * w);  // one 16-byte shared load
    weight[4 * w] = f.x, weight[4 * w + 1] = f.y, weight[4 * w + 2] = f.z, weight[4 * w + 3] = f.w;
  }
  weight[kW * kW - 1] = mask_s[kW * kW - 1];  // one 4-byte shared load

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
#pragma unroll
        for (int c = 0; c < 4; ++c)
          acc[k][c] += weight[i * kW + j] * v[kQuadHalo - R + c + j];
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
    conv2d_register_tile<T, R>(rec, args);
  }
};

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return conv2d_kit::visit_thread_tile<Body>(p, f);
  }

  static LessonSpec descriptor() {
    using conv2d_kit::MaskIn;
    return conv2d_kit::quad_tile_lesson<MaskIn::Shared, 1>({
        .title = "2D convolution, 4 x 4 register tile, float4, mask in shared memory",
        .summary =
            "Each thread computes 4 x 4 outputs from a float4 and the pieces R needs "
            "per input row; 16-byte global loads and stores; the mask copied into shared memory.",
        .barriers = {{"the input tile and the weights are stored by all threads in turn: all of "
                      "it in place before anyone reads a window or a weight",
                      kGuardsRaw}},
    });
  }
};

}  // namespace ts::lessons::conv2d_register_tile
