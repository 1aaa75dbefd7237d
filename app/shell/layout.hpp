// The fixed slot layout: a left column (lesson over verdict), the centre
// (grid, performance), a right column (upper tabs over the source) and the
// timeline strip; the splitters between them; and the automatic grid focus.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "app/core/view.hpp"

namespace ts::app {

inline constexpr float kMinSide = 0.12f, kMaxSide = 0.5f;  // a side column's share of the width

struct SlotRect {
  float x, y, w, h;
};

class SlotLayout {
 public:
  // Every view in its slot's tab bar below `top`, then the splitters, which
  // drag s.layout. Picks the grid focus while s.present.focus_auto is set.
  void draw(AppState& s, const std::vector<std::unique_ptr<View>>& views, float top);
  // A frame drawn with the panels is being measured for the grid focus: the
  // window wants the next frame soon.
  bool measuring() const { return focus_measuring_; }

 private:
  struct Frame;  // this frame's geometry (layout.cpp)
  using Views = std::vector<std::unique_ptr<View>>;

  View* front(const Views& views, Slot slot) const;
  bool wide_center_in_front(const Views& views) const;
  Frame measure(AppState& s, const Views& views, float top, float W, float H);
  void choose_grid_focus(AppState& s, const Views& views, const Frame& f, float Lp, float Rp);
  void place_caption_strip(AppState& s, const Views& views, Frame& f) const;
  void narrow_desk_split(const Views& views, Frame& f, float chrome) const;
  static float narrow_pad_y();
  // A tab-like button in a slot's tab bar: show the lesson column, or hide it.
  enum class LessonButton { None, Show, Hide };
  static void lesson_button(AppState& s, LessonButton b);
  // bare: the view in front alone, without a tab bar.
  void draw_slot(AppState& s, const Views& views, size_t first, size_t last, const SlotRect& r,
                 bool bare, LessonButton lesson);
  static void draw_splitters(Layout& lay, const Frame& f);

  std::string front_[6];  // per slot: the tab in front last frame
  // Grid focus chosen by the app: for which window width, height, font size and
  // trace it was decided, and whether a frame with the panels is being measured.
  float focus_key_[4] = {0, 0, 0, 0};
  bool focus_measuring_ = false;
};

}  // namespace ts::app
