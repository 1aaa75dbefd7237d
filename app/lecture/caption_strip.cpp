#include "app/lecture/caption_strip.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
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

bool strip_wanted(const AppState& s) {
  // A quiz outside presenter mode keeps its band over the timeline (view_quiz.cpp).
  return s.present.presenter || (s.lecture.active() && s.lecture.step >= 0);
}

float caption_text_size(const AppState& s) {
  const float font = ImGui::GetFontSize();
  return std::min(big_font(s)->FontSize * 1.25f, std::max(font, 36.0f));
}

float strip_height_for_width(const AppState& s, float width, float room_h) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float font = ImGui::GetFontSize(), margin = font * 0.5f;
  const float pad = 2 * st.WindowPadding.y + font * 0.4f;
  // As drawn: wrapped at the window's width less the margins (lecture.cpp, view_quiz.cpp).
  const float text_w = width - st.WindowPadding.x - 2 * margin;
  if (const Question* q = s.quiz.question()) {
    // The header, the question, a row of buttons and a line of verdict or hint.
    const float big = big_font(s)->FontSize;
    return pad + ImGui::GetTextLineHeightWithSpacing() +
           wrapped_height(big_font(s), big * 1.2f, text_w, q->text) +
           (q->cells() ? 1 : 2) * (big + 3 * st.FramePadding.y) +
           wrapped_height(ImGui::GetFont(), font, text_w, q->hint) + st.ItemSpacing.y * 4;
  }
  if (s.lecture.active() && s.lecture.step >= 0) {
    const LectureStep& step = s.lecture.lecture->steps[size_t(s.lecture.step)];
    return pad + ImGui::GetTextLineHeightWithSpacing() +
           wrapped_height(big_font(s), caption_text_size(s), text_w, step.caption) +
           st.ItemSpacing.y;
  }
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
