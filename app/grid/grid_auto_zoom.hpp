// Presenter mode and the grid focus (G, --focus-grid: the view a projector
// gets with the panels) keep the grid legible from the back of a hall. Where
// the whole grid fitted to the room would draw cells too small for values a
// room can read (presenter_min_cell: 20 px, more at a projector font), the
// grid zooms to what the moment is about and says so on a line above the cells:
//   a quiz question's array (every cell of it a pick);
//   the stale read just applied, with its neighbours;
//   the last warp instruction's cells;
//   the followed thread's output cell;
//   else the selected block's part of the output.
// 0 toggles between that and the whole grid; + / - zoom by hand as before
// (a hand zoom turns the automatic one off until 0 fits the grid again).
//
//   ZoomedRoom z = grid_zoom_room(s, origin, avail);      // the hand zoom
//   if (auto a = auto_zoom_room(s, shapes, owners, origin, avail)) z = *a;
#pragma once

#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "app/grid/grid_shapes.hpp"
#include "app/grid/grid_zoom.hpp"

namespace ts::app {

// A hall's view of the grid: presenter mode, and the grid focus or the
// puzzle desk at a projector's text. Its header leaves the toggles to the
// keys, and it rings the races' cells by group (app/grid/grid_cells.hpp).
inline bool hall_view(const Presentation& p) {
  return p.presenter || ((p.focus_grid || p.puzzle_desk) && p.projector_text());
}
// Whether the grid zooms to the moment's subject by itself, and 0 toggles
// that zoom: a hall's view (a laptop's focus keeps its whole grid), and the
// puzzle desk, whose grid shares the width with three panels.
inline bool subject_zoom_mode(const Presentation& p) {
  return hall_view(p) || p.puzzle_desk;
}

// The cell below which presenter mode zooms (20 px, or 0.7 of the text size:
// a projector font asks for projector digits), and the cell it
// zooms to (the text size, at least 24 px: values then print at 0.6 of the text).
float presenter_min_cell(float font);
float presenter_zoom_cell(float font);

// What the moment is about, in the arrays the grid draws.
struct GridSubject {
  bool any = false;
  ArraySlot id = kNoArray;
  uint32_t block = 0;  // shared arrays: whose copy
  std::vector<uint32_t> elements;
  int margin = 0;    // cells around them to keep in view (a stale read's neighbours)
  std::string what;  // "the stale read", "the warp's access", ...
};
GridSubject grid_subject(const AppState& s, const Shapes& sh, const OutputOwners& owners);

// The room to paint into while presenter mode zooms to the subject; nullopt
// when the whole grid is legible, the hand zoom is on, or there is no subject.
// Fills s.grid_facts.zoom. Zoomed, 1D arrays wrap one warp to a row (*wrap:
// the width to paint them at), so that a row of the subject fits the room.
std::optional<ZoomedRoom> auto_zoom_room(AppState& s, const Shapes& sh, const OutputOwners& owners,
                                         ImVec2 origin, ImVec2 avail, int* wrap = nullptr);

// "Zoomed to the stale read, tileB[3][5]   (0: the whole grid)" while zoomed, else "":
// the grid prints it on a line above the cells, never over them.
std::string auto_zoom_line(const AppState& s);

}  // namespace ts::app
