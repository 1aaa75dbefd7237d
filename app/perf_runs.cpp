#include "app/perf_runs.hpp"

namespace ts::app {

SweepChoices SweepChoices::defaults() {
  SweepChoices c;
  // A kernel that cannot run at the sweep's smallest size (the naive
  // one-block multiply stops at 32 x 32) is off by default.
  const DeviceLimits lim = simulator_model().limits();
  for (const Variant& v : catalogue()) {
    Params p = v.defaults;
    p.m = p.k = p.n = 128;
    p.length = 1 << 16;
    c.kernel_on.push_back(!validate(v, p, lim));
  }
  for (int n = 128; n <= 4096; n *= 2)
    c.sizes.push_back({n, true});
  for (int e = 16; e <= 26; e += 2)
    c.lengths.push_back({1 << e, true});
  for (int t : kTileWidths)
    c.tiles.push_back({t, t >= 8});
  return c;
}

std::optional<PerfConfig> SweepChoices::config(std::string* message) const {
  PerfConfig c;
  const auto cat = catalogue();
  for (size_t i = 0; i < cat.size(); ++i)
    if (kernel_on[i]) c.kernels.push_back(cat[i].id);
  for (const auto& [n, on] : sizes)
    if (on) c.matmul_sizes.push_back(n);
  for (const auto& [n, on] : lengths)
    if (on) c.stencil_lengths.push_back(n);
  for (const auto& [t, on] : tiles)
    if (on) c.tiles.push_back(t);
  c.reps = reps;
  c.flush_l2 = flush;
  if (c.kernels.empty() || c.tiles.empty()) {
    *message = "Choose at least one kernel and one tile width.";
    return std::nullopt;
  }
  // An empty list means "the defaults": say none explicitly by leaving that family out.
  if (c.matmul_sizes.empty() || c.stencil_lengths.empty()) {
    std::vector<std::string> keep;
    for (const auto& k : c.kernels) {
      const Variant* v = find_variant(k);
      const bool mm = v && v->metric == PerfMetric::Flops;
      if ((mm && !c.matmul_sizes.empty()) || (!mm && !c.stencil_lengths.empty())) keep.push_back(k);
    }
    c.kernels = keep;
    if (c.matmul_sizes.empty()) c.matmul_sizes = {128};  // unused: no matmul kernel left
    if (c.stencil_lengths.empty()) c.stencil_lengths = {1 << 16};
    if (keep.empty()) {
      *message = "Choose at least one size for the kernels selected.";
      return std::nullopt;
    }
  }
  if (auto err = validate_perf_config(c)) {
    *message = *err;
    return std::nullopt;
  }
  return c;
}

std::vector<CountRow> compute_counts() {
  std::vector<CountRow> rows;
  for (const Variant& v : catalogue()) {
    CountRow row;
    row.kernel = v.id;
    RunRequest req;
    req.variant = v.id;
    Params p = v.defaults;
    if (v.metric == PerfMetric::Flops) {
      p.tile = 16;
      p.block = 16;
      // 64, or 32 where one block holds the whole matrix (at most 32 x 32 threads).
      p.m = p.k = p.n = 64;
      if (validate(v, p, simulator_model().limits())) p.m = p.k = p.n = 32;
      row.params = "n=" + std::to_string(p.n) + ((v.uses & kUsesTile) ? " T=16" : "") +
                   ((v.uses & kUsesBlock) ? " block 16x16" : "");
    } else {
      p.length = 4096;
      p.radius = 3;
      p.block = 256;
      row.params = "length 4096, R=3, block 256";
    }
    req.params = p;
    req.backend = BackendChoice::Auto;  // the GPU's own trace where there is one
    const RunResult r = run(req);
    if (!r.ok) {
      row.error = r.error;
    } else {
      row.counts = perf_access_counts(r.trace);
      row.correct = r.verdict.correct;
      row.backend = r.trace.config.backend == BackendKind::Cuda ? "GPU" : "simulator";
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ts::app
