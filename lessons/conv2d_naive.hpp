// 2D convolution, global memory only: out[row][col] is the sum of the
// (2R + 1) x (2R + 1) pixels around in[row][col], each times its mask weight.
// Pixels outside the image count as 0 ("ghost cells"): the thread skips them.
// The mask is the same for every thread and never changes during the kernel,
// so it lives in constant memory: a warp whose threads all read the same mask
// element gets it in one broadcast from the constant cache. The image is read
// from global memory, (2R + 1)^2 times per output pixel.
#pragma once

#include <array>

#include "lessons/access.hpp"
#include "lessons/conv2d_kit.hpp"

namespace ts::lessons::conv2d_naive {

using conv2d_kit::kMaxMaskElems;
enum : ArraySlot { kIn = 1, kMask, kOut };

// The mask in constant memory, sized for the largest radius (3: 7 x 7); the
// host copies the (2R + 1)^2 weights in before the launch.
TS_CONSTANT float mask_c[kMaxMaskElems];

// 8 x 8 threads per block: two warps.
inline constexpr int kBlockSide = 8;

template <class Rec>
TS_DEVICE void conv2d_naive(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n, r = args.radius, w = 2 * r + 1;
  GlobalArray<const float, Rec> in(rec, args, kIn);          // (rows, cols)
  ConstantArray<float, Rec> mask(rec, mask_c, args, kMask);  // (w, w), in constant memory
  GlobalArray<float, Rec> out(rec, args, kOut);              // (rows, cols)

  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    float sum = 0.0f;
    for (int i = -r; i <= r; ++i) {
      for (int j = -r; j <= r; ++j) {
        // Every thread reads every weight, in step with its warp: one address
        // per warp at a time, a broadcast from the constant cache.
        const float weight = mask[(i + r) * w + (j + r)];
        const int y = row + i, x = col + j;
        if (y >= 0 && y < rows && x >= 0 && x < cols) {  // outside the image: 0, no read
          sum += weight * in[y * cols + x];              // global: up to (2R + 1)^2 per pixel
        }
      }
    }
    out[row * cols + col] = sum;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, conv2d_naive(rec, args));

// The constant-memory symbol the backends fill before a launch (lessons/access.hpp).
static inline std::array<ConstantSymbol, 1> constant_symbols(Body) {
  return {{{kMask, &mask_c, sizeof mask_c}}};
}

struct Lesson {
  static LessonSpec descriptor() {
    return conv2d_kit::lesson<conv2d_kit::Input::Global, kBlockSide>(
        "2D convolution, global memory and a constant mask",
        "One thread per output pixel reads its (2R + 1)^2 neighbours from global memory; the "
        "mask comes from constant memory.");
  }
};

}  // namespace ts::lessons::conv2d_naive
