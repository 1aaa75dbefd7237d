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
// bin 63. The same float operations on the GPU and the CPU, so the same bin.
TS_HD int bin_of(float x) {
  const float t = (x - kLow) * (float(kBinCount) / (kHigh - kLow));
  if (!(t >= 1.0f)) return 0;
  if (t >= float(kBinCount - 1)) return kBinCount - 1;
  return int(t);
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

// One thread per element, blocks of `block` threads.
inline LaunchGeometry geometry(const Params& p) {
  return one_thread_per_element(p);
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

// A whole histogram lesson: atomics on the global bins, or on private
// shared bins per block (zeroed, counted into, added to the global bins).
template <bool SharedBins>
LessonSpec lesson(const char* title, const char* summary) {
  std::vector<BarrierInfo> barriers;
  if (SharedBins)  // the races are a plain access against an atomic: no analysis sees them
    barriers = {{"the counters are zeroed by a few threads: all zero before any thread counts "
                 "into them",
                 kGuardsNothing},
                {"the totals are read by other threads: every count in before they are read and "
                 "added to the global bins",
                 kGuardsNothing}};
  return {
      .title = title,
      .summary = summary,
      .params = {length("elements of in, counted into 64 bins over [-4, 4]", 200),
                 block("block size", "threads per block", 64).timed_at(256)},
      .barriers = std::move(barriers),
      .arrays =
          [](const Params& p) {
            return SharedBins ? arrays(p.length, {local_bins_array()}) : arrays(p.length);
          },
      .geometry =
          [](const Params& p) {
            LaunchGeometry g = geometry(p);
            if (SharedBins) g.static_shared_bytes = uint32_t(4 * kBinCount);
            return g;
          },
      .check = check_params<check>,
      .shared_advice = no_fix,
      // One load per element and one atomic on its bin; with shared bins, per
      // block 64 zero stores, 64 total reads, 64 global atomics, and every
      // thread at both barriers.
      .counts =
          [](const Params& p) {
            ExpectedCounts c;
            c.global_loads = uint64_t(std::max(p.length, 0));
            if (!SharedBins) {
              c.global_atomics = c.global_loads;
              return c;
            }
            const LaunchGeometry g = geometry(p);
            c.shared_atomics = c.global_loads;
            c.shared_stores = c.shared_loads = c.global_atomics = g.grid.x * uint64_t(kBinCount);
            c.barrier_arrivals = 2 * g.grid.x * g.block.x;
            return c;
          },
      .reference = reference,
      .sum_length = sum_length,
      .loads_per_output = loads,
      .metric = PerfMetric::Bytes,
      .tests = {.larger = Params{.length = 256, .block = 64},
                .padded = Params{.length = 100, .block = 64}},
  };
}

}  // namespace ts::lessons::histogram_kit
