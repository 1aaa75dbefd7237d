#include "app/grid/grid_zoom.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/grid/grid_auto_zoom.hpp"

namespace ts::app {

namespace {

// Pan within the zoomed room: never past its edges (at zoom 1: none).
void clamp_pan(AppState& s) {
  Presentation& p = s.present;
  const float w = s.grid_rect[2], h = s.grid_rect[3];
  p.grid_pan[0] = std::clamp(p.grid_pan[0], 0.0f, std::max(0.0f, w * (p.grid_zoom - 1)));
  p.grid_pan[1] = std::clamp(p.grid_pan[1], 0.0f, std::max(0.0f, h * (p.grid_zoom - 1)));
}

}  // namespace

void set_grid_zoom(AppState& s, float zoom, ImVec2 anchor) {
  Presentation& p = s.present;
  zoom = std::clamp(zoom, 1.0f, kMaxGridZoom);
  if (std::fabs(zoom - 1.0f) < 0.02f) zoom = 1.0f;
  const float k = zoom / p.grid_zoom;
  // The room's point under the anchor stays under it.
  const float ax = anchor.x - s.grid_rect[0], ay = anchor.y - s.grid_rect[1];
  p.grid_pan[0] = (p.grid_pan[0] + ax) * k - ax;
  p.grid_pan[1] = (p.grid_pan[1] + ay) * k - ay;
  p.grid_zoom = zoom;
  clamp_pan(s);
}

ZoomedRoom grid_zoom_room(AppState& s, ImVec2 origin, ImVec2 avail) {
  Presentation& p = s.present;
  const float rect[4] = {origin.x, origin.y, avail.x, avail.y};
  std::copy(rect, rect + 4, s.grid_rect);
  const ImGuiIO& io = ImGui::GetIO();
  const bool over =
      ImGui::IsWindowHovered() &&
      ImGui::IsMouseHoveringRect(origin, ImVec2(origin.x + avail.x, origin.y + avail.y));
  if (over && io.KeyCtrl && io.MouseWheel != 0)
    set_grid_zoom(s, p.grid_zoom * std::pow(1.2f, io.MouseWheel), io.MousePos);
  else if (over && p.grid_zoom > 1 && (io.MouseWheel != 0 || io.MouseWheelH != 0)) {
    const float step = ImGui::GetTextLineHeight() * 3;
    const float dx = io.KeyShift ? io.MouseWheel : io.MouseWheelH;
    p.grid_pan[0] -= dx * step;
    if (!io.KeyShift) p.grid_pan[1] -= io.MouseWheel * step;
  }
  // A drag with the right or middle button moves the picture (the left one picks cells).
  for (ImGuiMouseButton b : {ImGuiMouseButton_Right, ImGuiMouseButton_Middle})
    if (p.grid_zoom > 1 && ImGui::IsMouseDragging(b, 2.0f) &&
        ImGui::IsMouseHoveringRect(origin, ImVec2(origin.x + avail.x, origin.y + avail.y))) {
      p.grid_pan[0] -= io.MouseDelta.x;
      p.grid_pan[1] -= io.MouseDelta.y;
    }
  clamp_pan(s);
  return {ImVec2(origin.x - p.grid_pan[0], origin.y - p.grid_pan[1]),
          ImVec2(avail.x * p.grid_zoom, avail.y * p.grid_zoom)};
}

void grid_zoom_keys(AppState& s) {
  if (s.grid_rect[2] <= 0) return;
  const ImVec2 centre(s.grid_rect[0] + s.grid_rect[2] * 0.5f,
                      s.grid_rect[1] + s.grid_rect[3] * 0.5f);
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key, true); };
  if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD))
    set_grid_zoom(s, s.present.grid_zoom * 1.25f, centre);
  if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT))
    set_grid_zoom(s, s.present.grid_zoom / 1.25f, centre);
  // 0 fits a hand zoom; at fit in presenter mode or the grid focus it toggles between the whole
  // grid and the zoom to the moment's subject (app/grid/grid_auto_zoom.hpp).
  if (ImGui::IsKeyPressed(GLFW_KEY_0, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_0, false)) {
    if (s.present.grid_zoom != 1.0f)
      set_grid_zoom(s, 1.0f, centre);
    else if (subject_zoom_mode(s.present))
      s.present.auto_zoom = !s.present.auto_zoom;
  }
}

void draw_grid_zoom_badge(const AppState& s) {
  if (s.present.grid_zoom <= 1.0f || s.grid_rect[2] <= 0) return;
  char text[64];
  std::snprintf(text, sizeof text, "zoom %.0f %%  (0: fit)", double(s.present.grid_zoom * 100));
  const ImVec2 ts = ImGui::CalcTextSize(text);
  const ImVec2 at(s.grid_rect[0] + s.grid_rect[2] - ts.x - 10,
                  s.grid_rect[1] + s.grid_rect[3] - ts.y - 6);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(at.x - 6, at.y - 3), ImVec2(at.x + ts.x + 6, at.y + ts.y + 3),
                    IM_COL32(0, 0, 0, 190), 4);
  dl->AddText(at, IM_COL32(240, 240, 240, 255), text);
}

}  // namespace ts::app
