// Access counters: one pass over the events.
#include "analysis/counters.hpp"

#include <algorithm>

#include "engine/plain_cuda.hpp"

namespace ts {

namespace {

ElementCounts shaped(const BufferData& b) {
  ElementCounts c;
  c.buffer = b.slot;
  c.rows = b.rows;
  c.cols = b.cols;
  c.count.assign(size_t(std::max(b.rows, 0)) * size_t(std::max(b.cols, 0)), 0);
  return c;
}

void summarise(ElementCounts& c) {
  if (c.count.empty()) return;
  auto [lo, hi] = std::minmax_element(c.count.begin(), c.count.end());
  c.min = *lo;
  c.max = *hi;
  uint64_t sum = 0;
  for (uint32_t v : c.count)
    sum += v;
  c.mean = double(sum) / double(c.count.size());
}

}  // namespace

const ElementCounts* Counters::loads_of(ArraySlot slot) const {
  for (const auto& c : global_loads_per_element)
    if (c.buffer == slot) return &c;
  return nullptr;
}

Counters count_accesses(const Trace& t) {
  Counters c;
  // The per-element arrays by slot.
  std::array<ElementCounts*, kMaxArrays + 1> load_slot{}, store_slot{};
  for (const auto& b : t.buffers) {
    const ArrayInfo* a = t.array(b.slot);
    if (b.slot > kMaxArrays || !a || a->shared()) continue;
    if (b.is_output)
      c.global_stores_per_element.push_back(shaped(b));
    else
      c.global_loads_per_element.push_back(shaped(b));
  }
  for (auto& e : c.global_loads_per_element)
    load_slot[e.buffer] = &e;
  for (auto& e : c.global_stores_per_element)
    store_slot[e.buffer] = &e;

  std::array<bool, kMaxArrays + 1> constant{};
  for (size_t i = 0; i < t.config.arrays.size() && i < kMaxArrays; ++i)
    constant[i + 1] = t.config.arrays[i].space == Space::Constant;

  for (const Event& e : t.events) {
    const uint8_t k = uint8_t(e.kind), b = uint8_t(e.array);
    if (k >= kEventKindCount || b > kMaxArrays) continue;
    const uint64_t bytes = uint64_t(element_bytes(e, array_at(t.config.arrays, e.array)));
    ++c.per_kind[k];
    if (e.flags & kFlagOutOfRange) ++c.out_of_range;
    switch (e.kind) {
      case EventKind::GlobalLoad:
        ++c.loads[b];
        if (constant[b])
          ++c.constant_loads, c.constant_bytes_read += bytes;
        else
          c.global_bytes_read += bytes;
        if (auto* s = load_slot[b];
            s && !(e.flags & kFlagOutOfRange) && e.element < s->count.size())
          ++s->count[e.element];
        break;
      case EventKind::GlobalStore:
        ++c.stores[b];
        c.global_bytes_written += bytes;
        if (auto* s = store_slot[b];
            s && !(e.flags & kFlagOutOfRange) && e.element < s->count.size())
          ++s->count[e.element];
        break;
      case EventKind::SharedLoad:
        ++c.loads[b];
        c.shared_bytes_read += bytes;
        break;
      case EventKind::SharedStore:
        ++c.stores[b];
        c.shared_bytes_written += bytes;
        break;
      case EventKind::GlobalAtomic:
        ++c.atomics[b];
        c.global_bytes_read += bytes;
        c.global_bytes_written += bytes;
        if (auto* s = store_slot[b];
            s && !(e.flags & kFlagOutOfRange) && e.element < s->count.size())
          ++s->count[e.element];
        break;
      case EventKind::SharedAtomic:
        ++c.atomics[b];
        c.shared_bytes_read += bytes;
        c.shared_bytes_written += bytes;
        break;
      default:
        break;
    }
  }
  for (auto& e : c.global_loads_per_element)
    summarise(e);
  for (auto& e : c.global_stores_per_element) {
    summarise(e);
    c.output_elements += e.count.size();
  }
  if (c.output_elements)
    c.global_loads_per_output = double(c.global_loads()) / double(c.output_elements);
  return c;
}

std::optional<Expectation> expected_for(const Trace& t) {
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  // A plain CUDA file has no closed form, only a bound (engine/plain_cuda.hpp).
  if (!v || is_plain_cuda_path(v->source_file)) return std::nullopt;
  Expectation x;
  x.counts = expected_counts(*v, t.config.params);
  uint64_t outputs = 0;
  for (const ArrayInfo& a : t.config.arrays)
    if (a.output() && !a.shared()) outputs += a.count();
  if (outputs) x.global_loads_per_output = double(x.counts.global_loads) / double(outputs);
  return x;
}

}  // namespace ts
