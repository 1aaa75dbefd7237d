#include "app/perf/perf_runs.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "app/perf/plot.hpp"
#include "io/ladder.hpp"

namespace ts::app {

SweepChoices SweepChoices::defaults() {
  SweepChoices c;
  // A kernel that cannot run at the sweep's smallest size (the naive
  // one-block multiply stops at 32 x 32) is off by default.
  const DeviceLimits lim = simulator_model().limits();
  for (const LessonInfo& v : all_lessons()) {
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
  const auto cat = all_lessons();
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
      const LessonInfo* v = find_lesson(k);
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
  for (const LessonInfo& v : all_lessons()) {
    CountRow row;
    row.kernel = v.id;
    RunRequest req;
    req.lesson_id = v.id;
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

namespace {

// "matmul, sgemm at n = 1024, 2048, 4096": what a report holds, from its results.
std::string describe_report(const PerfReport& r) {
  std::string s;
  for (const std::string& f : report_families(r))
    s += (s.empty() ? "" : ", ") + f;
  std::set<int> sizes, lengths;
  for (const PerfResult& x : r.results)
    if (x.counted() && x.kernel != kCopyId)
      (x.metric == PerfMetric::Flops ? sizes : lengths).insert(x.size);
  auto list = [](const std::set<int>& v) {
    std::string l;
    for (int n : v)
      l += (l.empty() ? "" : ", ") + size_label(n);
    return l;
  };
  if (!sizes.empty()) s += " at n = " + list(sizes);
  if (!lengths.empty()) s += (sizes.empty() ? " at " : "; ") + list(lengths) + " elements";
  return s.empty() ? "no counted results" : s;
}

// A ladder is charted when at least three of its steps were timed.
bool charts_a_ladder(const PerfReport& r) {
  for (const std::string& l : ladders()) {
    int steps = 0;
    for (const LessonInfo* v : ladder_lessons(l))
      steps += std::any_of(r.results.begin(), r.results.end(),
                           [&](const PerfResult& x) { return x.counted() && x.kernel == v->id; });
    if (steps >= 3) return true;
  }
  return false;
}

}  // namespace

std::vector<ShippedReport> shipped_reports() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec).parent_path();
  std::vector<fs::path> dirs = {fs::path(TS_SOURCE_DIR) / "docs"};
  if (!exe.empty())
    for (const fs::path& p : {exe / "share/tilescope/docs", exe / "../share/tilescope/docs"})
      dirs.push_back(p);
  dirs.push_back("share/tilescope/docs");
  dirs.push_back("docs");
  std::vector<ShippedReport> out;
  std::set<std::string> names;  // the first copy of a file found wins
  for (const fs::path& d : dirs) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(d, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("perf_", 0) == 0 && is_perf_report_path(n)) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      if (!names.insert(f.filename().string()).second) continue;
      std::string err;
      auto r = load_report(f.string(), &err);  // the one way reports are read (io/perf_report)
      if (!r || r->results.empty()) continue;
      derive_metrics(*r);
      ShippedReport s;
      s.path = f.lexically_normal().string();
      s.gpu = r->device.name.empty() ? "no GPU" : r->device.name;
      s.date = r->created.substr(0, r->created.find('T'));
      s.what = describe_report(*r);
      s.ladder = charts_a_ladder(*r);
      s.report = std::move(*r);
      out.push_back(std::move(s));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const ShippedReport& a, const ShippedReport& b) {
    if (a.date != b.date) return a.date > b.date;
    return a.ladder > b.ladder;
  });
  return out;
}

}  // namespace ts::app
