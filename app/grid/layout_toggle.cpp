#include "app/grid/layout_toggle.hpp"

#include <imgui.h>

#include <string_view>

#include "app/core/palette.hpp"
#include "app/core/view.hpp"

namespace ts::app {

std::vector<const LessonInfo*> layout_siblings(const LessonInfo& v) {
  std::vector<const LessonInfo*> out;
  if (!v.layout_group) return out;
  for (const LessonInfo& c : all_lessons())
    if (c.layout_group && std::string_view(c.layout_group) == v.layout_group) out.push_back(&c);
  return out;
}

const LessonInfo* layout_named(const LessonInfo& v, const std::string& label) {
  for (const LessonInfo* c : layout_siblings(v))
    if (c->layout_label && label == c->layout_label) return c;
  return nullptr;
}

void choose_layout(AppState& s, const LessonInfo& to) {
  s.request.lesson_id = to.id;
  // One kernel with another layout: the same parameters and barrier set,
  // unless the sibling has other barriers (then all of its own).
  if (validate_barrier_mask(to, s.request.barrier_mask)) s.request.barrier_mask = all_barriers(to);
  s.run_requested = true;
}

void layout_toggle(AppState& s) {
  const LessonInfo* v = s.lesson();
  if (!v) return;
  const std::vector<const LessonInfo*> sibs = layout_siblings(*v);
  if (sibs.size() < 2) return;
  const ImGuiStyle& st = ImGui::GetStyle();
  float need = ImGui::CalcTextSize("layout").x + st.ItemInnerSpacing.x;
  for (const LessonInfo* c : sibs)
    need +=
        ImGui::CalcTextSize(c->layout_label ? c->layout_label : c->id).x + st.FramePadding.x * 2;
  same_line_if_fits(need + 8);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("layout");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The same kernel with another shared-memory layout: runs at once,\n"
        "with the same parameters and barriers.");
  const Rgb blue = okabe_ito::kBlue;  // the chosen one: solid, as a lit segment
  const ImVec4 on(to_f(blue.r), to_f(blue.g), to_f(blue.b), 1.0f);
  for (const LessonInfo* c : sibs) {
    ImGui::SameLine(0, c == sibs.front() ? st.ItemInnerSpacing.x : 1.0f);
    const bool chosen = c == v;
    if (chosen) {
      ImGui::PushStyleColor(ImGuiCol_Button, on);
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, on);
    }
    const char* label = c->layout_label ? c->layout_label : c->id;
    const bool clicked = ImGui::Button(label);
    if (chosen) ImGui::PopStyleColor(2);
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    s.plot_marks.push_back({"layout", chosen ? "chosen" : "option", label, a.x, a.y, b.x - a.x,
                            b.y - a.y,
                            ImGui::GetColorU32(chosen ? on : st.Colors[ImGuiCol_Button])});
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c->title);
    if (clicked && !chosen && !s.job.active()) choose_layout(s, *c);
  }
}

}  // namespace ts::app
