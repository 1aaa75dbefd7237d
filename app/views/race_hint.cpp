// See race_hint.hpp.
#include "app/views/race_hint.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "app/core/view.hpp"

namespace ts::app {
namespace {

// The same run again with other parameters or schedule, barriers as they are.
void rerun(AppState& s, const Trace& t, const Params& p, ScheduleKind kind) {
  s.request.lesson_id = t.config.lesson_id;
  s.request.params = p;
  s.request.barrier_mask = t.config.barrier_mask;
  s.request.schedule.kind = kind;
  s.param_error.clear();
  s.run_requested = true;
}

std::string knob_text(const LessonInfo& v, const Params& p) {
  return (v.uses & kUsesTile) ? "tile " + std::to_string(p.tile)
                              : "block " + std::to_string(p.block);
}

// Both panels draw the hint; the frame's record keeps each line once.
void note(AppState& s, const std::string& line) {
  if (std::find(s.race_hint.begin(), s.race_hint.end(), line) == s.race_hint.end())
    s.race_hint.push_back(line);
}
void text(AppState& s, const std::string& t) {
  note(s, t);
  text_wrapped_at_spaces(t);
}
bool button(AppState& s, const std::string& label, bool small = false) {
  note(s, "[" + label + "]");
  return small ? ImGui::SmallButton(label.c_str()) : ImGui::Button(label.c_str());
}

}  // namespace

void draw_race_hint(AppState& s, bool correct, uint64_t stale_reads) {
  if (!s.has_trace()) return;
  const Trace& t = s.trace();
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (!v || v->barriers.empty() || t.config.barrier_mask.keeps_all_of(int(v->barriers.size())))
    return;
  const int warps = warps_per_block(*v, t.config.params);
  ImGui::PushID("race-hint");
  if (warps == 1) {
    std::string why =
        "One warp per block: here the race is latent. The warp's threads execute each load "
        "and store together, so a read comes after the write it needs whatever the schedule "
        "does to other warps, and there are none.";
    if (stale_reads > 0)
      why +=
          " Only where the warp diverges (threads at an edge skip a load and run one step "
          "ahead) did " +
          std::to_string(stale_reads) + " loads see another value" +
          (correct ? "; the output stayed right." : ".");
    why +=
        " compute-sanitizer racecheck warns all the same (a hazard within a warp), and CUDA "
        "promises nothing: since Volta a warp's threads may diverge.";
    text(s, why);
    if (const auto two = params_with_warps(*v, t.config.params, 2)) {
      const std::string label = "Two warps per block (" + knob_text(*v, *two) + ")";
      if (button(s, label)) rerun(s, t, *two, ScheduleKind::WarpSkew);
    }
  } else if (correct) {
    const bool sim = t.config.backend == BackendKind::Simulator;
    // Stale loads that did not reach the output still count: say so.
    std::string stale;
    if (stale_reads > 0) {
      stale = " ";  // appended piece by piece: GCC 12 warns (-Wrestrict) on a chain of +
      stale += std::to_string(stale_reads);
      stale += " loads saw another value, yet every result came out right.";
    }
    if (sim && t.config.schedule.kind != ScheduleKind::WarpSkew) {
      text(s, "The output happened to be right: the warps ran nearly in step." + stale +
                  " The race is still there (see the hazards). Let the odd warps fall behind:");
      if (button(s, "Run with warp skew")) rerun(s, t, t.config.params, ScheduleKind::WarpSkew);
    } else {
      text(s, sim ? "The output happened to be right under this schedule." + stale +
                        " The race is still there (see the hazards). Other interleavings can "
                        "break it: try the random schedule."
                  : "The output happened to be right on the GPU this time." + stale +
                        " The race is still there (see the hazards). Run it N times below, with "
                        "a skew in nanoseconds, to see how often it bites.");
      if (sim && button(s, "Run with a random schedule"))
        rerun(s, t, t.config.params, ScheduleKind::Random);
    }
  }
  if (warps >= 2) {
    if (const auto one = params_with_warps(*v, t.config.params, 1)) {
      ImGui::TextDisabled("Compare:");
      const std::string label = "One warp per block (" + knob_text(*v, *one) + ")";
      // The button goes under "Compare:" where the pane is too narrow for both.
      same_line_if_fits(ImGui::CalcTextSize(label.c_str()).x +
                        2 * ImGui::GetStyle().FramePadding.x);
      if (button(s, label, true)) rerun(s, t, *one, t.config.schedule.kind);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The same barriers removed with a single warp: the race stays latent.");
    }
  }
  ImGui::PopID();
}

}  // namespace ts::app
