#include "app/shell/layout.hpp"

#include "app/lecture/caption_strip.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // MarkIniSettingsDirty

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <functional>

namespace ts::app {

namespace {

// A draggable border between slots: drag(mouse) updates the layout, reset() on double-click.
void splitter(const char* id, ImVec2 pos, ImVec2 size, bool vertical,
              const std::function<void(ImVec2)>& drag, const std::function<void()>& reset) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  ImGui::Begin(id, nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
  ImGui::InvisibleButton("##drag", size);
  const bool hot = ImGui::IsItemHovered() || ImGui::IsItemActive();
  if (hot) {
    ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    const ImVec2 a =
        vertical ? ImVec2(pos.x + size.x * 0.5f, pos.y) : ImVec2(pos.x, pos.y + size.y * 0.5f);
    const ImVec2 b = vertical ? ImVec2(a.x, pos.y + size.y) : ImVec2(pos.x + size.x, a.y);
    ImGui::GetWindowDrawList()->AddLine(a, b, ImGui::GetColorU32(ImGuiCol_SeparatorActive), 3.0f);
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
    drag(ImGui::GetIO().MousePos);
    ImGui::MarkIniSettingsDirty();
  }
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    reset();
    ImGui::MarkIniSettingsDirty();
  }
  if (hot && !ImGui::IsItemActive()) ImGui::SetTooltip("Drag to resize; double-click: default");
  ImGui::End();
  ImGui::PopStyleVar(3);
}

}  // namespace

View* SlotLayout::front(const std::vector<std::unique_ptr<View>>& views, Slot slot) const {
  for (const auto& v : views)
    if (v->slot() == slot && front_[int(slot)] == v->name()) return v.get();
  return nullptr;
}

// This frame's geometry: the window below `top` (W x H), the timeline's
// height B, the side columns' widths L and R, and what is hidden.
struct SlotLayout::Frame {
  float top = 0, W = 0, H = 0;
  float B = 0;            // the timeline strip's height (0: none)
  float L = 0, R = 0;     // the side columns' widths (0 in grid focus)
  float HL = 0;           // the left column's height
  float BX = 0;           // the timeline's left edge
  float left_split = 0;   // the lesson / verdict border, from the top
  float right_split = 0;  // the right column's upper / lower border, from the top
  bool presenter = false, focus = false, wide_center = false, caption_right = false;
  bool races_front = false;  // Races or Banks in front: the right column's upper pane grows
  bool right_full = false;   // Puzzles in front: the right column runs past the timeline
  // The puzzle desk (Puzzles in front): where three columns leave the grid too
  // little width, the lesson column gives way and the verdict joins the right
  // column, between the puzzle and its source (verdict_h high).
  bool verdict_right = false;
  float verdict_h = 0;
  // That at a projector's text (s.present.desk_narrow): the verdict and the
  // source without tab bars (each says what it is), the panel as high as its news.
  bool narrow_desk = false;
  bool lesson_back = false;  // the lesson column shown by the user where it would give way
  SlotRect centre;           // less the caption strip where it sits there

  SlotRect rect(Slot slot) const;
  bool hides(Slot slot) const;  // not drawn this frame (focus, presenter, a wide centre)
};

namespace {

// The window too small for any slot: one line saying so instead.
void draw_too_small(float top, float W, float H) {
  ImGui::SetNextWindowPos(ImVec2(0, top));
  ImGui::SetNextWindowSize(ImVec2(std::max(W, 1.0f), std::max(H, 1.0f)));
  ImGui::Begin("##small", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
  ImGui::TextWrapped("The window is too small to show the lesson. Make it larger.");
  ImGui::End();
}

void store_rect(float (&to)[4], const SlotRect& r) {
  const float xywh[4] = {r.x, r.y, r.w, r.h};
  std::copy(xywh, xywh + 4, to);
}

}  // namespace

bool SlotLayout::wide_center_in_front(const std::vector<std::unique_ptr<View>>& views) const {
  for (const auto& v : views)
    if (v->slot() == Slot::Center && v->wide() && front_[int(Slot::Center)] == v->name())
      return true;
  return false;
}

// Grid focus (G) hides the side columns: the grid and the timeline get the
// width. Until the user chooses (G), the app chooses: focus while the side
// columns leave the grid's cells too small for values and focus does not.
// Decided once per window size, font and trace, from a frame drawn with
// the panels (the grid's header is measured there): while the window is
// dragged larger or smaller the panels show, then the choice is made again.
// A side panel asked for (--tab) stays in view.
void SlotLayout::choose_grid_focus(AppState& s, const std::vector<std::unique_ptr<View>>& views,
                                   const Frame& f, float Lp, float Rp) {
  for (const auto& v : views)
    if (s.select_tab == v->name() && v->slot() != Slot::Center && v->slot() != Slot::Bottom)
      s.present.focus_auto = false;
  // The puzzle desk keeps its panels: the grade and the source beside the grid.
  const bool desk = front_[int(Slot::Right)] == "Puzzles";
  if (desk && s.present.focus_auto && !f.presenter) s.present.focus_grid = false;
  if (f.presenter || !s.present.focus_auto || f.wide_center || desk ||
      front_[int(Slot::Center)] != "Grid") {
    focus_measuring_ = false;
    return;
  }
  const float key[4] = {f.W, f.H, ImGui::GetFontSize(), float(s.result.generation)};
  if (std::equal(key, key + 4, focus_key_)) return;
  if (!focus_measuring_ || s.present.focus_grid) {
    s.present.focus_grid = false;  // measure the panels on this frame
    focus_measuring_ = true;
  } else if (View* grid = front(views, Slot::Center)) {
    const float panels = grid->cell_size_if_grown(ImVec2(0, 0));
    const float focus = grid->cell_size_if_grown(ImVec2(Lp + Rp, 0));
    if (panels > 0) {
      // A grid pane with no room for cells at all (a large font on a small
      // window: the legend fills it) gets the focus whatever it measures.
      const bool no_room = panels <= kNoRoomCell;
      s.present.focus_grid =
          no_room || (!values_readable(panels, ImGui::GetFontSize()) && focus > panels * 1.15f);
      // A projector's font (24 points and up) where even the focus leaves
      // cells below 16 px: the timeline and the panels' text take the room a
      // hall needs for the grid, so the window presents (the strip keeps the
      // narration; P shows the panels again and the app leaves it so).
      if (!s.present.presenter_chosen && s.present.projector_text() &&
          (s.present.focus_grid ? focus : panels) < 16) {
        s.present.presenter = true;
        s.present.presenter_auto = true;
      }
      std::copy(key, key + 4, focus_key_);
      focus_measuring_ = false;
    }
  }
}

// The caption strip (app/lecture/caption_strip.hpp), carved out of the centre:
// beside the grid where its cells come out bigger that way, else below it.
void SlotLayout::place_caption_strip(AppState& s, const std::vector<std::unique_ptr<View>>& views,
                                     Frame& f) const {
  SlotRect& centre = f.centre;
  std::fill(std::begin(s.strip_rect), std::end(s.strip_rect), 0.0f);
  if (f.caption_right) {
    store_rect(s.strip_rect, {f.W - f.R, f.top, f.R, f.right_split});
    s.strip_beside = true;
    return;
  }
  if (!strip_wanted(s)) return;
  const float beside_w = strip_width_beside(s, centre.w);
  // Below, up to 45 % of the room; a long caption at a projector's text, up
  // to half of it rather than cut (app/lecture/caption_strip.hpp shrinks it first).
  const float most_below = std::round(centre.h * 0.45f);
  float need_below = strip_height_for_width(s, centre.w, centre.h, most_below);
  // A quiz question is the moment's subject: below the grid (its buttons want
  // the width), up to 70 % of the room, every choice in view.
  const Question* q = s.quiz.question();
  const float most = std::round(centre.h * (!q ? 0.5f : 0.7f));
  if (need_below > most_below)
    need_below = std::min(strip_height_for_width(s, centre.w, centre.h, most), most);
  const float need_beside = strip_height_for_width(s, beside_w, centre.h, centre.h);
  const float below_h = std::round(std::min(need_below, most));
  const bool beside_ok = need_beside <= centre.h && centre.w - beside_w >= 240;
  // The grid's cells either way, from last frame's room (0: not drawn yet).
  float cells_beside = 0, cells_below = 0;
  if (View* grid = front(views, Slot::Center); grid && s.center_rect[2] > 0) {
    const float dw = centre.w - s.center_rect[2], dh = centre.h - s.center_rect[3];
    cells_beside = grid->cell_size_if_grown(ImVec2(dw - beside_w, dh));
    cells_below = grid->cell_size_if_grown(ImVec2(dw, dh - below_h));
  }
  // A quiz question's buttons want the width: below unless it does not fit there.
  const bool quiz = s.quiz.question() != nullptr;
  const bool beside =
      beside_ok && !quiz &&
      (need_below > most_below || (!quiz && (cells_beside > cells_below ||
                                             (cells_beside == 0 && centre.w > 1.6f * centre.h))));
  const SlotRect strip =
      beside ? SlotRect{centre.x + centre.w - beside_w, centre.y, beside_w, centre.h}
             : SlotRect{centre.x, centre.y + centre.h - below_h, centre.w, below_h};
  (beside ? centre.w : centre.h) -= beside ? beside_w : below_h;
  store_rect(s.strip_rect, strip);
  s.strip_beside = beside;
}

// The narrow desk's panes without tab bars keep this little from their top and foot.
float SlotLayout::narrow_pad_y() {
  return std::round(ImGui::GetFontSize() * 0.15f);
}

// The desk at 1280 x 720 and a projector's text: a text line is a twentieth
// of the column, so the source gets what the others leave. The panel is as
// high as its news (the puzzle, the grade, the buttons and why a grade
// failed: its preferred height), within 40 % of the column (the splitter can
// make it shorter); the verdict its word; both panes below without tab bars.
void SlotLayout::narrow_desk_split(const Views& views, Frame& f, float chrome) const {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeightWithSpacing(), bare = 2 * narrow_pad_y();
  float panel = 0, verdict = 0;
  for (const auto& v : views) {
    if (v->slot() == Slot::Right && front_[int(Slot::Right)] == v->name())
      panel = v->preferred_height();
    if (v->slot() == Slot::LeftLower && front_[int(Slot::LeftLower)] == v->name())
      verdict = v->preferred_height();
  }
  // The verdict's word in the large font (the rest scrolls: the grade says why).
  const float word = std::round(ImGui::GetFontSize() * 1.25f) + st.ItemSpacing.y;
  f.verdict_h = std::ceil(bare + std::min(verdict > 0 ? verdict : word, word));
  const float least = chrome + 3 * line;
  // At most 40 % of the column: a failed grade's reason may scroll.
  const float most =
      std::max(least, std::min(std::round(f.H * 0.4f), f.H - f.verdict_h - bare - 6 * line));
  if (panel > 0)
    f.right_split = std::round(std::clamp(panel + chrome, least, std::min(f.right_split, most)));
}

SlotLayout::Frame SlotLayout::measure(AppState& s, const std::vector<std::unique_ptr<View>>& views,
                                      float top, float W, float H) {
  Layout& lay = s.layout;
  Frame f;
  f.top = top, f.W = W, f.H = H;
  // The centre keeps at least a fifth of the width whatever the side columns ask.
  if (lay.left + lay.right > 0.8f) lay.right = 0.8f - lay.left;
  const ImGuiStyle& st = ImGui::GetStyle();
  // A slot's tab bar and padding around its view.
  const float chrome = ImGui::GetFrameHeightWithSpacing() + 2 * st.WindowPadding.y;
  // The timeline strip: no taller than its controls and lanes need (the rest
  // goes to the grid), but tall enough for them; in a narrow window its
  // controls wrap onto more rows and it grows, up to half the window.
  // Presenter mode (P): no timeline, no side columns, no tabs: the grid gets the
  // window, its text the caption strip; the keys drive the replay.
  f.presenter = s.present.presenter;
  f.B = std::round(H * lay.bottom);
  if (f.presenter) {
    f.B = 0;
  } else if (View* v = front(views, Slot::Bottom)) {
    if (v->preferred_height() > 0) f.B = std::min(f.B, std::ceil(v->preferred_height() + chrome));
    f.B = std::min(std::max(f.B, std::ceil(v->min_height() + chrome)), std::round(H * 0.5f));
    // The grid focus at a projector's text is for the grid: its timeline (the
    // transport, where we are, the lanes) no more than 30 % of the window; so
    // is the puzzle desk's, whose grid shares the width with the panels.
    if ((s.present.focus_grid || front_[int(Slot::Right)] == "Puzzles") &&
        s.present.projector_text())
      f.B = std::min(f.B, std::round(H * 0.3f));
  }
  // A wide view in front of the centre (Performance) takes the right column's place too.
  f.wide_center = wide_center_in_front(views);
  const float Lp = std::round(W * lay.left), Rp = std::round(W * lay.right);
  choose_grid_focus(s, views, f, Lp, Rp);
  f.focus = s.present.focus_grid || f.presenter;
  f.L = f.focus ? 0 : Lp, f.R = f.focus ? 0 : Rp;
  // The Puzzles panel holds a statement, hints, buttons and a grade: in front,
  // its column takes 32 characters' width, up to 45 % of the window (a third
  // of 1280 px at a projector's text left it a word per line).
  const bool desk = !f.focus && front_[int(Slot::Right)] == "Puzzles";
  if (desk) f.R = std::max(f.R, std::round(std::min(W * 0.45f, ImGui::GetFontSize() * 32)));
  // A puzzle is solved with the grid, the source, the verdict and the grade in
  // view together: where the lesson column would leave the grid under 40 % of
  // the width (1600 x 900 at text 22, 1280 x 720), it gives way (its title is
  // the Puzzles panel's) and the verdict moves to the right column.
  // The centre's "Lesson" tab button brings it back (s.present.desk_lesson).
  const bool squeezed = desk && !f.wide_center && W - f.L - f.R < 0.4f * W;
  f.verdict_right = squeezed && !s.present.desk_lesson;
  f.lesson_back = squeezed && s.present.desk_lesson;
  s.present.lesson_dropped = f.verdict_right;
  if (f.verdict_right) f.L = 0;
  f.narrow_desk = f.verdict_right && s.present.projector_text();
  // There code lines wrap: the panels' column holds 48 characters of the
  // code's font (42 of code and the line numbers), up to half the width (the
  // grid keeps 40 %).
  if (f.narrow_desk)
    if (const auto* mono = static_cast<const ImFont*>(s.present.mono_desk_font)) {
      const float code_w = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, "M").x * 48 +
                           2 * st.WindowPadding.x + st.ScrollbarSize;
      f.R = std::max(f.R, std::round(std::min(W * 0.5f, code_w)));
    }
  s.present.desk_narrow = f.narrow_desk;
  // Its timeline without a tab bar too (its buttons say what it is): the grid gets the line.
  if (f.narrow_desk && f.B > 0)
    if (View* v = front(views, Slot::Bottom))
      f.B = std::min(
          f.B, std::ceil(std::max(v->preferred_height(), v->min_height()) + 2 * narrow_pad_y()));
  s.present.puzzle_desk = desk && !f.wide_center;  // the grid zooms to the moment there
  // The left column: the lesson gets the height its controls need (none
  // half-hidden), the verdict the rest. When both need less than the room above
  // the timeline, the timeline runs under them, across the whole width.
  const float lesson_need = [&] {
    for (const auto& v : views)
      if (v->slot() == Slot::Left && front_[int(Slot::Left)] == v->name() &&
          v->preferred_height() > 0)
        return std::ceil(v->preferred_height() + chrome);
    return 0.0f;
  }();
  const float verdict_need =
      chrome + ImGui::GetFontSize() * 1.6f + 3 * ImGui::GetTextLineHeightWithSpacing();
  // A wide centre view (Performance) has no use for the timeline: it runs to the bottom.
  if (f.wide_center) f.B = 0;
  const bool bottom_full = !f.focus && lesson_need > 0 && lesson_need + verdict_need <= H - f.B;
  f.HL = bottom_full ? H - f.B : H;
  f.BX = bottom_full ? 0 : f.L;
  // The race list needs height, and its marks need the grid beside it: the
  // right column's upper pane grows while Races is in front (and Banks: its
  // lane x bank diagram needs the height as well; Puzzles: a statement, hints and a grade).
  f.races_front = front_[int(Slot::Right)] == "Races" || front_[int(Slot::Right)] == "Banks";
  const float right_frac = f.races_front ? lay.right_top_races : lay.right_top;
  f.left_split = std::round(std::clamp(std::max(f.HL * lay.left_top, lesson_need), f.HL * 0.2f,
                                       std::max(f.HL * 0.2f, f.HL - verdict_need)));
  // With the side columns shown, a lecture's caption takes the narration's place
  // (the right column's upper pane, as high as the caption needs): the centre
  // of a 1280 x 720 window has no room to spare for it.
  f.caption_right = strip_wanted(s) && !f.focus && !f.wide_center && f.R > 0;
  f.right_split = std::round((H - f.B) * right_frac);
  // Puzzles: the grade, buttons and statement over the source (and the
  // verdict where it moved there); the column runs to the window's foot, past
  // the timeline, which spans the grid alone. The panel's share is the right
  // column's upper share (a splitter), within what the panes below need: the
  // verdict its lines, the source a title and four lines of code.
  f.right_full = desk && f.R > 0 && !f.wide_center;
  if (f.right_full) {
    const float line = ImGui::GetTextLineHeightWithSpacing();
    if (f.verdict_right) {
      f.verdict_h = verdict_need;
      for (const auto& v : views)
        if (v->slot() == Slot::LeftLower && front_[int(Slot::LeftLower)] == v->name() &&
            v->preferred_height() > 0)
          f.verdict_h = std::min(verdict_need, std::ceil(v->preferred_height() + chrome));
    }
    // The panel itself at least 43 % of the height (its grade, the buttons,
    // the statement's toggle at a projector's text).
    const float source_need = chrome + 5 * line;
    const float least = std::max(chrome + 4 * line, std::round(H * 0.43f));
    f.right_split = std::round(
        std::clamp(H * lay.right_top, least, std::max(least, H - f.verdict_h - source_need)));
    if (f.narrow_desk) narrow_desk_split(views, f, chrome);
  }
  if (f.caption_right)
    f.right_split =
        std::round(std::clamp(strip_height_for_width(s, f.R, H - f.B, (H - f.B) * 0.8f),
                              f.right_split, std::max(f.right_split, (H - f.B) * 0.8f)));
  f.centre = {f.L, top, f.wide_center ? W - f.L : W - f.L - f.R, H - f.B};
  place_caption_strip(s, views, f);
  return f;
}

SlotRect SlotLayout::Frame::rect(Slot slot) const {
  switch (slot) {
    case Slot::Left:
      return {0, top, L, left_split};
    case Slot::LeftLower:
      if (verdict_right) return {W - R, top + right_split, R, verdict_h};
      return {0, top + left_split, L, HL - left_split};
    case Slot::Center:
      return centre;
    case Slot::Right:
      return {W - R, top, R, right_split};
    case Slot::RightLower:
      return {W - R, top + right_split + verdict_h, R,
              (right_full ? H : H - B) - right_split - verdict_h};
    case Slot::Bottom:
      return {BX, top + H - B, W - BX - (right_full ? R : 0), B};
  }
  return {0, 0, 0, 0};
}

bool SlotLayout::Frame::hides(Slot slot) const {
  const bool side = slot == Slot::Left || slot == Slot::LeftLower || slot == Slot::Right ||
                    slot == Slot::RightLower;
  return (wide_center &&
          (slot == Slot::Right || slot == Slot::RightLower || slot == Slot::Bottom)) ||
         (focus && side) || (presenter && slot == Slot::Bottom) ||
         (verdict_right && slot == Slot::Left) || (caption_right && slot == Slot::Right);
}

// The views [first, last) of one slot: a tab bar, or where bare (presenter
// mode's centre, the narrow desk's verdict and source) the view in front (or
// the one asked for) alone.
void SlotLayout::draw_slot(AppState& s, const std::vector<std::unique_ptr<View>>& views,
                           size_t first, size_t last, const SlotRect& r, bool bare,
                           LessonButton lesson) {
  const Slot slot = views[first]->slot();
  if (slot == Slot::Center) store_rect(s.center_rect, r);
  store_rect(s.slot_rects[int(slot)], r);
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y));
  ImGui::SetNextWindowSize(ImVec2(std::max(r.w, 1.0f), std::max(r.h, 1.0f)));
  char id[32];
  std::snprintf(id, sizeof id, "##slot%d", int(slot));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBackground;
  const bool open = ImGui::Begin(id, nullptr, flags);
  if (open && bare) {
    size_t k = first;
    for (size_t m = first; m < last; ++m)
      if (views[m]->name() == (s.select_tab.empty() ? front_[int(slot)] : s.select_tab)) k = m;
    if (s.select_tab == views[k]->name()) s.select_tab.clear();
    front_[int(slot)] = views[k]->name();
    ImGui::BeginChild(views[k]->name(), ImVec2(0, 0), false);
    views[k]->draw(s);
    ImGui::EndChild();
  } else if (open && ImGui::BeginTabBar(id)) {
    lesson_button(s, lesson);
    for (size_t k = first; k < last; ++k) {
      const bool pick = !s.select_tab.empty() && s.select_tab == views[k]->name();
      if (pick) s.select_tab.clear();
      if (ImGui::BeginTabItem(views[k]->name(), nullptr,
                              pick ? ImGuiTabItemFlags_SetSelected : 0)) {
        front_[int(slot)] = views[k]->name();
        ImGui::BeginChild(views[k]->name(), ImVec2(0, 0), false);
        views[k]->draw(s);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

// Where the desk drops the lesson column (too little width for the grid), a
// tab-like button at the head of the centre's tabs brings it back, on the
// side where it appears; the lesson column so brought back has one that hides it.
void SlotLayout::lesson_button(AppState& s, LessonButton b) {
  if (b == LessonButton::None) return;
  const bool show = b == LessonButton::Show;
  const char* label = show ? (s.present.have_symbols ? "\u25B8 Lesson" : "> Lesson")
                           : (s.present.have_symbols ? "\u25C2 Hide" : "< Hide");
  if (ImGui::TabItemButton(label, show ? ImGuiTabItemFlags_Leading : ImGuiTabItemFlags_Trailing))
    s.present.desk_lesson = show;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(show ? "Show the lesson column (its parameters, barriers and Run):\n"
                             "the grid gets less width"
                           : "Hide the lesson column: the grid gets its width");
  // For the window's map (app/shell/scripted.cpp).
  const ImVec2 a = ImGui::GetItemRectMin(), z = ImGui::GetItemRectMax();
  s.plot_marks.push_back(
      {"layout", show ? "show_lesson" : "hide_lesson", label, a.x, a.y, z.x - a.x, z.y - a.y, 0});
}

// The borders between slots drag the layout's fractions (after the slots, so on top).
void SlotLayout::draw_splitters(Layout& lay, const Frame& f) {
  const float t = std::max(4.0f, std::round(ImGui::GetFontSize() * 0.3f));
  const Layout def;
  const float top = f.top, W = f.W, H = f.H, B = f.B, L = f.L, R = f.R, HL = f.HL, BX = f.BX;
  // Grid focus has no side columns: only the bottom border (L is 0 there);
  // the puzzle desk may have no left column.
  const float right_h = f.right_full ? H : H - B;
  if (!f.focus && L > 0)
    splitter(
        "##split_left", ImVec2(L - t / 2, top), ImVec2(t, HL), true,
        [&](ImVec2 m) {
          lay.left = std::clamp(m.x / W, kMinSide, std::min(kMaxSide, 0.8f - lay.right));
        },
        [&] { lay.left = def.left; });
  if (!f.wide_center && !f.focus)
    splitter(
        "##split_right", ImVec2(W - R - t / 2, top), ImVec2(t, right_h), true,
        [&](ImVec2 m) {
          lay.right = std::clamp((W - m.x) / W, kMinSide, std::min(kMaxSide, 0.8f - lay.left));
        },
        [&] { lay.right = def.right; });
  if (!f.wide_center && !f.presenter)
    splitter(
        "##split_bottom", ImVec2(BX, top + H - B - t / 2),
        ImVec2(W - BX - (f.right_full ? R : 0), t), false,
        [&](ImVec2 m) { lay.bottom = std::clamp((top + H - m.y) / H, 0.12f, 0.5f); },
        [&] { lay.bottom = def.bottom; });
  if (f.focus) return;
  if (L > 0)
    splitter(
        "##split_left_top", ImVec2(0, top + f.left_split - t / 2), ImVec2(L, t), false,
        [&](ImVec2 m) { lay.left_top = std::clamp((m.y - top) / HL, 0.2f, 0.9f); },
        [&] { lay.left_top = def.left_top; });
  float& right_frac = f.races_front ? lay.right_top_races : lay.right_top;
  if (!f.wide_center)
    splitter(
        "##split_right_top", ImVec2(W - R, top + f.right_split - t / 2), ImVec2(R, t), false,
        [&](ImVec2 m) { right_frac = std::clamp((m.y - top) / right_h, 0.15f, 0.9f); },
        [&] { right_frac = f.races_front ? def.right_top_races : def.right_top; });
}

void SlotLayout::draw(AppState& s, const std::vector<std::unique_ptr<View>>& views, float top) {
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  const float W = ds.x, H = ds.y - top;
  if (W < 320 || H < 200) {
    draw_too_small(top, W, H);
    return;
  }
  const Frame f = measure(s, views, top, W, H);
  for (size_t i = 0; i < views.size();) {  // the views of one slot lie side by side
    size_t j = i;
    while (j < views.size() && views[j]->slot() == views[i]->slot())
      ++j;
    const Slot slot = views[i]->slot();
    // The verdict and the source on the narrow desk say what they are themselves.
    const bool bare = (f.presenter && slot == Slot::Center) ||
                      (f.narrow_desk && (slot == Slot::LeftLower || slot == Slot::RightLower ||
                                         slot == Slot::Bottom));
    const LessonButton lesson = slot == Slot::Center && f.verdict_right ? LessonButton::Show
                                : slot == Slot::Left && f.lesson_back   ? LessonButton::Hide
                                                                        : LessonButton::None;
    if (f.hides(slot)) {
      i = j;
      continue;
    }
    // Close to their edges there: a line of code more.
    const bool tight = bare && f.narrow_desk;
    if (tight)
      ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding,
                          ImVec2(ImGui::GetStyle().WindowPadding.x, narrow_pad_y()));
    draw_slot(s, views, i, j, f.rect(slot), bare, lesson);
    if (tight) ImGui::PopStyleVar();
    i = j;
  }
  draw_splitters(s.layout, f);
}

}  // namespace ts::app
