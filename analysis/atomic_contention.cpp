// Contention per element of the atomically updated arrays
// (analysis/atomic_contention.hpp).
#include "analysis/atomic_contention.hpp"

#include <algorithm>
#include <tuple>

#include "analysis/warp_access.hpp"

namespace ts {

std::vector<ElementContention> AtomicContention::hottest(size_t n) const {
  std::vector<ElementContention> all;
  for (const ArrayContention& a : arrays)
    for (const ElementContention& e : a.elements)
      if (e.atomics) all.push_back(e);
  const auto hotter = [](const ElementContention& x, const ElementContention& y) {
    return std::tuple(y.atomics, y.most_lanes, x.array, x.element) <
           std::tuple(x.atomics, x.most_lanes, y.array, y.element);
  };
  const size_t keep = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + ptrdiff_t(keep), all.end(), hotter);
  all.resize(keep);
  return all;
}

AtomicContention atomic_contention(const Trace& t) {
  AtomicContention c;
  c.partial = t.truncated();
  std::vector<ArrayContention*> by_slot(kMaxArrays + 1, nullptr);
  // The arrays first, so that the vector does not move under the pointers.
  std::vector<bool> atomic_slot(kMaxArrays + 1, false);
  for (const Event& e : t.events)
    if (is_atomic(e.kind) && e.array >= 1 && e.array <= kMaxArrays && t.array(e.array))
      atomic_slot[e.array] = true;
  for (int s = 1; s <= kMaxArrays; ++s) {
    if (!atomic_slot[s]) continue;
    const ArrayInfo& info = *t.array(ArraySlot(s));
    ArrayContention a;
    a.array = ArraySlot(s);
    a.space = info.space;
    a.elements.resize(info.count());
    for (size_t i = 0; i < a.elements.size(); ++i)
      a.elements[i].array = a.array, a.elements[i].element = uint32_t(i);
    c.arrays.push_back(std::move(a));
  }
  for (ArrayContention& a : c.arrays)
    by_slot[a.array] = &a;

  const WarpAccesses w = warp_accesses(t);
  std::vector<uint32_t> hits;  // the elements of one warp instruction's lanes
  for (const WarpAccess& wa : w.accesses) {
    if (!is_atomic(wa.kind) || wa.array > kMaxArrays || !by_slot[wa.array]) continue;
    ArrayContention& a = *by_slot[wa.array];
    ++a.warp_instructions;
    hits.clear();
    for (uint32_t i : w.lanes_of(wa)) {
      const Event& e = t.events[i];
      if ((e.flags & kFlagOutOfRange) || e.element >= a.elements.size()) continue;
      hits.push_back(e.element);
    }
    std::sort(hits.begin(), hits.end());
    for (size_t i = 0; i < hits.size();) {
      size_t j = i;
      while (j < hits.size() && hits[j] == hits[i])
        ++j;
      const uint32_t lanes = uint32_t(j - i);
      ElementContention& e = a.elements[hits[i]];
      e.atomics += lanes;
      e.queued += lanes - 1;
      e.most_lanes = std::max(e.most_lanes, lanes);
      a.atomics += lanes;
      a.most_lanes = std::max(a.most_lanes, lanes);
      i = j;
    }
  }
  return c;
}

}  // namespace ts
