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
  LaunchGeometry g;
  const int b = p.block < 1 ? 1 : p.block;
  g.block = {at_least_1(b), 1, 1};
  g.grid = {at_least_1(int64_t(ceil_div(uint64_t(p.length < 1 ? 1 : p.length), b))), 1, 1};
  return g;
}

// Length, block and radius in range; with a halo (shared lessons), the
// radius at most the block, since the first R threads load the halo cells.
std::optional<std::string> check(const Params& p, const DeviceLimits& lim, bool halo);

// The halo lessons' counts: every thread loads its cell (clamped past the
// end), the first R threads the 2R halo cells.
ExpectedCounts halo_counts(const Params& p);

// 1 or 2 warps per block: a block of 32 or 64 threads.
std::optional<Params> halo_with_warps(const Params& p, const Params& defaults, int warps);

// The textbook's global loads per output element.
double naive_loads(const Params& p, std::string* formula);  // 2R + 1
double halo_loads(const Params& p, std::string* formula);   // ceil(L/B)(B + 2R)/L

inline SharedAdvice smaller_block(const Params&, const DeviceLimits&) {
  return {"", "use a smaller block or radius"};
}

}  // namespace ts::lessons::stencil_kit
