#include "app/lecture/lecture.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/core/jobs.hpp"
#include "app/lecture/caption_strip.hpp"
#include "app/replay/position_spec.hpp"

namespace ts::app {

namespace {

// The step's panels, colours and replay order, then its run.
void start_step(AppState& s, BudgetDialog& budget, bool scripted, int index) {
  LectureState& L = s.lecture;
  const LectureStep& step = L.lecture->steps[size_t(index)];
  L.step = index;
  s.request = step.request;
  s.param_error.clear();
  // "present" turns presenter mode on; the other steps leave it as the presenter set it.
  if (step.panels == "present") s.present.presenter = true;
  s.present.auto_zoom = true;  // each step's subject, until 0 asks for the whole grid
  if (step.panels == "auto" || step.panels == "present") {
    s.present.focus_auto = true;
  } else {
    s.present.focus_auto = false;
    s.present.focus_grid = step.panels == "grid";
  }
  s.present.heatmap = step.memory == "heatmap";
  const char* const modes[] = {"state",   "banks",      "conflicts",
                               "sectors", "coalescing", "contention"};
  s.present.memory = MemoryColours::State;
  for (int m = 0; m < kMemoryColourModes; ++m)
    if (step.memory == modes[m]) s.present.memory = MemoryColours(m);
  s.replay_ui.order_request =
      step.order == "recorded" ? ReplayOrder::AsRecorded : ReplayOrder::Lockstep;
  s.replay_ui.playing = false;
  L.generation = s.result.generation;
  start_run(s, budget, scripted);
  L.awaiting_run = s.job.active();  // refused: the banner says why
}

}  // namespace

bool is_lecture_path(const std::string& path) {
  const std::string ext = kLectureExtension;
  return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
}

bool open_lecture(AppState& s, const std::string& path, int first, std::string* error) {
  std::string err;
  auto lecture = load_lecture(path, &err);
  if (!lecture) {
    s.banner.show(Banner::Error, "Not a lecture: " + err);
    if (error) *error = err;
    return false;
  }
  LectureState& L = s.lecture;
  L.lecture = std::make_shared<const Lecture>(std::move(*lecture));
  L.path = path;
  L.step = -1;
  // A lecture is given to a room: presenter mode (the grid gets the window,
  // the caption a strip of its own, the grid zooms where it would be too
  // small to read). P shows the panels again for the rest of the lecture.
  s.present.presenter = true;
  L.step_request = std::clamp(first, 0, int(L.lecture->steps.size()) - 1);
  return true;
}

void update_lecture(AppState& s, BudgetDialog& budget, bool scripted, bool wait) {
  LectureState& L = s.lecture;
  if (!L.open_request.empty()) {
    open_lecture(s, L.open_request, 0, nullptr);
    L.open_request.clear();
  }
  if (L.leave_request) {
    L.leave_request = false;
    L.lecture.reset();
    L.step = -1;
    L.step_request.reset();
    L.awaiting_run = false;
  }
  if (!L.active()) return;
  // A step asked for while the last one still runs waits for it.
  if (L.step_request && !s.job.active()) {
    const int to = *L.step_request;
    L.step_request.reset();
    start_step(s, budget, scripted, to);
    if (wait) poll_job(s, true);
  }
  if (L.awaiting_run && !s.job.active()) {
    L.awaiting_run = false;
    if (s.result.generation != L.generation && s.replay) {
      s.replay->set_order(s.replay_ui.order_request);
      std::string err;
      if (!apply_position_spec(s, L.lecture->steps[size_t(L.step)].position, &err))
        s.banner.show(Banner::Error, err);
    }
  }
}

void draw_lecture_caption(AppState& s, float w) {
  LectureState& L = s.lecture;
  if (!L.active() || L.step < 0) return;
  const LectureStep& step = L.lecture->steps[size_t(L.step)];
  const float margin = ImGui::GetFontSize() * 0.5f;
  char where[64];
  std::snprintf(where, sizeof where, "step %d / %zu", L.step + 1, L.lecture->steps.size());
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.8f, 0.85f, 0.95f, 1));
  ImGui::PushTextWrapPos(std::max(margin, w - 3 * margin - ImGui::CalcTextSize(where).x));
  ImGui::TextUnformatted(L.lecture->title.c_str());
  ImGui::PopTextWrapPos();
  ImGui::SameLine(
      std::max(ImGui::GetCursorPosX() + margin, w - ImGui::CalcTextSize(where).x - 2 * margin));
  ImGui::TextUnformatted(where);
  ImGui::PopStyleColor();
  // Large type: read from the back of a room on a 1280 x 720 projector.
  ImFont* big = static_cast<ImFont*>(s.present.big_font);
  if (big) ImGui::PushFont(big);
  L.caption_px = caption_fit_size(s, w, s.strip_rect[3]);
  ImGui::SetWindowFontScale(L.caption_px / ImGui::GetFont()->FontSize);
  ImGui::PushTextWrapPos(w - 2 * margin);
  ImGui::TextUnformatted(step.caption.c_str());
  ImGui::PopTextWrapPos();
  L.caption_bottom = ImGui::GetItemRectMax().y;
  ImGui::SetWindowFontScale(1.0f);
  if (big) ImGui::PopFont();
  // What the run came to: the room sees no Verdict or Races panel.
  if (const std::string facts = presenter_facts(s); !facts.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.90f, 0.55f, 1));
    ImGui::PushTextWrapPos(w - 2 * margin);
    ImGui::TextUnformatted(facts.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    L.caption_bottom = ImGui::GetItemRectMax().y;
  }
  // The caption's band is the strip it has to itself.
  std::copy(s.strip_rect, s.strip_rect + 4, L.band);
}

}  // namespace ts::app
