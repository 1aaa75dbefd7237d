#include "app/shell/menu.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <string>

#include "app/compare/compare_mode.hpp"
#include "app/core/jobs.hpp"
#include "app/core/palette.hpp"
#include "app/grid/grid_memory_overlay.hpp"
#include "app/grid/grid_zoom.hpp"
#include "app/shell/fonts_themes.hpp"

namespace ts::app {

void draw_menu(AppState& s) {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open trace or performance report...", "Ctrl+O")) s.file_dialog_open = true;
    if (ImGui::MenuItem("Open lecture... (.tslecture)")) s.file_dialog_open = true;
    // Lesson files (app/core/jobs.hpp): your kernel, compiled and rerun on every save.
    if (ImGui::MenuItem("Open lesson file... (your kernel, .hpp)", "Ctrl+L"))
      s.lesson_watch.dialog_open = true;
    if (ImGui::BeginMenu("Recent lesson files", !s.lesson_watch.recent.empty())) {
      for (const std::string& path : s.lesson_watch.recent)
        if (ImGui::MenuItem(path.c_str(), nullptr, path == s.lesson_watch.path))
          s.lesson_watch.open_request = path;
      ImGui::EndMenu();
    }
    if (s.lecture.active() && ImGui::MenuItem("Leave the lecture", "Esc"))
      s.lecture.leave_request = true;
    if (ImGui::MenuItem("Save trace as...", "Ctrl+S", false, s.has_trace()))
      s.save_dialog_open = true;
    if (ImGui::MenuItem("Export replay (GIF, MP4, PNG)...", nullptr, false, s.has_trace()))
      s.export_dialog_open = true;
    if (ImGui::MenuItem("Run the lesson", "F5")) s.run_requested = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Quit")) s.quit_requested = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Dark theme", "T", s.present.theme == Theme::Dark))
      s.present.theme = Theme::Dark;
    if (ImGui::MenuItem("Light theme (projectors)", "T", s.present.theme == Theme::Light))
      s.present.theme = Theme::Light;
    if (ImGui::MenuItem("Larger text", "Ctrl +")) {
      s.present.font_size = std::min(kMaxFont, s.present.font_size + 2);
      s.present.font_rebuild = true;
    }
    if (ImGui::MenuItem("Smaller text", "Ctrl -")) {
      s.present.font_size = std::max(kMinFont, s.present.font_size - 2);
      s.present.font_rebuild = true;
    }
    ImGui::MenuItem("Fullscreen", "F11", &s.present.fullscreen);
    ImGui::MenuItem("Presenter mode (grid, caption strip)", "P", &s.present.presenter);
    if (ImGui::MenuItem("Zoom the grid in", "+ / Ctrl+wheel"))
      set_grid_zoom(
          s, s.present.grid_zoom * 1.25f,
          ImVec2(s.grid_rect[0] + s.grid_rect[2] / 2, s.grid_rect[1] + s.grid_rect[3] / 2));
    if (ImGui::MenuItem("Fit the grid to the room", "0", false, s.present.grid_zoom > 1))
      set_grid_zoom(s, 1.0f, ImVec2(s.grid_rect[0], s.grid_rect[1]));
    if (ImGui::MenuItem("Grid and timeline only", "G", &s.present.focus_grid))
      s.present.focus_auto = false;
    ImGui::Separator();
    ImGui::MenuItem("Values in cells", nullptr, &s.present.show_values);
    ImGui::MenuItem("Global-load heatmap", "H", &s.present.heatmap);
    if (ImGui::BeginMenu("Colour cells by (M)")) {
      for (int m = 0; m < kMemoryColourModes; ++m)
        if (ImGui::MenuItem(memory_colours_name(MemoryColours(m)), nullptr,
                            s.present.memory == MemoryColours(m))) {
          s.present.memory = MemoryColours(m);
          if (m) s.present.heatmap = false;
        }
      ImGui::EndMenu();
    }
    ImGui::MenuItem("Barrier lines in the source", nullptr, &s.present.show_barrier_lines);
    ImGui::Separator();
    if (ImGui::MenuItem("Compare with... (two runs side by side)", nullptr, false, s.has_trace()))
      open_compare_dialog(s);
    if (compare_active(s) && ImGui::MenuItem("Close compare", "Esc")) close_compare(s);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Quiz")) {  // app/quiz/quiz.hpp
    if (ImGui::MenuItem("Start quiz", "Q", false, s.has_trace())) s.quiz.start_request = true;
    if (ImGui::MenuItem("Leave the quiz", "Esc", false, s.quiz.active()))
      s.quiz.leave_request = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted(
        "Space        play / pause\n"
        "Left/Right   one warp instruction (all its lanes) back / forward\n"
        "Shift+arrow  one event\n"
        "Up/Down      one barrier phase (PageUp/PageDown too, outside a lecture)\n"
        "PageDown/Up  a lecture's next / previous step (Esc leaves the lecture)\n"
        "B / Shift+B  next / previous barrier\n"
        "Home / End   start / end\n"
        "F5           run the lesson\n"
        "Q            quiz: click cells (or arrows + Space) or 1-9, Enter reveals, N next\n"
        "Ctrl +/-/0   text size (the controls; the grid keeps its size)\n"
        "+ / - / 0    zoom the grid in / out / fit (Ctrl+wheel too; wheel or right-drag pans)\n"
        "P            presenter mode: the grid gets the window, captions and questions\n"
        "             a strip of their own beside or below it\n"
        "T            light / dark theme\n"
        "H            global-load heatmap\n"
        "M            colour by: state, banks, bank conflicts, sectors, coalescing,\n"
        "             atomic contention\n"
        "F11          fullscreen\n"
        "G            grid and timeline only (side panels hidden)\n"
        "Ctrl+O       open a trace or a performance report (.json; or drop one on the window)\n"
        "Ctrl+S       save the trace (to replay it on any machine)\n"
        "Ctrl+L       open a lesson file: your kernel, run again on every save");
    ImGui::Separator();
    ImGui::TextDisabled("Font: %s", s.present.font_note.c_str());
    ImGui::EndMenu();
  }
  // Status on the right of the menu bar: what is running, where.
  const std::string status =
      s.lesson_watch.compiling()
          ? "compiling " + s.lesson_watch.path.substr(s.lesson_watch.path.rfind('/') + 1) + "..."
      : s.job.active()
          ? "running " + s.job.what + "..."
          : (s.result.backend_note.empty() ? std::string("no trace yet") : s.result.backend_note);
  // Where the menus leave too little room (a projector's text), shortened
  // at a clause, then at a word, never cut mid-word; hovered, it says it all.
  const float room = ImGui::GetWindowWidth() - ImGui::GetCursorPosX() - 40;
  auto width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  std::string shown = status;
  for (const char* clause : {" (", ": "})
    if (const size_t k = shown.find(clause); width(shown) > room && k != std::string::npos)
      shown.resize(k);
  while (width(shown) > room && shown.rfind(' ') != std::string::npos)
    shown.resize(shown.rfind(' '));
  const float w = width(shown);
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 20, ImGui::GetWindowWidth() - w - 20));
  ImGui::TextDisabled("%s", shown.c_str());
  if (shown != status && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", status.c_str());
  ImGui::EndMainMenuBar();
}

float draw_banner(AppState& s, float y, float w) {
  if (s.banner.text.empty()) return 0;
  const double now = glfwGetTime();
  if (s.banner.shown_at < 0) s.banner.shown_at = now;
  if (s.banner.kind == Banner::Info && now - s.banner.shown_at > 6.0) {
    s.banner.clear();
    return 0;
  }
  const Rgb col = s.banner.kind == Banner::Error     ? okabe_ito::kVermillion
                  : s.banner.kind == Banner::Warning ? okabe_ito::kOrange
                                                     : okabe_ito::kBlue;
  ImGui::SetNextWindowPos(ImVec2(0, y));
  ImGui::SetNextWindowSize(ImVec2(w, 0));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(to_f(col.r), to_f(col.g), to_f(col.b), 0.95f));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  ImGui::Begin("##banner", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoFocusOnAppearing);
  ImGui::PushTextWrapPos(w - ImGui::GetFontSize() * 4);
  ImGui::TextUnformatted(s.banner.text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::SameLine(w - ImGui::GetFontSize() * 3);
  if (ImGui::SmallButton("Close")) s.banner.clear();
  // Its height this frame (auto-sized windows settle on the next one).
  const float h = std::max(ImGui::GetWindowHeight(), ImGui::GetFrameHeightWithSpacing());
  ImGui::End();
  ImGui::PopStyleColor(2);
  return h;
}

}  // namespace ts::app
