// Performance: honest timings of the untraced kernels against cuBLAS, the
// measured copy bandwidth and the FP32 peak (engine/perf.hpp does the work;
// this file only draws). The sweep runs in a background thread with a
// progress bar and Cancel; results can be saved, loaded, compared with an
// earlier run and exported. The plots are in perf_plots.cpp (on the kit of
// plot.cpp), the SGEMM ladder in ladder_chart.cpp and a bandwidth family's
// ladder in family_ladder_chart.cpp, what the panel runs in perf_runs.cpp.
// Without a GPU the panel says so, shows the reports measured on GPU machines
// and shipped in docs/ (newest first, one combo to switch) and access counts
// from simulator traces, which need none.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "analysis/perf_counts.hpp"
#include "app/core/outputs.hpp"
#include "app/core/view.hpp"
#include "app/perf/family_ladder_chart.hpp"
#include "app/perf/ladder_chart.hpp"
#include "app/perf/perf_plots.hpp"
#include "app/perf/perf_runs.hpp"
#include "app/perf/plot.hpp"
#include "engine/backend.hpp"
#include "io/perf_report.hpp"

namespace ts::app {

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
    if (!s.perf_family_request.empty()) {  // --perf-family
      family_ladder_.family = s.perf_family_request;
      s.perf_family_request.clear();
    }
    if (sweep_.running() || counts_job_.valid()) s.mark_busy();
    if (auto r = sweep_.take()) {
      message_ = r->cancelled ? "Sweep cancelled: the results measured before the cancel are kept."
                              : (r->error.empty() ? "Sweep finished." : r->error);
      report_ = std::move(*r);
      report_source_ = "this session's sweep";
      shipped_index_ = -1;
      if (shipped(path_) >= 0)  // Save goes to a file of its own, not over a shipped report
        std::snprintf(path_, sizeof path_, "%s", kDefaultPath);
    }
    if (counts_job_.valid() &&
        counts_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      counts_ = counts_job_.get();
  }

  void draw(AppState& s) override {
    // The report's file is being read: the window's writes never go over it.
    s.perf_report_source =
        report_ && report_source_ != "this session's sweep" ? report_source_ : "";
    const CudaStatus& gpu = cuda_status();
    ImGui::PushTextWrapPos(0);
    if (report_ && !sweep_.running()) {
      // Where the numbers on screen come from, first: an audience asks.
      // One line on a projector (the GPU and the date); the rest on hover.
      const PerfDevice& d = report_->device;
      ImGui::PushFont(static_cast<ImFont*>(s.present.big_font));
      const std::string where = "Measured on " + gpu_of(*report_) + ", " + date_of(*report_);
      ImGui::TextUnformatted(where.c_str());
      ImGui::PopFont();
      mark_item(s, "report", where);
      const bool sweep = report_source_ == "this session's sweep";
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "%s%s\nData: %s%s, recorded %s%s%s.", gpu_of(*report_).c_str(),
            d.usable ? (" (sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
                        std::to_string(d.sm_count) + " SMs)")
                           .c_str()
                     : "",
            report_source_.c_str(), sweep ? "" : " (a saved report)", report_->created.c_str(),
            report_->host.empty() ? "" : " on host ", report_->host.c_str());
    }
    draw_report_choice(s);
    if (gpu.usable) {
      ImGui::Text("GPU here: %s (sm_%d%d, %d SMs). Untraced kernels, timed with CUDA events.",
                  gpu.device_name.c_str(), gpu.cc_major, gpu.cc_minor, gpu.sm_count);
      mark_item(s, "gpu_here", gpu.device_name);
    } else {
      const std::string no_gpu =
          report_ ? "No CUDA device here: showing the report measured on " + gpu_of(*report_) +
                        ", " + date_of(*report_) + ". Run " + kMeasureCommand +
                        " on a GPU machine to measure yours."
                  : std::string("No CUDA device here, and no measured report was found (") +
                        kShippedWhere + "). Run " + kMeasureCommand +
                        " on a GPU machine and load its report below. Access counts below come "
                        "from the simulator.";
      ImGui::TextColored(readable(ImVec4(0.95f, 0.65f, 0.2f, 1)), "%s", no_gpu.c_str());
      mark_item(s, "no_gpu", no_gpu);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Why: %s", gpu.reason.c_str());
    }
    ImGui::PopTextWrapPos();

    // Controls first where a sweep can run or nothing is shown yet; below the
    // plots when a saved report is being read on a machine without a GPU.
    const bool controls_first = gpu.usable || !report_;
    if (controls_first) {
      draw_controls(gpu.usable);
      draw_files(s);
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
      // A report of a ladder opens on its chart (the road to cuBLAS is what it
      // measured); the family plots follow.
      std::vector<LadderChart> charts;
      for (const std::string& l : ladders())  // app/perf/ladder_chart.hpp
        if (LadderChart c = ladder_chart(*shown, l, ladder_sizes(*shown, l)); charts_ladder(c))
          charts.push_back(std::move(c));
      for (const LadderChart& c : charts)
        if (ImGui::CollapsingHeader(("The road to cuBLAS (the " + c.ladder + " ladder)").c_str(),
                                    ImGuiTreeNodeFlags_DefaultOpen))
          draw_ladder(c, log_y_, s.plot_marks);
      // A bandwidth family's ladder (app/perf/family_ladder_chart.hpp): GB/s per step
      // against the copy and the library, one family at a time.
      if (const std::vector<LadderChart> f = family_ladders(*shown); !f.empty())
        if (ImGui::CollapsingHeader("Family ladders: GB/s per step, the copy and the library",
                                    ImGuiTreeNodeFlags_DefaultOpen))
          draw_family_ladders(f, family_ladder_, s.plot_marks);
      if (ImGui::CollapsingHeader("Plots", ImGuiTreeNodeFlags_DefaultOpen)) draw_plots(s, *shown);
      for (const std::string& l : ladders())  // a ladder with one or two steps timed: after
        if (const LadderChart c = ladder_chart(*shown, l, ladder_sizes(*shown, l));
            c.any_counted() && !charts_ladder(c))
          if (ImGui::CollapsingHeader(("The road to cuBLAS (the " + l + " ladder)").c_str(),
                                      ImGuiTreeNodeFlags_DefaultOpen))
            draw_ladder(c, log_y_, s.plot_marks);
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
      draw_files(s);
      if (!message_.empty()) ImGui::TextWrapped("%s", message_.c_str());
      draw_controls(gpu.usable);
    }
    if (ImGui::CollapsingHeader("Access counts (from traces, no GPU needed)",
                                gpu.usable ? 0 : ImGuiTreeNodeFlags_DefaultOpen))
      draw_counts(s);
  }

 private:
  static constexpr const char* kDefaultPath = "tilescope_perf.json";
  static constexpr const char* kMeasureCommand = "`tilescope-cli bench --ladder --json mine.json`";
  static constexpr const char* kShippedWhere =
      "docs/perf_*.json in the source tree " TS_SOURCE_DIR " or in share/tilescope/docs";

  static std::string gpu_of(const PerfReport& r) {
    return r.device.name.empty() ? std::string("no GPU") : r.device.name;
  }
  static std::string date_of(const PerfReport& r) {
    return r.created.substr(0, r.created.find('T'));
  }
  // The last item drawn, into the scripted mode's map (plot "panel").
  static void mark_item(AppState& s, const char* kind, const std::string& text) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    s.plot_marks.push_back({"panel", kind, text, a.x, a.y, b.x - a.x, b.y - a.y, 0});
  }

  // Every file read goes through here (io's load_report, the metrics derived).
  static std::optional<PerfReport> read_report(const std::string& path, std::string* err) {
    auto r = load_report(path, err);
    if (r) derive_metrics(*r);
    return r;
  }

  // The shipped report at `path`, or -1.
  int shipped(const std::string& path) const {
    std::error_code ec;
    for (size_t i = 0; i < shipped_.size(); ++i)
      if (path == shipped_[i].path || std::filesystem::equivalent(path, shipped_[i].path, ec))
        return int(i);
    return -1;
  }
  void show_shipped(size_t i) {
    report_ = shipped_[i].report;
    report_source_ = shipped_[i].path;
    shipped_index_ = int(i);
    std::snprintf(path_, sizeof path_, "%s", shipped_[i].path.c_str());
    message_.clear();
  }

  // Three steps or more timed: the report is of the ladder (the panel's
  // naive-and-tiled reports time two of its steps).
  static bool charts_ladder(const LadderChart& c) {
    int steps = 0;
    for (size_t i = 0; i < c.steps.size(); ++i)
      steps += std::any_of(c.sizes.begin(), c.sizes.end(), [&](int n) {
        const LadderPoint* p = c.at(i, n);
        return p && p->counted;
      });
    return steps >= 3;
  }

  // The sizes of kLadderSizes at which the report timed a step of the ladder
  // (the H200 ladder: 4096 only), so that no empty line is in the legend.
  static std::vector<int> ladder_sizes(const PerfReport& r, const std::string& ladder) {
    std::vector<int> out;
    const std::vector<const LessonInfo*> steps = ladder_lessons(ladder);
    for (int n : kLadderSizes)
      for (const PerfResult& x : r.results)
        if (x.counted() && x.size == n &&
            std::any_of(steps.begin(), steps.end(),
                        [&](const LessonInfo* v) { return x.kernel == v->id; })) {
          out.push_back(n);
          break;
        }
    return out.empty() ? std::vector<int>(std::begin(kLadderSizes), std::end(kLadderSizes)) : out;
  }

  // The reports shipped with TileScope, each named by its GPU and date: one
  // is shown where there is no GPU, the others a choice away.
  void draw_report_choice(AppState& s) {
    if (shipped_.empty() || sweep_.running()) return;
    const std::string preview = shipped_index_ >= 0 ? shipped_[size_t(shipped_index_)].title()
                                : report_           ? report_source_
                                                    : std::string("none shown");
    ImGui::TextUnformatted("Report:");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 0.5f);
    if (ImGui::BeginCombo("##shipped", preview.c_str())) {
      for (size_t i = 0; i < shipped_.size(); ++i) {
        if (ImGui::Selectable(shipped_[i].title().c_str(), int(i) == shipped_index_))
          show_shipped(i);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", shipped_[i].path.c_str());
      }
      ImGui::EndCombo();
    }
    mark_item(s, "report_choice", preview);
    // What the combo offers, for the scripted mode's map (it lists them when open).
    for (const ShippedReport& r : shipped_)
      s.plot_marks.push_back({"panel", "report_option", r.title() + " | " + r.path, 0, 0, 0, 0, 0});
  }

  void init_once() {
    if (initialised_) return;
    initialised_ = true;
    choices_ = SweepChoices::defaults();
    shipped_ = shipped_reports();
    // A report saved under the default name (by this panel, or by `tilescope-cli bench
    // --json tilescope_perf.json` on a GPU machine) is shown at start; else,
    // without a GPU, the newest report shipped with TileScope.
    std::string err;
    // Not std::ifstream: opening a FIFO waits for a writer. load_report
    // refuses a FIFO or a device without blocking.
    if (std::error_code ec; std::filesystem::exists(path_, ec)) {
      if (auto r = read_report(path_, &err)) {
        report_ = std::move(*r);
        report_source_ = path_;  // the header says where it came from
      } else {
        message_ = err;
      }
    } else if (!shipped_.empty()) {
      if (!cuda_status().usable)
        show_shipped(0);
      else  // the load box names a file that exists
        std::snprintf(path_, sizeof path_, "%s", shipped_[0].path.c_str());
    }
  }

  // From File > Open, a drop, --perf-report or `tilescope report.json`. A file
  // that is not a report says why in the banner; the report on screen stays.
  void open_report(AppState& s, const std::string& path) {
    std::string err;
    if (auto r = read_report(path, &err)) {
      report_ = std::move(*r);
      report_source_ = path;
      shipped_index_ = shipped(path);
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
    const auto cat = all_lessons();
    ImGui::TextDisabled("Kernels");
    for (size_t i = 0; i < cat.size(); ++i) {
      bool on = choices_.kernel_on[i];
      if (i % 2) ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f);
      if (ImGui::Checkbox(cat[i].id, &on)) choices_.kernel_on[i] = on;
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
    flags("matmul n", choices_.sizes, false);
    flags("stencil length", choices_.lengths, true);
    flags("tiles", choices_.tiles, false);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::SliderInt("reps", &choices_.reps, 3, 50);
    ImGui::SameLine();
    ImGui::Checkbox("flush L2 before each launch", &choices_.flush);

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
    if (auto c = choices_.config(&message_)) {
      message_.clear();
      sweep_.start(*c);
    }
  }

  void draw_files(AppState& s) {
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 0.5f);
    ImGui::InputText("##perfpath", path_, sizeof path_);
    s.plot_marks.push_back({"panel", "load_path", path_, 0, 0, 0, 0, 0});
    std::string err;
    const std::string path = path_;
    auto base = [&] {
      const auto dot = path.rfind('.');
      return dot == std::string::npos ? path : path.substr(0, dot);
    };
    ImGui::BeginDisabled(!report_ || sweep_.running());
    // A shipped report is not written over (the load box starts at one).
    auto shipped_path = [&] { return shipped(path) >= 0; };  // on a click, not every frame
    const std::string keep = "That is a report shipped with TileScope (" + path +
                             "): type another file name to save to.";
    // Through the output layer: never over a file being read, a file that
    // exists replaced only once "Replace X?" is answered (app/core/outputs.hpp).
    if (ImGui::Button("Save")) message_ = shipped_path() ? keep : write(s, kSaveJson, path, false);
    ImGui::SameLine();
    if (ImGui::Button("Export CSV")) message_ = write(s, kCsv, base() + ".csv", false);
    ImGui::SameLine();
    if (ImGui::Button("Export JSON"))
      message_ = shipped_path() ? keep : write(s, kExportJson, path, false);
    ImGui::EndDisabled();
    int confirmed = 0;
    if (replace_.draw(&confirmed) && report_)
      message_ = write(s, confirmed, confirmed == kCsv ? base() + ".csv" : path, true);
    ImGui::SameLine();
    ImGui::BeginDisabled(sweep_.running());
    if (ImGui::Button("Load")) {
      if (auto r = read_report(path, &err)) {
        report_ = std::move(*r);
        report_source_ = path;
        shipped_index_ = shipped(path);
        message_ = "Loaded " + path + " (" + gpu_of(*report_) + ", " + date_of(*report_) + ")";
      } else {
        message_ = err;  // the last good result stays on screen
      }
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!report_);
    if (ImGui::Button("Compare with...")) {
      if (auto r = read_report(path, &err)) {
        before_ = std::move(*r);
        message_ = "Comparing with " + path;
      } else {
        message_ = err;
      }
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("Loads the report at the path above as the earlier run.");
  }

  enum { kSaveJson = 1, kCsv, kExportJson };
  // Writes the report (JSON or CSV) to `p`, or asks first when a file is there
  // and `replace` is not given; returns the panel's message.
  std::string write(AppState& s, int what, const std::string& p, bool replace) {
    std::string why;
    const WriteCheck c = check_window_output(s, {p}, &why);
    if (c == WriteCheck::Refuse) return why;
    if (c == WriteCheck::Ask && !replace) {
      replace_.ask(p, what);
      return "";
    }
    const std::string text = what == kCsv ? to_csv(*report_) : to_json(*report_) + "\n";
    if (!write_output(p, window_output_options(s, true), text, &why)) return why;
    return (what == kSaveJson ? "Saved " : "Wrote ") + p;
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
    // One choice per family the report timed (sgemm apart from matmul); both
    // plots show that family's lessons alone, on its metric.
    std::vector<std::string> fams = report_families(r);
    if (fams.empty())
      for (const char* f : families())
        fams.push_back(f);
    if (std::find(fams.begin(), fams.end(), plot_family_) == fams.end()) plot_family_ = fams[0];
    for (const std::string& f : fams) {
      ImGui::SameLine();
      if (ImGui::RadioButton(f.c_str(), plot_family_ == f)) plot_family_ = f;
    }
    s.plot_marks.push_back({"panel", "family", plot_family_, 0, 0, 0, 0, 0});
    const float avail = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 10);
    // Side by side where the slot is wide enough (the centre), stacked otherwise
    // (a 1280-pixel window at font 28: side by side, no ceiling name fitted).
    const bool side = avail >= ImGui::GetFontSize() * 40;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float w = side ? (avail - gap) / 2 : avail;
    // Within what is visible of the panel where it can (a 1280 x 720 window), so
    // that the roofline's lower half and its legend are not scrolled away.
    const float ph = std::clamp(std::min(w * 0.62f, ImGui::GetContentRegionAvail().y),
                                ImGui::GetFontSize() * 12, ImGui::GetFontSize() * 26);
    draw_throughput(r, plot_family_, ImVec2(w, ph), log_y_, colours_, s.plot_marks);
    if (side) ImGui::SameLine(0, gap);
    draw_roofline(r, plot_family_, ImVec2(w, ph), colours_, s.plot_marks);
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(
        "Roofline: a filled dot is a kernel at the intensity of its own global loads and stores "
        "(as a trace counts them: 0.25 flop/B naive, T times more tiled); a ring is the same time "
        "at the compulsory intensity (every array once). A dot above the memory roof means the "
        "caches served part of those loads.");
    ImGui::PopTextWrapPos();
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

  bool initialised_ = false;
  SweepChoices choices_;
  SeriesColours colours_;
  bool log_y_ = true;                       // naive and tiled kernels apart under cuBLAS
  std::string plot_family_;                 // the family both plots show
  FamilyLadderState family_ladder_;         // the family whose ladder is charted
  char path_[512] = "tilescope_perf.json";  // kDefaultPath
  std::vector<ShippedReport> shipped_;      // docs/perf_*.json, newest first
  int shipped_index_ = -1;                  // the one shown, or -1
  std::string message_;

  BackgroundSweep sweep_;
  std::optional<PerfReport> report_, before_;
  ReplacePrompt replace_;      // "Replace X?" before Save or Export replaces a file
  std::string report_source_;  // the file the report was loaded from, or this session's sweep

  std::future<std::vector<CountRow>> counts_job_;
  std::vector<CountRow> counts_;
  uint64_t current_generation_ = ~0ull;
  AccessCounts current_;
};

TS_REGISTER_VIEW(PerformanceView);

}  // namespace ts::app
