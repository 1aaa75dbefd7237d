// 2D convolution, eight outputs per thread: a column. The tiled convolution
// computes one pixel per thread and reads all (2R + 1)^2 of its neighbours
// from shared memory: 49 shared loads for 49 multiply-adds at R = 3, so the
// shared-memory pipe, not the arithmetic, sets its pace. Here each thread
// computes 8 pixels down a column. Neighbouring pixels of a column share most
// of their input rows: input row ir of the thread's window feeds every one of
// its outputs whose (2R + 1)-row window contains it, up to 2R + 1 of them. So
// the thread reads each of its 8 + 2R input rows once, 2R + 1 values into
// registers, and uses them for every output that needs them: (8 + 2R)(2R + 1)
// shared loads for 8 (2R + 1)^2 multiply-adds, about one load per five
// multiply-adds at R = 3 instead of one per one. The block, T x 8 threads,
// computes a T x 64 tile of out; all its threads copy the (64 + 2R) x (T + 2R)
// input tile in turn, row after row. The mask stays in constant memory.
#pragma once

#include <array>

#include "lessons/access.hpp"
#include "lessons/conv2d_kit.hpp"

namespace ts::lessons::conv2d_several_outputs {

using conv2d_kit::kMaxMaskElems;
enum : ArraySlot { kIn = 1, kMask, kOut, kTile };

// The mask in constant memory, sized for the largest radius (3: 7 x 7).
TS_CONSTANT float mask_c[kMaxMaskElems];

inline constexpr int kBlockRows = 8;                       // blocks of T x 8 threads
inline constexpr int kPerThread = 8;                       // outputs per thread, down a column
inline constexpr int kTileRows = kBlockRows * kPerThread;  // 64 rows of out per block

// T threads across (the tile), radius R: compile-time sizes of the input tile
// and of the register arrays.
template <int T, int R, class Rec>
TS_DEVICE void conv2d_several_outputs(Rec& rec, const KernelArgs& args) {
  constexpr int kW = 2 * R + 1;                                        // mask width
  constexpr int kSideRows = kTileRows + 2 * R, kSideCols = T + 2 * R;  // input tile
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);          // (rows, cols)
  ConstantArray<float, Rec> mask(rec, mask_c, args, kMask);  // (kW, kW), in constant memory
  GlobalArray<float, Rec> out(rec, args, kOut);              // (rows, cols)

  __shared__ float tile_mem[kSideRows][kSideCols];
  SharedTile<float, kSideRows, kSideCols, Rec> tile(rec, tile_mem, kTile);

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
  const int top = blockIdx.y * kTileRows - R, left = blockIdx.x * T - R;  // the tile's corner

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // The input tile, cell c row-major, by all T x 8 threads in turn:
  // consecutive threads load consecutive pixels of a row. 0 outside the image.
  for (int c = tid; c < kSideRows * kSideCols; c += T * kBlockRows) {
    const int r = c / kSideCols, s = c % kSideCols, y = top + r, x = left + s;
    const bool inside = y >= 0 && y < rows && x >= 0 && x < cols;
    tile[r][s] = inside ? float(in[y * cols + x]) : 0.0f;
  }
  SYNCTHREADS(1);  // a thread's window was stored by other threads, other warps: wait for all

  // Outputs (ty * 8 + k, tx) of the tile, k = 0 .. 7; their windows cover
  // tile rows ty * 8 .. ty * 8 + 7 + 2R.
  float acc[kPerThread] = {};
#pragma unroll
  for (int ir = 0; ir < kPerThread + 2 * R; ++ir) {
    float v[kW];  // one input row of the window, read once
#pragma unroll
    for (int j = 0; j < kW; ++j)
      v[j] = tile[ty * kPerThread + ir][tx + j];  // shared: 2R + 1 loads per input row
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = ir - k;  // this row is row i of output k's window
      if (i < 0 || i >= kW) continue;
#pragma unroll
      for (int j = 0; j < kW; ++j)
        acc[k] += mask[i * kW + j] * v[j];  // registers and a constant: no shared load
    }
  }
  const int col = blockIdx.x * T + tx;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int row = blockIdx.y * kTileRows + ty * kPerThread + k;
    if (row < rows && col < cols) out[row * cols + col] = acc[k];
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int T, int R>
struct Body {
  template <class Rec>
  static TS_DEVICE void run(Rec& rec, const KernelArgs& args) {
    conv2d_several_outputs<T, R>(rec, args);
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
    using namespace conv2d_kit;
    return {
        .title = "2D convolution, eight outputs per thread",
        .summary =
            "Each thread computes 8 pixels down a column: each input row of its window is "
            "read from shared memory once and used by every output that needs it.",
        .params =
            thread_tile_params("threads across: blocks of T x 8, a T x 64 tile of out", 16, 20),
        .barriers = {{"the input tile is stored by all threads in turn: all of it in place before "
                      "anyone reads a window",
                      kGuardsRaw}},
        .arrays = arrays_of,
        .geometry = geometry_of,
        .check = check,
        .shared_advice = smaller_tile,
        .counts = counts,
        .reference = reference,
        .sum_length = sum_length,
        .loads_per_output = loads,
        .metric = PerfMetric::Bytes,
        .flops = flops,
        .tests = {.larger = Params{.m = 128, .n = 16, .tile = 8, .radius = 2},
                  .padded = Params{.m = 13, .n = 11, .tile = 8, .radius = 3}},
    };
  }

 private:
  static std::optional<std::string> check(const LessonInfo&, const Params& p,
                                          const DeviceLimits& lim) {
    return conv2d_kit::thread_tile_check(p, lim, kBlockRows);
  }
  static int side_rows(const Params& p) { return kTileRows + 2 * p.radius; }
  static int side_cols(const Params& p) { return p.tile + 2 * p.radius; }
  static ArrayTable arrays_of(const Params& p) {
    return conv2d_kit::arrays(p, {lesson_kit::shared_array("tile", side_rows(p), side_cols(p))});
  }
  static LaunchGeometry geometry_of(const Params& p) {
    LaunchGeometry g = conv2d_kit::thread_tile_geometry(p, kBlockRows, p.tile, kTileRows);
    g.static_shared_bytes = uint32_t(4 * side_rows(p) * side_cols(p));
    return g;
  }
  // Every tile cell stored once (0 outside the image) and loaded from the
  // image when inside it (separable); every thread reads its 8 + 2R window
  // rows of 2R + 1 and, per output, every weight.
  static ExpectedCounts counts(const Params& p) {
    using conv2d_kit::halo_tile_sum;
    ExpectedCounts c;
    const LaunchGeometry g = geometry_of(p);
    const uint64_t threads = g.grid.count() * g.block.count(), w = 2 * uint64_t(p.radius) + 1;
    c.global_loads = halo_tile_sum(p.m, kTileRows, p.radius) * halo_tile_sum(p.n, p.tile, p.radius);
    c.global_stores = uint64_t(p.m) * uint64_t(p.n);
    c.shared_stores = g.grid.count() * uint64_t(side_rows(p)) * uint64_t(side_cols(p));
    c.shared_loads = threads * (kPerThread + 2 * uint64_t(p.radius)) * w;
    c.constant_loads = threads * kPerThread * w * w;
    c.barrier_arrivals = threads;
    return c;
  }
  static double loads(const Params& p, std::string* formula) {
    const int rows = kTileRows + 2 * p.radius, cols = p.tile + 2 * p.radius;
    return conv2d_kit::say_mean(formula,
                                "(64+2R)(T+2R)/(64T) = " + std::to_string(rows * cols) + "/" +
                                    std::to_string(kTileRows * p.tile),
                                double(conv2d_kit::halo_tile_sum(p.m, kTileRows, p.radius) *
                                       conv2d_kit::halo_tile_sum(p.n, p.tile, p.radius)) /
                                    (double(p.m) * double(p.n)));
  }
};

}  // namespace ts::lessons::conv2d_several_outputs
