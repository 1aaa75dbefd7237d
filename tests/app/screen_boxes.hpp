// Rectangles of the window's --cells-json map ({"x", "y", "w", "h"} in
// pixels), and the two questions the layout tests ask of them.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ts::app_test {

struct Box {
  double x = 0, y = 0, w = 0, h = 0;
};

inline Box box(const nlohmann::json& r) {
  return {r.value("x", 0.0), r.value("y", 0.0), r.value("w", 0.0), r.value("h", 0.0)};
}

// Overlap of more than a pixel (edges may touch).
inline bool intersects(const Box& a, const Box& b) {
  const double ox = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
  const double oy = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
  return ox > 1 && oy > 1;
}

// Within `room`, give or take 2 pixels of rounding.
inline bool inside(const Box& a, const Box& room) {
  return a.x >= room.x - 2 && a.y >= room.y - 2 && a.x + a.w <= room.x + room.w + 2 &&
         a.y + a.h <= room.y + room.h + 2;
}

}  // namespace ts::app_test
