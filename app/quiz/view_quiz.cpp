// The quiz band (app/quiz/quiz.hpp): over the timeline strip, so that the whole
// grid stays in view for clicking; in large type, to be read from the back of
// a room on a 1280 x 720 projector.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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
      c.append(", not ").append(q.choices[size_t(a.choice)]).append(" (vermillion)");
    return c.append(".");
  }
  std::string t = "Not quite:";
  if (!g.missed.empty())
    t.append(" ").append(std::to_string(g.missed.size())).append(" missed (yellow rings)");
  if (!g.extra.empty()) {
    if (!g.missed.empty()) t.append(",");
    t.append(" ").append(std::to_string(g.extra.size())).append(" extra (vermillion)");
  }
  if (q.truth_cells.empty()) t.append(" no cell is the answer");
  return t.append("; green: chosen and right.");
}

const char* kKeys = "N next   Esc leave";

std::string header_text(const QuizState& Q) {
  char head[96];
  std::snprintf(head, sizeof head, "Quiz  -  question %d of %zu", Q.index + 1, Q.questions.size());
  return head;
}

std::string choice_label(const Question& q, size_t i) {
  char label[96];
  std::snprintf(label, sizeof label, "[%zu]  %s", i + 1, q.choices[i].c_str());
  return label;
}

// Rows of buttons these labels wrap onto in `width` (as ImGui lays them out below).
int button_rows(const std::vector<std::string>& labels, float width, float size) {
  const ImGuiStyle& st = ImGui::GetStyle();
  ImFont* f = ImGui::GetFont();
  int rows = labels.empty() ? 0 : 1;
  float x = 0;
  for (const std::string& l : labels) {
    const float w = f->CalcTextSizeA(size, FLT_MAX, 0, l.c_str()).x + 2 * st.FramePadding.x;
    if (x > 0 && x + st.ItemSpacing.x + w > width) ++rows, x = 0;
    x += (x > 0 ? st.ItemSpacing.x : 0) + w;
  }
  return rows;
}

// Text after a button on its line only where a fair share of the band is left:
// wrapped into a sliver it would run one syllable per line off the band.
bool same_line_for_text(float right_edge, float width) {
  const float room = right_edge - ImGui::GetItemRectMax().x - ImGui::GetStyle().ItemSpacing.x;
  if (room < std::max(width * 0.4f, ImGui::GetFontSize() * 8)) return false;
  ImGui::SameLine();
  return true;
}

// The last item drawn, recorded under `what` (QuizState::items).
void record_item(QuizState& Q, const std::string& what) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  Q.items.push_back({what, {a.x, a.y, b.x - a.x, b.y - a.y}});
}

}  // namespace

float quiz_band_height(const AppState& s, float width, float question_scale) {
  const QuizState& Q = s.quiz;
  const Question* q = Q.question();
  if (!q) return 0;
  const ImGuiStyle& st = ImGui::GetStyle();
  ImFont* big = static_cast<ImFont*>(s.present.big_font);
  const float bs = big ? big->FontSize : ImGui::GetFontSize();
  const float font = ImGui::GetFontSize(), margin = font * 0.4f;
  const float text_w = width - 2 * st.WindowPadding.x - margin;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float button = bs + 2 * st.FramePadding.y + st.ItemSpacing.y;
  ImFont* f = big ? big : ImGui::GetFont();
  // The header: on one line with the score and keys where they fit.
  const float head_w = ImGui::CalcTextSize(header_text(Q).c_str()).x +
                       ImGui::CalcTextSize(kKeys).x +
                       f->CalcTextSizeA(bs, FLT_MAX, 0, Q.score_line().c_str()).x + 4 * margin;
  float h = 2 * st.WindowPadding.y +
            (head_w > text_w ? line + bs + st.ItemSpacing.y : bs + st.ItemSpacing.y);
  h += f->CalcTextSizeA(bs * question_scale, FLT_MAX, text_w, q->text.c_str()).y + st.ItemSpacing.y;
  if (!q->cells()) {
    std::vector<std::string> labels;
    for (size_t i = 0; i < q->choices.size(); ++i)
      labels.push_back(choice_label(*q, i));
    h += float(button_rows(labels, text_w, bs)) * button;
  }
  // Reveal (or Next) and the hint (or verdict), on one line or two.
  h += button + ImGui::GetFont()->CalcTextSizeA(font, FLT_MAX, text_w, q->hint.c_str()).y +
       st.ItemSpacing.y;
  // A line to spare: the question and the hint wrap at a margin the estimate
  // does not know to the pixel, and a button cut at the band's foot cannot be pressed.
  return std::ceil(h + line);
}

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
  Q.items.clear();
  const std::string head = header_text(Q);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.8f, 0.85f, 0.95f, 1));
  ImGui::TextUnformatted(head.c_str());
  record_item(Q, "header");
  // The score and the keys at the right end of the header's line where they
  // fit after it, else on a line of their own: never drawn over it.
  const std::string score = Q.score_line();
  ImFont* big_f = static_cast<ImFont*>(s.present.big_font);
  const float score_w = big_f ? big_f->CalcTextSizeA(big_f->FontSize, FLT_MAX, 0, score.c_str()).x
                              : ImGui::CalcTextSize(score.c_str()).x;
  const float tail_w = score_w + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(kKeys).x;
  const float content_w = ImGui::GetWindowContentRegionMax().x;
  const float head_end = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x;
  if (head_end + 2 * margin + tail_w <= content_w) ImGui::SameLine(content_w - tail_w);
  if (big_f) ImGui::PushFont(big_f);
  ImGui::TextUnformatted(score.c_str());
  record_item(Q, "score");
  if (big_f) ImGui::PopFont();
  same_line_if_fits(ImGui::CalcTextSize(kKeys).x);
  ImGui::TextUnformatted(kKeys);
  record_item(Q, "keys");
  ImGui::PopStyleColor();

  // The question a size up, where the band has the room for it (a projector's
  // text of 32 at 720p has not).
  const float question_scale =
      !over_timeline || quiz_band_height(s, w) <= ImGui::GetWindowSize().y + 1 ? 1.2f : 1.0f;
  if (ImFont* big = static_cast<ImFont*>(s.present.big_font)) ImGui::PushFont(big);
  ImGui::SetWindowFontScale(question_scale);
  ImGui::PushTextWrapPos(w - 3 * margin);
  ImGui::TextUnformatted(q->text.c_str());
  record_item(Q, "question");
  ImGui::PopTextWrapPos();
  ImGui::SetWindowFontScale(1.0f);
  Q.choice_rects.clear();
  if (!q->cells()) {
    // Every choice in view, wrapped onto more lines where the font is large:
    // a pick cut off at the band's edge could not be marked. Revealed, the
    // truth is bluish green and a wrong pick vermillion, hovered or not.
    const ImGuiStyle& st = ImGui::GetStyle();
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (size_t i = 0; i < q->choices.size(); ++i) {
      const std::string label_text = choice_label(*q, i);
      const char* label = label_text.c_str();
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
      record_item(Q, "choice " + std::to_string(i + 1));
    }
  }
  const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (!Q.revealed) {
    if (band_button("Reveal (Enter)", false)) Q.reveal_request = true;
    record_item(Q, "reveal");
    if (q->cells()) {
      char chosen[32];
      std::snprintf(chosen, sizeof chosen, "%zu chosen.", Q.answer.cells.size());
      same_line_if_fits(ImGui::CalcTextSize(chosen).x);
      ImGui::TextUnformatted(chosen);
      record_item(Q, "chosen");
    }
  } else {
    if (band_button("Next (N)", false)) Q.next_request = true;
    record_item(Q, "next");
    same_line_for_text(right_edge, w);
    ImGui::PushStyleColor(ImGuiCol_Text, colour(Q.grade.right ? kQuizRight : kQuizMissed));
    ImGui::PushTextWrapPos(w - 3 * margin);
    ImGui::TextUnformatted(verdict_text(*q, Q.answer, Q.grade).c_str());
    record_item(Q, "verdict");
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  if (s.present.big_font) ImGui::PopFont();
  if (!Q.revealed) {
    same_line_for_text(right_edge, w);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.8f, 0.85f, 0.95f, 1));
    ImGui::PushTextWrapPos(w - 3 * margin);
    ImGui::TextUnformatted(q->hint.c_str());
    record_item(Q, "hint");
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
