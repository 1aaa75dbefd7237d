// Access counts from a trace, from either backend: how many times the kernel
// went to global memory per output element, against what the textbook says
// (2N for the naive multiply, 2 ceil(N/T) for the tiled one). This is the part of the
// performance lesson that needs no GPU.
#include <cstdint>
#include <cstdio>
#include <string>

#include "kernels/perf.hpp"
#include "trace/counters.hpp"

namespace ts {

namespace {
bool has(const char* id, const char* part) {
  return std::string(id).find(part) != std::string::npos;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
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
  auto str = [](int64_t x) { return std::to_string(x); };
  if (v.family == Family::Matmul) {
    // C (M x N) = A (M x K) x B (K x N); the square kernels have M = K = N = n.
    int64_t m = 0, k = 0, n = 0;
    for (const auto& b : buffer_shapes(v, p)) {
      if (b.id == Buffer::A) m = b.rows, k = b.cols;
      if (b.id == Buffer::B) n = b.cols;
    }
    const int64_t t = p.tile;
    const bool tiled = has(v.id, "tiled"), rows = has(v.id, "row");
    if ((tiled || rows) && t > 0 && m > 0 && k > 0 && n > 0) {
      // A block column reads its A rows once per block of them, a block row its B
      // columns: ceil(N/T) reads of each element of A, ceil(M/T) of B. Blocks
      // that hang over the edge count whole: padding threads load nothing, but
      // the block still exists.
      const int64_t gx = ceil_div(n, t), gy = ceil_div(m, t);
      if (has(v.id, "tiled_rect")) {
        const double r = (double(gx) * m * k + double(gy) * k * n) / (double(m) * n);
        say("K*ceil(N/T)/N + K*ceil(M/T)/M = " + str(k) + "*ceil(" + str(n) + "/" + str(t) + ")/" +
            str(n) + " + " + str(k) + "*ceil(" + str(m) + "/" + str(t) + ")/" + str(m) + " = " +
            num(r) + (n % t || m % t ? "" : " (2K/T)"));
        return r;
      }
      if (has(v.id, "tiled_exact") && n % t) {
        // No bounds checks: every thread of the ceil(N/T)^2 blocks loads in each of
        // the floor(N/T) phases, also those outside the matrix.
        const int64_t side = gx * t, phases = n / t;
        const double r = 2.0 * double(phases) * double(side) * side / (double(n) * n);
        say("2*floor(N/T)*(ceil(N/T)*T)^2/N^2 = 2*" + str(phases) + "*" + str(side) + "^2/" +
            str(n) + "^2 = " + num(r) + " (no bounds checks: every thread loads)");
        return r;
      }
      if (tiled || has(v.id, "row_col")) {
        // One element of A and one of B per thread and tile phase: 2 ceil(N/T).
        const double r = 2.0 * double(gx);
        say("2*ceil(N/T) = 2*ceil(" + str(n) + "/" + str(t) + ") = " + num(r) +
            (tiled ? "" : " (rows of A and columns of B in shared)"));
        return r;
      }
      // Rows of A once per block column; B still N times per output.
      const double r = double(n) + double(gx);
      say("N + ceil(N/T) = " + str(n) + " + ceil(" + str(n) + "/" + str(t) + ") = " + num(r) +
          " (rows of A in shared, B from global)");
      return r;
    }
    if (has(v.id, "naive") && k > 0) {
      // A row of A and a column of B for every output element.
      const double r = 2.0 * double(k);
      say("2N = 2*" + str(k) + " = " + num(r));
      return r;
    }
  } else {
    const int64_t r_ = p.radius, l = p.length, b = p.block;
    if (has(v.id, "naive")) {
      const double r = 2.0 * double(r_) + 1;
      say("2R+1 = 2*" + str(r_) + "+1 = " + num(r));
      return r;
    }
    if (has(v.id, "shared") && b > 0 && l > 0) {
      // Every block loads its B cells and 2R halo cells, also the last block
      // where it hangs over the end (clamped): 1 + 2R/B when B divides L.
      const int64_t blocks = ceil_div(l, b);
      const double r = double(blocks) * double(b + 2 * r_) / double(l);
      say("ceil(L/B)*(B+2R)/L = ceil(" + str(l) + "/" + str(b) + ")*(" + str(b) + "+2*" + str(r_) +
          ")/" + str(l) + " = " + num(r) + (l % b ? "" : " (1 + 2R/B)"));
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
    // The variant's own shapes: a square lesson's Params leave m and k at 0.
    c.compulsory_bytes = compulsory_bytes(*v, t.config.params);
    c.flops = flop_count(*v, t.config.params);
    c.theory_per_output = theory_loads_per_output(*v, t.config.params, &c.theory_formula);
    c.expected = expected_counts(*v, t.config.params);
  } else {
    c.theory_formula = "unknown variant '" + t.config.variant + "'";
  }
  if (c.outputs) c.loads_per_output = double(c.global_loads) / double(c.outputs);
  return c;
}

}  // namespace ts
