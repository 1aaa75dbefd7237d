// What the grid drew this frame, cell by cell and line by line of its legend,
// for the scripted mode's map (--cells-json): the tests check that the picture
// says what the trace says (a read value printed, padding hatched only where
// the array has none, one legend line per colour scale).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/event.hpp"

namespace ts::app {

struct DrawnCells {
  ArraySlot id = kNoArray;
  uint32_t block = 0;
  int rows = 0, cols = 0;         // cells drawn, row-major in the vectors below
  std::vector<std::string> text;  // what the cell prints ("" nothing)
  std::vector<uint8_t> hatched;   // 1: drawn as padding
  std::vector<uint8_t> halo;      // 1: in the halo colour
  float value_px = 0;             // the values' text size in pixels (0: none printed)
};

// Presenter mode's zoom to the step's subject (app/grid/grid_auto_zoom.hpp):
// what it shows and where those cells were drawn (screen pixels).
struct ZoomFacts {
  bool active = false;
  float zoom = 1;
  std::string what;  // "the stale read", "the warp's access", ...
  ArraySlot id = kNoArray;
  uint32_t block = 0;
  std::vector<uint32_t> elements;
  float box[4] = {0, 0, 0, 0};  // x, y, w, h of those cells
  float title_band = 0;         // the titles' line above the room the cells are clipped to
};

// A label the grid put on a cell (the stale read's "read 3, expected 4").
struct CalloutFacts {
  std::string text;
  ArraySlot id = kNoArray;
  uint32_t block = 0, element = 0;
  float box[4] = {0, 0, 0, 0};   // the label's box
  float cell[4] = {0, 0, 0, 0};  // the cell it points at
  uint32_t fill = 0, ink = 0;    // ImU32: the label's background and text
};

// A legend entry: its text and the colour (or the ramp's ends) it explains.
struct LegendLine {
  std::string text;
  uint32_t from = 0, to = 0;  // ImU32; a chip: from == to
};

struct GridFacts {
  std::vector<DrawnCells> arrays;
  std::vector<LegendLine> legend;
  ZoomFacts zoom;
  std::vector<CalloutFacts> callouts;
  void clear() {
    arrays.clear();
    legend.clear();
    zoom = {};
    callouts.clear();
  }
};

}  // namespace ts::app
