// The library anchors' table lookups, inputs and CPU check (engine/perf.hpp):
// plain host code, tested without a GPU. The GPU side is
// engine/cuda/library_anchors.cu.
#include <algorithm>
#include <cmath>

#include "engine/perf.hpp"
#include "lessons/histogram_kit.hpp"
#include "model/splitmix64.hpp"

namespace ts {

// The anchors count into the histogram lessons' bins.
static_assert(kAnchorBins == lessons::histogram_kit::kBinCount);
static_assert(kAnchorLow == lessons::histogram_kit::kLow &&
              kAnchorHigh == lessons::histogram_kit::kHigh);

const char* to_string(LibraryInput in) {
  switch (in) {
    case LibraryInput::SmallIntegers:
      return "small-integers";
    case LibraryInput::UniformBins:
      return "uniform";
    case LibraryInput::OneHotBin:
      return "one-hot";
  }
  return "?";
}

bool parse_library_input(const std::string& name, LibraryInput& in) {
  for (LibraryInput k :
       {LibraryInput::SmallIntegers, LibraryInput::UniformBins, LibraryInput::OneHotBin})
    if (name == to_string(k)) {
      in = k;
      return true;
    }
  return false;
}

const LibraryAnchor* find_library_anchor(const std::string& id) {
  for (const LibraryAnchor& a : kLibraryAnchors)
    if (id == a.id) return &a;
  return nullptr;
}

std::vector<const LibraryAnchor*> library_anchors_of(const std::string& family) {
  std::vector<const LibraryAnchor*> out;
  for (const LibraryAnchor& a : kLibraryAnchors)
    if (family == a.family) out.push_back(&a);
  return out;
}

std::vector<const LibraryAnchor*> selected_anchors(const PerfConfig& c) {
  const PerfConfig r = resolved(c);
  const std::vector<const LessonInfo*> lessons = selected_lessons(r);
  std::vector<const LibraryAnchor*> out;
  for (const LibraryAnchor& a : kLibraryAnchors) {
    bool take = std::find(r.kernels.begin(), r.kernels.end(), a.id) != r.kernels.end();
    for (const LessonInfo* v : lessons)
      take = take || (r.with_library && v->metric == PerfMetric::Bytes &&
                      a.family == std::string(v->family));
    if (take) out.push_back(&a);
  }
  return out;
}

std::vector<float> library_input(LibraryInput kind, size_t n, uint64_t seed) {
  std::vector<float> x(n);
  const float width = (kAnchorHigh - kAnchorLow) / float(kAnchorBins);
  // The bin's centre: inside it whichever way the bin edge rounds.
  const auto centre = [&](uint64_t bin) { return kAnchorLow + (float(bin) + 0.5f) * width; };
  const uint64_t base = splitmix64_hash(seed ^ 0x4C1B0000ull);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = splitmix64_hash(base + i);
    switch (kind) {
      case LibraryInput::SmallIntegers:
        x[i] = float(int(r % 9) - 4);
        break;
      case LibraryInput::UniformBins:
        x[i] = centre(r % kAnchorBins);
        break;
      case LibraryInput::OneHotBin:
        x[i] = centre(kAnchorBins * 5 / 8);
        break;
    }
  }
  return x;
}

std::vector<uint32_t> histogram_even_counts(const std::vector<float>& x, int bins, float lower,
                                            float upper) {
  std::vector<uint32_t> count(size_t(std::max(bins, 0)), 0u);
  if (bins <= 0 || !(upper > lower)) return count;
  const double scale = double(bins) / (double(upper) - double(lower));
  for (float v : x) {
    if (!(v >= lower && v < upper)) continue;  // NaN, below, at or above the top: not counted
    const int b = std::min(bins - 1, int((double(v) - lower) * scale));
    ++count[size_t(b)];
  }
  return count;
}

}  // namespace ts
