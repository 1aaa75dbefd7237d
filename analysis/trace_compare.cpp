#include "analysis/trace_compare.hpp"

#include <cstring>
#include <map>
#include <tuple>
#include <vector>

namespace ts {
namespace {

using ThreadKey = std::tuple<uint32_t, uint32_t>;  // block, thread

std::map<ThreadKey, std::vector<const Event*>> by_thread(const Trace& t) {
  std::map<ThreadKey, std::vector<const Event*>> m;
  for (const Event& e : t.events)
    m[{e.block, e.thread}].push_back(&e);
  return m;
}

bool same(const Event& x, const Event& y) {
  if (x.kind != y.kind || x.array != y.array || x.element != y.element || x.line != y.line ||
      x.barrier != y.barrier)
    return false;
  if (is_atomic(x.kind)) return true;
  // Bit for bit: a NaN equals itself, -0 differs from 0 as the GPU stored it.
  return std::memcmp(&x.value, &y.value, sizeof x.value) == 0;
}

std::string dim_text(uint32_t linear, const Dim3& d) {
  const uint32_t x = linear % d.x, y = (linear / d.x) % d.y, z = linear / (d.x * d.y);
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

std::string ordinal(size_t n) {
  const size_t last2 = n % 100, last = n % 10;
  const char* suffix = (last2 >= 11 && last2 <= 13) ? "th"
                       : last == 1                  ? "st"
                       : last == 2                  ? "nd"
                       : last == 3                  ? "rd"
                                                    : "th";
  return std::to_string(n) + suffix;
}

std::string event_text(const Trace& t, const Event& e) {
  std::string s = to_string(e.kind);
  if (e.kind == EventKind::BarrierArrive || e.kind == EventKind::BarrierLeave)
    s += " " + std::to_string(int(e.barrier));
  else if (e.kind == EventKind::WarpShuffle)
    s += " from lane " + std::to_string(e.element);
  else
    s += " " + element_name(t.config.arrays, e.array, e.element);
  s += " at line " + std::to_string(e.line);
  if (!is_atomic(e.kind) && e.kind != EventKind::BarrierArrive &&
      e.kind != EventKind::BarrierLeave) {
    char v[32];
    std::snprintf(v, sizeof v, " = %g", double(e.value));
    s += v;
  }
  return s;
}

}  // namespace

std::optional<std::string> first_thread_difference(const Trace& a, const Trace& b,
                                                   const std::string& a_name,
                                                   const std::string& b_name) {
  const auto ma = by_thread(a), mb = by_thread(b);
  const LaunchGeometry& g = a.config.geometry;
  auto who = [&](const ThreadKey& k) {
    return "thread " + dim_text(std::get<1>(k), g.block) + " of block " +
           dim_text(std::get<0>(k), g.grid);
  };
  // Every thread either trace has, in (block, thread) order.
  std::map<ThreadKey, bool> keys;
  for (const auto& [k, v] : ma)
    keys[k] = true;
  for (const auto& [k, v] : mb)
    keys[k] = true;
  static const std::vector<const Event*> kNone;
  for (const auto& [k, unused] : keys) {
    const auto ia = ma.find(k), ib = mb.find(k);
    const std::vector<const Event*>& ea = ia == ma.end() ? kNone : ia->second;
    const std::vector<const Event*>& eb = ib == mb.end() ? kNone : ib->second;
    const size_t n = std::min(ea.size(), eb.size());
    for (size_t i = 0; i < n; ++i)
      if (!same(*ea[i], *eb[i]))
        return who(k) + ": its " + ordinal(i + 1) + " event is " + event_text(a, *ea[i]) + " on " +
               a_name + ", " + event_text(b, *eb[i]) + " on " + b_name;
    if (ea.size() != eb.size()) {
      const bool a_more = ea.size() > eb.size();
      const Event& extra = a_more ? *ea[n] : *eb[n];
      return who(k) + " has " + std::to_string(ea.size()) + " events on " + a_name + " and " +
             std::to_string(eb.size()) + " on " + b_name + "; the first one only " +
             (a_more ? a_name : b_name) + " has: " + event_text(a_more ? a : b, extra);
    }
  }
  return std::nullopt;
}

}  // namespace ts
