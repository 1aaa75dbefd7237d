// What the transpose lessons share: out (cols x rows) is in (rows x cols)
// transposed, one thread per element, in 32 x 32 blocks.
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

inline std::optional<std::string> check(const Params& p, const DeviceLimits& lim) {
  if (auto e = check_side("m", p.m)) return e;
  if (auto e = check_side("n", p.n)) return e;
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

}  // namespace ts::lessons::transpose_kit
