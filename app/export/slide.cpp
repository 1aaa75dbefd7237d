#include "app/export/slide.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "app/core/palette.hpp"

namespace ts::app {

namespace {

constexpr ImGuiWindowFlags kBare =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
    ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
    ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollWithMouse;

View* view_named(const std::vector<std::unique_ptr<View>>& views, const char* name) {
  for (const auto& v : views)
    if (std::string(v->name()) == name) return v.get();
  return nullptr;
}

// One view's slide content in a bare window at (x, y, w, h).
void bare_window(AppState& s, View* v, const char* id, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(std::max(w, 1.0f), std::max(h, 1.0f)));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  if (ImGui::Begin(id, nullptr, kBare)) v->draw_slide(s);
  ImGui::End();
  ImGui::PopStyleVar();
}

}  // namespace

float draw_title_line(const AppState& s, const std::string& title, float y) {
  if (title.empty()) return 0;
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImFont* big = static_cast<ImFont*>(s.present.big_font);
  if (big) ImGui::PushFont(big);
  // Large type, as the lecture captions: read from the back of a room.
  const float size = ImGui::GetFontSize() * 1.3f;
  const float pad = std::round(ImGui::GetFontSize() * 0.4f);
  const float h = std::ceil(size + 2 * pad);
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  const Palette& pal = palette(s.present.theme);
  dl->AddRectFilled(ImVec2(0, y), ImVec2(ds.x, y + h), pal.background.abgr());
  // Too long for one line: cut with an ellipsis, never over the grid.
  std::string text = title;
  const float room = ds.x - 2 * pad;
  auto width = [&](const std::string& t) {
    return ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0, t.c_str()).x;
  };
  if (width(text) > room) {
    while (!text.empty() && width(text + "...") > room)
      text.pop_back();
    text += "...";
  }
  dl->AddText(ImGui::GetFont(), size, ImVec2(pad, y + pad), pal.text.abgr(), text.c_str());
  dl->AddLine(ImVec2(0, y + h - 1), ImVec2(ds.x, y + h - 1), pal.text_dim.abgr(90), 1);
  if (big) ImGui::PopFont();
  return h;
}

void draw_slide(AppState& s, const std::vector<std::unique_ptr<View>>& views,
                const SlideSpec& spec) {
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  const float top = draw_title_line(s, spec.title, 0);
  View* grid = view_named(views, "Grid");
  View* timeline = spec.timeline ? view_named(views, "Timeline") : nullptr;
  const float H = ds.y - top;
  // The lanes take what they want, up to a third of the slide; the grid the rest.
  float B = 0;
  if (timeline) {
    const float want = timeline->slide_height();
    B = std::round(std::clamp(want > 0 ? want : H * 0.25f, H * 0.12f, H / 3));
  }
  if (grid) bare_window(s, grid, "##slide_grid", 0, top, ds.x, H - B);
  if (timeline) bare_window(s, timeline, "##slide_timeline", 0, top + H - B, ds.x, B);
  // Where the slots are on a slide: the grid and the timeline, nothing beside them.
  for (auto& r : s.slot_rects)
    std::fill(std::begin(r), std::end(r), 0.0f);
  const float g[4] = {0, top, ds.x, H - B}, t[4] = {0, top + H - B, ds.x, B};
  std::copy(g, g + 4, s.slot_rects[int(Slot::Center)]);
  std::copy(g, g + 4, s.center_rect);
  if (timeline) std::copy(t, t + 4, s.slot_rects[int(Slot::Bottom)]);
}

}  // namespace ts::app
