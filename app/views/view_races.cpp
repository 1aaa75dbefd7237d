// The race panel: the shared-memory hazards of the current trace in
// racecheck's two forms (grouped by source-line pair, expandable to every
// hazard), what the race actually did (stale reads, wrong cells), and "Run N
// times" to see how often it bites, with a skew control to make it bite.
//
// Choosing a hazard jumps the replay to its second access, follows the
// block and thread, and marks the cell on the shared-memory grid with who
// wrote and who read which value. Analysis and repeated runs happen in the
// background; the last good result stays on screen when a new one fails.
#include <imgui.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <memory>
#include <set>
#include <string>

#include "analysis/hazards.hpp"
#include "analysis/memory_estimate.hpp"
#include "analysis/race_runs.hpp"
#include "analysis/stale_reads.hpp"
#include "app/core/view.hpp"
#include "app/views/race_hint.hpp"

namespace ts::app {
namespace {

// Everything derived from one trace, computed off the UI thread.
struct Analysis {
  uint64_t generation = 0;
  std::shared_ptr<const Trace> trace;
  HazardReport hazards;
  StaleReadReport stale;
  OutputDamage damage;
};

Analysis analyse(uint64_t generation, std::shared_ptr<const Trace> trace,
                 std::shared_ptr<const StaleReadReport> stale) {
  Analysis a;
  a.generation = generation;
  a.trace = trace;
  a.hazards = analyze_hazards(*trace);
  // The stale reads the grid marks: computed once with the replay, not again here.
  if (stale)
    a.stale = *stale;
  else
    a.stale.error = "no reference run for this trace";
  a.damage = output_damage(*trace);
  return a;
}

// "tileB[3][7]", "rowsA[12]", "cache[5]": the array as the kernel's source names it.
std::string cell_name(const Trace& t, ArraySlot slot, uint32_t element) {
  return element_name(t.config.arrays, slot, element);
}

std::string access_text(const HazardAccess& a) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "thread %u (warp %u) %s %g at line %u", a.thread, a.warp,
                a.is_write ? "wrote" : "read", a.value, a.line);
  return buf;
}

ImVec4 severity_colour(HazardSeverity s) {
  // Orange for errors, sky blue for warnings: apart for colour-blind viewers too.
  return s == HazardSeverity::Error ? ImVec4(0.90f, 0.62f, 0.0f, 1.0f)
                                    : ImVec4(0.34f, 0.71f, 0.91f, 1.0f);
}

class RacesView final : public View {
 public:
  ~RacesView() override {
    cancel_ = true;  // the futures' destructors wait; make the runs stop first
  }
  const char* name() const override { return "Races"; }
  Slot slot() const override { return Slot::Right; }
  int order() const override { return 40; }

  void update(AppState& s) override {
    updated_frame_ = ImGui::GetFrameCount();
    // A new trace: analyse it in the background.
    if (s.result.trace && s.result.generation != requested_generation_) {
      requested_generation_ = s.result.generation;
      selected_ = -1;
      group_open_.clear();
      s.clear_marks("races");
      analysis_job_ = std::async(std::launch::async, analyse, s.result.generation, s.result.trace,
                                 s.replay ? s.replay->stale_report() : nullptr);
    }
    if (analysis_job_.valid() &&
        analysis_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      analysis_ = std::make_unique<Analysis>(analysis_job_.get());
      marked_position_ = UINT64_MAX;
    }
    // A hazard asked for on the command line, once the analysis is in.
    if (s.select_hazard >= 0 && current(s)) {
      const int n = int(analysis_->hazards.hazards.size());
      if (s.select_hazard >= n)  // scripted: a usage error, as an index past a list is
        s.option_error =
            "--hazard: " + std::to_string(s.select_hazard) +
            (n == 0 ? std::string(" names a hazard, but this run has none")
                    : " is out of range: give a whole number from 0 to " + std::to_string(n - 1) +
                          " (the race panel lists " + std::to_string(n) + " hazards)");
      if (n > 0) {
        const int want = std::min(s.select_hazard, n - 1);
        // Open its group so that the chosen row shows in the list.
        const auto& groups = analysis_->hazards.groups;
        group_open_.assign(groups.size(), 0);
        for (size_t gi = 0; gi < groups.size(); ++gi)
          for (uint32_t i : groups[gi].detail)
            if (int(i) == want) group_open_[gi] = 1, force_open_ = int(gi);
        choose(s, want, false);
      }
      s.select_hazard = -1;
    }
    if (runs_job_.valid() &&
        runs_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      RaceRunsResult r = runs_job_.get();
      if (r.ok) {
        if (!r.hazards_checked && r.hazards_note.empty()) r.hazards_note = hazards_skipped_;
        runs_ = std::make_unique<RaceRunsResult>(std::move(r));
        runs_error_.clear();
      } else {
        runs_error_ = r.error;  // the last good histogram stays
        s.banner.show(Banner::Error, "Run N times: " + r.error);
      }
    }
    s.races = {};
    if (current(s)) {
      const HazardReport& hz = analysis_->hazards;
      s.races = {true, hz.total, hz.errors, hz.warnings};
    }
    update_marks(s);
    if (analysis_job_.valid() || runs_job_.valid()) s.mark_busy();
  }

  void draw(AppState& s) override {
    if (updated_frame_ != ImGui::GetFrameCount()) update(s);  // in case the app does not call it
    draw_hazards(s);
    ImGui::Separator();
    draw_runs(s);
  }

 private:
  bool current(const AppState& s) const {
    return analysis_ && s.has_trace() && analysis_->trace.get() == &s.trace();
  }

  // Hazard cells the replay has reached are marked; the chosen hazard's two
  // accesses are marked as the write and the read.
  void update_marks(AppState& s) {
    if (!current(s)) return;
    const uint64_t pos = s.replay->position();
    if (pos == marked_position_ && marked_selected_ == selected_ && marked_all_ == mark_all_)
      return;
    marked_position_ = pos;
    marked_selected_ = selected_;
    marked_all_ = mark_all_;
    std::vector<CellMark> marks;
    const HazardReport& hz = analysis_->hazards;
    if (mark_all_) {
      std::set<std::tuple<ArraySlot, uint32_t, uint32_t>> seen;
      for (const Hazard& h : hz.hazards) {
        if (s.replay->position_after(uint32_t(h.second.event)) > pos) continue;
        if (!seen.insert({h.buffer, h.block, h.element}).second) continue;
        marks.push_back({h.buffer, h.block, h.element, MarkStyle::Hazard,
                         std::string(to_string(h.kind)) + " " + to_string(h.severity)});
      }
    }
    if (selected_ >= 0 && size_t(selected_) < hz.hazards.size()) {
      const Hazard& h = hz.hazards[selected_];
      const HazardAccess& w = h.first.is_write ? h.first : h.second;
      const HazardAccess& r = h.first.is_write ? h.second : h.first;
      marks.push_back({h.buffer, h.block, h.element, MarkStyle::Write, access_text(w)});
      if (!r.is_write)
        marks.push_back({h.buffer, h.block, h.element, MarkStyle::Read, access_text(r)});
      else
        marks.push_back({h.buffer, h.block, h.element, MarkStyle::Write, access_text(r)});
    }
    s.set_marks("races", std::move(marks));
  }

  void choose(AppState& s, int index, bool to_first) {
    // Event indices belong to the analysed trace: never jump in another one.
    if (!current(s) || index < 0 || size_t(index) >= analysis_->hazards.hazards.size()) return;
    const Hazard& h = analysis_->hazards.hazards[index];
    if (h.second.event >= s.trace().events.size()) return;
    selected_ = index;
    const HazardAccess& a = to_first ? h.first : h.second;
    s.replay_ui.playing = false;
    s.request_jump_to_event(uint32_t(a.event));
    s.selection.block = h.block;
    s.selection.thread = a.thread;
  }

  void draw_hazards(AppState& s) {
    if (!s.has_trace()) {
      ImGui::TextDisabled("No trace yet: run a lesson or open a trace file.");
      return;
    }
    if (!current(s)) {
      ImGui::TextDisabled("Analysing the trace...");
      if (!analysis_) return;
      ImGui::TextDisabled("(showing the previous trace's analysis)");
    }
    const Analysis& a = *analysis_;
    const HazardReport& hz = a.hazards;
    const Trace& t = *a.trace;

    if (hz.trace_truncated)
      ImGui::TextColored(ImVec4(0.9f, 0.62f, 0.0f, 1.0f),
                         "The trace is truncated: hazards may be missing.");
    if (hz.missed_by_racecheck()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.9f, 0.62f, 0.0f, 1.0f));
      ImGui::TextWrapped(
          "racecheck does not check atomics. Counting an atomic as a write against plain loads "
          "and stores of the same cell: %llu more hazards (%s), races racecheck misses.",
          (unsigned long long)hz.missed_by_racecheck(), hz.with_atomics_verdict.c_str());
      ImGui::PopStyleColor();
    }
    if (hz.empty()) {
      ImGui::TextWrapped(
          "No shared-memory hazards: every pair of accesses to the same shared "
          "cell by different threads is separated by a barrier (%llu shared "
          "accesses checked).",
          (unsigned long long)hz.shared_accesses);
    } else {
      ImGui::TextWrapped(
          "%llu hazards: %llu errors (between warps), %llu warnings (within a "
          "warp). RAW %llu, WAR %llu, WAW %llu.",
          (unsigned long long)hz.total, (unsigned long long)hz.errors,
          (unsigned long long)hz.warnings, (unsigned long long)hz.by_kind[0],
          (unsigned long long)hz.by_kind[1], (unsigned long long)hz.by_kind[2]);
      if (hz.order_dependent())
        ImGui::TextWrapped(
            "Errors: %s. Between two warps with no barrier, the kind is the order the warps "
            "happened to run in (a read and a write: RAW or WAR), so another run, or "
            "racecheck, may show other kinds among these.",
            hz.verdict().c_str());
      if (hz.hidden_by_shadow())
        ImGui::TextWrapped(
            "racecheck checks each access against the one before it only: %llu more racing "
            "pairs (%s) hide behind a later access and are not reported.",
            (unsigned long long)hz.hidden_by_shadow(), hz.since_last_write_verdict.c_str());
      ImGui::Checkbox("Mark hazard cells during replay", &mark_all_);
      // As tall as its rows, at most 12 lines or 40 % of the panel.
      const float line = ImGui::GetTextLineHeightWithSpacing();
      float rows = float(hz.groups.size()) + 0.5f;
      group_open_.resize(hz.groups.size(), 0);  // as the tree was last frame
      for (size_t gi = 0; gi < hz.groups.size(); ++gi)
        if (group_open_[gi]) rows += float(hz.groups[gi].detail.size()) + 1;
      const float height = std::clamp(
          rows * line, 2 * line,
          std::max(4 * line, std::min(12 * line, ImGui::GetContentRegionAvail().y * 0.3f)));
      ImGui::BeginChild("hazard-list", ImVec2(0, height), true);
      for (size_t gi = 0; gi < hz.groups.size(); ++gi) {
        const HazardGroup& g = hz.groups[gi];
        ImGui::PushID(int(gi));
        ImGui::PushStyleColor(ImGuiCol_Text, severity_colour(g.severity));
        if (force_open_ == int(gi)) ImGui::SetNextItemOpen(true);
        const bool open = ImGui::TreeNodeEx(
            "group", ImGuiTreeNodeFlags_SpanAvailWidth, "%s %s %s %u->%u: %llu (%llu cells)",
            g.severity == HazardSeverity::Error ? "Error" : "Warning", to_string(g.kind),
            array_name(t.config.arrays, g.buffer).c_str(), g.first_line, g.second_line,
            (unsigned long long)g.count, (unsigned long long)g.elements);
        ImGui::PopStyleColor();
        group_open_[gi] = open;
        if (open) {
          for (uint32_t i : g.detail) {
            const Hazard& h = hz.hazards[i];
            // Which pass of the tile loop: the second access's barrier phase.
            char phase[32] = "";
            if (current(s) && h.second.event < s.replay->trace().events.size())
              std::snprintf(phase, sizeof phase, ", phase %u",
                            unsigned(s.replay->phase_of(uint32_t(h.second.event))));
            char label[200];
            std::snprintf(label, sizeof label, "%s block %u: t%u -> t%u%s##%u",
                          cell_name(t, h.buffer, h.element).c_str(), h.block, h.first.thread,
                          h.second.thread, phase, i);
            if (ImGui::Selectable(label, selected_ == int(i))) choose(s, int(i), false);
          }
          if (g.count > g.detail.size())
            ImGui::TextDisabled("... %llu more not listed",
                                (unsigned long long)(g.count - g.detail.size()));
          ImGui::TreePop();
        }
        ImGui::PopID();
      }
      ImGui::EndChild();
      force_open_ = -1;
    }

    if (selected_ >= 0 && size_t(selected_) < hz.hazards.size()) {
      const Hazard& h = hz.hazards[selected_];
      ImGui::PushStyleColor(ImGuiCol_Text, severity_colour(h.severity));
      ImGui::TextWrapped("%s %s (%s) on %s, block %u, barrier interval %u",
                         h.severity == HazardSeverity::Error ? "Error" : "Warning",
                         to_string(h.kind), long_name(h.kind),
                         cell_name(t, h.buffer, h.element).c_str(), h.block, h.interval);
      ImGui::PopStyleColor();
      // Each access with a button that jumps the replay to it.
      if (ImGui::SmallButton("show##first")) choose(s, selected_, true);
      ImGui::SameLine();
      ImGui::TextWrapped("first: %s", access_text(h.first).c_str());
      if (ImGui::SmallButton("show##second")) choose(s, selected_, false);
      ImGui::SameLine();
      ImGui::TextWrapped("second: %s", access_text(h.second).c_str());
      // The definition folds away so that what the race did stays on screen.
      char head[64];
      std::snprintf(head, sizeof head, "What is %s?##explain", long_name(h.kind));
      if (ImGui::TreeNode(head)) {
        ImGui::TextWrapped("%s", explanation(h.kind));
        ImGui::TreePop();
      }
      if (h.severity == HazardSeverity::Warning)
        ImGui::TextWrapped(
            "Both threads are in one warp, so racecheck calls this a warning: it "
            "only works if the warp's threads move together, which no GPU since "
            "Volta promises.");
    } else if (ImGui::CollapsingHeader("What are RAW, WAR and WAW?")) {
      for (int k = 0; k < kHazardKindCount; ++k) {
        ImGui::TextWrapped("%s", explanation(HazardKind(k)));
        ImGui::Spacing();
      }
    }

    ImGui::Separator();
    ImGui::TextUnformatted("What happened in this run");
    // Bullets that wrap (BulletText does not): the column is narrow.
    auto bullet = [](const std::string& text) {
      ImGui::Bullet();
      ImGui::TextWrapped("%s", text.c_str());
    };
    char buf[256];
    if (a.stale.compared) {
      std::snprintf(buf, sizeof buf,
                    "%llu of %llu loads saw another value than the synchronised program",
                    (unsigned long long)a.stale.stale, (unsigned long long)a.stale.loads_compared);
      bullet(buf);
    } else {
      bullet("Stale reads not checked: " + a.stale.error);
    }
    if (a.damage.checked) {
      if (a.damage.wrong.empty())
        std::snprintf(buf, sizeof buf, "Output correct (%llu cells)",
                      (unsigned long long)a.damage.cells);
      else
        std::snprintf(buf, sizeof buf, "%zu of %llu output cells wrong, max error %g",
                      a.damage.wrong.size(), (unsigned long long)a.damage.cells,
                      a.damage.max_abs_error);
      bullet(buf);
    }
    if (!hz.empty() && a.damage.checked && a.damage.wrong.empty())
      ImGui::TextWrapped("Race present, output happened to be right this time.");
    draw_race_hint(s, !a.damage.checked || a.damage.wrong.empty(),
                   a.stale.compared ? a.stale.stale : 0);
  }

  void draw_runs(AppState& s) {
    ImGui::TextUnformatted("Run N times");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::InputInt("runs", &runs_wanted_);
    runs_wanted_ = std::clamp(runs_wanted_, 1, kMaxRaceRuns);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::InputInt("skew (ns, GPU)", &skew_ns_, 100, 1000);
    skew_ns_ = std::clamp(skew_ns_, 0, 1000000);
    ImGui::Checkbox("delay the odd warps", &skew_odd_);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "On the GPU the chosen warps sleep at the kernel's delay point; on the "
          "simulator they fall behind (warp-skew schedule) instead of random "
          "schedules.");

    const bool busy = runs_job_.valid();
    if (busy) {
      ImGui::ProgressBar(runs_total_ > 0 ? float(runs_done_) / float(runs_total_) : 0.0f,
                         ImVec2(-1, 0));
      if (ImGui::Button("Cancel")) cancel_ = true;
    } else if (ImGui::Button("Run N times")) {
      start_runs(s);
    }
    if (!runs_error_.empty())
      ImGui::TextColored(ImVec4(0.9f, 0.3f, 0.3f, 1.0f), "Last attempt failed: %s",
                         runs_error_.c_str());
    if (!runs_) return;
    const RaceRunsResult& r = *runs_;
    ImGui::TextWrapped("%s", r.state().c_str());
    ImGui::TextWrapped("%s", r.backend_note.c_str());
    std::vector<float> bins(r.histogram.counts.begin(), r.histogram.counts.end());
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "%d of %d runs wrong", r.wrong_runs, r.runs_done);
    ImGui::PlotHistogram("##wrong-cells", bins.data(), int(bins.size()), 0, overlay, 0.0f,
                         float(std::max(1, r.runs_done)), ImVec2(-1, ImGui::GetFontSize() * 5));
    if (ImGui::IsItemHovered() && !r.histogram.lower.empty()) {
      // Which bin is under the mouse.
      const float x = (ImGui::GetIO().MousePos.x - ImGui::GetItemRectMin().x) /
                      std::max(1.0f, ImGui::GetItemRectSize().x);
      const size_t b = std::min(bins.size() - 1, size_t(std::max(0.0f, x) * bins.size()));
      ImGui::SetTooltip("%u-%u wrong cells: %u runs", r.histogram.lower[b], r.histogram.upper[b],
                        r.histogram.counts[b]);
    }
    ImGui::TextDisabled("wrong cells per run: 0 at the left, up to %u at the right",
                        r.histogram.upper.empty() ? 0u : r.histogram.upper.back());
  }

  void start_runs(AppState& s) {
    RaceRunsRequest req;
    req.base = s.request;
    req.runs = runs_wanted_;
    req.base.skew_ns = skew_ns_;
    req.base.skew_warps = skew_odd_ ? 0xAAAAAAAAu : 0u;
    if (skew_odd_) {
      req.base.schedule.kind = ScheduleKind::WarpSkew;
      req.base.schedule.skew_warps = 0xAAAAAAAAu;
    } else {
      req.base.schedule.kind = ScheduleKind::Random;
    }
    if (auto err = validate_race_runs(req)) {
      runs_error_ = *err;
      return;
    }
    // Its traced run (for the hazards) comes beside the trace on screen: only
    // within the memory budget.
    hazards_skipped_.clear();
    if (const LessonInfo* v = find_lesson(req.base.lesson_id); v && req.check_hazards) {
      const uint64_t held =
          s.replay ? window_held_bytes(s.replay->size(), s.replay->cells().size()) : 0;
      const uint64_t need = held + estimate_run(*v, req.base.params, req.base.trace_capacity).bytes;
      if (need > memory_budget()) {
        req.check_hazards = false;
        hazards_skipped_ = "its traced run beside this trace would need " + format_bytes(need) +
                           ", more than the memory budget";
      }
    }
    cancel_ = false;
    runs_done_ = 0;
    runs_total_ = req.runs;
    runs_job_ = std::async(std::launch::async, [this, req] {
      return run_race_runs(
          req,
          [this](int done, int total) {
            runs_done_ = done;
            runs_total_ = total;
          },
          &cancel_);
    });
  }

  int updated_frame_ = -1;
  // Trace analysis.
  uint64_t requested_generation_ = UINT64_MAX;
  std::future<Analysis> analysis_job_;
  std::unique_ptr<Analysis> analysis_;
  int selected_ = -1;             // index into analysis_->hazards.hazards
  std::vector<char> group_open_;  // which groups of the list are expanded
  int force_open_ = -1;           // a group to open on the next draw (a hazard chosen by script)
  bool mark_all_ = true;
  uint64_t marked_position_ = UINT64_MAX;
  int marked_selected_ = -2;
  bool marked_all_ = false;

  // Repeated runs.
  int runs_wanted_ = 20;
  int skew_ns_ = 0;
  bool skew_odd_ = false;
  std::atomic<bool> cancel_{false};
  std::atomic<int> runs_done_{0}, runs_total_{0};
  std::future<RaceRunsResult> runs_job_;
  std::unique_ptr<RaceRunsResult> runs_;
  std::string runs_error_;
  std::string hazards_skipped_;  // why the batch ran without its traced run
};

TS_REGISTER_VIEW(RacesView);

}  // namespace
}  // namespace ts::app
