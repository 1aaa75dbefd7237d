#include "app/grid/cell_groups.hpp"

#include <algorithm>
#include <cstddef>

namespace ts::app {

std::vector<CellBox> cell_groups(const std::vector<uint8_t>& mask, int rows, int cols, int gap) {
  std::vector<CellBox> boxes;
  if (rows <= 0 || cols <= 0 || mask.size() < size_t(rows) * size_t(cols)) return boxes;
  std::vector<uint8_t> seen(mask.size(), 0);
  std::vector<int> todo;
  const int reach = gap + 1;
  for (int start = 0; start < rows * cols; ++start) {
    if (!mask[size_t(start)] || seen[size_t(start)]) continue;
    CellBox b{start / cols, start % cols, start / cols, start % cols};
    seen[size_t(start)] = 1;
    todo.assign(1, start);
    while (!todo.empty()) {  // flood over marked cells within reach
      const int i = todo.back(), r = i / cols, c = i % cols;
      todo.pop_back();
      b.r0 = std::min(b.r0, r), b.r1 = std::max(b.r1, r);
      b.c0 = std::min(b.c0, c), b.c1 = std::max(b.c1, c);
      for (int rr = std::max(0, r - reach); rr <= std::min(rows - 1, r + reach); ++rr)
        for (int cc = std::max(0, c - reach); cc <= std::min(cols - 1, c + reach); ++cc) {
          const size_t k = size_t(rr) * size_t(cols) + size_t(cc);
          if (mask[k] && !seen[k]) seen[k] = 1, todo.push_back(int(k));
        }
    }
    boxes.push_back(b);
  }
  // Boxes closer than the gap (an L's box over another group) merge until none are.
  auto near = [&](const CellBox& a, const CellBox& b) {
    return a.r0 <= b.r1 + reach && b.r0 <= a.r1 + reach && a.c0 <= b.c1 + reach &&
           b.c0 <= a.c1 + reach;
  };
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < boxes.size() && !merged; ++i)
      for (size_t j = i + 1; j < boxes.size() && !merged; ++j)
        if (near(boxes[i], boxes[j])) {
          CellBox& a = boxes[i];
          const CellBox& b = boxes[j];
          a = {std::min(a.r0, b.r0), std::min(a.c0, b.c0), std::max(a.r1, b.r1),
               std::max(a.c1, b.c1)};
          boxes.erase(boxes.begin() + std::ptrdiff_t(j));
          merged = true;
        }
  }
  return boxes;
}

}  // namespace ts::app
