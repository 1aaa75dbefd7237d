#include "io/ladder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ts {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// The parameters the sweep times a step at (engine/cuda/perf_cuda.cu's
// point_params): the lesson's defaults, n x n x n, the tile or block side.
Params step_params(const LessonInfo& v, int size, int tile) {
  Params p = v.defaults;
  p.m = p.k = p.n = size;
  if (v.uses & kUsesTile) p.tile = tile;
  if (v.uses & kUsesBlock) p.block = tile;
  return p;
}

// The tile a step is counted at where the report has no result: its tuned one.
int tuned_tile(const LessonInfo& v) {
  if (!(v.uses & (kUsesTile | kUsesBlock))) return 0;
  const std::vector<int> t = lesson_kit::tile_values(v);
  return t.empty() ? 0 : t.back();
}

void count_traffic(const LessonInfo& v, int size, int tile, LadderPoint& x) {
  const Params p = step_params(v, size, tile);
  // A size or tile the step refuses has no closed form. Only the lesson's own
  // check: the GPU may opt in to more shared memory than the default limits.
  if (check_lesson_limits(v, p, DeviceLimits{})) return;
  const double flops = flop_count(v, p);
  if (!(flops > 0)) return;
  const double global = issued_bytes(v, p);
  if (global > 0) x.global_intensity = flops / global;
  const ExpectedCounts e = expected_counts(v, p);
  x.shared_bytes_per_flop = 4.0 * double(e.shared_loads + e.shared_stores) / flops;
}

std::string short_title(const LessonInfo& v) {
  const std::string id = v.id;
  const auto dot = id.find('.');
  return dot == std::string::npos ? id : id.substr(dot + 1);
}

std::string ratio(double r) {
  return r >= 10 ? fmt("%.0fx", r) : fmt("%.1fx", r);
}

// Why a step helps, from its traffic against the step before's.
std::string why(const LadderPoint& now, const LadderPoint* before, const LessonInfo& v) {
  std::string s;
  if (before) {
    std::vector<std::string> parts;
    if (now.global_intensity > 0 && before->global_intensity > 0) {
      const double r = now.global_intensity / before->global_intensity;
      if (r > 1.05)
        parts.push_back(ratio(r) + " fewer global bytes per flop (" +
                        fmt("%.3g", now.global_intensity) + " flop/B): operands are reused from " +
                        "on-chip memory instead of reloaded");
      else if (r < 0.95)
        parts.push_back(ratio(1 / r) + " more global bytes per flop");
    }
    if (now.shared_bytes_per_flop > 0 && before->shared_bytes_per_flop > 0) {
      const double r = before->shared_bytes_per_flop / now.shared_bytes_per_flop;
      if (r > 1.05)
        parts.push_back(ratio(r) + " fewer shared-memory bytes per flop (" +
                        fmt("%.3g", now.shared_bytes_per_flop) +
                        " B/flop): each value read from shared memory feeds several FMAs "
                        "from registers");
    } else if (now.shared_bytes_per_flop > 0 && before->shared_bytes_per_flop == 0) {
      parts.push_back("stages operands in shared memory");
    }
    if (parts.empty())
      parts.push_back(
          "the same bytes per flop as the step before: the gain is in how the accesses are "
          "served (coalescing, vector width, bank conflicts, latency hiding)");
    for (size_t i = 0; i < parts.size(); ++i)
      s += (i ? "; " : "") + parts[i];
    s += ". ";
  }
  s += v.summary;
  return s;
}

// A bandwidth step against the one before it: its speed-up, then its summary.
std::string bandwidth_why(const LadderPoint* now, const LadderPoint* before, const LessonInfo& v) {
  std::string s;
  if (now && before && now->counted && before->counted && before->gbps > 0)
    s = ratio(now->gbps / before->gbps) + " the step before's bandwidth. ";
  return s + v.summary;
}

// The family's library lines: each anchor's best counted GB/s per size.
std::vector<LibraryLine> library_lines(const PerfReport& r, const std::string& family,
                                       const std::vector<int>& sizes) {
  std::vector<LibraryLine> out;
  for (const LibraryAnchor* a : library_anchors_of(family)) {
    LibraryLine l;
    l.anchor = a;
    for (int n : sizes) {
      double g = 0;
      PerfStatus st = PerfStatus::Skipped;
      std::string reason;
      for (const PerfResult& x : r.results)
        if (x.kernel == a->id && x.size == n) {
          st = x.status;
          if (x.counted())
            g = std::max(g, x.gbps);
          else
            reason = x.message;
        }
      l.gbps.push_back(g);
      l.status.push_back(st);
      l.why.push_back(reason);
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

std::vector<std::string> ladders() {
  std::vector<std::string> out;
  for (const LessonInfo& v : all_lessons())
    if (v.ladder && std::find(out.begin(), out.end(), v.ladder) == out.end())
      out.push_back(v.ladder);
  return out;
}

std::vector<const LessonInfo*> ladder_lessons(const std::string& ladder) {
  std::vector<const LessonInfo*> out;
  for (const LessonInfo& v : all_lessons())
    if (v.ladder && ladder == v.ladder) out.push_back(&v);
  std::stable_sort(out.begin(), out.end(), [](const LessonInfo* a, const LessonInfo* b) {
    return a->ladder_step < b->ladder_step;
  });
  if (out.empty())  // a family's own ladder: its lessons as the catalogue lists them
    for (const LessonInfo& v : all_lessons())
      if (ladder == v.family) out.push_back(&v);
  return out;
}

std::vector<std::string> ladder_names() {
  std::vector<std::string> out = ladders();
  for (const char* f : families())
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  return out;
}

namespace {
// --input other than the lessons' own is a library line's input: refused
// for a ladder whose library lines are not timed on it (its table would set
// lessons on one input beside a library line on another).
std::optional<std::string> input_error(const std::string& name, const std::string& family,
                                       LibraryInput input) {
  if (input == LibraryInput::SmallIntegers) return std::nullopt;
  std::string takers;
  for (const LibraryAnchor& a : kLibraryAnchors) {
    if (a.input != input) continue;
    if (a.family == family) return std::nullopt;
    if (takers.find(a.family) == std::string::npos)
      takers += (takers.empty() ? "" : ", ") + std::string(a.family);
  }
  const std::string in = to_string(input);
  return "--input " + in + ": the " + name + " ladder has no library line timed on " + in +
         " input (" +
         (takers.empty() ? std::string("no ladder has") : "only the " + takers + " one has") +
         "); leave --input out for it";
}
}  // namespace

std::optional<std::string> ladder_config(const std::string& name, const std::vector<int>& sizes,
                                         const std::vector<int>& lengths, PerfConfig& c,
                                         std::vector<int>& chart_sizes) {
  const std::vector<const LessonInfo*> steps = ladder_lessons(name);
  if (steps.empty()) {
    std::string names;
    for (const std::string& n : ladder_names())
      names += (names.empty() ? "" : ", ") + n;
    return "no ladder '" + name + "': a ladder is one of " + names;
  }
  const bool flops = steps.front()->metric == PerfMetric::Flops;
  if (flops && !lengths.empty())
    return "the " + name + " ladder times multiplies: give --sizes (n), not --lengths";
  if (!flops && !sizes.empty())
    return "the " + name + " ladder moves elements: give --lengths, not --sizes (n)";
  if (auto e = input_error(name, steps.front()->family, c.bandwidth_input)) return e;
  c.kernels.clear();
  for (const LessonInfo* v : steps)
    c.kernels.push_back(v->id);
  if (flops) {
    c.matmul_sizes =
        sizes.empty() ? std::vector<int>(std::begin(kLadderSizes), std::end(kLadderSizes)) : sizes;
    chart_sizes = c.matmul_sizes;
  } else {
    c.stencil_lengths = lengths.empty() ? std::vector<int>(std::begin(kFamilyLadderLengths),
                                                           std::end(kFamilyLadderLengths))
                                        : lengths;
    chart_sizes = c.stencil_lengths;
  }
  return std::nullopt;
}

bool LadderChart::any_counted() const {
  for (const LadderStep& s : steps)
    for (const LadderPoint& p : s.points)
      if (p.counted) return true;
  return false;
}

const LadderPoint* LadderChart::at(size_t step, int size) const {
  if (step >= steps.size()) return nullptr;
  for (const LadderPoint& p : steps[step].points)
    if (p.size == size) return &p;
  return nullptr;
}

LadderChart ladder_chart(const PerfReport& r, const std::string& ladder) {
  return ladder_chart(r, ladder,
                      std::vector<int>(std::begin(kLadderSizes), std::end(kLadderSizes)));
}

LadderChart ladder_chart(const PerfReport& report, const std::string& ladder,
                         const std::vector<int>& sizes) {
  PerfReport r = report;
  derive_metrics(r);
  LadderChart c;
  c.ladder = ladder;
  c.sizes = sizes;
  c.fp32_peak_gflops = r.device.fp32_peak_gflops;
  c.table_size = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  for (int n : sizes) {
    double g = 0;
    for (const PerfResult& x : r.results)
      if (x.kernel == kCublasId && x.size == n && x.counted()) g = std::max(g, x.gflops);
    c.cublas_gflops.push_back(g);
  }
  const std::vector<const LessonInfo*> lessons = ladder_lessons(ladder);
  if (!lessons.empty()) c.metric = lessons.front()->metric;
  const bool flops = c.metric == PerfMetric::Flops;
  c.copy_gbps = r.device.copy_gbps;
  c.input = r.config.bandwidth_input;
  if (!flops) c.library = library_lines(r, lessons.front()->family, sizes);
  int step = 0;
  for (const LessonInfo* v : lessons) {
    LadderStep s;
    s.lesson = v;
    s.step = v->ladder_step > 0 ? v->ladder_step : ++step;  // a family's: its place in the list
    s.short_title = short_title(*v);
    for (size_t i = 0; i < sizes.size(); ++i) {
      LadderPoint p;
      p.size = sizes[i];
      const PerfResult* best = nullptr;
      for (const PerfResult& x : r.results)
        if (x.kernel == v->id && x.size == p.size && x.counted() && (!flops || x.flops > 0) &&
            (!best || (flops ? x.gflops > best->gflops : x.gbps > best->gbps)))
          best = &x;
      if (best) {
        p.counted = true;
        p.tile = best->tile;
        p.gflops = best->gflops;
        p.pct_peak = best->pct_peak;
        p.gbps = best->gbps;
        p.pct_copy = best->pct_copy;
        if (c.cublas_gflops[i] > 0) p.pct_cublas = 100.0 * p.gflops / c.cublas_gflops[i];
        if (!c.library.empty() && c.library.front().gbps[i] > 0)
          p.pct_library = 100.0 * p.gbps / c.library.front().gbps[i];
      }
      if (flops) count_traffic(*v, p.size, best ? best->tile : tuned_tile(*v), p);
      s.points.push_back(p);
    }
    c.steps.push_back(std::move(s));
  }
  // Why each step helps: its traffic at the table's size against the step
  // before's (a multiply), its bandwidth against the step before's (a family).
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LadderPoint* now = c.at(i, c.table_size);
    const LadderPoint* before = i ? c.at(i - 1, c.table_size) : nullptr;
    const LessonInfo& v = *c.steps[i].lesson;
    if (!flops)
      c.steps[i].why = bandwidth_why(now, before, v);
    else
      c.steps[i].why = now ? why(*now, before, v) : v.summary;
  }
  return c;
}

namespace {

// A bandwidth family's table: GB/s per step and size, % of the copy and of
// the library at the largest size, then the library's lines and the copy's.
std::string format_bandwidth_table(const LadderChart& c) {
  std::ostringstream o;
  o << "The " << c.ladder << " family, step by step, against the copy and the library (GB/s: "
    << "every input read once and every output written once, per second).\n";
  char line[512];
  auto num = [](double v, const char* f) { return v > 0 ? fmt(f, v) : std::string("-"); };
  const std::string at = std::to_string(c.table_size);
  std::snprintf(line, sizeof line, "%4s  %-34s", "step", "lesson");
  o << line;
  for (int n : c.sizes) {
    std::snprintf(line, sizeof line, " %14s", ("GB/s " + std::to_string(n)).c_str());
    o << line;
  }
  std::snprintf(line, sizeof line, " %14s %14s\n", ("%copy " + at).c_str(),
                ("%library " + at).c_str());
  o << line;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LadderStep& s = c.steps[i];
    std::snprintf(line, sizeof line, "%4d  %-34s", s.step, s.lesson->id);
    o << line;
    for (int n : c.sizes) {
      const LadderPoint* p = c.at(i, n);
      std::snprintf(line, sizeof line, " %14s", num(p && p->counted ? p->gbps : 0, "%.1f").c_str());
      o << line;
    }
    const LadderPoint* t = c.at(i, c.table_size);
    std::snprintf(line, sizeof line, " %14s %14s\n", num(t ? t->pct_copy : 0, "%.1f").c_str(),
                  num(t ? t->pct_library : 0, "%.1f").c_str());
    o << line;
  }
  const size_t last =
      c.sizes.empty() ? 0
                      : size_t(std::max_element(c.sizes.begin(), c.sizes.end()) - c.sizes.begin());
  for (const LibraryLine& l : c.library) {
    std::snprintf(line, sizeof line, "%4s  %-34s", "lib", l.anchor->id);
    o << line;
    for (size_t k = 0; k < c.sizes.size(); ++k) {
      const std::string v = l.gbps[k] > 0                        ? fmt("%.1f", l.gbps[k])
                            : l.status[k] == PerfStatus::Skipped ? "-"
                                                                 : to_string(l.status[k]);
      std::snprintf(line, sizeof line, " %14s", v.c_str());
      o << line;
    }
    const double pct = !c.sizes.empty() && c.copy_gbps > 0 ? 100.0 * l.gbps[last] / c.copy_gbps : 0;
    std::snprintf(line, sizeof line, " %14s %14s\n", num(pct, "%.1f").c_str(), "");
    o << line;
  }
  std::snprintf(line, sizeof line, "%4s  %-34s", "", "copy (device to device)");
  o << line;
  for (size_t k = 0; k < c.sizes.size(); ++k) {
    std::snprintf(line, sizeof line, " %14s", num(c.copy_gbps, "%.1f").c_str());
    o << line;
  }
  o << "\n";
  o << "Steps on "
    << (c.input == LibraryInput::SmallIntegers
            ? std::string("the lessons' own inputs (integers in [-4, 4])")
            : std::string("the input ") + to_string(c.input))
    << "; the copy: cudaMemcpy device to device in the same run, read + write.\n";
  for (const LibraryLine& l : c.library)
    o << "library " << l.anchor->id << ": " << l.anchor->title << ", " << l.anchor->note << ".\n";
  if (c.library.empty())
    o << "library: none timed for this family; the copy is the line to reach.\n";
  else if (c.library.front().gbps.empty() || c.library.front().gbps[last] <= 0) {
    const LibraryLine& l = c.library.front();
    const std::string reason = last < l.why.size() ? l.why[last] : std::string();
    if (!reason.empty())  // run, but not counted: skipped (the library is missing) or wrong
      o << "library " << l.anchor->id << ": " << reason << ".\n";
    else
      o << "library: not measured in this report (tilescope-cli bench --ladder " << c.ladder
        << " times it).\n";
  } else
    o << "%library: of the first library line, at " << at << " elements.\n";
  return o.str();
}

}  // namespace

std::string format_ladder_table(const LadderChart& c) {
  if (c.metric == PerfMetric::Bytes) return format_bandwidth_table(c);
  std::ostringstream o;
  o << "The road to cuBLAS (the " << c.ladder << " ladder). " << kLadderMathNote << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%4s  %-28s", "step", "lesson");
  o << line;
  for (int n : c.sizes) {
    std::snprintf(line, sizeof line, " %13s", ("GFLOP/s " + std::to_string(n)).c_str());
    o << line;
  }
  std::snprintf(line, sizeof line, " %12s %12s %12s\n",
                ("%cuBLAS " + std::to_string(c.table_size)).c_str(), "flop/glob B", "smem B/flop");
  o << line;
  auto num = [](double v, const char* f) { return v > 0 ? fmt(f, v) : std::string("-"); };
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LadderStep& s = c.steps[i];
    std::snprintf(line, sizeof line, "%4d  %-28s", s.step, s.lesson->id);
    o << line;
    for (int n : c.sizes) {
      const LadderPoint* p = c.at(i, n);
      std::snprintf(line, sizeof line, " %13s",
                    num(p && p->counted ? p->gflops : 0, "%.1f").c_str());
      o << line;
    }
    const LadderPoint* t = c.at(i, c.table_size);
    std::snprintf(line, sizeof line, " %12s %12s %12s\n",
                  num(t ? t->pct_cublas : 0, "%.1f").c_str(),
                  num(t ? t->global_intensity : 0, "%.3g").c_str(),
                  num(t ? t->shared_bytes_per_flop : 0, "%.3g").c_str());
    o << line;
  }
  std::snprintf(line, sizeof line, "%4s  %-28s", "", "cuBLAS");
  o << line;
  for (size_t i = 0; i < c.sizes.size(); ++i) {
    std::snprintf(line, sizeof line, " %13s", num(c.cublas_gflops[i], "%.1f").c_str());
    o << line;
  }
  o << "\n";
  if (c.fp32_peak_gflops > 0) o << "FP32 peak " << fmt("%.1f", c.fp32_peak_gflops) << " GFLOP/s.\n";
  o << "flop/glob B: flops per byte the step loads and stores in global memory; smem B/flop: "
    << "shared-memory bytes per flop (closed-form counts at n = " << c.table_size << ").\n";
  return o.str();
}

}  // namespace ts
