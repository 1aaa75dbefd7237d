// Compare: two runs side by side (app/compare/compare_mode.hpp), each drawn by the
// grid (app/grid/grid_pane.hpp) into its half, B at A's position aligned by phase.
// Cells whose value (or, under the heatmap, load count) differs get a ring on
// both sides; the line on top counts them here and at the end of the runs.
// Also the View > Compare with... dialog and Esc to leave.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/compare/compare_mode.hpp"
#include "app/core/palette.hpp"
#include "app/core/view.hpp"
#include "app/grid/grid_pane.hpp"
#include "app/grid/layout_toggle.hpp"

namespace ts::app {

namespace {

// Not a colour of the grid's own: magenta reads on every fill and theme.
constexpr Rgb kDiffColour{255, 40, 200};
constexpr Rgb kSideColour[2] = {okabe_ito::kBlue, okabe_ito::kOrange};

// The rectangle of element e of a drawn array (false: not drawn there).
bool cell_rect(const DrawnArray& d, uint32_t e, ImVec2* a, ImVec2* b) {
  const bool wrapped = d.data_rows == 1 && d.cols < d.data_cols;
  const int cols = wrapped ? d.cols : d.data_cols;
  if (cols <= 0) return false;
  const int row = int(e / uint32_t(cols)), col = int(e % uint32_t(cols));
  if (row >= d.rows || col >= d.cols) return false;
  *a = ImVec2(d.x + col * d.cell_w, d.y + row * d.cell_h);
  *b = ImVec2(a->x + d.cell_w, a->y + d.cell_h);
  return true;
}

void badge(ImDrawList* dl, const char* letter, Rgb colour) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 ts = ImGui::CalcTextSize(letter);
  const float w = std::max(h, ts.x + 10);
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), colour.abgr(), 4);
  dl->AddText(ImVec2(p.x + (w - ts.x) * 0.5f, p.y), IM_COL32(255, 255, 255, 255), letter);
  ImGui::Dummy(ImVec2(w, h));
  ImGui::SameLine();
}

}  // namespace

class CompareView final : public View {
 public:
  const char* name() const override { return "Compare"; }
  Slot slot() const override { return Slot::Center; }
  int order() const override { return 5; }

  void update(AppState& s) override {
    if (!s.compare) return;
    CompareState& c = *s.compare;
    const ImGuiIO& io = ImGui::GetIO();
    if (c.active && !io.WantTextInput && !s.lecture.active() && !c.dialog_open &&
        ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false))
      close_compare(s);
    update_compare(s, false, false);
    // The two grids keep the width while compare mode chose it (G gives it back).
    if (c.active && c.focus_forced && s.present.focus_auto) s.present.focus_grid = true;
    if (c.b.job.active()) s.mark_busy();  // its progress, then its grid, without input
  }

  void draw(AppState& s) override {
    if (s.compare) dialog(s, *s.compare);  // opening it brings this tab to the front
    if (!compare_active(s)) {
      draw_invitation(s);
      return;
    }
    CompareState& c = *s.compare;
    for (AppState* x : {&s, &c.b}) {
      x->drawn.clear();
      x->selection.hover = {};
    }
    c.ring_px = 0;
    c.too_small.clear();
    if (!draw_counts(s, c)) return;  // closed, or a run still missing
    // What both run and how they align: a line where the grids have the room
    // (a tooltip on the counts where not), and the legend where they have more.
    const float room = ImGui::GetContentRegionAvail().y / ImGui::GetFontSize();
    if (room > 18) {
      ImGui::TextDisabled("%s%saligned: %s", c.common.c_str(), c.common.empty() ? "" : "  -  ",
                          c.align.how.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c.align.how.c_str());
    }

    if (!pane_[0]) pane_[0] = make_grid_pane(), pane_[1] = make_grid_pane();
    AppState* side[2] = {&s, &c.b};
    bool ready[2];
    for (int i = 0; i < 2; ++i)
      ready[i] = pane_[i]->prepare(*side[i]);
    if (!ready[0] || !ready[1]) return;
    if (room > 30) {  // the grid's legend and toggles (heatmap, values, colours) for both
      pane_[0]->draw_legend(s);
      c.b.present = s.present;  // toggled there: B follows at once
      ImGui::NewLine();
    }
    draw_halves(s, c);
  }

 private:
  // No second run yet: what compare mode is and how to start it.
  void draw_invitation(AppState& s) {
    ImGui::TextWrapped(
        "Two runs side by side on one scrubber, aligned by barrier phase: with a barrier and "
        "without, naive and tiled, plain and padded. Cells that differ are ringed.");
    ImGui::Spacing();
    if (ImGui::Button("Compare with...")) open_compare_dialog(s);
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(
        "Also View > Compare with..., or on the command line: tilescope --compare "
        "\"--barriers 1\". Esc leaves.");
    ImGui::PopTextWrapPos();
  }

  // The counts, and the way out. False: closed here, or not both runs in.
  bool draw_counts(AppState& s, CompareState& c) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const char* close = "Close compare (Esc)";
    const float close_w = ImGui::CalcTextSize(close).x + ImGui::GetStyle().FramePadding.x * 2;
    const bool both = s.replay && c.b.replay && !c.b.job.active();
    if (both) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float h = ImGui::GetTextLineHeight();
      dl->AddRect(ImVec2(p.x + 1, p.y + 1), ImVec2(p.x + h - 1, p.y + h - 1), kDiffColour.abgr(), 0,
                  0, 3);
      ImGui::Dummy(ImVec2(h, h));
      ImGui::SameLine();
      char now[160], end[120];
      std::snprintf(now, sizeof now, "%llu cells differ in value, %llu in load count",
                    (unsigned long long)c.now.value, (unsigned long long)c.now.loads);
      std::snprintf(end, sizeof end, "at the end: %llu in value, %llu in load count",
                    (unsigned long long)c.end.value, (unsigned long long)c.end.loads);
      ImGui::TextUnformatted(now);
      same_line_if_fits(ImGui::CalcTextSize(end).x + close_w + 40);
      ImGui::TextDisabled("%s", end);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Cells of the arrays both runs have (same name and shape), all blocks.\n"
            "Value: the value the grid shows (stored, or not yet) differs.\n"
            "Load count: how often an input element was read from global memory.%s",
            c.now.skipped.empty() ? ""
                                  : "\nNot compared (other shapes) are listed under the grids.");
    } else {
      ImGui::TextUnformatted(c.b.job.active() ? "Running the second run (B)..."
                                              : "Waiting for the first run (A)...");
    }
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - close_w);
    if (ImGui::Button(close)) {
      close_compare(s);
      return false;
    }
    return both && s.has_trace();
  }

  // Two halves, each: its badge, what it runs, where it is; then its grid.
  void draw_halves(AppState& s, CompareState& c) {
    const Palette& pal = palette(s.present.theme);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    AppState* side[2] = {&s, &c.b};
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetFontSize();
    const float half = std::floor((avail.x - gap) * 0.5f);
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const char* letters[2] = {"A", "B"};
    const std::string* labels[2] = {&c.label_a, &c.label_b};
    const PhaseTable* tables[2] = {&c.table_a, &c.table_b};
    char where[2][96];
    bool one_line = true;
    for (int i = 0; i < 2; ++i) {
      const Replay& r = *side[i]->replay;
      // Phases counted from 0, as the timeline counts them.
      std::snprintf(where[i], sizeof where[i], "phase %d (of 0-%d), event %llu of %llu",
                    tables[i]->phase_at(r.position()), tables[i]->phases() - 1,
                    (unsigned long long)r.position(), (unsigned long long)r.size());
      one_line = one_line && ImGui::GetTextLineHeight() + 10 +
                                     ImGui::CalcTextSize(labels[i]->c_str()).x + gap +
                                     ImGui::CalcTextSize(where[i]).x <=
                                 half;
    }
    const float head = line * (one_line ? 1.0f : 2.0f);
    const float note = c.now.skipped.empty() ? 0 : line;
    const ImVec2 grid_size(half, std::max(0.0f, avail.y - head - note - line * 0.3f));
    // One heatmap scale for both runs: the larger of the two.
    const uint32_t heat = std::max({pane_[0]->own_heat_max(), pane_[1]->own_heat_max(), 1u});
    for (int i = 0; i < 2; ++i) {
      const float x = origin.x + (half + gap) * float(i);
      ImGui::SetCursorScreenPos(ImVec2(x, origin.y));
      ImGui::PushClipRect(ImVec2(x, origin.y), ImVec2(x + half, origin.y + avail.y), true);
      badge(dl, letters[i], kSideColour[i]);
      ImGui::TextUnformatted(labels[i]->c_str());
      if (one_line)
        ImGui::SameLine(0, gap);
      else
        ImGui::SetCursorScreenPos(ImVec2(x, origin.y + line));
      ImGui::TextUnformatted(where[i]);
      pane_[i]->paint(*side[i], ImVec2(x, origin.y + head), grid_size, heat);
      ImGui::PopClipRect();
    }
    // The line between the halves.
    const float mid = origin.x + half + gap * 0.5f;
    dl->AddLine(ImVec2(mid, origin.y), ImVec2(mid, origin.y + avail.y), pal.text_dim.abgr(), 1.0f);
    rings(s, c);
    float y = origin.y + head + grid_size.y + line * 0.3f;
    ImGui::SetCursorScreenPos(ImVec2(origin.x, y));
    if (!c.now.skipped.empty()) {
      std::string t = "Not compared (other shapes): ";
      for (size_t i = 0; i < c.now.skipped.size(); ++i)
        t += (i ? "; " : "") + c.now.skipped[i];
      ImGui::TextDisabled("%s", t.c_str());
    }
    draw_too_small_hint(s, c, origin, avail);
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(avail);
  }

  // Too small to read: say so where the grids are, and offer the room.
  void draw_too_small_hint(AppState& s, CompareState& c, ImVec2 origin, ImVec2 avail) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float cell = std::min(pane_[0]->cell(), pane_[1]->cell());
    if (s.present.show_values && (!pane_[0]->values_shown() || !pane_[1]->values_shown())) {
      char hint[160];
      std::snprintf(hint, sizeof hint,
                    s.present.focus_grid ? "Cells of %.0f px: too small for values (a wider "
                                           "window; F11 fullscreen)"
                                         : "Cells of %.0f px: too small for values; G hides the "
                                           "side panels",
                    double(cell));
      c.too_small = hint;
      const ImVec2 ts = ImGui::CalcTextSize(hint);
      const ImVec2 at(origin.x + avail.x - ts.x - 8, origin.y + avail.y - ts.y - 4);
      dl->AddRectFilled(ImVec2(at.x - 6, at.y - 2), ImVec2(at.x + ts.x + 6, at.y + ts.y + 2),
                        IM_COL32(0, 0, 0, 170), 4);
      dl->AddText(at, IM_COL32(240, 170, 30, 255), hint);
    }
  }

  // A ring inside each differing cell, on both sides; under the heatmap a
  // corner triangle where only the load count differs.
  void rings(AppState& s, CompareState& c) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool heat = s.present.heatmap;
    for (int side = 0; side < 2; ++side) {
      const std::vector<DrawnArray>& drawn = side == 0 ? s.drawn : c.b.drawn;
      for (const CellDiff& d : c.now.cells) {
        if (!d.value && !(heat && d.loads)) continue;
        const ArraySlot slot = side == 0 ? d.a : d.b;
        for (const DrawnArray& a : drawn) {
          if (a.id != slot || (a.shared && a.block != d.block)) continue;
          ImVec2 p0, p1;
          if (!cell_rect(a, d.element, &p0, &p1)) continue;
          const float t = std::clamp(std::floor(a.cell_w * 0.14f), 2.0f, 5.0f);
          c.ring_px = t;
          if (d.value) {
            const float h = t * 0.5f;
            dl->AddRect(ImVec2(p0.x + h, p0.y + h), ImVec2(p1.x - h, p1.y - h), kDiffColour.abgr(),
                        0, 0, t);
          } else {
            const float k = std::max(6.0f, a.cell_w * 0.35f);
            dl->AddTriangleFilled(ImVec2(p1.x - k, p0.y), ImVec2(p1.x, p0.y),
                                  ImVec2(p1.x, p0.y + k), kDiffColour.abgr());
          }
        }
      }
    }
  }

  // View > Compare with...: B's lesson, barriers and layout, then Run.
  void dialog(AppState& s, CompareState& c) {
    if (c.dialog_open && !ImGui::IsPopupOpen("Compare with")) {
      pick_ = default_compare_request(s.request);
      ImGui::OpenPopup("Compare with");
    }
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    if (!ImGui::BeginPopupModal("Compare with", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
      c.dialog_open = false;
      return;
    }
    ImGui::Text("A (left): %s", describe_run(s.request).c_str());
    ImGui::TextDisabled("B runs beside it with the same inputs; one scrubber drives both.");
    ImGui::Separator();
    const LessonInfo* v = find_lesson(pick_.lesson_id);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    if (ImGui::BeginCombo("B's lesson", pick_.lesson_id.c_str())) {
      for (const LessonInfo& x : all_lessons())
        if (ImGui::Selectable(x.id, pick_.lesson_id == x.id)) {
          const Params keep = pick_.params;
          pick_.lesson_id = x.id;
          pick_.params = x.defaults;
          // The same sizes where the lesson has them, so the pictures match.
          for (const ParamField& f : kParamFields)
            if ((x.uses & f.bit) && (keep.*f.field) > 0 && f.bit != kUsesTile &&
                f.bit != kUsesBlock)
              pick_.params.*f.field = keep.*f.field;
          pick_.barrier_mask = all_barriers(x);
          v = &x;
        }
      ImGui::EndCombo();
    }
    if (v && !v->barriers.empty()) {
      ImGui::TextUnformatted("B's barriers:");
      for (const BarrierInfo& b : v->barriers) {
        bool keep = pick_.barrier_mask.keeps(b.id);
        char label[160];
        std::snprintf(label, sizeof label, "barrier %d (line %d): %s", b.id, b.line, b.purpose);
        if (ImGui::Checkbox(label, &keep))
          keep ? pick_.barrier_mask.keep(b.id) : pick_.barrier_mask.remove(b.id);
      }
    } else if (v) {
      ImGui::TextDisabled("(this lesson has no barriers)");
    }
    if (v) {
      const std::vector<const LessonInfo*> sibs = layout_siblings(*v);
      if (sibs.size() > 1) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
        if (ImGui::BeginCombo("B's layout", v->layout_label ? v->layout_label : "")) {
          for (const LessonInfo* x : sibs)
            if (ImGui::Selectable(x->layout_label, x == v)) {
              pick_.lesson_id = x->id;
              if (validate_barrier_mask(*x, pick_.barrier_mask))
                pick_.barrier_mask = all_barriers(*x);
            }
          ImGui::EndCombo();
        }
      }
    }
    ImGui::Separator();
    ImGui::TextDisabled("B: %s", describe_run(pick_).c_str());
    if (ImGui::Button("Run B and compare")) {
      ImGui::CloseCurrentPopup();
      c.dialog_open = false;
      request_compare(s, pick_);
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
      ImGui::CloseCurrentPopup();
      c.dialog_open = false;
      if (!c.active) s.select_tab = "Grid";  // back where the menu was chosen
    }
    ImGui::EndPopup();
  }

  std::unique_ptr<GridPane> pane_[2];
  RunRequest pick_;
};

TS_REGISTER_VIEW(CompareView);

}  // namespace ts::app
