// The quiz band (app/quiz/quiz.hpp): over the timeline strip, so that the whole
// grid stays in view for clicking; in large type, to be read from the back of
// a room on a 1280 x 720 projector.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>

#include "app/core/app_state.hpp"
#include "app/core/view.hpp"
#include "app/quiz/quiz_colours.hpp"

namespace ts::app {

namespace {

ImVec4 colour(Rgb c) {
  return ImVec4(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1);
}

bool band_button(const char* label, bool highlighted) {
  if (highlighted) {
    ImGui::PushStyleColor(ImGuiCol_Button, colour(kQuizChosen));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, colour(kQuizChosen));
  }
  const bool clicked = ImGui::Button(label);
  if (highlighted) ImGui::PopStyleColor(2);
  return clicked;
}

std::string verdict_text(const Question& q, const Answer& a, const Grade& g) {
  if (g.right) return "Right!";
  if (!q.cells()) {  // short: it shares a line with Next at a large font
    std::string c = "Answer: " + q.choices[size_t(std::max(0, q.truth_choice))] + " (green)";
    if (a.choice >= 0 && a.choice < int(q.choices.size()))
      c.append(", not ").append(q.choices[size_t(a.choice)]).append(" (red)");
    return c.append(".");
  }
  std::string t = "Not quite:";
  if (!g.missed.empty())
    t.append(" ").append(std::to_string(g.missed.size())).append(" missed (yellow rings)");
  if (!g.extra.empty()) {
    if (!g.missed.empty()) t.append(",");
    t.append(" ").append(std::to_string(g.extra.size())).append(" extra (red)");
  }
  if (q.truth_cells.empty()) t.append(" no cell is the answer");
  return t.append("; green: chosen and right.");
}

}  // namespace

void draw_quiz_band(AppState& s) {
  QuizState& Q = s.quiz;
  std::fill(std::begin(Q.band), std::end(Q.band), 0.0f);
  const Question* q = Q.question();
  if (!q) return;
  const float* bottom = s.slot_rects[int(Slot::Bottom)];
  // In the caption strip beside or below the grid (app/lecture/caption_strip.hpp), all of it;
  // without one, over the timeline.
  const bool strip = s.strip_rect[2] > 0;
  const float* room = strip ? s.strip_rect : bottom;
  const bool over_timeline = strip || (bottom[2] > 0 && bottom[3] > ImGui::GetFontSize() * 6);
  const float x = over_timeline ? room[0] : s.center_rect[0];
  const float w = over_timeline ? room[2] : s.center_rect[2];
  const float y_bottom = over_timeline ? room[1] + room[3] : s.center_rect[1] + s.center_rect[3];
  if (w <= 0) return;
  const float margin = ImGui::GetFontSize() * 0.4f, inset = strip ? 0.0f : margin;
  ImGui::SetNextWindowPos(ImVec2(x + inset, y_bottom - inset), ImGuiCond_Always, ImVec2(0, 1));
  // Over the timeline: all of it, so that no half-covered button shows.
  ImGui::SetNextWindowSize(ImVec2(w - 2 * inset, over_timeline ? room[3] - 2 * inset : 0));
  ImGui::SetNextWindowBgAlpha(1.0f);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.04f, 0.05f, 0.08f, 1));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  ImGui::Begin("##quiz", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings |
                   (over_timeline ? 0 : ImGuiWindowFlags_AlwaysAutoResize) |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  // Over the timeline's window, which was drawn first but may hold the focus.
  ImGui::BringWindowToDisplayFront(ImGui::GetCurrentWindow());
  char head[96];
  std::snprintf(head, sizeof head, "Quiz  -  question %d of %zu", Q.index + 1, Q.questions.size());
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.8f, 0.85f, 0.95f, 1));
  ImGui::TextUnformatted(head);
  const std::string score = Q.score_line();
  const char* keys = "N next   Esc leave";
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + margin,
                           w - 4 * margin - ImGui::CalcTextSize(keys).x -
                               ImGui::CalcTextSize(score.c_str()).x * 1.3f - 3 * margin));
  if (ImFont* big = static_cast<ImFont*>(s.present.big_font)) ImGui::PushFont(big);
  ImGui::TextUnformatted(score.c_str());
  if (s.present.big_font) ImGui::PopFont();
  ImGui::SameLine();
  ImGui::TextUnformatted(keys);
  ImGui::PopStyleColor();

  if (ImFont* big = static_cast<ImFont*>(s.present.big_font)) ImGui::PushFont(big);
  ImGui::SetWindowFontScale(1.2f);
  ImGui::PushTextWrapPos(w - 3 * margin);
  ImGui::TextUnformatted(q->text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::SetWindowFontScale(1.0f);
  Q.choice_rects.clear();
  if (!q->cells()) {
    // Every choice in view, wrapped onto more lines where the font is large:
    // a pick cut off at the band's edge could not be marked. Revealed, the
    // truth is green and a wrong pick red, hovered or not.
    const ImGuiStyle& st = ImGui::GetStyle();
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (size_t i = 0; i < q->choices.size(); ++i) {
      char label[64];
      std::snprintf(label, sizeof label, "[%zu]  %s", i + 1, q->choices[i].c_str());
      if (i > 0) {
        const float bw = ImGui::CalcTextSize(label).x + 2 * st.FramePadding.x;
        if (ImGui::GetItemRectMax().x + st.ItemSpacing.x + bw <= right_edge) ImGui::SameLine();
      }
      const bool truth = Q.revealed && int(i) == q->truth_choice;
      const bool wrong = Q.revealed && Q.answer.choice == int(i) && !truth;
      const bool marked = truth || wrong;
      if (marked) {
        const ImVec4 c = colour(truth ? kQuizRight : kQuizExtra);
        ImGui::PushStyleColor(ImGuiCol_Button, c);
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, c);
        ImGui::PushStyleColor(ImGuiCol_ButtonActive, c);
      }
      const bool chosen = !Q.revealed && Q.answer.choice == int(i);
      if (band_button(label, chosen) && !Q.revealed) Q.answer.choice = int(i);
      if (marked) ImGui::PopStyleColor(3);
      const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
      Q.choice_rects.push_back({a.x, a.y, b.x - a.x, b.y - a.y});
    }
  }
  if (!Q.revealed) {
    if (band_button("Reveal (Enter)", false)) Q.reveal_request = true;
    ImGui::SameLine();
    if (q->cells()) {
      ImGui::Text("%zu chosen.", Q.answer.cells.size());
      ImGui::SameLine();
    }
  } else {
    if (band_button("Next (N)", false)) Q.next_request = true;
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, colour(Q.grade.right ? kQuizRight : kQuizMissed));
    ImGui::PushTextWrapPos(w - 3 * margin);
    ImGui::TextUnformatted(verdict_text(*q, Q.answer, Q.grade).c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  if (s.present.big_font) ImGui::PopFont();
  if (!Q.revealed) {
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.8f, 0.85f, 0.95f, 1));
    ImGui::PushTextWrapPos(w - 3 * margin);
    ImGui::TextUnformatted(q->hint.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  const ImVec2 p = ImGui::GetWindowPos(), sz = ImGui::GetWindowSize();
  const float band[4] = {p.x, p.y, sz.x, sz.y};
  std::copy(band, band + 4, Q.band);
  ImGui::End();
  ImGui::PopStyleColor(2);
}

}  // namespace ts::app
