// Performance: honest timings of the untraced kernels against cuBLAS, the
// measured copy bandwidth and the FP32 peak (kernels/perf.hpp does the work;
// this file only draws). The sweep runs in a background thread with a
// progress bar and Cancel; results can be saved, loaded, compared with an
// earlier run and exported. Plots are drawn with ImDrawList (no ImPlot on
// Debian). Without a GPU the panel says so and shows access counts from
// simulator traces, which need none.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "app/palette.hpp"
#include "app/view.hpp"
#include "kernels/backend.hpp"
#include "kernels/perf.hpp"

namespace ts::app {

namespace {

// Okabe-Ito: tells apart for colour-blind viewers, on dark and light themes.
// Yellow comes last: it reads poorly on the light theme.
// Dark blue after the brighter ones: it reads poorly on the dark theme.
constexpr ImU32 kSeriesColours[] = {IM_COL32(230, 159, 0, 255),   IM_COL32(86, 180, 233, 255),
                                    IM_COL32(0, 158, 115, 255),   IM_COL32(213, 94, 0, 255),
                                    IM_COL32(204, 121, 167, 255), IM_COL32(0, 114, 178, 255),
                                    IM_COL32(240, 228, 66, 255),  IM_COL32(160, 160, 160, 255)};
ImU32 series_colour(size_t i) {
  return kSeriesColours[i % (sizeof kSeriesColours / sizeof(ImU32))];
}

// WCAG: relative luminance of an sRGB colour and the contrast ratio of two.
double luminance(ImU32 c) {
  auto lin = [](unsigned v) {
    const double x = v / 255.0;
    return x <= 0.03928 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c & 255) + 0.7152 * lin((c >> 8) & 255) + 0.0722 * lin((c >> 16) & 255);
}
double contrast(ImU32 a, ImU32 b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
// A series colour for text on `bg`: darkened on a light background, lightened
// on a dark one, just enough for 4.5 : 1 (WCAG AA). Okabe-Ito yellow and orange
// keep their hue but become readable on the light theme.
ImU32 text_safe(ImU32 c, ImU32 bg) {
  const bool light = luminance(bg) > 0.3;
  ImU32 out = c;
  for (int i = 1; i <= 20 && contrast(out, bg) < 4.5; ++i) {
    const float f = i / 20.0f;
    auto mix = [&](int shift) {
      const float v = float((c >> shift) & 255);
      return unsigned(std::lround(light ? v * (1 - f) : v + (255 - v) * f)) << shift;
    };
    out = mix(0) | mix(8) | mix(16) | (c & 0xFF000000u);
  }
  return out;
}

// A status colour (ImVec4) made readable on the window's background, as text_safe.
ImVec4 readable(ImVec4 c) {
  const ImU32 safe =
      text_safe(ImGui::ColorConvertFloat4ToU32(c), ImGui::GetColorU32(ImGuiCol_WindowBg));
  return ImGui::ColorConvertU32ToFloat4(safe);
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string si(double v) {  // 1234 -> "1.23k", 51000 -> "51k"
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt("%.3gG", v / 1e9);
  if (a >= 1e6) return fmt("%.3gM", v / 1e6);
  if (a >= 1e3) return fmt("%.3gk", v / 1e3);
  return fmt("%.3g", v);
}
std::string grouped(uint64_t v) {  // 1200 -> "1,200": exact counts, readable
  const std::string digits = std::to_string(v);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}
std::string size_label(double v) {  // 4096 as is; powers of two as 2^k from 64k on
  const double l = std::log2(v);
  if (v >= 65536 && std::fabs(l - std::round(l)) < 1e-9) return "2^" + std::to_string(int(l));
  if (v < 65536 && v == std::floor(v)) return std::to_string(int64_t(v));
  return si(v);
}

// One row of the access-count table: a variant run traced at a small size.
struct CountRow {
  std::string kernel, params, backend, error;
  AccessCounts counts;
  bool correct = false;
};

std::vector<CountRow> compute_counts() {
  std::vector<CountRow> rows;
  for (const Variant& v : catalogue()) {
    CountRow row;
    row.kernel = v.id;
    RunRequest req;
    req.variant = v.id;
    Params p = v.defaults;
    if (v.family == Family::Matmul) {
      const bool one_block = std::string(v.id) == "matmul.naive_one_block";
      p.m = p.k = p.n = one_block ? 32 : 64;  // one block holds at most 32 x 32 threads
      p.tile = 16;
      p.block = 16;
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

// A plot area: data space <-> screen, log or linear on each axis.
struct Axes {
  ImVec2 lo, hi;  // screen rectangle of the data area
  double x0, x1, y0, y1;
  bool log_x, log_y;
  double tx(double x) const {
    const double a = log_x ? std::log10(x) : x, b0 = log_x ? std::log10(x0) : x0,
                 b1 = log_x ? std::log10(x1) : x1;
    return lo.x + (a - b0) / (b1 - b0) * (hi.x - lo.x);
  }
  double ty(double y) const {
    const double a = log_y ? std::log10(y) : y, b0 = log_y ? std::log10(y0) : y0,
                 b1 = log_y ? std::log10(y1) : y1;
    return hi.y - (a - b0) / (b1 - b0) * (hi.y - lo.y);
  }
  ImVec2 at(double x, double y) const { return ImVec2(float(tx(x)), float(ty(y))); }
  double ix(double px) const {  // screen x -> data x
    const double f = (px - lo.x) / (hi.x - lo.x);
    return log_x ? x0 * std::pow(x1 / x0, f) : x0 + f * (x1 - x0);
  }
};

// Decade ticks for a log axis, round steps for a linear one.
std::vector<double> ticks(double a, double b, bool log) {
  std::vector<double> t;
  // Degenerate ranges (nothing measured yet, a window resized to a sliver) get no ticks.
  if (!(b > a) || !std::isfinite(a) || !std::isfinite(b) || (log && !(a > 0))) return t;
  if (log) {
    for (double d = std::pow(10.0, std::floor(std::log10(a))); d <= b * 1.0001; d *= 10)
      if (d >= a * 0.9999) t.push_back(d);
    return t;
  }
  const double step0 = (b - a) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(step0)));
  const double step = step0 / mag < 2 ? 2 * mag : step0 / mag < 5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(a / step) * step; v <= b * 1.0001 && t.size() < 50; v += step)
    t.push_back(v);
  return t;
}

// Frame, grid and tick labels; returns the axes.
Axes frame(ImDrawList* dl, ImVec2 origin, ImVec2 size, double x0, double x1, double y0, double y1,
           bool log_x, bool log_y, const char* title, const char* xlabel, const char* ylabel,
           const std::vector<double>& xticks, bool x_is_size = true,
           std::vector<PlotMark>* tick_marks = nullptr) {
  const float lh = ImGui::GetTextLineHeight();
  Axes ax{ImVec2(origin.x + 4.5f * lh, origin.y + 1.6f * lh),
          ImVec2(origin.x + size.x - 0.8f * lh, origin.y + size.y - 2.6f * lh),
          x0,
          x1,
          y0,
          y1,
          log_x,
          log_y};
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_TableBorderLight);
  const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
  // A title too wide for a narrow plot keeps only what comes before its colon.
  const float title_x = origin.x + std::max(4.5f * lh, ImGui::CalcTextSize(ylabel).x + lh);
  std::string shown = title;
  if (ImGui::CalcTextSize(title).x > origin.x + size.x - title_x &&
      shown.find(':') != std::string::npos)
    shown.resize(shown.find(':'));
  dl->AddText(ImVec2(title_x, origin.y), text, shown.c_str());
  dl->AddRect(ax.lo, ax.hi, border);
  for (double t : ticks(y0, y1, log_y)) {
    const float y = float(ax.ty(t));
    dl->AddLine(ImVec2(ax.lo.x, y), ImVec2(ax.hi.x, y), grid);
    const std::string s = si(t);
    dl->AddText(ImVec2(ax.lo.x - ImGui::CalcTextSize(s.c_str()).x - 4, y - lh / 2), text,
                s.c_str());
  }
  // Tick labels centred under their line, kept inside the plot's own box (the
  // last one used to be cut at the panel's edge: "10000" read "1000"), and
  // left out where they would run into the one before.
  float last_right = -1e30f;
  for (double t : xticks) {
    const float x = float(ax.tx(t));
    dl->AddLine(ImVec2(x, ax.lo.y), ImVec2(x, ax.hi.y), grid);
    const std::string s = x_is_size ? size_label(t) : (t < 1 ? fmt("%g", t) : si(t));
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    const float left = std::clamp(x - w / 2, origin.x, origin.x + size.x - w);
    if (left < last_right + lh * 0.5f) continue;
    dl->AddText(ImVec2(left, ax.hi.y + 2), text, s.c_str());
    last_right = left + w;
    if (tick_marks) tick_marks->push_back({"", "tick", s, left, ax.hi.y + 2, w, lh, text});
  }
  const float xw = ImGui::CalcTextSize(xlabel).x;
  dl->AddText(ImVec2((ax.lo.x + ax.hi.x - xw) / 2, ax.hi.y + lh + 4), text, xlabel);
  dl->AddText(origin, ImGui::GetColorU32(ImGuiCol_TextDisabled), ylabel);
  return ax;
}

}  // namespace

class PerformanceView final : public View {
 public:
  const char* name() const override { return "Performance"; }
  // Beside the grid in the large centre slot: its plots and tables need the room.
  Slot slot() const override { return Slot::Center; }
  int order() const override { return 50; }
  bool wide() const override { return true; }

  void update(AppState& s) override {
    init_once();  // first: a report asked for below replaces the one found at start
    if (!s.open_perf_report_request.empty()) {
      open_report(s, s.open_perf_report_request);
      s.open_perf_report_request.clear();
    }
    if (sweep_.running() || counts_job_.valid()) s.mark_busy();
    if (auto r = sweep_.take()) {
      message_ = r->cancelled ? "Sweep cancelled: the results measured before the cancel are kept."
                              : (r->error.empty() ? "Sweep finished." : r->error);
      report_ = std::move(*r);
      report_source_ = "this session's sweep";
    }
    if (counts_job_.valid() &&
        counts_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      counts_ = counts_job_.get();
  }

  void draw(AppState& s) override {
    const CudaStatus& gpu = cuda_status();
    ImGui::PushTextWrapPos(0);
    if (report_ && !sweep_.running()) {
      // Where the numbers on screen come from, first: an audience asks.
      const PerfDevice& d = report_->device;
      ImGui::PushFont(static_cast<ImFont*>(s.present.big_font));
      ImGui::Text("Measured on %s%s", d.name.empty() ? "no GPU" : d.name.c_str(),
                  d.usable ? (" (sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) +
                              ", " + std::to_string(d.sm_count) + " SMs)")
                                 .c_str()
                           : "");
      ImGui::PopFont();
      ImGui::TextDisabled("Data: %s%s, recorded %s%s%s.", report_source_.c_str(),
                          report_source_ == "this session's sweep" ? "" : " (a saved report)",
                          report_->created.c_str(), report_->host.empty() ? "" : " on host ",
                          report_->host.c_str());
    }
    if (gpu.usable) {
      ImGui::Text("GPU here: %s (sm_%d%d, %d SMs). Untraced kernels, timed with CUDA events.",
                  gpu.device_name.c_str(), gpu.cc_major, gpu.cc_minor, gpu.sm_count);
    } else if (report_) {
      ImGui::TextDisabled(
          "This machine has no CUDA device: the report can be read and plotted here, not "
          "re-measured.");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", gpu.reason.c_str());
    } else {
      ImGui::TextColored(readable(ImVec4(0.95f, 0.65f, 0.2f, 1)),
                         "No CUDA device: timings need an NVIDIA GPU. Access counts below come "
                         "from the simulator.");
      ImGui::TextDisabled(
          "(%s) A report saved on a GPU machine (tilescope-cli bench --json) can "
          "still be loaded and plotted here.",
          gpu.reason.c_str());
    }
    ImGui::PopTextWrapPos();

    // Controls first where a sweep can run or nothing is shown yet; below the
    // plots when a saved report is being read on a machine without a GPU.
    const bool controls_first = gpu.usable || !report_;
    if (controls_first) {
      draw_controls(gpu.usable);
      draw_files();
      if (!message_.empty()) ImGui::TextWrapped("%s", message_.c_str());
    }

    // While the sweep runs, its rows so far; afterwards, the report.
    PerfReport live;
    const PerfReport* shown = nullptr;
    if (sweep_.running()) {
      live.results = sweep_.partial();
      derive_metrics(live);
      shown = &live;
    } else if (report_) {
      shown = &*report_;
    }
    if (shown && !shown->results.empty()) {
      if (ImGui::CollapsingHeader("Plots", ImGuiTreeNodeFlags_DefaultOpen)) draw_plots(s, *shown);
      if (ImGui::CollapsingHeader("Results", ImGuiTreeNodeFlags_DefaultOpen)) {
        draw_device(*shown);
        draw_results(*shown);
      }
      if (ImGui::CollapsingHeader("Kernels: registers, shared memory, occupancy"))
        draw_attributes(*shown);
    } else if (shown && !shown->error.empty()) {
      ImGui::TextWrapped("%s", shown->error.c_str());
    }
    if (before_ && report_ &&
        ImGui::CollapsingHeader("Comparison with an earlier run", ImGuiTreeNodeFlags_DefaultOpen))
      draw_comparison();
    if (!controls_first) {
      ImGui::Separator();
      draw_files();
      if (!message_.empty()) ImGui::TextWrapped("%s", message_.c_str());
      draw_controls(gpu.usable);
    }
    if (ImGui::CollapsingHeader("Access counts (from traces, no GPU needed)",
                                gpu.usable ? 0 : ImGuiTreeNodeFlags_DefaultOpen))
      draw_counts(s);
  }

 private:
  void init_once() {
    if (initialised_) return;
    initialised_ = true;
    for (const Variant& v : catalogue()) {
      // The lesson-only naive one-block kernel cannot run past 32 x 32: off by default.
      kernel_on_.push_back(std::string(v.id) != "matmul.naive_one_block");
    }
    for (int n = 128; n <= 4096; n *= 2)
      sizes_.push_back({n, true});
    for (int e = 16; e <= 26; e += 2)
      lengths_.push_back({1 << e, true});
    for (int t : kTileWidths)
      tiles_.push_back({t, t >= 8});
    // A report saved under the default name (by this panel, or by `tilescope-cli bench
    // --json tilescope_perf.json` on a GPU machine) is shown at start.
    std::string err;
    if (std::ifstream(path_).good()) {
      if (auto r = load_report(path_, &err)) {
        report_ = std::move(*r);
        derive_metrics(*report_);
        report_source_ = path_;  // the header says where it came from
      } else {
        message_ = err;
      }
    }
  }

  // From File > Open, a drop, --perf-report or `tilescope report.json`. A file
  // that is not a report says why in the banner; the report on screen stays.
  void open_report(AppState& s, const std::string& path) {
    std::string err;
    if (auto r = load_report(path, &err)) {
      report_ = std::move(*r);
      derive_metrics(*report_);
      report_source_ = path;
      std::snprintf(path_, sizeof path_, "%s", path.c_str());  // Save and Compare start from it
      message_.clear();
      s.banner.show(Banner::Info, "Opened the performance report " + path + " (" +
                                      (report_->device.name.empty() ? std::string("no GPU")
                                                                    : report_->device.name) +
                                      ", " + report_->created + ")");
      if (s.select_tab.empty()) s.select_tab = name();  // unless --tab chose another panel
    } else {
      s.banner.show(Banner::Error, "Cannot open the performance report: " + err);
    }
  }

  void draw_controls(bool gpu) {
    if (!ImGui::CollapsingHeader("Sweep", gpu ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
    const auto cat = catalogue();
    ImGui::TextDisabled("Kernels");
    for (size_t i = 0; i < cat.size(); ++i) {
      bool on = kernel_on_[i];
      if (i % 2) ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f);
      if (ImGui::Checkbox(cat[i].id, &on)) kernel_on_[i] = on;
    }
    auto flags = [](const char* label, std::vector<std::pair<int, bool>>& v, bool pow2_label) {
      ImGui::TextDisabled("%s", label);
      for (size_t i = 0; i < v.size(); ++i) {
        ImGui::SameLine();
        std::string l = pow2_label ? size_label(v[i].first) : std::to_string(v[i].first);
        l += "##" + std::string(label) + std::to_string(i);
        ImGui::Checkbox(l.c_str(), &v[i].second);
      }
    };
    flags("matmul n", sizes_, false);
    flags("stencil length", lengths_, true);
    flags("tiles", tiles_, false);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::SliderInt("reps", &reps_, 3, 50);
    ImGui::SameLine();
    ImGui::Checkbox("flush L2 before each launch", &flush_);

    const bool running = sweep_.running();
    ImGui::BeginDisabled(!gpu || running);
    if (ImGui::Button("Run sweep")) start_sweep();
    ImGui::EndDisabled();
    if (!gpu && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("Timings need an NVIDIA GPU; this machine has none.");
    if (running) {
      ImGui::SameLine();
      if (ImGui::Button("Cancel")) sweep_.cancel();
      ImGui::SameLine();
      const std::string cur = sweep_.current();
      ImGui::ProgressBar(sweep_.progress(), ImVec2(-1, 0), cur.c_str());
    }
  }

  void start_sweep() {
    PerfConfig c;
    const auto cat = catalogue();
    for (size_t i = 0; i < cat.size(); ++i)
      if (kernel_on_[i]) c.kernels.push_back(cat[i].id);
    for (auto& [n, on] : sizes_)
      if (on) c.matmul_sizes.push_back(n);
    for (auto& [n, on] : lengths_)
      if (on) c.stencil_lengths.push_back(n);
    for (auto& [t, on] : tiles_)
      if (on) c.tiles.push_back(t);
    c.reps = reps_;
    c.flush_l2 = flush_;
    if (c.kernels.empty() || c.tiles.empty()) {
      message_ = "Choose at least one kernel and one tile width.";
      return;
    }
    // An empty list means "the defaults": say none explicitly by leaving that family out.
    if (c.matmul_sizes.empty() || c.stencil_lengths.empty()) {
      std::vector<std::string> keep;
      for (const auto& k : c.kernels) {
        const Variant* v = find_variant(k);
        const bool mm = v && v->family == Family::Matmul;
        if ((mm && !c.matmul_sizes.empty()) || (!mm && !c.stencil_lengths.empty()))
          keep.push_back(k);
      }
      c.kernels = keep;
      if (c.matmul_sizes.empty()) c.matmul_sizes = {128};  // unused: no matmul kernel left
      if (c.stencil_lengths.empty()) c.stencil_lengths = {1 << 16};
      if (keep.empty()) {
        message_ = "Choose at least one size for the kernels selected.";
        return;
      }
    }
    if (auto err = validate_perf_config(c)) {
      message_ = *err;
      return;
    }
    message_.clear();
    sweep_.start(c);
  }

  void draw_files() {
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 0.5f);
    ImGui::InputText("##perfpath", path_, sizeof path_);
    std::string err;
    const std::string path = path_;
    auto base = [&] {
      const auto dot = path.rfind('.');
      return dot == std::string::npos ? path : path.substr(0, dot);
    };
    ImGui::BeginDisabled(!report_ || sweep_.running());
    if (ImGui::Button("Save")) {
      message_ = save_report(*report_, path, &err) ? "Saved " + path : err;
    }
    ImGui::SameLine();
    if (ImGui::Button("Export CSV")) {
      const std::string p = base() + ".csv";
      message_ = write_text_file(p, to_csv(*report_), &err) ? "Wrote " + p : err;
    }
    ImGui::SameLine();
    if (ImGui::Button("Export JSON")) {
      message_ = save_report(*report_, path, &err) ? "Wrote " + path : err;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(sweep_.running());
    if (ImGui::Button("Load")) {
      if (auto r = load_report(path, &err)) {
        report_ = std::move(*r);
        derive_metrics(*report_);
        report_source_ = path;
        message_ = "Loaded " + path + " (" + report_->device.name + ", " + report_->created + ")";
      } else {
        message_ = err;  // the last good result stays on screen
      }
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!report_);
    if (ImGui::Button("Compare with...")) {
      if (auto r = load_report(path, &err)) {
        before_ = std::move(*r);
        derive_metrics(*before_);
        message_ = "Comparing with " + path;
      } else {
        message_ = err;
      }
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("Loads the report at the path above as the earlier run.");
  }

  void draw_device(const PerfReport& r) {
    const PerfDevice& d = r.device;
    ImGui::PushTextWrapPos(0);
    if (d.usable)
      ImGui::TextDisabled(
          "%s%s: FP32 peak %.1f TFLOP/s (%d SMs x %d cores x 2 x %.0f MHz); copy %.0f GB/s "
          "(read + write); cuBLAS %s. %s",
          d.name.c_str(), r.host.empty() ? "" : (" on " + r.host).c_str(), d.fp32_peak_gflops / 1e3,
          d.sm_count, d.fp32_cores_per_sm, d.clock_khz / 1e3, d.copy_gbps, d.cublas_math.c_str(),
          r.created.c_str());
    if (r.cancelled)
      ImGui::TextColored(readable(ImVec4(0.95f, 0.65f, 0.2f, 1)), "Cancelled part-way.");
    for (const auto& n : r.notes)
      ImGui::TextDisabled("%s", n.c_str());
    ImGui::PopTextWrapPos();
  }

  void draw_results(const PerfReport& r) {
    const ImGuiTableFlags tf = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                               ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                               ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
    const float h = std::min(ImGui::GetTextLineHeightWithSpacing() * (r.results.size() + 2.5f),
                             ImGui::GetTextLineHeightWithSpacing() * 16);
    if (!ImGui::BeginTable("##perf", 11, tf, ImVec2(0, h))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* c : {"kernel", "size", "ms (median)", "min..max", "GFLOP/s", "GB/s",
                          "% cuBLAS", "% copy BW", "% FP32 peak", "flop/B", "check"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const auto& x : r.results) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(x.label().c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(size_label(x.size).c_str());
      ImGui::TableNextColumn();
      if (x.ms_median > 0) {
        ImGui::Text("%.4f", x.ms_median);
        if (x.status == PerfStatus::Wrong) {
          // Shown, struck out, never counted.
          const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
          ImGui::GetWindowDrawList()->AddLine(ImVec2(a.x, (a.y + b.y) / 2),
                                              ImVec2(b.x, (a.y + b.y) / 2),
                                              IM_COL32(230, 60, 60, 255), 1.5f);
        }
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::TableNextColumn();
      if (x.ms_median > 0) ImGui::TextDisabled("%.4f..%.4f (%d)", x.ms_min, x.ms_max, x.reps);
      auto cell = [](double v, const char* f) {
        ImGui::TableNextColumn();
        if (v > 0)
          ImGui::Text(f, v);
        else
          ImGui::TextDisabled("-");
      };
      cell(x.flops > 0 ? x.gflops : 0, "%.1f");
      cell(x.gbps, "%.1f");
      cell(x.pct_cublas, "%.1f");
      cell(x.pct_copy, "%.1f");
      cell(x.pct_peak, "%.1f");
      cell(x.intensity, "%.2f");
      ImGui::TableNextColumn();
      const ImVec4 col = x.status == PerfStatus::Ok        ? ImVec4(0.3f, 0.75f, 0.4f, 1)
                         : x.status == PerfStatus::Skipped ? ImVec4(0.6f, 0.6f, 0.6f, 1)
                                                           : ImVec4(0.9f, 0.3f, 0.3f, 1);
      ImGui::TextColored(readable(col), "%s", to_string(x.status));
      if (ImGui::IsItemHovered() && !x.message.empty())
        ImGui::SetTooltip(
            "%s%s%s", x.message.c_str(),
            x.checked_against.empty() ? "" : "\nchecked against: ", x.checked_against.c_str());
    }
    ImGui::EndTable();
  }

  void draw_attributes(const PerfReport& r) {
    const ImGuiTableFlags tf =
        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##attrs", 6, tf)) return;
    for (const char* c :
         {"kernel", "registers", "shared/block", "threads/block", "blocks/SM", "occupancy"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    std::vector<std::string> seen;
    for (const auto& x : r.results) {
      if (!x.attrs.known) continue;
      const std::string l = x.label();
      if (std::find(seen.begin(), seen.end(), l) != seen.end()) continue;
      seen.push_back(l);
      const auto& a = x.attrs;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(l.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d%s", a.registers, a.local_bytes ? " (spills)" : "");
      ImGui::TableNextColumn();
      ImGui::Text("%d B", a.static_shared_bytes + a.dynamic_shared_bytes);
      ImGui::TableNextColumn();
      ImGui::Text("%d", a.threads_per_block);
      ImGui::TableNextColumn();
      ImGui::Text("%d", a.max_blocks_per_sm);
      ImGui::TableNextColumn();
      ImGui::Text("%.0f %%", 100 * a.occupancy);
    }
    ImGui::EndTable();
    ImGui::TextDisabled("Theoretical occupancy: cudaOccupancyMaxActiveBlocksPerMultiprocessor.");
  }

  void draw_plots(AppState& s, const PerfReport& r) {
    ImGui::Checkbox("log y", &log_y_);
    ImGui::SameLine();
    ImGui::RadioButton("multiply", &plot_family_, 0);
    ImGui::SameLine();
    ImGui::RadioButton("stencil", &plot_family_, 1);
    const float avail = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 10);
    // Side by side where the slot is wide enough (the centre), stacked otherwise.
    const bool side = avail >= ImGui::GetFontSize() * 32;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float w = side ? (avail - gap) / 2 : avail;
    // Within what is visible of the panel where it can (a 1280 x 720 window), so
    // that the roofline's lower half and its legend are not scrolled away.
    const float ph = std::clamp(std::min(w * 0.62f, ImGui::GetContentRegionAvail().y),
                                ImGui::GetFontSize() * 12, ImGui::GetFontSize() * 26);
    draw_throughput(r, plot_family_ == 0 ? Family::Matmul : Family::Stencil, ImVec2(w, ph));
    if (side) ImGui::SameLine(0, gap);
    draw_roofline(s, r, ImVec2(w, ph));
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(
        "Roofline: a filled dot is a kernel at the intensity of its own global loads and stores "
        "(as a trace counts them: 0.25 flop/B naive, T times more tiled); a ring is the same time "
        "at the compulsory intensity (every array once). A dot above the memory roof means the "
        "caches served part of those loads.");
    ImGui::PopTextWrapPos();
  }

  // The legend goes in the corner of the data area that covers the fewest points.
  void draw_legend(ImDrawList* dl, const Axes& ax, const std::vector<std::string>& labels,
                   const std::vector<ImU32>& colours, const std::vector<ImVec2>& points = {}) {
    const float lh = ImGui::GetTextLineHeight();
    const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f);
    float wmax = 0;
    for (const auto& l : labels)
      wmax = std::max(wmax, ImGui::CalcTextSize(l.c_str()).x);
    const ImVec2 box(wmax + lh * 1.6f, lh * labels.size() + 4);
    ImVec2 p(ax.lo.x + 6, ax.lo.y + 4);
    int best = INT32_MAX;
    for (int corner = 0; corner < 4; ++corner) {
      const ImVec2 c(corner % 2 ? ax.hi.x - 6 - box.x : ax.lo.x + 6,
                     corner / 2 ? ax.hi.y - 4 - box.y : ax.lo.y + 4);
      int covered = 0;
      for (const ImVec2& q : points)
        covered +=
            q.x >= c.x - 4 && q.x <= c.x + box.x + 4 && q.y >= c.y - 4 && q.y <= c.y + box.y + 4;
      if (covered < best) best = covered, p = c;
    }
    dl->AddRectFilled(p, ImVec2(p.x + box.x, p.y + box.y), bg);
    for (size_t i = 0; i < labels.size(); ++i) {
      const float y = p.y + 2 + lh * i;
      dl->AddRectFilled(ImVec2(p.x + 3, y + lh * 0.3f), ImVec2(p.x + lh * 0.9f, y + lh * 0.7f),
                        colours[i]);
      dl->AddText(ImVec2(p.x + lh * 1.2f, y), ImGui::GetColorU32(ImGuiCol_Text), labels[i].c_str());
    }
  }

  void draw_throughput(const PerfReport& r, Family f, ImVec2 size) {
    const auto series = throughput_series(r, f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##throughput", size);
    if (series.empty()) {
      ImGui::GetWindowDrawList()->AddText(origin, ImGui::GetColorU32(ImGuiCol_TextDisabled),
                                          "No counted results to plot for this family yet.");
      return;
    }
    double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
    std::vector<double> xt;
    for (const auto& s : series)
      for (const auto& [x, y] : s.points) {
        x0 = std::min(x0, x);
        x1 = std::max(x1, x);
        y0 = std::min(y0, y);
        y1 = std::max(y1, y);
        if (std::find(xt.begin(), xt.end(), x) == xt.end()) xt.push_back(x);
      }
    if (x1 <= x0) {
      x0 /= 1.5;
      x1 *= 1.5;
    }
    y0 = log_y_ ? y0 / 1.5 : 0;
    // Headroom above the data for the legend, so that it covers no line.
    {
      const float lh = ImGui::GetTextLineHeight();
      const double frac = std::min(
          0.6, (lh * double(series.size()) + 14) / std::max(1.0, double(size.y - 4.2f * lh)));
      if (log_y_)
        y1 = y0 * std::pow(y1 * 1.1 / y0, 1 / (1 - frac));
      else
        y1 = y1 * 1.05 / (1 - frac);
    }
    std::sort(xt.begin(), xt.end());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool mm = f == Family::Matmul;
    const Axes ax =
        frame(dl, origin, size, x0 / 1.15, x1 * 1.15, y0, y1, true, log_y_,
              mm ? "GFLOP/s against n (log n)" : "GB/s against length (log length)",
              mm ? "n (n x n x n multiply)" : "elements", mm ? "GFLOP/s" : "GB/s (compulsory)", xt);
    dl->PushClipRect(ax.lo, ax.hi, true);
    std::vector<std::string> labels;
    std::vector<ImU32> colours;
    std::vector<ImVec2> plotted;
    std::string hover;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (size_t i = 0; i < series.size(); ++i) {
      const auto& s = series[i];
      const ImU32 c = s.reference ? ImGui::GetColorU32(ImGuiCol_Text) : colour_of(s.label);
      labels.push_back(s.label);
      colours.push_back(c);
      for (size_t k = 0; k < s.points.size(); ++k) {
        const ImVec2 p = ax.at(s.points[k].first, s.points[k].second);
        plotted.push_back(p);
        if (k) {  // the lines count as covered too
          const ImVec2 q = ax.at(s.points[k - 1].first, s.points[k - 1].second);
          for (int m = 1; m < 8; ++m)
            plotted.push_back(ImVec2(q.x + (p.x - q.x) * m / 8, q.y + (p.y - q.y) * m / 8));
        }
        if (k)
          dl->AddLine(ax.at(s.points[k - 1].first, s.points[k - 1].second), p, c,
                      s.reference ? 1.5f : 2.0f);
        dl->AddCircleFilled(p, 3.5f, c);
        if (std::hypot(mouse.x - p.x, mouse.y - p.y) < 6)
          hover = s.label + " at " + size_label(s.points[k].first) + ": " +
                  fmt("%.1f", s.points[k].second) + (mm ? " GFLOP/s" : " GB/s");
      }
    }
    dl->PopClipRect();
    draw_legend(dl, ax, labels, colours, plotted);
    if (!hover.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hover.c_str());
  }

  void draw_roofline(AppState& st, const PerfReport& r, ImVec2 size) {
    const auto pts = roofline_points(r);
    const PerfDevice& d = r.device;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##roofline", size);
    std::vector<PlotMark> tick_marks;
    if (pts.empty() || d.fp32_peak_gflops <= 0 || d.copy_gbps <= 0) {
      ImGui::GetWindowDrawList()->AddText(
          origin, ImGui::GetColorU32(ImGuiCol_TextDisabled),
          "Roofline: needs counted results and the measured ceilings (a GPU run).");
      return;
    }
    // The marks and the ridge with a margin, not whole decades: a range rounded
    // out to decades left most of a lecture-size plot empty and the marks crowded.
    const double ridge = d.fp32_peak_gflops / d.copy_gbps;
    double x0 = ridge / 2, x1 = ridge * 2, y0 = d.fp32_peak_gflops, y1 = d.fp32_peak_gflops * 1.6;
    for (const auto& p : pts) {
      for (double x : {p.intensity, p.issued_intensity}) {
        if (x <= 0) continue;
        x0 = std::min(x0, x / 1.6);
        x1 = std::max(x1, x * 1.6);
      }
      y0 = std::min(y0, p.gflops / 2);
    }
    // At least one decade on each axis, for a tick to read.
    if (std::floor(std::log10(x1)) < std::ceil(std::log10(x0)))
      x0 = std::pow(10.0, std::floor(std::log10(x0)));
    if (std::floor(std::log10(y1)) < std::ceil(std::log10(y0)))
      y0 = std::pow(10.0, std::floor(std::log10(y0)));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Axes ax = frame(dl, origin, size, x0, x1, y0, y1, true, true,
                          "Roofline (log-log): measured copy bandwidth and FP32 peak",
                          "arithmetic intensity (flop per byte)", "GFLOP/s", ticks(x0, x1, true),
                          /*x_is_size=*/false, &tick_marks);
    for (PlotMark& m : tick_marks) {
      m.plot = "roofline";
      st.plot_marks.push_back(m);
    }
    const float lh = ImGui::GetTextLineHeight();
    const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
    const ImU32 label_bg = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f);
    auto mark = [&](const char* kind, const std::string& label, ImVec2 a, ImVec2 b, ImU32 c) {
      st.plot_marks.push_back({"roofline", kind, label, a.x, a.y, b.x - a.x, b.y - a.y, c});
    };
    mark("area", "", ax.lo, ax.hi, 0);
    dl->PushClipRect(ax.lo, ax.hi, true);

    // What labels must not cover: the roof's own texts, every mark, the legend.
    struct Box {
      ImVec2 a, b;
      bool hits(const Box& o, float m = 1) const {
        return a.x < o.b.x + m && o.a.x < b.x + m && a.y < o.b.y + m && o.a.y < b.y + m;
      }
    };
    std::vector<Box> taken;
    auto inside = [&](const Box& x) {
      return x.a.x >= ax.lo.x + 2 && x.b.x <= ax.hi.x - 2 && x.a.y >= ax.lo.y + 2 &&
             x.b.y <= ax.hi.y - 2;
    };
    auto is_free = [&](const Box& x) {
      if (!inside(x)) return false;
      for (const Box& t : taken)
        if (x.hits(t)) return false;
      return true;
    };

    const ImU32 roof = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    dl->AddLine(ax.at(x0, d.copy_gbps * x0), ax.at(ridge, d.fp32_peak_gflops), roof, 2);
    dl->AddLine(ax.at(ridge, d.fp32_peak_gflops), ax.at(x1, d.fp32_peak_gflops), roof, 2);
    for (float px = ax.lo.x; px <= ax.hi.x; px += 4) {  // no label across the roof
      const float y = float(ax.ty(roofline_ceiling(d, ax.ix(px))));
      taken.push_back({ImVec2(px - 2, y - 2), ImVec2(px + 2, y + 2)});
    }
    // Names without the family when every kernel is of one (narrow plots).
    bool one_family = true;
    std::string family;
    for (const auto& p : pts) {
      if (p.reference) continue;
      const std::string f = p.label.substr(0, p.label.find('.') + 1);
      if (family.empty()) family = f;
      one_family = one_family && f == family;
    }
    auto short_label = [&](const RooflinePoint& p) {
      if (p.label == kCublasId) return std::string("cuBLAS");
      if (one_family && !family.empty() && p.label.rfind(family, 0) == 0)
        return p.label.substr(family.size());
      return p.label;
    };

    // The marks: a ring at the compulsory intensity, a filled dot at the one the
    // kernel issues, a dotted line between them (same time, so the same height).
    // Placed first (labels keep clear of them), drawn last (on top of leader lines).
    const float rad = std::max(4.0f, lh * 0.25f);
    struct Anchor {
      ImVec2 ring, dot, at;  // `at`: where the label points, the dot if there is one
      bool has_dot;
      ImU32 colour;
      std::string text, label;
    };
    std::vector<Anchor> anchors;
    for (const auto& p : pts) {
      Anchor a{};
      a.colour = p.reference ? roof : colour_of(p.label);
      a.ring = a.at = ax.at(p.intensity, p.gflops);
      a.has_dot = p.issued_intensity > 0;
      if (a.has_dot) a.dot = a.at = ax.at(p.issued_intensity, p.gflops);
      a.text = short_label(p);
      a.label = p.label;
      for (const ImVec2 q : {a.ring, a.dot})
        if (q.x == a.ring.x || a.has_dot)
          taken.push_back({ImVec2(q.x - rad, q.y - rad), ImVec2(q.x + rad, q.y + rad)});
      anchors.push_back(std::move(a));
    }
    // The dotted lines go under the labels, the marks over everything.
    for (const Anchor& a : anchors) {
      const float len = a.ring.x - a.dot.x;
      for (float x = 0; a.has_dot && x + 3 < std::fabs(len) - 2 * rad; x += 7) {
        const float sx = a.dot.x + (len > 0 ? rad + x : -rad - x);
        dl->AddLine(ImVec2(sx, a.dot.y), ImVec2(sx + (len > 0 ? 3.f : -3.f), a.dot.y),
                    (a.colour & 0x00FFFFFFu) | 0x99000000u, 1.0f);
      }
    }
    auto draw_marks = [&] {
      for (const Anchor& a : anchors) {
        dl->AddCircle(a.ring, rad, a.colour, 0, 2.0f);
        mark("compulsory", a.label, a.ring, a.ring, a.colour);
        if (!a.has_dot) continue;
        dl->AddCircleFilled(a.dot, rad, a.colour);
        mark("issued", a.label, a.dot, a.dot, a.colour);
      }
    };

    // The ceilings' names on their lines, clear of the marks: the peak above the
    // flat roof (below it where there is no room), right of the ridge or
    // right-aligned; the copy just under the rising slope (a box whose top left
    // corner is below the line stays below it), as far left as it fits.
    {
      const std::string peak = "FP32 peak " + si(d.fp32_peak_gflops) + " GFLOP/s";
      const ImVec2 w = ImGui::CalcTextSize(peak.c_str());
      const float roof_y = float(ax.ty(d.fp32_peak_gflops));
      Box at{ImVec2(ax.hi.x - w.x - 4, roof_y - w.y - 4), {}};
      bool found = false;
      for (float y : {roof_y - w.y - 4, roof_y + 4})
        for (float x : {float(ax.tx(ridge)) + 6, ax.hi.x - w.x - 4}) {
          const Box b{ImVec2(x, y), ImVec2(x + w.x, y + w.y)};
          if (!found && is_free(b)) at = b, found = true;
        }
      dl->AddText(at.a, dim, peak.c_str());
      taken.push_back({at.a, ImVec2(at.a.x + w.x, at.a.y + w.y)});
      const std::string copy = "copy " + si(d.copy_gbps) + " GB/s";
      const ImVec2 cw = ImGui::CalcTextSize(copy.c_str());
      ImVec2 c(ax.lo.x + 6, ax.hi.y - cw.y - 2);
      for (float lx = ax.lo.x; lx < std::min(float(ax.tx(ridge)), ax.hi.x - cw.x); lx += 4) {
        // The line's point at lx, the box 6 px right of it and 4 below.
        const ImVec2 q(lx + 6, float(ax.ty(d.copy_gbps * ax.ix(lx))) + 4);
        if (is_free({q, ImVec2(q.x + cw.x, q.y + cw.y)})) {
          c = q;
          break;
        }
      }
      dl->AddText(c, dim, copy.c_str());
      taken.push_back({c, ImVec2(c.x + cw.x, c.y + cw.y)});
    }

    // The legend of the two marks, in the corner that covers the fewest of them.
    {
      // Short: the note under the plots says it in full.
      const char* names[2] = {"kernel's traffic", "compulsory"};
      const float wmax = std::max(ImGui::CalcTextSize(names[0]).x, ImGui::CalcTextSize(names[1]).x);
      const ImVec2 box(wmax + lh * 1.8f, lh * 2 + 6);
      Box best{};
      int fewest = INT32_MAX;
      // Lower right first: under the flat roof at high intensity, where kernels seldom are.
      for (int corner : {3, 2, 1, 0}) {
        const ImVec2 a(corner % 2 ? ax.hi.x - 6 - box.x : ax.lo.x + 6,
                       corner / 2 ? ax.hi.y - 6 - box.y : ax.lo.y + 6);
        const Box b{a, ImVec2(a.x + box.x, a.y + box.y)};
        int covered = 0;
        for (const Box& t : taken)  // the marks, the roof's samples and its texts
          covered += b.hits(t, 4);
        if (covered < fewest) fewest = covered, best = b;
      }
      dl->AddRectFilled(best.a, best.b, label_bg);
      dl->AddRect(best.a, best.b, ImGui::GetColorU32(ImGuiCol_Border));
      const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
      for (int i = 0; i < 2; ++i) {
        const ImVec2 m(best.a.x + lh * 0.7f, best.a.y + 3 + lh * (i + 0.5f));
        if (i == 0)
          dl->AddCircleFilled(m, rad, text);
        else
          dl->AddCircle(m, rad, text, 0, 2.0f);
        dl->AddText(ImVec2(best.a.x + lh * 1.4f, best.a.y + 3 + lh * i), text, names[i]);
      }
      mark("legend", std::string(names[0]) + "; " + names[1], best.a, best.b, text);
      taken.push_back(best);
    }

    // Labels at the free place nearest their mark (beside it where it is free),
    // with a leader line when moved away; left out (the tooltip still names it)
    // only where no place in the plot is free. Greedy, so the order matters: a
    // few orders are tried and the one that names the most marks, nearest, wins.
    const float mid_x = (ax.lo.x + ax.hi.x) / 2;
    struct Placed {
      size_t anchor;
      Box box;
      ImVec2 text_at;
      float distance;
    };
    auto place_all = [&](const std::vector<size_t>& order) {
      std::vector<Box> blocked = taken;
      std::vector<Placed> out;
      for (size_t i : order) {
        const Anchor& a = anchors[i];
        const ImVec2 w = ImGui::CalcTextSize(a.text.c_str());
        const float pad = 2;
        auto box_at = [&](float x, float y) {
          return Box{ImVec2(x - pad, y - 1), ImVec2(x + w.x + pad, y + w.y + 1)};
        };
        auto free_box = [&](const Box& b) {
          if (!inside(b)) return false;
          for (const Box& t : blocked)
            if (b.hits(t)) return false;
          return true;
        };
        // Beside the mark, right of it in the left half of the plot and left in the right half...
        const bool right_first = a.at.x < mid_x;
        const float yc = a.at.y - w.y / 2;
        ImVec2 best(0, 0);
        float best_d = 1e30f;
        for (bool right : {right_first, !right_first}) {
          const float x = right ? a.at.x + rad + 6 : a.at.x - rad - 6 - w.x;
          if (best_d > 1e29f && free_box(box_at(x, yc))) best = ImVec2(x, yc), best_d = 0;
        }
        // ...else the nearest free place on a grid over the plot.
        if (best_d > 1e29f)
          for (float y = ax.lo.y + 3; y + w.y + 3 <= ax.hi.y; y += lh / 3)
            for (float x = ax.lo.x + 4; x + w.x + 4 <= ax.hi.x; x += lh / 2) {
              const Box b = box_at(x, y);
              const float dx = std::max({b.a.x - a.at.x, 0.f, a.at.x - b.b.x});
              const float dy = std::max({b.a.y - a.at.y, 0.f, a.at.y - b.b.y});
              const float dist = std::hypot(dx, dy);
              if (dist < best_d && free_box(b)) best = ImVec2(x, y), best_d = dist;
            }
        if (best_d > 1e29f) continue;
        out.push_back({i, box_at(best.x, best.y), best, best_d});
        blocked.push_back(out.back().box);
      }
      return out;
    };
    std::vector<size_t> by_y(anchors.size());
    for (size_t i = 0; i < by_y.size(); ++i)
      by_y[i] = i;
    std::sort(by_y.begin(), by_y.end(), [&](size_t a, size_t b) {
      return anchors[a].at.y < anchors[b].at.y ||
             (anchors[a].at.y == anchors[b].at.y && anchors[a].at.x < anchors[b].at.x);
    });
    std::vector<size_t> by_x = by_y, by_x_back = by_y, crowded_first = by_y;
    std::stable_sort(by_x.begin(), by_x.end(),
                     [&](size_t a, size_t b) { return anchors[a].at.x < anchors[b].at.x; });
    std::stable_sort(by_x_back.begin(), by_x_back.end(),
                     [&](size_t a, size_t b) { return anchors[a].at.x > anchors[b].at.x; });
    auto neighbours = [&](size_t i) {
      int n = 0;
      for (const Anchor& o : anchors)
        n += std::hypot(o.at.x - anchors[i].at.x, o.at.y - anchors[i].at.y) < 3 * lh;
      return n;
    };
    std::stable_sort(crowded_first.begin(), crowded_first.end(),
                     [&](size_t a, size_t b) { return neighbours(a) > neighbours(b); });
    std::vector<Placed> labels;
    float labels_d = 0;
    for (const auto* order : {&by_y, &crowded_first, &by_x, &by_x_back}) {
      std::vector<Placed> p = place_all(*order);
      float d = 0;
      for (const Placed& q : p)
        d += q.distance;
      if (p.size() > labels.size() || (p.size() == labels.size() && d < labels_d))
        labels = std::move(p), labels_d = d;
    }
    for (const Placed& l : labels) {
      const Anchor& a = anchors[l.anchor];
      const Box& b = l.box;
      taken.push_back(b);
      if (l.distance > 0) {  // a leader line from the mark to the nearest point of the label
        const ImVec2 to(std::clamp(a.at.x, b.a.x, b.b.x), std::clamp(a.at.y, b.a.y, b.b.y));
        dl->AddLine(a.at, to, a.colour, 1.0f);
      }
      dl->AddRectFilled(b.a, b.b, label_bg);
      const ImU32 tc = text_safe(a.colour, bg);
      dl->AddText(l.text_at, tc, a.text.c_str());
      mark("label", a.label, b.a, b.b, tc);
    }
    draw_marks();
    dl->PopClipRect();

    std::string hover;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (const auto& p : pts)
      for (double x : {p.issued_intensity, p.intensity}) {
        if (x <= 0) continue;
        const ImVec2 q = ax.at(x, p.gflops);
        if (std::hypot(mouse.x - q.x, mouse.y - q.y) >= rad + 3) continue;
        hover = p.label + " (n = " + size_label(p.size) + "): " + fmt("%.1f", p.gflops) +
                " GFLOP/s\n" + fmt("%.3g", p.intensity) + " flop per compulsory byte" +
                (p.issued_intensity > 0
                     ? "\n" + fmt("%.3g", p.issued_intensity) +
                           " flop per byte the kernel loads and stores: " +
                           fmt("%.0f", 100 * p.gflops / roofline_ceiling(d, p.issued_intensity)) +
                           " % of the roof there"
                     : std::string());
      }
    if (!hover.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hover.c_str());
  }

  void draw_comparison() {
    ImGui::TextDisabled("earlier: %s on %s (%s); now: %s on %s (%s)", before_->device.name.c_str(),
                        before_->host.c_str(), before_->created.c_str(),
                        report_->device.name.c_str(), report_->host.c_str(),
                        report_->created.c_str());
    const ImGuiTableFlags tf = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                               ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY;
    const auto rows = compare_reports(*before_, *report_);
    const float h = std::min(ImGui::GetTextLineHeightWithSpacing() * (rows.size() + 2.5f),
                             ImGui::GetTextLineHeightWithSpacing() * 14);
    if (!ImGui::BeginTable("##cmp", 5, tf, ImVec2(0, h))) return;
    for (const char* c : {"kernel", "size", "ms earlier", "ms now", "speed-up"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const auto& c : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%s%s", c.kernel.c_str(), c.tile ? (" T" + std::to_string(c.tile)).c_str() : "");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(size_label(c.size).c_str());
      ImGui::TableNextColumn();
      c.ms_before > 0 ? ImGui::Text("%.4f", c.ms_before) : ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      c.ms_now > 0 ? ImGui::Text("%.4f", c.ms_now) : ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (c.speedup > 0)
        ImGui::TextColored(
            readable(c.speedup >= 1 ? ImVec4(0.3f, 0.75f, 0.4f, 1) : ImVec4(0.9f, 0.4f, 0.3f, 1)),
            "%.2fx", c.speedup);
      else
        ImGui::TextDisabled("-");
    }
    ImGui::EndTable();
  }

  void draw_counts(AppState& s) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(
        "Global loads per output element, measured in a trace, against the textbook: 2N for the "
        "naive multiply, 2*ceil(N/T) tiled (2N/T when T divides N); 2R+1 for the naive stencil, "
        "ceil(L/B)*(B+2R)/L with a shared halo (1 + 2R/B when B divides L).");
    ImGui::PopTextWrapPos();
    // The current lesson's trace, whatever backend recorded it.
    if (s.has_trace()) {
      if (current_generation_ != s.result.generation) {
        current_generation_ = s.result.generation;
        current_ = perf_access_counts(s.trace());
      }
      const AccessCounts& c = current_;
      ImGui::PushTextWrapPos(0);
      ImGui::Text("This trace (%s %s): %.4g global loads per output; theory %s%s", c.kernel.c_str(),
                  s.lesson() ? describe(*s.lesson(), c.params).c_str() : "", c.loads_per_output,
                  c.theory_formula.c_str(),
                  c.truncated ? " (trace truncated: counts are lower bounds)" : "");
      ImGui::Text(
          "shared loads %s, shared stores %s; global bytes moved %s, compulsory %s (every array "
          "once); %.3g flop per byte moved, %.3g per compulsory byte",
          grouped(c.shared_loads).c_str(), grouped(c.shared_stores).c_str(),
          grouped(c.bytes_moved).c_str(), grouped(uint64_t(c.compulsory_bytes)).c_str(),
          c.issued_intensity(), c.compulsory_bytes > 0 ? c.flops / c.compulsory_bytes : 0.0);
      ImGui::PopTextWrapPos();
    }
    const bool busy = counts_job_.valid();
    ImGui::BeginDisabled(busy);
    if (ImGui::Button(counts_.empty() ? "Count every kernel" : "Count again"))
      counts_job_ = std::async(std::launch::async, compute_counts);
    ImGui::EndDisabled();
    if (busy) {
      ImGui::SameLine();
      ImGui::TextDisabled("running every kernel traced...");
    }
    if (counts_.empty()) return;
    const ImGuiTableFlags tf = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                               ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
    if (!ImGui::BeginTable("##counts", 8, tf)) return;
    for (const char* c : {"kernel", "parameters", "loads/output", "theory", "shared loads",
                          "shared stores", "bytes moved / compulsory", "from"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const auto& r : counts_) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.kernel.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.params.c_str());
      if (!r.error.empty()) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("not run");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.error.c_str());
        continue;
      }
      const AccessCounts& c = r.counts;
      ImGui::TableNextColumn();
      const bool match = std::fabs(c.loads_per_output - c.theory_per_output) <
                         1e-9 * std::max(1.0, c.theory_per_output);
      ImGui::TextColored(
          readable(match ? ImVec4(0.3f, 0.75f, 0.4f, 1) : ImVec4(0.95f, 0.65f, 0.2f, 1)), "%.3g",
          c.loads_per_output);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.theory_formula.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%llu", (unsigned long long)c.shared_loads);
      ImGui::TableNextColumn();
      ImGui::Text("%llu", (unsigned long long)c.shared_stores);
      ImGui::TableNextColumn();
      ImGui::Text("%s / %s (%.1fx)", si(double(c.bytes_moved)).c_str(),
                  si(c.compulsory_bytes).c_str(),
                  c.compulsory_bytes > 0 ? double(c.bytes_moved) / c.compulsory_bytes : 0.0);
      ImGui::TableNextColumn();
      ImGui::Text("%s%s", r.backend.c_str(), r.correct ? "" : " (wrong output)");
    }
    ImGui::EndTable();
  }

  // One colour per kernel label in every plot, in the order first seen.
  ImU32 colour_of(const std::string& label) {
    auto it = std::find(colour_order_.begin(), colour_order_.end(), label);
    if (it == colour_order_.end()) it = colour_order_.insert(colour_order_.end(), label);
    return series_colour(size_t(it - colour_order_.begin()));
  }
  std::vector<std::string> colour_order_;

  bool initialised_ = false;
  std::vector<bool> kernel_on_;
  std::vector<std::pair<int, bool>> sizes_, lengths_, tiles_;
  int reps_ = 10;
  bool flush_ = true;
  bool log_y_ = true;  // naive and tiled kernels apart under cuBLAS
  int plot_family_ = 0;
  char path_[512] = "tilescope_perf.json";
  std::string message_;

  BackgroundSweep sweep_;
  std::optional<PerfReport> report_, before_;
  std::string report_source_;  // the file the report was loaded from, or this session's sweep

  std::future<std::vector<CountRow>> counts_job_;
  std::vector<CountRow> counts_;
  uint64_t current_generation_ = ~0ull;
  AccessCounts current_;
};

TS_REGISTER_VIEW(PerformanceView);

}  // namespace ts::app
