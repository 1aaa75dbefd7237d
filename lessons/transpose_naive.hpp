// Matrix transpose, straight from global memory: out[col][row] = in[row][col].
// Consecutive threads of a warp take consecutive columns of `in`, so the
// warp's 32 loads are one contiguous row: coalesced. Their 32 stores go to
// one column of `out`, `rows` floats apart: every store touches its own
// 32-byte sector, and the write side runs at a fraction of the bandwidth.
#pragma once

#include "lessons/access.hpp"
#include "lessons/transpose_kit.hpp"

namespace ts::lessons::transpose_naive {

using transpose_kit::kTile;
enum : ArraySlot { kIn = 1, kOut };

// One thread per element of in (rows x cols), 32 x 32 threads per block.
template <class Rec>
TS_DEVICE void transpose_naive(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (rows, cols)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (cols, rows)

  const int col = blockIdx.x * kTile + threadIdx.x;  // neighbours in a warp: neighbouring columns
  const int row = blockIdx.y * kTile + threadIdx.y;

  if (row < rows && col < cols) {
    out[col * rows + row] = in[row * cols + col];  // read along a row, write down a column
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, transpose_naive(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace transpose_kit;
    return lesson<0>("Transpose, global memory only",
                     "Reads rows of the input (coalesced), writes columns of the output: every "
                     "store of a warp lands in its own memory sector.");
  }
};

}  // namespace ts::lessons::transpose_naive
