// The grid's own zoom, apart from the text size: fit-to-room by default (1),
// Ctrl+wheel or + / - to zoom, 0 to fit again; while zoomed, the wheel, a
// right- or middle-button drag pan. The font serves the controls; the cells
// follow the room and this zoom only.
//
//   const ZoomedRoom z = grid_zoom_room(s, origin, avail);  // input, then where to paint
//   ImGui::PushClipRect(origin, origin + avail, true);
//   pane.paint(s, z.origin, z.size, 0);
#pragma once

#include <imgui.h>

#include "app/core/app_state.hpp"

namespace ts::app {

inline constexpr float kMaxGridZoom = 8.0f;

struct ZoomedRoom {
  ImVec2 origin, size;  // the virtual room the grid is fitted into (size = avail x zoom)
};

// Mouse input over the grid's room (when its window is hovered), then the
// room to paint into. Records the visible room in s.grid_rect.
ZoomedRoom grid_zoom_room(AppState& s, ImVec2 origin, ImVec2 avail);
// + / - / 0 (no Ctrl: Ctrl +/- is the text size): zoom about the room's centre, fit.
void grid_zoom_keys(AppState& s);
// Sets the zoom, keeping the grid's point at `anchor` (screen pixels) in place.
void set_grid_zoom(AppState& s, float zoom, ImVec2 anchor);
// "zoom 250 %  (0: fit)" in the room's corner while zoomed.
void draw_grid_zoom_badge(const AppState& s);

}  // namespace ts::app
