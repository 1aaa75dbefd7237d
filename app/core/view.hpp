// A panel of the window. Each view is one class in one file (app/view_*.cpp)
// and registers itself, so adding a panel needs no edit anywhere else:
//
//   // app/views/view_races.cpp
//   #include "app/core/view.hpp"
//   namespace ts::app {
//   class RacesView final : public View {
//    public:
//     const char* name() const override { return "Races"; }
//     Slot slot() const override { return Slot::Right; }
//     int order() const override { return 40; }
//     void draw(AppState& s) override { ... }   // ImGui calls, no Begin/End
//    private:
//     // the panel's own state lives here, not in function statics
//   };
//   TS_REGISTER_VIEW(RacesView);
//   }  // namespace ts::app
//
// The window has no docking (Dear ImGui 1.86), so it lays out fixed slots that
// follow the window size: a left column, the centre, a right column and a
// bottom strip. Views that share a slot become tabs of it, sorted by order().
// draw() is called inside the slot's window (or tab) every frame the view is
// visible: it must not call ImGui::Begin/End for its own window. See
// app/core/app_state.hpp for reading the trace, moving the replay and marking cells.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/core/app_state.hpp"
#include "app/core/barrier_wait.hpp"

namespace ts::app {

enum class Slot : uint8_t {
  Left,        // the lesson: parameters, barriers, run
  Center,      // the grid
  Right,       // narration, source, memory, races, performance (tabs)
  RightLower,  // second right pane: source
  Bottom,      // the timeline and transport
  LeftLower,   // verdict
};

class View {
 public:
  virtual ~View() = default;
  virtual const char* name() const = 0;  // tab and window title
  virtual Slot slot() const = 0;
  virtual int order() const { return 100; }  // smaller first within a slot
  // A centre view that needs the width: while it is in front, the centre slot
  // also takes the right column's place (Performance: plots and a wide table).
  virtual bool wide() const { return false; }
  // The least height, in pixels, this view needs in front of its slot (0: any);
  // the bottom slot grows to it, up to half the window.
  virtual float min_height() const { return 0; }
  // The height, in pixels, its content wants in front of its slot (0: no
  // preference); the layout gives it no more than that, so that the rest goes
  // to the grid.
  virtual float preferred_height() const { return 0; }
  // A grid-like view: the cell size, in pixels, it would draw if its slot were
  // `growth` larger (negative: smaller) than last frame's; 0 when it cannot
  // tell (not drawn yet). The app picks the grid-focus layout with it.
  // kNoRoomCell: drawn, but the slot leaves no room for a single cell.
  virtual float cell_size_if_grown(ImVec2 /*growth*/) const { return 0; }
  virtual void draw(AppState& s) = 0;
  // On a slide (app/export/slide.hpp: an export's frames, a --panels screenshot): the
  // content without controls, in a window of its own. Asked of the grid and
  // the timeline only; slide_height() is the height the timeline's wants.
  virtual void draw_slide(AppState& s) { draw(s); }
  virtual float slide_height() const { return 0; }
  // Called once per frame before any draw(), for views that keep caches.
  virtual void update(AppState&) {}
};

inline constexpr float kNoRoomCell = 0.25f;  // see View::cell_size_if_grown

using ViewFactory = std::function<std::unique_ptr<View>()>;

// The registry: filled by static registrars before main() runs.
std::vector<ViewFactory>& view_factories();
// One instance of every registered view, sorted by slot then order.
std::vector<std::unique_ptr<View>> make_views();

// Wrapped text that breaks only at spaces (ImGui's own wrap also breaks after
// '.', which splits numbers such as 0.000397 across lines).
void text_wrapped_at_spaces(const std::string& text);
// The height text_wrapped_at_spaces takes for `text` at the current width.
float wrapped_at_spaces_height(const std::string& text);
// Items that flow and wrap: puts the next item (this wide) on the line of the
// last one when it fits before the pane's right edge; returns whether it did.
bool same_line_if_fits(float width);

// Values printed in cells: the text size for a cell this big, and whether it
// is large enough to read next to text of the panel's font (the grid hides
// values, and the app picks the grid-focus layout, below that).
float value_font_size(float cell, float font);
bool values_readable(float cell, float font);

struct ViewRegistrar {
  explicit ViewRegistrar(ViewFactory f) { view_factories().push_back(std::move(f)); }
};

}  // namespace ts::app

#define TS_REGISTER_VIEW_CAT2(a, b) a##b
#define TS_REGISTER_VIEW_CAT(a, b) TS_REGISTER_VIEW_CAT2(a, b)
#define TS_REGISTER_VIEW(Class)                               \
  static const ::ts::app::ViewRegistrar TS_REGISTER_VIEW_CAT( \
      ts_view_registrar_, __LINE__)([] { return std::unique_ptr<::ts::app::View>(new Class()); })
