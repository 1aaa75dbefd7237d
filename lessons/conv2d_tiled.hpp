// 2D convolution with a shared input tile and a halo. A block computes a
// T x T tile of out, one pixel per thread. Those pixels need a larger piece
// of the image: the (T + 2R) x (T + 2R) input tile, the output tile plus R
// pixels all around, the halo, which belongs to the neighbouring blocks. The
// block copies the input tile into shared memory once, every thread its own
// pixel (the centre) and the threads near the top and left edges of the
// block the halo as well: an edge strip each, and a corner square for the
// threads in the top-left R x R corner. Pixels outside the image are stored
// as 0. After the barrier every pixel is computed from shared memory; the
// mask comes from constant memory as in conv2d.naive.
#pragma once

#include <array>

#include "lessons/access.hpp"
#include "lessons/conv2d_kit.hpp"

namespace ts::lessons::conv2d_tiled {

using conv2d_kit::kMaxMaskElems;
using conv2d_kit::kMaxRadius;
enum : ArraySlot { kIn = 1, kMask, kOut, kTile };

// The mask in constant memory, sized for the largest radius (3: 7 x 7); the
// host copies the (2R + 1)^2 weights in before the launch.
TS_CONSTANT float mask_c[kMaxMaskElems];

// Output tile T x T (the block), radius R: both compile-time sizes, so that
// the input tile is a shared array of exactly (T + 2R) x (T + 2R).
template <int T, int R, class Rec>
TS_DEVICE void conv2d_tiled(Rec& rec, const KernelArgs& args) {
  constexpr int kSide = T + 2 * R;  // input tile side
  const int rows = args.m, cols = args.n, w = 2 * R + 1;
  GlobalArray<const float, Rec> in(rec, args, kIn);          // (rows, cols)
  ConstantArray<float, Rec> mask(rec, mask_c, args, kMask);  // (w, w), in constant memory
  GlobalArray<float, Rec> out(rec, args, kOut);              // (rows, cols)

  __shared__ float tile_mem[kSide][kSide];
  SharedTile<float, kSide, kSide, Rec> tile(rec, tile_mem, kTile);

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * T + tx;  // this thread's output pixel
  const int row = blockIdx.y * T + ty;
  // Image pixel (y, x) goes to tile[y - top][x - left]; 0 outside the image.
  // Each load has a line of its own, so that a warp's loads pair up by line.
  const int top = blockIdx.y * T - R, left = blockIdx.x * T - R;
  const int y_top = top + ty, y_bottom = top + ty + T + R;    // halo rows (threads ty < R)
  const int x_left = left + tx, x_right = left + tx + T + R;  // halo columns (threads tx < R)
  const auto inside = [&](int y, int x) { return y >= 0 && y < rows && x >= 0 && x < cols; };

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // The centre: every thread its own pixel.
  tile[ty + R][tx + R] = inside(row, col) ? float(in[row * cols + col]) : 0.0f;
  // The halo, by a subset of the threads (R <= T): the top R rows of the
  // block also load the R rows above and the R rows below the tile ...
  if (ty < R) {
    tile[ty][tx + R] = inside(y_top, col) ? float(in[y_top * cols + col]) : 0.0f;
    tile[ty + T + R][tx + R] = inside(y_bottom, col) ? float(in[y_bottom * cols + col]) : 0.0f;
  }
  // ... the left R columns the R columns left and right of it ...
  if (tx < R) {
    tile[ty + R][tx] = inside(row, x_left) ? float(in[row * cols + x_left]) : 0.0f;
    tile[ty + R][tx + T + R] = inside(row, x_right) ? float(in[row * cols + x_right]) : 0.0f;
  }
  // ... and the top-left R x R threads the four R x R corners.
  if (ty < R && tx < R) {
    tile[ty][tx] = inside(y_top, x_left) ? float(in[y_top * cols + x_left]) : 0.0f;
    tile[ty][tx + T + R] = inside(y_top, x_right) ? float(in[y_top * cols + x_right]) : 0.0f;
    tile[ty + T + R][tx] = inside(y_bottom, x_left) ? float(in[y_bottom * cols + x_left]) : 0.0f;
    tile[ty + T + R][tx + T + R] =
        inside(y_bottom, x_right) ? float(in[y_bottom * cols + x_right]) : 0.0f;
  }
  SYNCTHREADS(1);  // a pixel's neighbours were stored by other threads, other warps: wait for all

  if (row < rows && col < cols) {
    float sum = 0.0f;
    for (int i = 0; i < w; ++i) {
      for (int j = 0; j < w; ++j) {
        const float weight = mask[i * w + j];  // constant: one address per warp
        sum += weight * tile[ty + i][tx + j];  // shared: no global reads here
      }
    }
    out[row * cols + col] = sum;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int T, int R>
struct Body {
  template <class Rec>
  static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {
    conv2d_tiled<T, R>(rec, args);
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
    bool ok = false;
    lesson_kit::visit_tile(p.tile, [&]<int T>() {
      ok = lesson_kit::visit_value<1, 2, 3>(p.radius, [&]<int R>() { f(Body<T, R>{}); });
    });
    return ok;
  }

  static LessonSpec descriptor() {
    return conv2d_kit::lesson<conv2d_kit::Input::SharedTile>(
        "2D convolution, shared input tile with halo",
        "Each block copies its (T + 2R) x (T + 2R) input tile into shared memory: every thread "
        "its own pixel, the edge threads the halo and the corners.",
        {{"the input tile is stored by every thread and its halo by a few: all of it in place "
          "before anyone reads a neighbour",
          kGuardsRaw}});
  }
};

}  // namespace ts::lessons::conv2d_tiled
