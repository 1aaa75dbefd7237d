#include "app/lecture/caption_strip.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "app/lecture/lecture.hpp"
#include "app/quiz/quiz.hpp"

namespace ts::app {

namespace {

ImFont* big_font(const AppState& s) {
  ImFont* big = static_cast<ImFont*>(s.present.big_font);
  return big ? big : ImGui::GetFont();
}

float wrapped_height(ImFont* font, float size, float width, const std::string& text) {
  return font->CalcTextSizeA(size, FLT_MAX, std::max(40.0f, width), text.c_str()).y;
}

}  // namespace

bool banks_in_strip(const AppState& s) {
  // What the memory colours paint on the grid, the Banks view explains for
  // the access on screen: in presenter mode (no side panels) it takes the
  // narration's place. A lecture keeps its caption there.
  const MemoryColours m = s.present.memory;
  return s.present.presenter && !(s.lecture.active() && s.lecture.step >= 0) &&
         (m == MemoryColours::Banks || m == MemoryColours::Conflicts ||
          m == MemoryColours::Coalescing);
}

bool strip_wanted(const AppState& s) {
  // A quiz outside presenter mode keeps its band over the timeline (view_quiz.cpp).
  return s.present.presenter || (s.lecture.active() && s.lecture.step >= 0);
}

float caption_text_size(const AppState& s) {
  const float font = ImGui::GetFontSize();
  return std::min(big_font(s)->FontSize * 1.25f, std::max(font, 36.0f));
}

std::string presenter_facts(const AppState& s) {
  if (!s.has_trace()) return {};
  std::string out;
  const Verdict& v = s.result.verdict;
  if (v.checked)
    out = v.correct ? "output right"
                    : "output wrong: " + std::to_string(v.wrong_cells.size()) + " of " +
                          std::to_string(v.cells) + " cells";
  auto add = [&](const std::string& t) { out += (out.empty() ? "" : "   |   ") + t; };
  if (const uint64_t n = s.replay->stale_read_count())
    add(std::to_string(n) + (n == 1 ? " stale read" : " stale reads"));
  if (s.races.ready) {
    if (s.races.hazards == 0)
      add("racecheck: no hazards");
    else if (s.races.errors == 0)
      add("racecheck: " + std::to_string(s.races.hazards) +
          " hazards, all warnings (lanes of one warp)");
    else
      add("racecheck: " + std::to_string(s.races.hazards) + " hazards (" +
          std::to_string(s.races.errors) + " errors)");
  }
  return out;
}

namespace {

// The lecture's strip, title line and caption at `size`, `width` wide.
float caption_strip_height(const AppState& s, float width, float size) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float font = ImGui::GetFontSize(), margin = font * 0.5f;
  const float pad = 2 * st.WindowPadding.y + font * 0.4f;
  // As drawn: wrapped at the window's width less the margins (lecture.cpp).
  const float text_w = width - st.WindowPadding.x - 2 * margin;
  const LectureStep& step = s.lecture.lecture->steps[size_t(s.lecture.step)];
  const std::string facts = presenter_facts(s);
  // The title, wrapped before "step 3 / 9" (lecture.cpp); in a narrow strip beside
  // the grid it takes lines.
  char where[64];
  std::snprintf(where, sizeof where, "step %d / %zu", s.lecture.step + 1,
                s.lecture.lecture->steps.size());
  const float title_w = std::max(margin, width - 3 * margin - ImGui::CalcTextSize(where).x);
  const float title_h =
      std::max(ImGui::GetTextLineHeight(),
               wrapped_height(ImGui::GetFont(), font, title_w - st.WindowPadding.x,
                              s.lecture.lecture->title)) +
      st.ItemSpacing.y;
  return pad + title_h + wrapped_height(big_font(s), size, text_w, step.caption) +
         st.ItemSpacing.y +
         (facts.empty() ? 0.0f
                        : wrapped_height(ImGui::GetFont(), font, text_w, facts) + st.ItemSpacing.y);
}

}  // namespace

float caption_fit_size(const AppState& s, float width, float max_h) {
  // From the large size down to 0.8 of the panel's text size (a projector's
  // text of 32 is 26 there), the first whose caption fits: a caption is never
  // cut, and stays as large as the room allows.
  const float least = std::round(ImGui::GetFontSize() * 0.8f);
  float size = caption_text_size(s);
  while (size > least && caption_strip_height(s, width, size) > max_h)
    size = std::max(least, size - 2);
  return size;
}

float strip_height_for_width(const AppState& s, float width, float room_h, float max_h) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float pad = 2 * st.WindowPadding.y + ImGui::GetFontSize() * 0.4f;
  // The quiz's band: every choice and button in view (app/quiz/view_quiz.cpp).
  if (s.quiz.question()) {
    const float h = quiz_band_height(s, width);
    return h <= max_h ? h : quiz_band_height(s, width, 1.0f);
  }
  if (s.lecture.active() && s.lecture.step >= 0)
    return caption_strip_height(s, width, caption_fit_size(s, width, max_h));
  // The Banks diagram (presenter mode with the memory colours on): a lane row,
  // a bank row and its captions need most of the room's height.
  if (banks_in_strip(s)) return room_h * 0.5f;
  // The narration: as high as it was drawn last (its area kept at another width), at
  // least three lines, at most a third of the room.
  float h = 4 * ImGui::GetTextLineHeightWithSpacing();
  if (s.strip_drawn[0] > 0) h = s.strip_drawn[1] * std::max(1.0f, s.strip_drawn[0] / width);
  return std::clamp(h, 3 * ImGui::GetTextLineHeightWithSpacing() + pad, room_h * 0.34f);
}

float strip_width_beside(const AppState& s, float room_w) {
  (void)s;
  return std::round(std::clamp(room_w * 0.3f, ImGui::GetFontSize() * 12, room_w * 0.4f));
}

void draw_caption_strip(AppState& s, const std::vector<std::unique_ptr<View>>& views) {
  std::fill(std::begin(s.lecture.band), std::end(s.lecture.band), 0.0f);
  if (s.strip_rect[2] <= 0) {
    draw_quiz_band(s);  // no strip (a window too small for the layout): as before
    return;
  }
  if (s.quiz.question()) {
    draw_quiz_band(s);  // placed in the strip (view_quiz.cpp)
    return;
  }
  const float x = s.strip_rect[0], y = s.strip_rect[1], w = s.strip_rect[2], h = s.strip_rect[3];
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.04f, 0.05f, 0.08f, 1));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(0, 0, 0, 0));
  ImGui::Begin("##strip", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoBringToFrontOnFocus);
  if (s.lecture.active() && s.lecture.step >= 0) {
    draw_lecture_caption(s, w);
  } else if (banks_in_strip(s)) {
    for (const auto& v : views)
      if (std::strcmp(v->name(), "Banks") == 0) v->draw(s);
  } else {
    // Presenter mode: the lesson's narration for the moment on screen.
    for (const auto& v : views)
      if (std::strcmp(v->name(), "Narration") == 0) {
        // At least 24 px: read from the back of a room, even at a laptop's text size.
        ImGui::SetWindowFontScale(std::max(1.0f, 24.0f / ImGui::GetFontSize()));
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.92f, 0.94f, 0.98f, 1));
        v->draw(s);
        ImGui::PopStyleColor();
        ImGui::SetWindowFontScale(1.0f);
      }
    // Its height, for the layout's next frame (the text changes with the moment).
    s.strip_drawn[0] = w;
    s.strip_drawn[1] = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
  }
  ImGui::End();
  ImGui::PopStyleColor(3);
}

}  // namespace ts::app
