// What the 2D convolution lessons share: out (m x n) is the image `in` (m x n)
// convolved with a (2R + 1) x (2R + 1) mask, pixels outside the image counting
// as 0. The mask lives in constant memory. Their arrays, reference, counts and checks.
#pragma once

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"

namespace ts::lessons::conv2d_kit {

using namespace ts::lesson_kit;

// The constant-memory symbol has a fixed capacity: radius 3, a 7 x 7 mask.
inline constexpr int kMaxRadius = 3;
inline constexpr int kMaxMaskElems = (2 * kMaxRadius + 1) * (2 * kMaxRadius + 1);

inline int mask_width(int radius) {
  return 2 * radius + 1;
}

// in (slot 1, stream 6), mask (slot 2, constant memory, stream 7), out (slot 3), then the shared
// ones.
inline ArrayTable arrays(const Params& p, std::vector<ArrayInfo> shared = {}) {
  ArrayInfo mask = global_input("mask", mask_width(p.radius), mask_width(p.radius), 7);
  mask.space = Space::Constant;
  ArrayTable t = {global_input("in", p.m, p.n, 6), mask, global_output("out", p.m, p.n)};
  for (ArrayInfo& s : shared)
    t.push_back(std::move(s));
  return t;
}

// One thread per output pixel, side x side blocks.
inline LaunchGeometry geometry(const Params& p, int side) {
  LaunchGeometry g;
  g.block = {at_least_1(side), at_least_1(side), 1};
  g.grid = {at_least_1(int64_t(ceil_div(uint64_t(std::max(p.n, 1)), uint64_t(std::max(side, 1))))),
            at_least_1(int64_t(ceil_div(uint64_t(std::max(p.m, 1)), uint64_t(std::max(side, 1))))),
            1};
  return g;
}

// Zero padding: double sums, rounded to float once.
inline std::vector<float> reference(const Params& p, const LessonInputs& in) {
  const std::vector<float>& x = in[1];
  const std::vector<float>& mask = in[2];
  const int rows = p.m, cols = p.n, r = p.radius, w = mask_width(r);
  if (x.size() != size_t(rows) * size_t(cols) || mask.size() != size_t(w) * size_t(w)) return {};
  std::vector<float> out(size_t(rows) * size_t(cols));
  for (int row = 0; row < rows; ++row)
    for (int col = 0; col < cols; ++col) {
      double sum = 0;
      for (int i = -r; i <= r; ++i)
        for (int j = -r; j <= r; ++j) {
          const int y = row + i, xc = col + j;
          if (y >= 0 && y < rows && xc >= 0 && xc < cols)
            sum +=
                double(mask[size_t(i + r) * w + size_t(j + r)]) * double(x[size_t(y) * cols + xc]);
        }
      out[size_t(row) * cols + col] = float(sum);
    }
  return out;
}

inline int sum_length(const Params& p) {
  return mask_width(p.radius) * mask_width(p.radius);
}
// A multiply and an add per mask element per output pixel.
inline double flops(const Params& p) {
  return 2.0 * double(p.m) * double(p.n) * double(sum_length(p));
}

// How many of the positions lo .. hi - 1 lie inside 0 .. size - 1.
inline uint64_t inside(int64_t lo, int64_t hi, int64_t size) {
  return uint64_t(std::max<int64_t>(0, std::min(hi, size) - std::max<int64_t>(lo, 0)));
}

// Over all pixels of a line of `size`, the neighbours within `r` that lie
// inside it: sum over x of |[x - r, x + r] n [0, size)|.
inline uint64_t window_sum(int size, int r) {
  uint64_t s = 0;
  for (int x = 0; x < size; ++x)
    s += inside(x - r, x + r + 1, size);
  return s;
}

// Over the blocks of a line of `size` cut into tiles of `tile`, the input
// tile positions (tile + 2r, starting r before the block) inside the line.
inline uint64_t halo_tile_sum(int size, int tile, int r) {
  uint64_t s = 0;
  for (int64_t start = 0; start < size; start += tile)
    s += inside(start - r, start + tile + r, size);
  return s;
}

inline std::string radius_out_of_range(const char*, int radius) {
  return "radius " + std::to_string(radius) +
         ": the mask radius must be from 1 to 3 (the __constant__ mask holds at most 7 x 7 = " +
         std::to_string(kMaxMaskElems) + " values)";
}

// "... mean = 5.2 (the mask is read from constant memory)": the loads per
// output pixel, `inside` the image.
inline double say_mean(std::string* formula, const std::string& inside, double mean) {
  if (formula) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", mean);
    *formula = inside + " inside the image, fewer near its edges: mean = " + buf +
               " (the mask is read from constant memory)";
  }
  return mean;
}

// A global read for every in-image neighbour of every pixel (the window is
// separable: (sum over rows) x (sum over columns)), a constant read for every
// weight of every pixel.
inline ExpectedCounts naive_counts(const Params& p) {
  ExpectedCounts c;
  c.global_loads = window_sum(p.m, p.radius) * window_sum(p.n, p.radius);
  c.constant_loads = uint64_t(p.m) * uint64_t(p.n) * uint64_t(sum_length(p));
  c.global_stores = uint64_t(p.m) * uint64_t(p.n);
  return c;
}
inline double naive_loads(const Params& p, std::string* formula) {
  const int w = mask_width(p.radius);
  return say_mean(
      formula, "(2R+1)^2 = " + std::to_string(w * w),
      double(window_sum(p.m, p.radius) * window_sum(p.n, p.radius)) / (double(p.m) * double(p.n)));
}

// Every input tile position is stored once (0 outside the image), loaded
// from the image when inside it; separable over rows and columns. Each output
// pixel inside the image reads (2R + 1)^2 weights and as many shared values.
inline ExpectedCounts tiled_counts(const Params& p) {
  ExpectedCounts c;
  const LaunchGeometry g = geometry(p, p.tile);
  const uint64_t side = uint64_t(p.tile + 2 * p.radius);
  const uint64_t pixels = uint64_t(p.m) * uint64_t(p.n);
  const uint64_t taps = uint64_t(sum_length(p));
  c.global_loads = halo_tile_sum(p.m, p.tile, p.radius) * halo_tile_sum(p.n, p.tile, p.radius);
  c.global_stores = pixels;
  c.shared_stores = g.grid.count() * side * side;
  c.shared_loads = pixels * taps;
  c.constant_loads = pixels * taps;
  c.barrier_arrivals = g.grid.count() * g.block.count();
  return c;
}
inline double tiled_loads(const Params& p, std::string* formula) {
  const int side = p.tile + 2 * p.radius;
  return say_mean(
      formula,
      "(T+2R)^2/T^2 = " + std::to_string(side * side) + "/" + std::to_string(p.tile * p.tile),
      double(halo_tile_sum(p.m, p.tile, p.radius) * halo_tile_sum(p.n, p.tile, p.radius)) /
          (double(p.m) * double(p.n)));
}
// A tile width the kernels are compiled for, at least the radius.
inline std::optional<std::string> tiled_check(const Params& p, const DeviceLimits& lim) {
  if (auto e = check_tile(p.tile, lim)) return e;
  if (p.radius > p.tile)
    return "radius " + std::to_string(p.radius) + " > tile " + std::to_string(p.tile) +
           ": the first R rows and columns of threads load the halo, so the tile needs at least "
           "R of them; use a larger tile";
  return std::nullopt;
}

// The parameters both lessons declare (the tiled one adds its tile).
inline std::vector<ParamDecl> params(const char* radius_hint) {
  return {side("m", "m (image rows)", "rows of in and out", 12),
          side("n", "n (image columns)", "columns of in and out", 12),
          {"radius", "radius R", radius_hint, 1, kMaxRadius, 2, radius_out_of_range}};
}
inline TestFacts tests(int tile) {
  return {.larger = Params{.m = 16, .n = 16, .tile = tile, .radius = 2},
          .padded = Params{.m = 13, .n = 11, .tile = tile, .radius = 2}};
}

// ---- Builder: a whole lesson from what it states ----

// Where a lesson's threads read the image: straight from global memory (one
// thread per pixel, fixed square blocks), or from a shared input tile with
// its halo (T x T blocks, T the tile parameter).
enum class Input { Global, SharedTile };

// A block of Side x Side threads that fits the device.
template <int Side>
std::optional<std::string> check_block(const Params&, const DeviceLimits& lim) {
  if (Side * Side > lim.max_threads_per_block)
    return "a block of " + std::to_string(Side) + " x " + std::to_string(Side) +
           " threads exceeds this device's limit";
  return std::nullopt;
}
inline SharedAdvice no_shared_memory(const Params&, const DeviceLimits&) {
  return {"", "this kernel uses no shared memory"};
}

inline ArrayTable global_arrays(const Params& p) {
  return arrays(p);
}
template <int Side>
LaunchGeometry square_blocks(const Params& p) {
  return geometry(p, Side);
}

// The (T + 2R) x (T + 2R) input tile in static shared memory.
inline ArrayTable tiled_arrays(const Params& p) {
  const int side = p.tile + 2 * p.radius;
  return arrays(p, {shared_array("tile", side, side)});
}
inline LaunchGeometry tiled_geometry(const Params& p) {
  LaunchGeometry g = geometry(p, p.tile);
  g.static_shared_bytes = uint32_t(4 * (p.tile + 2 * p.radius) * (p.tile + 2 * p.radius));
  return g;
}
inline std::vector<ParamDecl> tiled_params() {
  std::vector<ParamDecl> declared = params("mask radius, 1 to 3, at most T");
  declared.insert(declared.begin() + 2, tile("tile T", "output tile and block: T x T threads", 8));
  return declared;
}

// A convolution lesson reading its image as I says; BlockSide is the side of
// the Input::Global lesson's blocks. The shared-tile lesson states its barrier.
template <Input I, int BlockSide = 0>
LessonSpec lesson(const char* title, const char* summary, std::vector<BarrierInfo> barriers = {}) {
  constexpr bool tiled = I == Input::SharedTile;
  return {
      .title = title,
      .summary = summary,
      .params = tiled ? tiled_params() : params("mask radius, 1 to 3: a (2R + 1) x (2R + 1) mask"),
      .barriers = std::move(barriers),
      .arrays = tiled ? tiled_arrays : global_arrays,
      .geometry = tiled ? tiled_geometry : square_blocks<BlockSide>,
      .check = tiled ? check_params<tiled_check> : check_params<check_block<BlockSide>>,
      .shared_advice = tiled ? smaller_tile : no_shared_memory,
      .counts = tiled ? tiled_counts : naive_counts,
      .reference = reference,
      .sum_length = sum_length,
      // No 1- or 2-warp knob for the tiled lesson: its race is not latent with
      // one warp. Its lanes diverge (halo threads, zero padding), out of step.
      .loads_per_output = tiled ? tiled_loads : naive_loads,
      .metric = PerfMetric::Bytes,
      .flops = flops,
      .tests = tests(tiled ? 8 : 0),
  };
}

// ---- The register-tile lessons: several outputs per thread ----

// Over the blocks of a line of `size` cut into tiles of `tile`, the positions
// of [start - before, start + tile + after) inside the line.
inline uint64_t span_sum(int size, int tile, int before, int after) {
  uint64_t s = 0;
  for (int64_t start = 0; start < size; start += tile)
    s += inside(start - before, start + tile + after, size);
  return s;
}

// Blocks of T x block_rows threads (T: the tile parameter), each covering a
// tile_cols x tile_rows piece of out.
inline LaunchGeometry thread_tile_geometry(const Params& p, int block_rows, int tile_cols,
                                           int tile_rows) {
  LaunchGeometry g;
  g.block = {at_least_1(p.tile), at_least_1(block_rows), 1};
  g.grid = {
      at_least_1(int64_t(ceil_div(uint64_t(std::max(p.n, 1)), uint64_t(std::max(tile_cols, 1))))),
      at_least_1(int64_t(ceil_div(uint64_t(std::max(p.m, 1)), uint64_t(std::max(tile_rows, 1))))),
      1};
  return g;
}

// T is 8 or 16 (the compiled widths) and a block of T x block_rows threads fits.
inline std::optional<std::string> thread_tile_check(const Params& p, const DeviceLimits& lim,
                                                    int block_rows) {
  if (p.tile != 8 && p.tile != 16)
    return "tile " + std::to_string(p.tile) + ": this kernel is compiled for T = 8 or 16";
  if (p.tile * block_rows > lim.max_threads_per_block)
    return "a block of " + std::to_string(p.tile) + " x " + std::to_string(block_rows) +
           " threads exceeds this device's limit";
  return std::nullopt;
}

// m, n, the tile (8 to follow, 16 timed) and the radius.
inline std::vector<ParamDecl> thread_tile_params(const char* tile_hint, int m, int n) {
  return {side("m", "m (image rows)", "rows of in and out", m),
          side("n", "n (image columns)", "columns of in and out", n),
          tile("tile T", tile_hint, 8, 8, 16).timed_at(16),
          {"radius", "radius R", "mask radius, 1 to 3: a (2R + 1) x (2R + 1) mask", 1, kMaxRadius,
           2, radius_out_of_range}};
}

// Calls f(Body<T, R>{}) for the compiled tile and radius.
template <template <int, int> class Body, class F>
bool visit_thread_tile(const Params& p, F&& f) {
  bool ok = false;
  visit_value<8, 16>(p.tile, [&]<int T>() {
    ok = visit_value<1, 2, 3>(p.radius, [&]<int R>() { f(Body<T, R>{}); });
  });
  return ok;
}

// The 4 x 4 register tile: T x T threads, each 4 x 4 outputs, a 4T x 4T tile
// of out; the input tile (4T + 2R) x (4T + 8), its rows starting 4 columns
// left of the output tile so that every float4 in it is 16-byte aligned.
inline constexpr int kQuadOutputs = 4;  // outputs per thread: 4 across (a float4), 4 down
inline constexpr int kQuadHalo = 4;     // halo columns each side: R <= 3, a whole float4
inline int quad_side_rows(const Params& p) {
  return kQuadOutputs * p.tile + 2 * p.radius;
}
inline int quad_side_cols(const Params& p) {
  return kQuadOutputs * p.tile + 2 * kQuadHalo;
}

// Where a register-tile lesson keeps the mask, and how many output tiles a
// block walks down (1; or `steps`, through two shared stages of the input tile).
enum class MaskIn { Shared, Constant };
ArrayTable quad_arrays(const Params& p, MaskIn mask, int steps);
LaunchGeometry quad_geometry(const Params& p, MaskIn mask, int steps);
// Every input tile cell stored once per output tile (0 outside the image) and
// loaded from the image when inside it; every thread reads the 4 + 2R used
// columns of its 4 + 2R window rows once (at R = 3 three whole float4s), and
// the weights: a shared mask once
// into registers (first copied in by each block), a constant one per output row.
ExpectedCounts quad_counts(const Params& p, MaskIn mask, int steps);
// Global loads per output pixel: the input tiles' (and a shared mask's copies).
double quad_loads(const Params& p, MaskIn mask, int steps, std::string* formula);

struct QuadTileText {
  const char* title;
  const char* summary;
  std::vector<BarrierInfo> barriers;
};
// A 4 x 4 register-tile lesson: T x T threads (8 to follow, 16 timed).
template <MaskIn M, int Steps>
LessonSpec quad_tile_lesson(QuadTileText t) {
  return {
      .title = t.title,
      .summary = t.summary,
      .params = thread_tile_params(Steps > 1 ? "threads a side: blocks of T x T, each walking 4 "
                                               "tiles of 4T x 4T down the image"
                                             : "threads a side: blocks of T x T, a 4T x 4T tile "
                                               "of out",
                                   36, 20),
      .barriers = std::move(t.barriers),
      .arrays = [](const Params& p) { return quad_arrays(p, M, Steps); },
      .geometry = [](const Params& p) { return quad_geometry(p, M, Steps); },
      .check = [](const LessonInfo&, const Params& p,
                  const DeviceLimits& lim) { return thread_tile_check(p, lim, p.tile); },
      .shared_advice = smaller_tile,
      .counts = [](const Params& p) { return quad_counts(p, M, Steps); },
      .reference = reference,
      .sum_length = sum_length,
      .loads_per_output = [](const Params& p,
                             std::string* formula) { return quad_loads(p, M, Steps, formula); },
      .metric = PerfMetric::Bytes,
      .flops = flops,
      // Tiles of two warps, two across; down, two (three for a walking
      // block: its third tile overwrites the stage its first one used). The
      // padded run: partial tiles, n not a multiple of 4 (one float at a time).
      .tests = {.larger = Params{.m = Steps > 1 ? 96 : 64, .n = 64, .tile = 8, .radius = 2},
                .padded = Params{.m = 37, .n = 38, .tile = 8, .radius = 3}},
  };
}

}  // namespace ts::lessons::conv2d_kit
