// The registry: the lessons of lessons/CMakeLists.txt and the checks that
// apply to every one of them.
#include "engine/catalogue.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "lessons/all_lessons.hpp"

namespace ts {

extern const std::pair<std::string_view, std::string_view> kLessonSources[];
extern const int kLessonSourceCount;

namespace {

template <class... L>
std::vector<Variant> collect(LessonList<L...>) {
  std::vector<Variant> all = {L::descriptor()...};
  for (Variant& v : all) {
    // The barrier lines come from the code, not from the descriptor.
    const std::vector<BarrierStatement> found = barrier_statements(lesson_source(v.source_file));
    for (BarrierInfo& b : v.barriers) {
      const bool known = b.id > 0 && b.id < int(found.size());
      b.line = known ? found[b.id].line : 0;
      b.warp_scope = known && found[b.id].warp_scope;
    }
  }
  return all;
}

const std::vector<Variant>& table() {
  static const std::vector<Variant> variants = collect(AllLessons{});
  return variants;
}

std::string bytes_text(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(uint64_t(1) << 30));
  else if (b >= (uint64_t(1) << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
  return buf;
}

std::optional<std::string> check_shared(const Variant& v, const Params& p,
                                        const DeviceLimits& lim) {
  const LaunchGeometry g = geometry(v, p);
  const uint64_t bytes = uint64_t(g.dynamic_shared_bytes) + g.static_shared_bytes;
  if (bytes <= uint64_t(lim.max_shared_per_block)) return std::nullopt;
  const SharedAdvice advice = v.shared_advice(p, lim);
  return std::string(v.id) + " needs " + std::to_string(bytes) +
         " bytes of shared memory per block" + advice.detail + ", over the " +
         std::to_string(lim.max_shared_per_block) + " bytes per block this device allows; " +
         advice.fix;
}

}  // namespace

std::string_view lesson_source(const std::string& source_file) {
  for (int i = 0; i < kLessonSourceCount; ++i)
    if (kLessonSources[i].first == source_file) return kLessonSources[i].second;
  return {};
}

std::vector<BarrierStatement> barrier_statements(std::string_view text) {
  std::vector<BarrierStatement> found(1);
  int line = 1;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view s = text.substr(at, end - at);
    s.remove_prefix(std::min(s.find_first_not_of(" \t"), s.size()));
    // A statement `SYNCTHREADS(<id>);` or `SYNCWARP(<id>);` (comments that
    // mention one do not count).
    for (const std::string_view call : {"SYNCTHREADS(", "SYNCWARP("}) {
      if (s.substr(0, call.size()) != call) continue;
      int id = 0;
      size_t i = call.size();
      while (i < s.size() && s[i] >= '0' && s[i] <= '9')
        id = id * 10 + (s[i++] - '0');
      if (i < s.size() && s[i] == ')' && id > 0 && id < 64) {
        if (int(found.size()) <= id) found.resize(id + 1);
        if (found[id].line == 0) found[id] = {line, call == "SYNCWARP("};
      }
    }
    at = end + 1;
    ++line;
  }
  return found;
}

std::span<const Variant> catalogue() {
  return table();
}

std::optional<size_t> lesson_index(std::string_view id) {
  // (id, place) sorted by id: a binary search instead of a scan of every id.
  static const std::vector<std::pair<std::string_view, size_t>> by_id = [] {
    std::vector<std::pair<std::string_view, size_t>> index;
    for (size_t i = 0; i < table().size(); ++i)
      index.emplace_back(table()[i].id, i);
    std::sort(index.begin(), index.end());
    return index;
  }();
  const auto it =
      std::lower_bound(by_id.begin(), by_id.end(), id,
                       [](const auto& entry, std::string_view x) { return entry.first < x; });
  if (it == by_id.end() || it->first != id) return std::nullopt;
  return it->second;
}

const Variant* find_variant(const std::string& id) {
  const std::optional<size_t> at = lesson_index(id);
  return at ? &table()[*at] : nullptr;
}

std::string unknown_lesson(std::string_view id) {
  return "unknown lesson '" + std::string(id) + "'; the lessons are: " + variant_ids();
}

const Variant& default_variant() {
  for (const Variant& v : table())
    if (v.opens_the_window) return v;
  return table().front();
}

std::string variant_ids() {
  std::string s;
  for (const Variant& v : table()) {
    if (!s.empty()) s += ", ";
    s += v.id;
  }
  return s;
}

std::vector<const char*> families() {
  std::vector<const char*> out;
  for (const Variant& v : table())
    if (std::none_of(out.begin(), out.end(),
                     [&](const char* f) { return std::string_view(f) == v.family; }))
      out.push_back(v.family);
  return out;
}

std::optional<std::string> validate(const Variant& v, const Params& p, const DeviceLimits& lim) {
  if (auto e = v.check(p, lim)) return e;
  if (auto e = check_shared(v, p, lim)) return e;
  uint64_t bytes = 0;
  const ArrayTable t = arrays(v, p);
  for (size_t i = 0; i < t.size(); ++i)
    if (!t[i].shared()) bytes += allocation_elements(v, p, t, ArraySlot(i + 1)) * t[i].elem_bytes;
  if (bytes > lim.global_memory_bytes)
    return "the arrays need " + bytes_text(bytes) + " of memory, more than the " +
           bytes_text(lim.global_memory_bytes) + " available; use smaller sizes";
  return std::nullopt;
}

std::optional<std::string> validate_barrier_id(const Variant& v, int id) {
  const int count = int(v.barriers.size());
  if (id >= 1 && id <= count) return std::nullopt;
  std::string have;
  for (int i = 1; i <= count; ++i)
    have += (i == 1 ? "" : i == count ? " and " : ", ") + std::to_string(i);
  return "barrier " + std::to_string(id) + ": " + v.id + " has " +
         (count == 0
              ? std::string("no barriers")
              : std::to_string(count) + (count == 1 ? " barrier (" : " barriers (") + have + ")");
}

std::optional<std::string> validate_barrier_mask(const Variant& v, BarrierSet kept) {
  const uint32_t mask = kept.mask();
  const uint32_t all = all_barriers(v);
  const uint32_t extra = mask & ~all;
  // Bits beyond the variant's barriers may be all set (a "keep everything"
  // mask such as ~0u with some barriers cleared) or all clear; a mixture names
  // a barrier the kernel does not have.
  if (extra == 0 || extra == ~all) return std::nullopt;
  // Mostly set: the first cleared bit is a barrier someone tried to remove;
  // mostly clear: the first set bit is one someone tried to keep.
  const bool mostly_set = __builtin_popcount(extra) > 16;
  const uint32_t odd = mostly_set ? (~mask & ~all) : extra;
  return validate_barrier_id(v, __builtin_ctz(odd) + 1);
}

LaunchGeometry geometry(const Variant& v, const Params& p) {
  return v.geometry(p);
}

int warps_per_block(const Variant& v, const Params& p) {
  return int((geometry(v, p).block.count() + 31) / 32);
}

std::optional<Params> params_with_warps(const Variant& v, const Params& p, int warps) {
  if (v.barriers.empty() || !v.with_warps || warps < 1 || warps > 2) return std::nullopt;
  std::optional<Params> q = v.with_warps(p, warps);
  if (!q || validate(v, *q, DeviceLimits{})) return std::nullopt;
  return q;
}

ExpectedCounts expected_counts(const Variant& v, const Params& p) {
  return v.counts(p);
}

ArrayTable arrays(const Variant& v, const Params& p) {
  return v.arrays(p);
}

KernelArgs kernel_args(const Variant& v, const Params& p) {
  KernelArgs a;
  a.m = p.m, a.k = p.k, a.n = p.n, a.tile = p.tile;
  a.length = p.length, a.radius = p.radius, a.block = p.block;
  const ArrayTable t = arrays(v, p);
  for (size_t i = 0; i < t.size() && i < size_t(kMaxArrays); ++i)
    if (!t[i].shared()) a.count[i + 1] = int(std::min<uint64_t>(t[i].count(), INT32_MAX));
  return a;
}

uint64_t allocation_elements(const Variant& v, const Params& p, const ArrayTable& table,
                             ArraySlot slot) {
  if (v.allocation) return v.allocation(p, slot);
  const ArrayInfo* a = array_at(table, slot);
  return a ? a->count() : 0;
}

uint64_t allocation_elements(const Variant& v, const Params& p, ArraySlot slot) {
  return allocation_elements(v, p, arrays(v, p), slot);
}

std::string describe(const Variant& v, const Params& p) {
  return describe(v.uses, p);
}

}  // namespace ts
