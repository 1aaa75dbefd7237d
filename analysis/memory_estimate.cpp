#include "analysis/memory_estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "engine/plain_cuda.hpp"

namespace ts {

uint64_t window_bytes(uint64_t events, uint64_t cells) {
  return kWindowBaseBytes + events * kWindowPeakBytesPerEvent + cells * kBytesPerCell;
}

uint64_t window_held_bytes(uint64_t events, uint64_t cells) {
  return events * kWindowHeldBytesPerEvent + cells * kBytesPerCell;
}

uint64_t expected_events(const LessonInfo& v, const Params& p, uint64_t capacity) {
  return std::min(expected_counts(v, p).total(), capacity);
}

uint64_t replay_cells(const LessonInfo& v, const Params& p) {
  // Every global array once, every shared array once per block.
  uint64_t cells = 0;
  const uint64_t blocks = geometry(v, p).grid.count();
  for (const ArrayInfo& a : arrays(v, p))
    cells += (a.shared() ? blocks : 1) * a.count();
  return cells;
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 8ull << 30;  // unknown: assume a small laptop
  return uint64_t(pages) * uint64_t(page);
}

uint64_t default_memory_budget() {
  return physical_memory_bytes() / 4;
}

std::optional<uint64_t> parse_bytes(const std::string& text) {
  size_t i = 0;
  uint64_t value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (value > (UINT64_MAX - 9) / 10) return std::nullopt;
    value = value * 10 + uint64_t(text[i++] - '0');
  }
  if (i == 0) return std::nullopt;
  while (i < text.size() && text[i] == ' ')
    ++i;
  std::string unit;
  for (; i < text.size(); ++i)
    unit += char(std::toupper(static_cast<unsigned char>(text[i])));
  int shift = 0;
  if (unit == "K" || unit == "KB")
    shift = 10;
  else if (unit == "M" || unit == "MB")
    shift = 20;
  else if (unit == "G" || unit == "GB")
    shift = 30;
  else if (!unit.empty() && unit != "B")
    return std::nullopt;
  if (value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

uint64_t memory_budget(std::string* origin) {
  if (const char* env = std::getenv("TILESCOPE_MEMORY_BUDGET"); env && *env) {
    if (const auto bytes = parse_bytes(env)) {
      if (origin) *origin = "TILESCOPE_MEMORY_BUDGET";
      return *bytes;
    }
  }
  const uint64_t budget = default_memory_budget();
  if (origin) *origin = "a quarter of this machine's " + format_bytes(physical_memory_bytes());
  return budget;
}

RunEstimate estimate_run(const LessonInfo& v, const Params& p, uint64_t capacity) {
  RunEstimate e;
  e.events_needed = expected_counts(v, p).total();
  e.events_recorded = std::min(e.events_needed, capacity);
  e.bytes = window_bytes(e.events_recorded, replay_cells(v, p));
  e.bound_only = is_plain_cuda_path(v.source_file);
  return e;
}

std::vector<NamedParam> size_params(const LessonInfo& v, const Params& p) {
  return used_params(v.uses & (kUsesM | kUsesK | kUsesN | kUsesLength), p);
}

namespace {
// `p` with its sizes scaled by s / full (each at least 1).
Params scaled(const LessonInfo& v, const Params& p, int64_t s, int64_t full) {
  Params q = p;
  auto scale = [&](int& x) { x = int(std::max<int64_t>(1, int64_t(x) * s / full)); };
  for (const ParamField& f : kParamFields)
    if (v.uses & f.bit & (kUsesM | kUsesK | kUsesN | kUsesLength)) scale(q.*f.field);
  return q;
}
}  // namespace

std::optional<Params> largest_size_that_fits(const LessonInfo& v, const Params& p,
                                             uint64_t capacity, uint64_t budget, uint64_t held) {
  auto fits = [&](const Params& q) {
    const RunEstimate e = estimate_run(v, q, capacity);
    return !e.truncated() && held <= budget && e.bytes <= budget - held;
  };
  if (fits(p)) return p;
  int64_t full = 1;
  for (const NamedParam& s : size_params(v, p))
    full = std::max<int64_t>(full, s.value);
  if (!fits(scaled(v, p, 1, full))) return std::nullopt;
  // Events and memory grow with every size: the largest scale that fits.
  int64_t lo = 1, hi = full;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(scaled(v, p, mid, full)) ? lo : hi) = mid;
  }
  return scaled(v, p, lo, full);
}

uint64_t file_events_estimate(uint64_t file_bytes) {
  return file_bytes / sizeof(Event);
}

std::string format_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f GB", double(bytes) / double(1ull << 30));
  else
    std::snprintf(buf, sizeof buf, "%llu MB", (unsigned long long)(bytes >> 20));
  return buf;
}

}  // namespace ts
