// What a single-pass scan needs beyond its kernel: the whole array's
// INCLUSIVE scan (out[i] = in[0] + .. + in[i]) in one launch, each block a
// tile of kItems elements per thread that learns the sum of every tile
// before it from a look-back over the tiles' published sums (see
// lessons/scan_decoupled_lookback.hpp). Arrays, geometry, checks, the
// closed-form counts, the reference and a whole descriptor.
#pragma once

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/cuda_compat.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::scan_single_pass_kit {

using namespace ts::lesson_kit;

// Elements per thread: four float4s, so that a warp's 32 lanes cover 512
// consecutive elements, 128 (one coalesced 512-byte load) at a time.
inline constexpr int kItems = 16;
inline constexpr int kGroups = kItems / 4;
// How far back a tile looks: kReach blocks' worth of tiles (4 x blockDim),
// each thread kReach of them. The farthest gives its inclusive prefix, the
// others their totals. Measured on an H200 (2^26 floats, blocks of 512):
// reach 1 block 45 % of copy, 2 blocks 51 %, 4 blocks 58 %, 8 blocks 50 %.
// The lesson itself: 59.6 % of copy at 2^26, CUB's InclusiveSum 72.6 % in the
// same run (docs/measurements.md, 2026-11-29).
inline constexpr int kReach = 4;

// Shuffles per thread: per group of four a 5-step warp scan, the shift to
// an exclusive one and the group's total from lane 31; then the 5-step
// reduction of the look-back's sums.
inline constexpr int kShufflesPerThread = kGroups * (5 + 1 + 1) + 5;

inline int64_t tile_size(const Params& p) {
  return int64_t(std::max(p.block, 1)) * kItems;
}
inline int64_t tile_count(const Params& p) {
  return int64_t(ceil_div(uint64_t(std::max(p.length, 1)), uint64_t(tile_size(p))));
}

// The arrays' slots, in the order of arrays(): the lesson's enum names them.
// sums and ready are the look-back's status: row 0 a tile's own total, row 1
// its inclusive prefix, each announced by its flag in ready (the launch's
// number + 1). epoch counts the launches, so that a flag left by the last
// launch never passes for this one's.
inline ArrayInfo global_scratch(const char* name, int rows, int cols, ElemType type) {
  ArrayInfo a;
  a.name = name, a.space = Space::Global, a.role = ArrayRole::Scratch, a.type = type;
  a.rows = rows, a.cols = cols;
  return a;
}
inline ArrayTable arrays(const Params& p) {
  const int tiles = int(std::min<int64_t>(tile_count(p), INT32_MAX / 2));
  return {global_input("in", 1, p.length, 4),
          global_output("out", 1, p.length),
          global_scratch("sums", 2, tiles, ElemType::F32),
          global_scratch("ready", 2, tiles, ElemType::I32),
          global_scratch("epoch", 1, 1, ElemType::I32),
          shared_array("warp_sum", 2, 32)};
}

inline LaunchGeometry geometry(const Params& p) {
  LaunchGeometry g;
  g.block = {at_least_1(p.block), 1, 1};
  g.grid = {at_least_1(tile_count(p)), 1, 1};
  return g;  // warp_sum is a static __shared__ array
}

// Whole warps: every lane of a warp takes part in the shuffles.
inline std::optional<std::string> check(const Params& p, const DeviceLimits& lim) {
  if (auto e = check_length(p.length)) return e;
  if (p.block < 32 || p.block % 32 != 0)
    return "block " + std::to_string(p.block) +
           ": every lane of a warp takes part in the shuffles, so the block must be whole warps "
           "(32, 64, .. 1024)";
  return check_block_size(p.block, lim);
}

// Tiles a tile t reads in its look-back: those of t - kReach B .. t - 1 that exist.
inline uint64_t lookback_tiles(const Params& p) {
  const uint64_t T = uint64_t(tile_count(p)), reach = uint64_t(kReach) * uint64_t(p.block);
  // sum over t < T of min(t, reach)
  if (T <= reach) return T * (T - 1) / 2;
  return reach * (reach - 1) / 2 + reach + (T - reach - 1) * reach;
}

// Counts of a traced run with every barrier kept. Per tile of B threads in
// W = B / 32 warps: every thread loads epoch once; lane 0 of each warp stores
// the warp's total (row 0 of warp_sum) and its look-back sum (row 1), and
// after each of the two barriers every thread reads the W cells of the row.
// Thread 0 stores the tile's total and its prefix, each with its flag (4);
// the last tile's thread 0 stores epoch. Each tile read in a look-back is
// two loads: the wait on its flag and its sum. in is loaded once and out
// stored once per element (a float4 access is four events).
inline ExpectedCounts counts(const Params& p) {
  const uint64_t B = uint64_t(p.block), W = B / 32, T = uint64_t(tile_count(p));
  const uint64_t L = uint64_t(p.length);
  ExpectedCounts c;
  c.global_loads = L + T * B + 2 * lookback_tiles(p);
  c.global_stores = L + 4 * T + 1;
  c.shared_stores = T * 2 * W;
  c.shared_loads = T * 2 * B * W;
  c.barrier_arrivals = T * 2 * B;
  c.warp_shuffles = T * B * uint64_t(kShufflesPerThread);
  return c;
}

// out[i] = in[0] + .. + in[i], in double, rounded once per output.
inline std::vector<float> reference(const Params& p, const LessonInputs& in) {
  const std::vector<float>& x = in[1];
  std::vector<float> out(size_t(std::max(p.length, 0)), 0.0f);
  double sum = 0;
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = float(sum += x[i]);
  return out;
}

// Global loads per output, as the trace counts them: every element of in
// once, epoch once per thread, and two per tile read in a look-back (its
// flag, its sum): "(L + T*B + 2*W)/L with .. = 1.213" (the panel reads the
// last number).
inline double loads_per_output(const Params& p, std::string* formula) {
  const uint64_t L = uint64_t(std::max(p.length, 1)), B = uint64_t(std::max(p.block, 1));
  const uint64_t T = uint64_t(tile_count(p)), W = lookback_tiles(p);
  const double r = double(L + T * B + 2 * W) / double(L);
  if (formula) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", r);
    *formula = "(L + T*B + 2*W)/L with T = ceil(L/(16B)) tiles, W = tiles read in look-backs: (" +
               std::to_string(L) + " + " + std::to_string(T) + "*" + std::to_string(B) + " + 2*" +
               std::to_string(W) + ")/" + std::to_string(L) + " = " + buf;
  }
  return r;
}

// One add per element, plus the look-back's.
inline double flops(const Params& p) {
  return double(p.length) + double(lookback_tiles(p));
}

// 1 or 2 warps per block, with at least two tiles, so that the look-back shows.
inline std::optional<Params> with_warps(const Params& p, const Params&, int warps) {
  Params q = p;
  q.block = 32 * warps;
  q.length = int(std::max<int64_t>(q.length, 2 * tile_size(q)));
  return q;
}

// What the lesson states itself: its text, its barriers and its test sizes.
struct LessonText {
  const char* title;
  const char* summary;
  std::vector<BarrierInfo> barriers;
  TestFacts tests = {};
};

inline LessonSpec lesson(LessonText t) {
  return {
      .title = t.title,
      .summary = t.summary,
      .params = {length("elements of in; out gets the inclusive scan of all of them", 4500),
                 block("block size", "threads per block, 16 elements each: whole warps, 32 to 1024",
                       64)
                     .timed_at(512)},
      .barriers = std::move(t.barriers),
      .arrays = arrays,
      .geometry = geometry,
      .check = check_params<check>,
      .shared_advice =
          [](const Params&, const DeviceLimits&) {
            return SharedAdvice{"", "use a smaller block"};
          },
      .counts = counts,
      .reference = reference,
      .sum_length = [](const Params& p) { return std::max(p.length, 1); },
      .with_warps = with_warps,
      .loads_per_output = loads_per_output,
      .metric = PerfMetric::Bytes,
      .flops = flops,
      .tests = std::move(t.tests),
  };
}

}  // namespace ts::lessons::scan_single_pass_kit
