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
  return out;
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
  for (const LessonInfo* v : ladder_lessons(ladder)) {
    LadderStep s;
    s.lesson = v;
    s.step = v->ladder_step;
    s.short_title = short_title(*v);
    for (size_t i = 0; i < sizes.size(); ++i) {
      LadderPoint p;
      p.size = sizes[i];
      const PerfResult* best = nullptr;
      for (const PerfResult& x : r.results)
        if (x.kernel == v->id && x.size == p.size && x.counted() && x.flops > 0 &&
            (!best || x.gflops > best->gflops))
          best = &x;
      if (best) {
        p.counted = true;
        p.tile = best->tile;
        p.gflops = best->gflops;
        p.pct_peak = best->pct_peak;
        if (c.cublas_gflops[i] > 0) p.pct_cublas = 100.0 * p.gflops / c.cublas_gflops[i];
      }
      count_traffic(*v, p.size, best ? best->tile : tuned_tile(*v), p);
      s.points.push_back(p);
    }
    c.steps.push_back(std::move(s));
  }
  // Why each step helps: its traffic at the table's size against the step before's.
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LadderPoint* now = c.at(i, c.table_size);
    const LadderPoint* before = i ? c.at(i - 1, c.table_size) : nullptr;
    c.steps[i].why = now ? why(*now, before, *c.steps[i].lesson) : c.steps[i].lesson->summary;
  }
  return c;
}

std::string format_ladder_table(const LadderChart& c) {
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
