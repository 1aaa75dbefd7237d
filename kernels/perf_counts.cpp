// Access counts from a trace, from either backend: how many times the kernel
// went to global memory per output element, against what the textbook says
// (2N for the naive multiply, 2N/T for the tiled one). This is the part of the
// performance lesson that needs no GPU.
#include <cstdio>
#include <string>

#include "kernels/perf.hpp"
#include "trace/counters.hpp"

namespace ts {

namespace {
bool has(const char* id, const char* part) {
  return std::string(id).find(part) != std::string::npos;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
}  // namespace

double theory_loads_per_output(const Variant& v, const Params& p, std::string* formula) {
  auto say = [&](const std::string& f) {
    if (formula) *formula = f;
  };
  if (v.family == Family::Matmul) {
    // The shared dimension: k for the rectangular kernel, n for the square ones.
    const bool rect = (v.uses & kUsesK) != 0;
    const int k = rect ? p.k : p.n;
    const char* K = rect ? "K" : "N";
    const double t = p.tile > 0 ? p.tile : 1;
    if (has(v.id, "tiled")) {
      // One element of A and one of B per thread and tile phase, k / T phases.
      const double r = 2.0 * k / t;
      say(std::string("2") + K + "/T = 2*" + std::to_string(k) + "/" + std::to_string(p.tile) +
          " = " + num(r));
      return r;
    }
    if (has(v.id, "row_col")) {
      // The block's T rows of A and T columns of B, read once for its T*T outputs.
      const double r = 2.0 * k / t;
      say(std::string("2") + K + "/T = " + num(r) + " (rows of A and columns of B in shared)");
      return r;
    }
    if (has(v.id, "row")) {
      // Rows of A once per block (k / T per output); B still k per output.
      const double r = k + k / t;
      say(std::string(K) + " + " + K + "/T = " + num(r) + " (rows of A in shared, B from global)");
      return r;
    }
    if (has(v.id, "naive")) {
      // A row of A and a column of B for every output element.
      const double r = 2.0 * k;
      say(std::string("2") + K + " = 2*" + std::to_string(k) + " = " + num(r));
      return r;
    }
  } else {
    const double taps = 2.0 * p.radius + 1;
    if (has(v.id, "naive")) {
      say("2R+1 = " + num(taps));
      return taps;
    }
    if (has(v.id, "shared") && p.block > 0) {
      // Each element once, plus 2R halo cells per block.
      const double r = 1.0 + 2.0 * p.radius / p.block;
      say("1 + 2R/B = 1 + 2*" + std::to_string(p.radius) + "/" + std::to_string(p.block) + " = " +
          num(r));
      return r;
    }
  }
  // A variant without a textbook formula: the catalogue's closed form.
  const ExpectedCounts e = expected_counts(v, p);
  uint64_t outputs = 0;
  for (const auto& b : buffer_shapes(v, p))
    if (b.is_output) outputs += uint64_t(b.rows) * uint64_t(b.cols);
  const double r = outputs ? double(e.global_loads) / double(outputs) : 0.0;
  say("catalogue closed form: " + num(r));
  return r;
}

AccessCounts perf_access_counts(const Trace& t) {
  AccessCounts c;
  c.kernel = t.config.variant;
  c.params = t.config.params;
  c.truncated = t.truncated();
  const Counters k = count_accesses(t);
  c.global_loads = k.global_loads();
  c.global_stores = k.global_stores();
  c.shared_loads = k.shared_loads();
  c.shared_stores = k.shared_stores();
  c.barrier_arrivals = k.barrier_arrivals();
  for (const Event& e : t.events)
    if (e.kind == EventKind::GlobalLoad && unsigned(e.buffer) < unsigned(kBufferCount))
      ++c.global_loads_per_buffer[int(e.buffer)];
  c.bytes_moved = k.global_bytes_read + k.global_bytes_written;
  c.outputs = k.output_elements;

  const Variant* v = find_variant(t.config.variant);
  if (v) {
    if (!c.outputs)
      for (const auto& b : buffer_shapes(*v, t.config.params))
        if (b.is_output) c.outputs += uint64_t(b.rows) * uint64_t(b.cols);
    c.compulsory_bytes = compulsory_bytes(v->family, t.config.params);
    c.theory_per_output = theory_loads_per_output(*v, t.config.params, &c.theory_formula);
    c.expected = expected_counts(*v, t.config.params);
  } else {
    c.theory_formula = "unknown variant '" + t.config.variant + "'";
  }
  if (c.outputs) c.loads_per_output = double(c.global_loads) / double(c.outputs);
  return c;
}

}  // namespace ts
