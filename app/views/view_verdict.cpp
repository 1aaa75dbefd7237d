// Verdict: the output against the CPU reference; wrong cells are marked on
// the grid. Also what the run reported: backend, faults, truncation.
#include <imgui.h>

#include <algorithm>

#include "app/core/palette.hpp"
#include "app/core/view.hpp"
#include "app/views/race_hint.hpp"

namespace ts::app {

class VerdictView final : public View {
 public:
  const char* name() const override { return "Verdict"; }
  Slot slot() const override { return Slot::LeftLower; }
  int order() const override { return 0; }
  // The verdict's lines without the wrong cells' list (which scrolls): the
  // puzzle desk (app/shell/layout.cpp) gives it no more.
  float preferred_height() const override { return lines_h_; }

  void update(AppState& s) override {
    if (gen_ == s.result.generation) return;
    gen_ = s.result.generation;
    std::vector<CellMark> marks;
    if (s.has_trace()) {
      // The verdict compares the trace's (first) output.
      const BufferData* out = s.trace().output();
      for (uint32_t e : s.result.verdict.wrong_cells)
        if (out)
          marks.push_back({out->slot, 0, e, MarkStyle::Wrong, "differs from the CPU reference"});
    }
    if (marks.empty())
      s.clear_marks("verdict");
    else
      s.set_marks("verdict", std::move(marks));
  }

  void draw(AppState& s) override {
    if (!s.has_trace()) {
      ImGui::TextDisabled("No result yet.");
      return;
    }
    const Verdict& v = s.result.verdict;
    const Trace& t = s.trace();
    ImFont* big = static_cast<ImFont*>(s.present.big_font);
    if (big) ImGui::PushFont(big);
    const float y0 = ImGui::GetCursorPosY();
    const char* word = !v.checked ? "not checked" : v.correct ? "Correct" : "Wrong output";
    if (!v.checked)
      ImGui::TextDisabled("%s", word);
    else if (v.correct)
      ImGui::TextColored(ImVec4(0.0f, 0.62f, 0.45f, 1), "%s", word);
    else
      ImGui::TextColored(ImVec4(0.84f, 0.37f, 0.0f, 1), "%s", word);
    if (big) ImGui::PopFont();
    {  // for the window's map (app/shell/scripted.cpp)
      const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
      s.plot_marks.push_back({"verdict", "verdict", word, a.x, a.y, b.x - a.x, b.y - a.y, 0});
    }
    ImGui::PushTextWrapPos(0);
    if (v.checked) text_wrapped_at_spaces(v.summary());
    const LessonInfo* var = find_lesson(t.config.lesson_id);
    if (var && !var->barriers.empty()) {
      const int count = int(var->barriers.size());
      if (!t.config.barriers().keeps_all_of(count)) {
        std::string which;
        for (const BarrierInfo& b : var->barriers)
          if (!t.config.barriers().keeps(b.id))
            which += (which.empty() ? "" : ", ") + std::to_string(b.id);
        ImGui::Text("Barrier %s removed.", which.c_str());
      }
    }
    draw_race_hint(s, !v.checked || v.correct, s.replay->stale_read_count());
    if (s.replay->stale_read_count())
      ImGui::Text("%llu shared reads saw a value the synchronised program would not (stale).",
                  (unsigned long long)s.replay->stale_read_count());
    if (t.truncated())
      ImGui::TextColored(ImVec4(0.9f, 0.6f, 0.0f, 1), "Trace truncated: %llu events did not fit.",
                         (unsigned long long)t.events_dropped);
    for (size_t i = 0; i < std::min<size_t>(s.result.faults.size(), 5); ++i)
      ImGui::TextColored(ImVec4(0.84f, 0.37f, 0.0f, 1), "%s", s.result.faults[i].c_str());
    ImGui::PopTextWrapPos();
    lines_h_ = ImGui::GetCursorPosY() - y0;
    if (!v.wrong_cells.empty()) {
      const BufferData* out = t.output();
      const std::string name = out ? array_name(t.config.arrays, out->slot) : "out";
      ImGui::Separator();
      ImGui::TextUnformatted("Wrong cells (click to follow):");
      ImGui::BeginChild("##wrong", ImVec2(0, 0));
      for (size_t i = 0; i < std::min<size_t>(v.wrong_cells.size(), 200); ++i) {
        const uint32_t e = v.wrong_cells[i];
        const int cols = out ? std::max(1, out->cols) : 1;
        char lbl[96];
        std::snprintf(lbl, sizeof lbl, "%s[%d][%d] = %g", name.c_str(), int(e) / cols,
                      int(e) % cols, out && e < out->values.size() ? double(out->values[e]) : 0.0);
        if (ImGui::Selectable(lbl)) {
          // The thread whose store the cell holds: the last one to it in the trace.
          const Event* writer = nullptr;
          for (const Event& ev : t.events)
            if (ev.kind == EventKind::GlobalStore && out && ev.array == out->slot &&
                ev.element == e && !(ev.flags & kFlagOutOfRange))
              writer = &ev;
          if (writer) {
            s.selection.block = writer->block;
            s.selection.thread = int(writer->thread);
          } else {  // never stored: the thread the launch geometry puts on that cell
            const uint32_t bx = std::max(1u, t.config.geometry.block.x),
                           by = std::max(1u, t.config.geometry.block.y);
            const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
            const uint32_t r = e / uint32_t(cols), c = e % uint32_t(cols);
            s.selection.block = (r / by) * gx + c / bx;
            s.selection.thread = int((r % by) * bx + c % bx);
          }
        }
      }
      ImGui::EndChild();
    }
  }

 private:
  uint64_t gen_ = ~0ull;
  float lines_h_ = 0;
};

TS_REGISTER_VIEW(VerdictView);

}  // namespace ts::app
