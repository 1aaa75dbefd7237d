// What the scan lessons share: each block computes the prefix sums of its own
// segment of `in` into the same places of `out` (a second pass adds each
// segment's total to the segments after it: not shown). Three classic ways:
//   SingleBuffer  Hillis-Steele in one shared array: racy by design;
//   DoubleBuffer  Hillis-Steele reading one buffer and writing the other;
//   Blelloch      work-efficient: an up-sweep and a down-sweep over a tree,
//                 two elements per thread, exclusive, padded against bank conflicts.
// Everything but the kernel is here: arrays, geometry, checks, the closed-form
// counts, the reference, and most of a descriptor (scan_kit::lesson).
#pragma once

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/cuda_compat.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::scan_kit {

using namespace ts::lesson_kit;

enum class Algorithm : uint8_t { SingleBuffer, DoubleBuffer, Blelloch };

// Blelloch's padding: one spare word after every 32 (kLogBanks = log2 of the
// 32 banks), so that index i lives at i + (i >> 5). Device code: the kernel uses it.
inline constexpr int kLogBanks = 5;
TS_HD int padded(int index) {
  return index + (index >> kLogBanks);
}

// Elements one block scans (Blelloch: two per thread), and the number of blocks.
inline int64_t per_block(const Params& p, Algorithm a) {
  return int64_t(std::max(p.block, 1)) * (a == Algorithm::Blelloch ? 2 : 1);
}
inline int64_t block_count(const Params& p, Algorithm a) {
  return int64_t(ceil_div(uint64_t(std::max(p.length, 1)), uint64_t(per_block(p, a))));
}

// Floats of shared memory per block: B; 2 x B (ping, pong); 2B plus the padding.
inline int shared_floats(const Params& p, Algorithm a) {
  const int b = std::max(p.block, 1);
  switch (a) {
    case Algorithm::SingleBuffer:
      return b;
    case Algorithm::DoubleBuffer:
      return 2 * b;
    case Algorithm::Blelloch:
      return padded(2 * b - 1) + 1;
  }
  return b;
}

// in (slot 1, input stream 4), out (slot 2, one prefix sum per element), the
// block's shared array (slot 3; the double buffer as two rows, ping and pong).
inline ArrayTable arrays(const Params& p, Algorithm a) {
  const int rows = a == Algorithm::DoubleBuffer ? 2 : 1;
  return {global_input("in", 1, p.length, 4), global_output("out", 1, p.length),
          shared_array("temp", rows, shared_floats(p, a) / rows)};
}

inline LaunchGeometry geometry(const Params& p, Algorithm a) {
  LaunchGeometry g;
  g.block = {at_least_1(p.block), 1, 1};
  g.grid = {at_least_1(block_count(p, a)), 1, 1};
  g.dynamic_shared_bytes = uint32_t(4 * shared_floats(p, a));
  return g;
}

inline int log2_floor(int x) {
  int b = 0;
  while ((2 << b) <= x)
    ++b;
  return b;
}
inline bool power_of_two(int x) {
  return x > 0 && (x & (x - 1)) == 0;
}

// Hillis-Steele takes any block (the distance doubles until it passes the
// block); Blelloch's tree halves 2B elements level by level: a power of two.
inline std::optional<std::string> check(const Params& p, const DeviceLimits& lim, Algorithm a) {
  if (auto e = check_length(p.length)) return e;
  if (a == Algorithm::Blelloch && !power_of_two(p.block))
    return "block " + std::to_string(p.block) +
           ": the tree halves the block's 2 x block elements level by level, so block must be a "
           "power of two (1, 2, 4, .. 1024)";
  return check_block_size(p.block, lim);
}

// Hillis-Steele's steps d = 1, 2, 4, .. < B: S of them, and the sum of the
// d (2^S - 1): a step keeps B - d threads adding.
struct Steps {
  uint64_t count = 0, distance_sum = 0;
};
inline Steps hillis_steele_steps(int block) {
  Steps s;
  for (uint64_t d = 1; d < uint64_t(block); d *= 2)
    ++s.count, s.distance_sum += d;
  return s;
}

// Counts of a traced run with every barrier kept. Per block of B threads:
//   SingleBuffer  store temp[tid], barrier 1; per step, the B - d adding
//                 threads load temp[tid - d] and temp[tid], store temp[tid];
//                 all B meet barrier 2.
//   DoubleBuffer  the same, but the d threads that do not add copy their cell
//                 to the other buffer (1 load, 1 store).
//   Blelloch      n = 2B elements, log2 n levels each way: store 2 cells,
//                 barrier 1; up-sweep n - 1 adds (2 loads, 1 store), barrier
//                 2 per level; thread 0 clears the last cell; down-sweep n - 1
//                 swap-and-adds (3 loads, 2 stores), barrier 3 per level.
// Every element of `in` is loaded once; every element of out stored once,
// from one shared load.
inline ExpectedCounts counts(const Params& p, Algorithm a) {
  const uint64_t B = uint64_t(p.block), G = uint64_t(block_count(p, a)), L = uint64_t(p.length);
  ExpectedCounts c;
  c.global_loads = L;
  c.global_stores = L;
  uint64_t sl = 0, ss = 0, arrive = 0;
  if (a == Algorithm::Blelloch) {
    const uint64_t n = 2 * B, levels = uint64_t(log2_floor(int(n)));
    sl = 2 * (n - 1) + 3 * (n - 1);
    ss = n + (n - 1) + 1 + 2 * (n - 1);
    arrive = B * (1 + 2 * levels);
  } else {
    const Steps s = hillis_steele_steps(p.block);
    const uint64_t adders = s.count * B - s.distance_sum;  // thread-steps that add
    sl = 2 * adders, ss = B + adders, arrive = B * (1 + s.count);
    if (a == Algorithm::DoubleBuffer) sl += s.distance_sum, ss += s.distance_sum;
  }
  c.shared_loads = G * sl + L;
  c.shared_stores = G * ss;
  c.barrier_arrivals = G * arrive;
  return c;
}

// out[i]: the sum of block g's elements up to i (inclusive), or before i
// (exclusive, Blelloch), in double, rounded once per output.
inline std::vector<float> reference(const Params& p, const LessonInputs& in, Algorithm a) {
  const std::vector<float>& x = in[1];
  const int64_t E = per_block(p, a), L = p.length;
  std::vector<float> out(size_t(L), 0.0f);
  for (int64_t start = 0; start < L; start += E) {
    double sum = 0;
    for (int64_t i = start; i < std::min(start + E, L); ++i) {
      if (a != Algorithm::Blelloch) sum += x[size_t(i)];
      out[size_t(i)] = float(sum);
      if (a == Algorithm::Blelloch) sum += x[size_t(i)];
    }
  }
  return out;
}

// One load of `in` per output: "L/L = 100/100 = 1" (the panel reads the last number).
inline double loads_per_output(const Params& p, std::string* formula) {
  if (formula) {
    const std::string l = std::to_string(std::max(p.length, 1));
    *formula = "L/L = " + l + "/" + l + " = 1";
  }
  return 1.0;
}

// Adds: Hillis-Steele's (S B - (2^S - 1) per block, O(n log n)) against
// Blelloch's 2 (n - 1) per block of n (O(n)).
inline double flops(const Params& p, Algorithm a) {
  const double G = double(block_count(p, a));
  if (a == Algorithm::Blelloch) return G * 2.0 * double(2 * int64_t(p.block) - 1);
  const Steps s = hillis_steele_steps(p.block);
  return G * (double(s.count) * p.block - double(s.distance_sum));
}

// 1 or 2 warps per block: a block of 32 or 64 threads, with enough elements
// for two blocks, so that the segments' edges show.
inline std::optional<Params> with_warps(const Params& p, int warps, Algorithm a) {
  Params q = p;
  q.block = 32 * warps;
  q.length = std::max<int64_t>(q.length, 2 * per_block(q, a));
  return q;
}

inline SharedAdvice shared_advice(const Params&, const DeviceLimits&, Algorithm a) {
  switch (a) {
    case Algorithm::SingleBuffer:
      return {" (one float per thread)", "use a smaller block"};
    case Algorithm::DoubleBuffer:
      return {" (two floats per thread: ping and pong)", "use a smaller block"};
    case Algorithm::Blelloch:
      return {" (two floats per thread and a spare word per 32)", "use a smaller block"};
  }
  return {"", "use a smaller block"};
}

// What a scan lesson states itself: its text, its barriers (purpose and what
// each keeps out) and the facts its tests check; scan_kit::lesson<A>() adds
// the rest.
struct LessonText {
  const char* title;
  const char* summary;
  std::vector<BarrierInfo> barriers;
  TestFacts tests = {};
};

template <Algorithm A>
LessonSpec lesson(LessonText t) {
  constexpr bool tree = A == Algorithm::Blelloch;
  return {
      .title = t.title,
      .summary = t.summary,
      .params = {length("elements of in; out gets each block's prefix sums", tree ? 256 : 128),
                 block("block size",
                       tree ? "threads per block, two elements each: a power of two, 1 to 1024"
                            : "threads per block, one element each: 1 to 1024",
                       64)
                     .timed_at(256)},
      .barriers = std::move(t.barriers),
      .arrays = [](const Params& p) { return arrays(p, A); },
      .geometry = [](const Params& p) { return geometry(p, A); },
      .check = [](const LessonInfo&, const Params& p,
                  const DeviceLimits& lim) { return check(p, lim, A); },
      .shared_advice = [](const Params& p,
                          const DeviceLimits& lim) { return shared_advice(p, lim, A); },
      .counts = [](const Params& p) { return counts(p, A); },
      .reference = [](const Params& p, const LessonInputs& in) { return reference(p, in, A); },
      .sum_length = [](const Params& p) { return int(per_block(p, A)); },
      .with_warps = [](const Params& p, const Params&,
                       int warps) { return with_warps(p, warps, A); },
      .loads_per_output = loads_per_output,
      .metric = PerfMetric::Bytes,
      .flops = [](const Params& p) { return flops(p, A); },
      .tests = std::move(t.tests),
  };
}

}  // namespace ts::lessons::scan_kit
