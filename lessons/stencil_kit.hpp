// What the 1D stencil lessons share: out[i] is the average of in[i - R] ..
// in[i + R], indices clamped at the ends. Their arrays, reference, counts and checks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lessons/cuda_compat.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::stencil_kit {

using namespace ts::lesson_kit;

inline constexpr int kMaxRadius = 1024;

// Edge clamping: indices before the start read the first element, indices
// past the end the last one.
TS_HD int clamp_index(int i, int length) {
  return i < 0 ? 0 : (i >= length ? length - 1 : i);
}

// in (slot 1, input stream 4) and out (slot 2), then the shared ones.
inline ArrayTable arrays(int length, std::vector<ArrayInfo> shared = {}) {
  ArrayTable t = {global_input("in", 1, length, 4), global_output("out", 1, length)};
  for (ArrayInfo& s : shared)
    t.push_back(std::move(s));
  return t;
}

std::vector<float> reference(const Params& p, const LessonInputs& in);

inline int sum_length(const Params& p) {
  return 2 * p.radius + 1;
}
// 2R adds and one multiply (by 1 / (2R + 1)) per output element.
inline double flops(const Params& p) {
  return double(p.length) * double(2 * p.radius + 1);
}

// One thread per element, blocks of `block` threads.
inline LaunchGeometry geometry(const Params& p) {
  return one_thread_per_element(p);
}
// `per_thread` outputs per thread: a block covers per_thread * block elements.
inline LaunchGeometry span_geometry(const Params& p, int per_thread) {
  LaunchGeometry g = one_thread_per_element(p);
  const uint64_t span = uint64_t(g.block.x) * uint64_t(per_thread);
  g.grid.x = at_least_1(int64_t(ceil_div(uint64_t(p.length < 1 ? 1 : p.length), span)));
  return g;
}

// The block fits the device; with a halo (shared lessons), the radius at most
// the block, since the first R threads load the halo cells. (Length and
// radius are declared ranges.)
std::optional<std::string> check(const Params& p, const DeviceLimits& lim, bool halo);
std::string radius_out_of_range(const char* name, int radius);

// The halo lessons' counts: every thread loads its cell (clamped past the
// end), the first R threads the 2R halo cells.
ExpectedCounts halo_counts(const Params& p);
// The same with `per_thread` cells per thread (a block a span of per_thread * block).
ExpectedCounts halo_counts(const Params& p, int per_thread);

// 1 or 2 warps per block: a block of 32 or 64 threads.
std::optional<Params> halo_with_warps(const Params& p, const Params& defaults, int warps);

// The textbook's global loads per output element.
double naive_loads(const Params& p, std::string* formula);  // 2R + 1
double halo_loads(const Params& p, std::string* formula);   // ceil(L/B)(B + 2R)/L
// ceil(L/S)(S + 2H)/L for spans S = per_thread * B and halos of H cells a side.
double span_loads(const Params& p, int per_thread, int halo, std::string* formula);

inline SharedAdvice smaller_block(const Params&, const DeviceLimits&) {
  return {"", "use a smaller block or radius"};
}

// Where a stencil keeps its neighbours: global memory only, a static shared
// array with a halo, or one sized at launch (extern __shared__).
enum class Cache : uint8_t { None, Static, Dynamic };

// A whole stencil lesson; a lesson with limits of its own replaces `check`.
template <Cache C>
LessonSpec lesson(const char* title, const char* summary) {
  constexpr bool halo = C != Cache::None;
  std::vector<BarrierInfo> barriers;
  if (halo)
    barriers.push_back(
        {"neighbours were loaded by other threads and warps: all in place before "
         "anyone reads",
         kGuardsRaw});
  LessonSpec s = {
      .title = title,
      .summary = summary,
      .params = {length("elements of in and out", 150),
                 {"radius", "radius R", "neighbours on each side: 2R + 1 inputs per output", 0,
                  kMaxRadius, 3, radius_out_of_range},
                 block("block size", "threads per block", 64).timed_at(256)},
      .barriers = std::move(barriers),
      .arrays =
          [](const Params& p) {
            return halo ? arrays(p.length, {shared_array("cache", 1, p.block + 2 * p.radius)})
                        : arrays(p.length);
          },
      .geometry = geometry,
      .check = [](const LessonInfo&, const Params& p,
                  const DeviceLimits& lim) { return check(p, lim, halo); },
      .shared_advice = smaller_block,
      .counts =
          [](const Params& p) {
            if (halo) return halo_counts(p);
            ExpectedCounts c;
            c.global_stores = uint64_t(p.length);
            c.global_loads = uint64_t(p.length) * (2 * uint64_t(p.radius) + 1);
            return c;
          },
      .reference = reference,
      .sum_length = sum_length,
      .with_warps = halo ? halo_with_warps : nullptr,
      .loads_per_output = halo ? halo_loads : naive_loads,
      .metric = PerfMetric::Bytes,
      .flops = flops,
      .tests = {.larger = Params{.length = 128, .radius = 3, .block = 64},
                .padded = Params{.length = 100, .radius = 3, .block = 64}},
  };
  if (C == Cache::Dynamic)
    s.geometry = [](const Params& p) {
      LaunchGeometry g = geometry(p);
      g.dynamic_shared_bytes =
          uint32_t(4 * (int64_t(p.block < 1 ? 1 : p.block) + 2 * (p.radius < 0 ? 0 : p.radius)));
      return g;
    };
  return s;
}

}  // namespace ts::lessons::stencil_kit
