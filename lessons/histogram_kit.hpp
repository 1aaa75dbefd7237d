// What the histogram lessons share: bins[b] counts the elements of `in` whose
// value falls into bin b, 64 equal bins over [-4, 4]. Their binning, arrays,
// reference, counts and checks.
//
// The input: the catalogue's small integers (-4 .. 4, nine values) land in
// only 9 of the 64 bins (0, 8, 16, .., 56 and 63), so the 32 lanes of a warp
// update about 9 addresses, about 4 lanes on each: atomics on one address
// are done one after another, and that queueing (contention) is what the
// lessons show. Uniform inputs in [-1, 1) spread over the 16 middle bins.
// The skew comes from the data, as in real histograms (a dark image fills a
// few bins), not from the kernel.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/cuda_compat.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::histogram_kit {

using namespace ts::lesson_kit;

inline constexpr int kBinCount = 64;
inline constexpr float kLow = -4.0f, kHigh = 4.0f;  // the range the bins cover

// The bin of a value: 64 equal bins over [-4, 4], (x + 4) * 8 rounded down;
// values below the range (and NaN) count in bin 0, values at or above 4 in
// bin 63. Clamped without a branch (fmaxf(NaN, 0) is 0): the same bin as
// `t < 1 ? 0 : t >= 63 ? 63 : int(t)` for every one of the 2^32 floats, but
// two instructions where the branches cost the grid-stride kernel 2 to 3 %
// on an H200. The same float operations on the GPU and the CPU, so the same bin.
TS_HD int bin_of(float x) {
  const float t = (x - kLow) * (float(kBinCount) / (kHigh - kLow));
  return int(fminf(fmaxf(t, 0.0f), float(kBinCount - 1)));
}

// in (slot 1, input stream 6: length), bins (slot 2, unsigned: 64), then the shared ones.
inline ArrayTable arrays(int length, std::vector<ArrayInfo> shared = {}) {
  ArrayInfo bins = global_output("bins", 1, kBinCount);
  bins.type = ElemType::U32;
  ArrayTable t = {global_input("in", 1, length, 6), bins};
  for (ArrayInfo& s : shared)
    t.push_back(std::move(s));
  return t;
}

// A block's private shared histogram: 64 unsigned counters.
inline ArrayInfo local_bins_array() {
  ArrayInfo a = shared_array("local_bins", 1, kBinCount);
  a.type = ElemType::U32;
  return a;
}

inline std::optional<std::string> check(const Params& p, const DeviceLimits& lim) {
  return check_block_size(p.block, lim);
}

// The count of every bin, in double (exact), rounded to float.
inline std::vector<float> reference(const Params& p, const LessonInputs& in) {
  const std::vector<float>& x = in[1];
  if (x.size() != size_t(std::max(p.length, 0))) return {};
  std::vector<double> count(kBinCount, 0.0);
  for (float v : x)
    count[size_t(bin_of(v))] += 1.0;
  return std::vector<float>(count.begin(), count.end());
}

// Counts are exact: a bin off by one is wrong.
inline int sum_length(const Params&) {
  return 1;
}

// Each element of in is read once: L / 64 global loads per bin.
inline double loads(const Params& p, std::string* formula) {
  const double r = double(std::max(p.length, 0)) / kBinCount;
  if (formula) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", r);
    *formula = "L/64 = " + std::to_string(p.length) + "/64 = " + buf;
  }
  return r;
}

inline SharedAdvice no_fix(const Params&, const DeviceLimits&) {
  return {" (64 unsigned counters)", "the device has too little shared memory for this lesson"};
}

// How a histogram lesson counts: the ladder's steps differ in these.
enum class Copies : uint8_t {
  None,   // every element's atomic goes to the global bins
  Block,  // a private histogram per block in shared memory (local_bins, static)
  Warp,   // a private histogram per warp in shared memory (warp_bins, warps x 64, at launch)
};
struct Shape {
  Copies copies = Copies::None;
  // The lanes of a warp on one bin add once: __match_any_sync finds them,
  // the lowest adds __popc of them. Every lane of a warp votes.
  bool aggregated = false;
  // Each thread counts float4s a grid apart (lane l of a warp: float4 base + l,
  // the warp's lanes loop together); the length % 4 last elements one each.
  bool grid_stride = false;
};

// The grid-stride steps' grid: about kQuadsPerThread float4s per thread, at
// most kMaxBlocks blocks. Each block adds its 64 totals to the global bins:
// fewer blocks, fewer global atomics on the same 64 addresses. On an H200
// (132 SMs, 8 blocks of 256 each) at 2^26 elements, uniform bins, the plain
// kernel of histogram.grid_stride ran at 3,599 GB/s with 1024 blocks, 3,585
// with 1056, 3,241 with 2048; with the copies per warp of an earlier version,
// 2,781 with 8192 and 2,849 with 528 (too few loads in flight). A launch
// cannot ask the device here, so the number is fixed: about one wave there.
inline constexpr int kQuadsPerThread = 2;
inline constexpr int kMaxBlocks = 1024;

inline int warps_per_block(const Params& p) {
  return (std::max(p.block, 1) + 31) / 32;
}
// Private copies per block: none, one, or one per warp.
inline int copies(const Params& p, Shape s) {
  return s.copies == Copies::None ? 0 : s.copies == Copies::Block ? 1 : warps_per_block(p);
}

inline LaunchGeometry geometry(const Params& p, Shape s) {
  LaunchGeometry g = one_thread_per_element(p);
  if (s.grid_stride) {
    const uint64_t quads = uint64_t(std::max(p.length, 0)) / 4;
    const uint64_t per_block = uint64_t(std::max(p.block, 1)) * kQuadsPerThread;
    g.grid.x = at_least_1(int64_t(std::min<uint64_t>(ceil_div(quads, per_block), kMaxBlocks)));
  }
  if (s.copies == Copies::Block) g.static_shared_bytes = uint32_t(4 * kBinCount);
  if (s.copies == Copies::Warp) g.dynamic_shared_bytes = uint32_t(4 * kBinCount * copies(p, s));
  return g;
}

inline ArrayInfo warp_bins_array(const Params& p) {
  ArrayInfo a = shared_array("warp_bins", warps_per_block(p), kBinCount);
  a.type = ElemType::U32;
  return a;
}

// Votes (warp instructions of the aggregated atomics) that have a lane with an
// element: each adds at least once, the fewest shared atomics there can be.
inline uint64_t votes_with_an_element(const Params& p, Shape s) {
  const LaunchGeometry g = geometry(p, s);
  const int64_t L = std::max(p.length, 0), B = std::max(p.block, 1);
  if (!s.grid_stride)  // one element per thread: every warp with a thread below L
    return uint64_t(L / B * ((B + 31) / 32) + ((L % B) + 31) / 32);
  const int64_t quads = L / 4, stride = int64_t(g.grid.x) * B;
  uint64_t votes = 0;
  for (int64_t b = 0; b < int64_t(g.grid.x); ++b)
    for (int64_t w = 0; w * 32 < B; ++w) {
      const int64_t first = b * B + w * 32;  // the warp's first float4
      if (first < quads) votes += 4 * uint64_t((quads - first + stride - 1) / stride);
    }
  return votes + uint64_t(L - 4 * quads);  // the tail's elements: one plain atomic each
}

// One load per element and one atomic on its bin (at most one with
// aggregation); with private copies, per block a zero store and a read of
// every copy's 64 counters, 64 global atomics, and every thread at both barriers.
inline ExpectedCounts counts(const Params& p, Shape s) {
  ExpectedCounts c;
  c.global_loads = uint64_t(std::max(p.length, 0));
  if (s.copies == Copies::None) {
    c.global_atomics = c.global_loads;
    return c;
  }
  const LaunchGeometry g = geometry(p, s);
  c.shared_atomics = c.global_loads;
  if (s.aggregated) c.fewest_shared_atomics = votes_with_an_element(p, s);
  c.shared_stores = c.shared_loads = g.grid.x * uint64_t(kBinCount) * uint64_t(copies(p, s));
  c.global_atomics = g.grid.x * uint64_t(kBinCount);
  c.barrier_arrivals = 2 * g.grid.x * g.block.x;
  return c;
}

// The text of one step.
struct Step {
  const char* title;
  const char* summary;
  Params defaults = {.length = 200, .block = 64};
  TestFacts tests = {.larger = Params{.length = 256, .block = 64},
                     .padded = Params{.length = 100, .block = 64}};
};

// A whole histogram lesson: atomics on the global bins, or on private copies
// in shared memory (zeroed, counted into, added to the global bins).
template <Shape S>
LessonSpec lesson(Step step) {
  std::vector<BarrierInfo> barriers;
  if (S.copies !=
      Copies::None)  // the races are a plain access against an atomic: no analysis sees them
    barriers = {{"the counters are zeroed by a few threads: all zero before any thread counts "
                 "into them",
                 kGuardsNothing},
                {"the totals are read by other threads: every count in before they are read and "
                 "added to the global bins",
                 kGuardsNothing}};
  return {
      .title = step.title,
      .summary = step.summary,
      .params = {length("elements of in, counted into 64 bins over [-4, 4]", step.defaults.length),
                 block("block size", "threads per block", step.defaults.block).timed_at(256)},
      .barriers = std::move(barriers),
      .arrays =
          [](const Params& p) {
            if (S.copies == Copies::Block) return arrays(p.length, {local_bins_array()});
            if (S.copies == Copies::Warp) return arrays(p.length, {warp_bins_array(p)});
            return arrays(p.length);
          },
      .geometry = [](const Params& p) { return geometry(p, S); },
      .check = check_params<check>,
      .shared_advice =
          [](const Params& p, const DeviceLimits& lim) {
            if (S.copies != Copies::Warp) return no_fix(p, lim);
            return SharedAdvice{" (64 unsigned counters per warp)", "use a smaller block"};
          },
      .counts = [](const Params& p) { return counts(p, S); },
      .reference = reference,
      .sum_length = sum_length,
      .loads_per_output = loads,
      .metric = PerfMetric::Bytes,
      .tests = std::move(step.tests),
  };
}

}  // namespace ts::lessons::histogram_kit
