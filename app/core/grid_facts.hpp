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
};

// A legend entry: its text and the colour (or the ramp's ends) it explains.
struct LegendLine {
  std::string text;
  uint32_t from = 0, to = 0;  // ImU32; a chip: from == to
};

struct GridFacts {
  std::vector<DrawnCells> arrays;
  std::vector<LegendLine> legend;
  void clear() {
    arrays.clear();
    legend.clear();
  }
};

}  // namespace ts::app
