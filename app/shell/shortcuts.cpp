#include "app/shell/shortcuts.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>

#include "app/grid/grid_zoom.hpp"
#include "app/quiz/quiz.hpp"
#include "app/shell/fonts_themes.hpp"

namespace ts::app {

void handle_shortcuts(AppState& s, bool file_dialog_open, bool budget_dialog_open) {
  ImGuiIO& io = ImGui::GetIO();
  const bool ctrl = io.KeyCtrl, shift = io.KeyShift;
  auto pressed = [](int key, bool repeat = true) { return ImGui::IsKeyPressed(key, repeat); };
  // Font size: Ctrl + / Ctrl - / Ctrl 0 (GLFW key codes; '=' shares the '+' key).
  if (ctrl && (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD))) {
    s.present.font_size = std::min(kMaxFont, s.present.font_size + 2);
    s.present.font_rebuild = true;
  }
  if (ctrl && (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT))) {
    s.present.font_size = std::max(kMinFont, s.present.font_size - 2);
    s.present.font_rebuild = true;
  }
  if (ctrl && pressed(GLFW_KEY_0, false)) {
    s.present.font_size = 18;
    s.present.font_rebuild = true;
  }
  if (ctrl && !file_dialog_open && pressed(GLFW_KEY_O, false)) s.file_dialog_open = true;
  if (ctrl && !file_dialog_open && pressed(GLFW_KEY_L, false)) s.lesson_watch.dialog_open = true;
  if (ctrl && !file_dialog_open && pressed(GLFW_KEY_S, false)) s.save_dialog_open = true;
  if (pressed(GLFW_KEY_F11, false)) s.present.fullscreen = !s.present.fullscreen;
  if (pressed(GLFW_KEY_F5, false)) s.run_requested = true;
  if (io.WantTextInput || ctrl || file_dialog_open || budget_dialog_open)
    return;  // keys belong to the dialog
  if (pressed(GLFW_KEY_T, false))
    s.present.theme = s.present.theme == Theme::Dark ? Theme::Light : Theme::Dark;
  if (pressed(GLFW_KEY_H, false)) {
    s.present.heatmap = !s.present.heatmap;
    if (s.present.heatmap) s.present.memory = MemoryColours::State;
  }
  if (pressed(GLFW_KEY_M, false)) {  // the grid's memory colours, in turn
    s.present.memory = MemoryColours((int(s.present.memory) + 1) % kMemoryColourModes);
    if (s.present.memory != MemoryColours::State) s.present.heatmap = false;
  }
  if (pressed(GLFW_KEY_P, false)) {
    s.present.presenter = !s.present.presenter;
    s.present.presenter_chosen = true;  // the app no longer switches it (app/shell/layout.cpp)
    s.present.presenter_auto = false;
  }
  grid_zoom_keys(s);  // + / - / 0: the grid's zoom (Ctrl +/- stays the text size)
  if (pressed(GLFW_KEY_G, false)) {
    s.present.focus_grid = !s.present.focus_grid;
    s.present.focus_auto = false;  // the user's choice from now on
  }
  if (s.lecture.active()) {  // a presenter's remote sends PageDown / PageUp
    const int last = int(s.lecture.lecture->steps.size()) - 1;
    const int at = s.lecture.step_request.value_or(s.lecture.step);
    if (pressed(GLFW_KEY_PAGE_DOWN, false)) s.lecture.step_request = std::min(last, at + 1);
    if (pressed(GLFW_KEY_PAGE_UP, false)) s.lecture.step_request = std::max(0, at - 1);
    if (pressed(GLFW_KEY_ESCAPE, false)) s.lecture.leave_request = true;
  }
  if (s.has_trace() && quiz_keys(s)) return;  // a quiz takes the arrows, Space, Enter, 1-9
  if (!s.replay) return;
  Replay& r = *s.replay;
  const uint64_t pos = r.position();
  auto go = [&](uint64_t p) {
    s.replay_ui.playing = false;
    s.request_position(p);
  };
  if (pressed(GLFW_KEY_SPACE, false)) {
    if (pos >= r.size()) s.request_position(0);
    s.replay_ui.playing = !s.replay_ui.playing;
  }
  // A warp instruction: the next (previous) warp access with all its lanes
  // applied, as the timeline's warp buttons step.
  auto warp_step = [&](bool forward) {
    return s.result.warp ? s.access_stops.step(s.result.warp, r, pos, forward)
                         : r.warp_step(pos, forward);
  };
  if (pressed(GLFW_KEY_RIGHT)) go(shift ? std::min(r.size(), pos + 1) : warp_step(true));
  if (pressed(GLFW_KEY_LEFT)) go(shift ? (pos ? pos - 1 : 0) : warp_step(false));
  const bool pages = !s.lecture.active();  // in a lecture they move between its steps
  if ((pages && pressed(GLFW_KEY_PAGE_DOWN)) || pressed(GLFW_KEY_DOWN))
    go(r.phase_step(pos, true, s.selection.block));
  if ((pages && pressed(GLFW_KEY_PAGE_UP)) || pressed(GLFW_KEY_UP))
    go(r.phase_step(pos, false, s.selection.block));
  if (pressed(GLFW_KEY_B)) go(r.barrier_step(pos, !shift, s.selection.block));
  // C: the next warp access with a bank conflict (Shift+C: the one before),
  // one key from any position instead of stepping access by access.
  if (pressed(GLFW_KEY_C) && s.result.warp) {
    const std::shared_ptr<const WarpIndex>& w = s.result.warp;
    for (uint64_t p = pos;;) {
      const uint64_t next = s.access_stops.step(w, r, p, !shift);
      if (next == p || next == 0 || next > r.size()) break;
      p = next;
      const uint32_t e = r.event_at(p);
      const int32_t a = e < w->access_of.size() ? w->access_of[e] : -1;
      if (a >= 0 && w->accesses.accesses[size_t(a)].bank.conflicts() > 0) {
        go(p);
        s.selection.block = w->accesses.accesses[size_t(a)].block;  // its shared memory on screen
        break;
      }
      if (p >= r.size()) break;
    }
  }
  if (pressed(GLFW_KEY_HOME, false)) go(0);
  if (pressed(GLFW_KEY_END, false)) go(r.size());
}

}  // namespace ts::app
