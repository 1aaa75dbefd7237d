// Access counts from a trace, from either backend: how many times the kernel
// went to global memory per output element, against what the textbook says
// (2N for the naive multiply, 2 ceil(N/T) for the tiled one). This is the part of the
// performance lesson that needs no GPU.
#include <cstdint>
#include <cstdio>
#include <string>

#include "analysis/counters.hpp"
#include "analysis/perf_counts.hpp"

namespace ts {

double theory_loads_per_output(const LessonInfo& v, const Params& p, std::string* formula) {
  if (v.loads_per_output) return v.loads_per_output(p, formula);
  // A lesson without a textbook formula: the closed form.
  const ExpectedCounts e = expected_counts(v, p);
  uint64_t outputs = 0;
  for (const ArrayInfo& a : arrays(v, p))
    if (a.output() && !a.shared()) outputs += a.count();
  const double r = outputs ? double(e.global_loads) / double(outputs) : 0.0;
  if (formula) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", r);
    *formula = std::string("catalogue closed form: ") + buf;
  }
  return r;
}

AccessCounts perf_access_counts(const Trace& t) {
  AccessCounts c;
  c.kernel = t.config.lesson_id;
  c.params = t.config.params;
  c.truncated = t.truncated();
  const Counters k = count_accesses(t);
  c.global_loads = k.global_loads();
  c.global_stores = k.global_stores();
  c.shared_loads = k.shared_loads();
  c.shared_stores = k.shared_stores();
  c.barrier_arrivals = k.barrier_arrivals();
  for (const Event& e : t.events)
    if (e.kind == EventKind::GlobalLoad && e.array <= kMaxArrays)
      ++c.global_loads_per_buffer[e.array];
  c.bytes_moved = k.global_bytes_read + k.global_bytes_written;
  c.outputs = k.output_elements;

  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (v) {
    if (!c.outputs)
      for (const ArrayInfo& a : t.config.arrays)
        if (a.output() && !a.shared()) c.outputs += a.count();
    // The lesson's own shapes: a square lesson's Params leave m and k at 0.
    c.compulsory_bytes = compulsory_bytes(*v, t.config.params);
    c.flops = flop_count(*v, t.config.params);
    c.theory_per_output = theory_loads_per_output(*v, t.config.params, &c.theory_formula);
    c.expected = expected_counts(*v, t.config.params);
  } else {
    c.theory_formula = unknown_lesson(t.config.lesson_id);
  }
  if (c.outputs) c.loads_per_output = double(c.global_loads) / double(c.outputs);
  return c;
}

}  // namespace ts
