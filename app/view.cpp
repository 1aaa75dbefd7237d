// The registry of views (see app/view.hpp).
#include "app/view.hpp"

#include <algorithm>

namespace ts::app {

std::vector<ViewFactory>& view_factories() {
  // A function-local static so that registrars in other files find it constructed.
  static std::vector<ViewFactory> factories;
  return factories;
}

std::vector<std::unique_ptr<View>> make_views() {
  std::vector<std::unique_ptr<View>> views;
  for (const auto& f : view_factories())
    views.push_back(f());
  std::stable_sort(views.begin(), views.end(), [](const auto& a, const auto& b) {
    if (a->slot() != b->slot()) return a->slot() < b->slot();
    return a->order() < b->order();
  });
  return views;
}

}  // namespace ts::app
