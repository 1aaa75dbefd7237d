#include "trace/memory_estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ts {

uint64_t window_bytes(uint64_t events, uint64_t cells) {
  return kWindowBaseBytes + events * kWindowPeakBytesPerEvent + cells * kBytesPerCell;
}

uint64_t expected_events(const Variant& v, const Params& p, uint64_t capacity) {
  return std::min(expected_counts(v, p).total(), capacity);
}

uint64_t replay_cells(const Variant& v, const Params& p) {
  uint64_t cells = 0;
  for (const BufferShape& b : buffer_shapes(v, p))
    cells += uint64_t(std::max(b.rows, 0)) * uint64_t(std::max(b.cols, 0));
  const uint64_t blocks = geometry(v, p).grid.count();
  for (const BufferShape& s : shared_shapes(v, p))
    cells += blocks * uint64_t(std::max(s.rows, 0)) * uint64_t(std::max(s.cols, 0));
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

std::string format_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f GB", double(bytes) / double(1ull << 30));
  else
    std::snprintf(buf, sizeof buf, "%llu MB", (unsigned long long)(bytes >> 20));
  return buf;
}

}  // namespace ts
