// The performance sweep's plain-data side that the engine needs: the
// configuration and its defaults, which lessons it selects, the work of a
// run, derived metrics, and the background runner the app uses.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "engine/perf.hpp"

namespace ts {

// ---------------------------------------------------------------- config

PerfConfig default_perf_config() {
  return resolved(PerfConfig{});
}

PerfConfig resolved(const PerfConfig& c) {
  PerfConfig r = c;
  if (r.kernels.empty()) r.kernels = {"all"};
  if (r.matmul_sizes.empty())
    for (int n = 128; n <= 4096; n *= 2)
      r.matmul_sizes.push_back(n);
  if (r.stencil_lengths.empty())
    for (int e = 16; e <= 26; e += 2)
      r.stencil_lengths.push_back(1 << e);
  if (r.tiles.empty()) r.tiles = {8, 16, 32};
  return r;
}

namespace {
bool selects(const std::string& name, const LessonInfo& v) {
  const std::string id = v.id;
  if (name == "all" || name == id) return true;
  if (name == v.family) return true;
  if (!name.empty() && name.back() == '*')
    return id.compare(0, name.size() - 1, name, 0, name.size() - 1) == 0;
  return false;
}
bool is_reference_name(const std::string& n) {
  return n == kCublasId || n == kCopyId || find_library_anchor(n);
}
}  // namespace

std::vector<const LessonInfo*> selected_lessons(const PerfConfig& c) {
  const PerfConfig r = resolved(c);
  std::vector<const LessonInfo*> out;
  for (const LessonInfo& v : all_lessons())
    for (const auto& name : r.kernels)
      if (selects(name, v)) {
        out.push_back(&v);
        break;
      }
  return out;
}

namespace {
std::string family_names() {
  std::string s;
  for (const char* f : families())
    s += (s.empty() ? "" : ", ") + std::string(f);
  return s;
}
}  // namespace

std::optional<std::string> validate_perf_config(const PerfConfig& c) {
  const PerfConfig r = resolved(c);
  for (const auto& name : r.kernels) {
    if (is_reference_name(name)) continue;
    bool any = false;
    for (const LessonInfo& v : all_lessons())
      any = any || selects(name, v);
    if (!any)
      return unknown_lesson(name) + "; or all, a family (" + family_names() +
             ") or a prefix ending in *";
  }
  // int indices in the kernels: n * n and length must fit in 31 bits.
  for (int n : r.matmul_sizes)
    if (n < 1 || n > 32768)
      return "matmul size " + std::to_string(n) + " is out of range: allowed 1 .. 32768";
  for (int len : r.stencil_lengths)
    if (len < 1 || len > (1 << 30))
      return "length " + std::to_string(len) + " is out of range: allowed 1 .. 2^30";
  // The tile widths, and the block tiles of lessons that have their own (the SGEMM ladder).
  std::vector<int> compiled(std::begin(kTileWidths), std::end(kTileWidths));
  for (const LessonInfo& v : all_lessons())
    compiled.insert(compiled.end(), v.tile_choices.begin(), v.tile_choices.end());
  std::sort(compiled.begin(), compiled.end());
  compiled.erase(std::unique(compiled.begin(), compiled.end()), compiled.end());
  for (int t : r.tiles) {
    if (std::find(compiled.begin(), compiled.end(), t) == compiled.end()) {
      std::string allowed;
      for (int w : compiled)
        allowed += (allowed.empty() ? "" : ", ") + std::to_string(w);
      return "tile " + std::to_string(t) + " is not instantiated: allowed " + allowed;
    }
  }
  if (r.reps < 1 || r.reps > 1000)
    return "reps " + std::to_string(r.reps) + " is out of range: allowed 1 .. 1000";
  if (r.warmup < 0 || r.warmup > 100)
    return "warmup " + std::to_string(r.warmup) + " is out of range: allowed 0 .. 100";
  if (r.stencil_radius < 0 || r.stencil_radius > 1024)
    return "radius " + std::to_string(r.stencil_radius) +
           " is out of range: allowed 0 (each lesson's own) .. 1024";
  if (r.stencil_block < 0 || r.stencil_block > 1024)
    return "block " + std::to_string(r.stencil_block) +
           " is out of range: allowed 0 (each lesson's own) .. 1024";
  if (!(r.max_seconds_per_point > 0)) return "max seconds per point must be positive";
  return std::nullopt;
}

// ---------------------------------------------------------------- metrics

const char* to_string(PerfStatus s) {
  switch (s) {
    case PerfStatus::Ok:
      return "ok";
    case PerfStatus::Wrong:
      return "wrong";
    case PerfStatus::Skipped:
      return "skipped";
    case PerfStatus::Error:
      return "error";
  }
  return "?";
}

std::string PerfResult::label() const {
  if (tile > 0) return kernel + " T" + std::to_string(tile);
  return kernel;
}

double flop_count(PerfMetric f, const Params& p) {
  if (f == PerfMetric::Flops) return 2.0 * double(p.m) * double(p.n) * double(p.k);
  // 2R adds and one multiply (by 1 / (2R + 1)) per output element.
  return double(p.length) * double(2 * p.radius + 1);
}

double compulsory_bytes(PerfMetric f, const Params& p) {
  if (f == PerfMetric::Flops)
    return 4.0 * (double(p.m) * p.k + double(p.k) * p.n + double(p.m) * p.n);
  return 4.0 * 2.0 * double(p.length);
}

double flop_count(const LessonInfo& v, const Params& p) {
  return v.flops ? v.flops(p) : 0.0;
}

double compulsory_bytes(const LessonInfo& v, const Params& p) {
  double bytes = 0;  // every global array once: the inputs read, the outputs written
  for (const ArrayInfo& a : arrays(v, p))
    if (!a.shared()) bytes += double(a.count()) * a.elem_bytes;
  return bytes;
}

double issued_bytes(const LessonInfo& v, const Params& p) {
  // The closed form divides by the tile and the block: parameters a report
  // could carry as 0 (or garbage) count nothing rather than crash.
  for (const ArrayInfo& a : arrays(v, p))
    if (a.rows <= 0 || a.cols <= 0) return 0;
  if ((v.uses & kUsesTile) && p.tile <= 0) return 0;
  if ((v.uses & kUsesRadius) && p.radius < 0) return 0;
  Params q = p;
  if ((v.uses & kUsesBlock) && p.block <= 0) {
    // Without a block: countable only where the count does not depend on it
    // (the naive kernels' does not; the halo stencils' does).
    Params one = p, two = p;
    one.block = 1, two.block = 2;
    const ExpectedCounts a = expected_counts(v, one), b = expected_counts(v, two);
    if (a.global_loads != b.global_loads || a.global_stores != b.global_stores ||
        a.global_atomics != b.global_atomics)
      return 0;
    q = one;
  }
  const ExpectedCounts e = expected_counts(v, q);
  // An atomic reads its element and writes it back.
  return 4.0 * (double(e.global_loads) + double(e.global_stores) + 2.0 * double(e.global_atomics));
}

int fp32_cores_per_sm(int major, int minor) {
  if (major >= 9) return 128;
  if (major == 8) return minor == 0 ? 64 : 128;
  if (major == 7) return 64;
  if (major == 6) return minor == 0 ? 64 : 128;
  if (major == 5) return 128;
  return 192;  // Kepler
}

double issued_intensity_of(const PerfResult& x) {
  const LessonInfo* v = find_lesson(x.kernel);
  if (!v || !(x.flops > 0)) return 0;
  const double bytes = issued_bytes(*v, x.params);
  return bytes > 0 ? x.flops / bytes : 0;
}

double fp32_peak_gflops(int sm_count, int cores_per_sm, int clock_khz) {
  return double(sm_count) * cores_per_sm * 2.0 * double(clock_khz) * 1e3 / 1e9;
}

void derive_metrics(PerfReport& r) {
  std::map<int, double> cublas_ms;  // n -> median ms
  for (const auto& x : r.results)
    if (x.kernel == kCublasId && x.counted()) cublas_ms[x.size] = x.ms_median;
  for (auto& x : r.results) {
    x.gflops = x.gbps = x.intensity = x.issued_intensity = x.pct_cublas = x.pct_copy = x.pct_peak =
        0;
    if (x.compulsory_bytes > 0) x.intensity = x.flops / x.compulsory_bytes;
    x.issued_intensity = issued_intensity_of(x);
    if (!x.counted()) continue;
    const double s = x.ms_median * 1e-3;
    x.gflops = x.flops / s / 1e9;
    x.gbps = x.compulsory_bytes / s / 1e9;
    if (x.metric == PerfMetric::Flops && x.kernel != kCopyId) {
      auto it = cublas_ms.find(x.size);
      if (it != cublas_ms.end()) x.pct_cublas = 100.0 * it->second / x.ms_median;
    }
    if (r.device.copy_gbps > 0) x.pct_copy = 100.0 * x.gbps / r.device.copy_gbps;
    if (r.device.fp32_peak_gflops > 0) x.pct_peak = 100.0 * x.gflops / r.device.fp32_peak_gflops;
  }
}

// ---------------------------------------------------------------- JSON
// ---------------------------------------------------------------- background

BackgroundSweep::~BackgroundSweep() {
  cancel();
  if (thread_.joinable()) thread_.join();
}

bool BackgroundSweep::start(const PerfConfig& config) {
  if (running_.load()) return false;
  if (thread_.joinable()) thread_.join();
  control_ = std::make_unique<SweepControl>();
  {
    std::lock_guard lock(mu_);
    partial_.clear();
    report_.reset();
  }
  control_->on_result = [this](const PerfResult& x) {
    std::lock_guard lock(mu_);
    partial_.push_back(x);
  };
  running_ = true;
  thread_ = std::thread([this, config] {
    PerfReport r = run_perf_sweep(config, control_.get());
    {
      std::lock_guard lock(mu_);
      report_ = std::move(r);
    }
    running_ = false;
  });
  return true;
}

void BackgroundSweep::cancel() {
  if (control_) control_->cancel = true;
}

float BackgroundSweep::progress() const {
  if (!control_) return 0.f;
  const int total = control_->total.load();
  return total > 0 ? std::clamp(float(control_->done.load()) / float(total), 0.f, 1.f) : 0.f;
}

std::string BackgroundSweep::current() const {
  return control_ ? control_->current_label() : std::string();
}

std::vector<PerfResult> BackgroundSweep::partial() const {
  std::lock_guard lock(mu_);
  return partial_;
}

std::optional<PerfReport> BackgroundSweep::take() {
  if (running_.load()) return std::nullopt;
  std::lock_guard lock(mu_);
  std::optional<PerfReport> r = std::move(report_);
  report_.reset();
  return r;
}

Params point_params(const LessonInfo& v, const PerfConfig& c, int size, int tile) {
  Params p = v.timed;
  if (v.metric == PerfMetric::Flops) {
    p.m = p.k = p.n = size;
    if (v.uses & kUsesTile) p.tile = tile;
    if (v.uses & kUsesBlock) p.block = tile;  // the naive grid's block side
    return p;
  }
  if ((v.uses & kUsesRadius) && c.stencil_radius > 0) p.radius = c.stencil_radius;
  if ((v.uses & kUsesBlock) && c.stencil_block > 0) p.block = c.stencil_block;
  if (v.uses & kUsesLength) {
    p.length = size;
  } else {
    int side = 1;
    while (int64_t(side + 1) * (side + 1) <= size)
      ++side;
    p.m = p.k = p.n = side;
  }
  return p;
}

std::vector<int> point_tiles(const LessonInfo& v, const PerfConfig& c) {
  if (v.metric != PerfMetric::Flops || !(v.uses & (kUsesTile | kUsesBlock))) return {0};
  if (v.tile_choices.empty()) return c.tiles;
  std::vector<int> run;
  for (int t : v.tile_choices)
    if (t == v.tile_choices.back() || std::find(c.tiles.begin(), c.tiles.end(), t) != c.tiles.end())
      run.push_back(t);
  return run;
}

}  // namespace ts
