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
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace transpose_kit;
    static const Variant v = {
        .id = "transpose.naive",
        .title = "Transpose, global memory only",
        .summary =
            "Reads rows of the input (coalesced), writes columns of the output: every "
            "store of a warp lands in its own memory sector.",
        .family = "transpose",
        .family_title = "Transpose",
        .source_file = "lessons/transpose_naive.hpp",
        .function = "transpose_naive",
        .narration_key = "transpose_naive",
        .uses = kUsesM | kUsesN,
        .defaults = Params{.m = 40, .n = 48},
        .param_text = {{"m", "m (rows of in)", "rows of in, columns of out"},
                       {"n", "n (columns of in)", "columns of in, rows of out"}},
        .barriers = {},
        .arrays = [](const Params& p) { return arrays(p); },
        .geometry = geometry,
        .check = check,
        .shared_advice = no_fix,
        .counts =
            [](const Params& p) {
              ExpectedCounts c;
              c.global_loads = c.global_stores = uint64_t(p.m) * uint64_t(p.n);
              return c;
            },
        .reference = reference,
        .sum_length = [](const Params&) { return 1; },
        .loads_per_output = loads,
        .metric = PerfMetric::Bytes,
    };
    return v;
  }
};

}  // namespace ts::lessons::transpose_naive
