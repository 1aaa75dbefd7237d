// What the transpose lessons share: out (cols x rows) is in (rows x cols)
// transposed, a 32 x 32 tile per block: one thread per element in 32 x 32
// blocks, or fewer threads that move several elements each.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"

namespace ts::lessons::transpose_kit {

using namespace ts::lesson_kit;

// The block side and the shared tile's: 32 x 32 threads, one warp per row.
inline constexpr int kTile = 32;

// in (slot 1, input stream 5: rows x cols), out (slot 2: cols x rows), then the shared ones.
inline ArrayTable arrays(const Params& p, std::vector<ArrayInfo> shared = {}) {
  ArrayTable t = {global_input("in", p.m, p.n, 5), global_output("out", p.n, p.m)};
  for (ArrayInfo& s : shared)
    t.push_back(std::move(s));
  return t;
}

// A grid of 32 x 32 blocks over `in`: block (x, y) reads rows y*32.. and columns x*32..
inline LaunchGeometry geometry(const Params& p) {
  LaunchGeometry g;
  g.block = {kTile, kTile, 1};
  g.grid = {at_least_1(int64_t(ceil_div(uint64_t(p.n < 1 ? 1 : p.n), kTile))),
            at_least_1(int64_t(ceil_div(uint64_t(p.m < 1 ? 1 : p.m), kTile))), 1};
  return g;
}

// The tiled transposes: the same launch with a 32 x `cols` float tile as
// static shared memory (cols 32, or 33 padded).
inline LaunchGeometry tile_geometry(const Params& p, int cols) {
  LaunchGeometry g = geometry(p);
  g.static_shared_bytes = uint32_t(4 * kTile * cols);
  return g;
}

// The tiled transposes' counts: each element read once into the tile, read
// once out of it, written once; every thread of every block at the barrier.
inline ExpectedCounts tile_counts(const Params& p) {
  const LaunchGeometry g = geometry(p);
  const uint64_t elements = uint64_t(p.m) * uint64_t(p.n);
  ExpectedCounts c;
  c.global_loads = c.global_stores = elements;
  c.shared_stores = c.shared_loads = elements;
  c.barrier_arrivals = g.grid.count() * g.block.count();
  return c;
}

// m and n are declared sides (ranges checked by the registry).
inline std::optional<std::string> check(const Params&, const DeviceLimits& lim) {
  if (kTile * kTile > lim.max_threads_per_block)
    return "a block of 32 x 32 = 1024 threads exceeds the " +
           std::to_string(lim.max_threads_per_block) + " threads per block this device allows";
  return std::nullopt;
}

inline std::vector<float> reference(const Params& p, const LessonInputs& in) {
  const std::vector<float>& x = in[1];
  const size_t rows = size_t(p.m), cols = size_t(p.n);
  if (x.size() != rows * cols) return {};
  std::vector<float> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      out[c * rows + r] = x[r * cols + c];
  return out;
}

// Each element of `in` is read once: one global load per output element.
inline double loads(const Params&, std::string* formula) {
  if (formula) *formula = "1 (every element of in read once)";
  return 1.0;
}

inline SharedAdvice no_fix(const Params&, const DeviceLimits&) {
  return {"", "the 32 x 32 tile needs 4096 bytes; this device has less"};
}

// A whole transpose lesson: through a 32 x TileCols shared tile (TileCols 0:
// none, global memory only), a layout of the "transpose.tile" group.
template <int TileCols>
LessonSpec lesson(const char* title, const char* summary, const char* layout_label = nullptr) {
  constexpr bool tiled = TileCols > 0;
  std::vector<BarrierInfo> barriers;
  if (tiled)
    barriers.push_back(
        {"the tile is stored by rows and read by columns: what a thread reads was "
         "stored by another warp",
         kGuardsRaw});
  return {
      .title = title,
      .summary = summary,
      .params = {side("m", "m (rows of in)", "rows of in, columns of out", 40),
                 side("n", "n (columns of in)", "columns of in, rows of out", 48)},
      .barriers = std::move(barriers),
      // The table has the tile's shape (33 columns padded), as the kernel indexes it.
      .arrays =
          [](const Params& p) {
            return tiled ? arrays(p, {shared_array("tile", kTile, TileCols)}) : arrays(p);
          },
      .geometry = [](const Params& p) { return tiled ? tile_geometry(p, TileCols) : geometry(p); },
      .check = check_params<check>,
      .shared_advice = no_fix,
      .counts =
          [](const Params& p) {
            if (tiled) return tile_counts(p);
            ExpectedCounts c;
            c.global_loads = c.global_stores = uint64_t(p.m) * uint64_t(p.n);
            return c;
          },
      .reference = reference,
      .sum_length = one_term,
      .loads_per_output = loads,
      .metric = PerfMetric::Bytes,
      .layout_group = tiled ? "transpose.tile" : nullptr,
      .layout_label = layout_label,
      .tests = {.larger = Params{.m = 64, .n = 64}, .padded = Params{.m = 40, .n = 48}},
  };
}

// The lessons that move several elements per thread: a block of BX x BY
// threads (fewer than Tile x Tile) walks the block's Tile x Tile tile of in
// (32 x 32, or 64 x 64) through a padded [Tile][Tile + 1] shared tile; each
// element is read, stored, read from the tile and written once, and every
// thread meets the barrier once. `defaults`: the sides the lesson opens with.
template <int BX, int BY, int Tile = kTile>
LessonSpec walking_lesson(const char* title, const char* summary, uint8_t guards,
                          Params defaults = Params{.m = 40, .n = 48}) {
  // A grid of Tile x Tile tiles over `in`: block (x, y) reads rows y*Tile.. and columns x*Tile..
  static constexpr auto grid_of = [](const Params& p) {
    LaunchGeometry g;
    g.block = {BX, BY, 1};
    g.grid = {at_least_1(int64_t(ceil_div(uint64_t(p.n < 1 ? 1 : p.n), Tile))),
              at_least_1(int64_t(ceil_div(uint64_t(p.m < 1 ? 1 : p.m), Tile))), 1};
    g.static_shared_bytes = uint32_t(4 * Tile * (Tile + 1));
    return g;
  };
  return {
      .title = title,
      .summary = summary,
      .params = {side("m", "m (rows of in)", "rows of in, columns of out", defaults.m),
                 side("n", "n (columns of in)", "columns of in, rows of out", defaults.n)},
      .barriers = {{"the tile is stored by rows and read by columns: what a thread reads was "
                    "stored by other threads, most of them in other warps",
                    guards}},
      .arrays = [](const Params& p) { return arrays(p, {shared_array("tile", Tile, Tile + 1)}); },
      .geometry = [](const Params& p) { return grid_of(p); },
      .check = no_check,
      .shared_advice = no_fix,
      .counts =
          [](const Params& p) {
            ExpectedCounts c = tile_counts(p);
            c.barrier_arrivals = grid_of(p).grid.count() * uint64_t(BX * BY);
            return c;
          },
      .reference = reference,
      .sum_length = one_term,
      .loads_per_output = loads,
      .metric = PerfMetric::Bytes,
      // 40 x 48: edge tiles, every row still a multiple of 4 floats long; the
      // larger size has two tiles down and one across at either tile side.
      .tests = {.larger = Tile == kTile ? Params{.m = 64, .n = 64} : Params{.m = 128, .n = 64},
                .padded = Params{.m = 40, .n = 48}},
  };
}

}  // namespace ts::lessons::transpose_kit
