// The stale read's label (app/grid/stale_callout.hpp).
#include "app/grid/stale_callout.hpp"

#include <algorithm>
#include <cmath>

#include "app/core/palette.hpp"
#include "app/grid/grid_cells.hpp"

namespace ts::app {

std::string stale_read_text(const Replay& r, uint32_t index) {
  if (!r.is_stale_read(index)) return {};
  const Event& e = r.trace().events[index];
  if (const auto& report = r.stale_report())
    for (const StaleRead& s : report->reads)
      if (s.event == index)
        return "read " + format_value(s.got) + ", expected " + format_value(s.expected);
  // Beyond the report's first reads: what it saw, and that it was stale.
  return "read " + format_value(e.value) + ", a stale value";
}

void draw_stale_callout(AppState& s, ImDrawList* dl, const std::vector<Placed>& arrays,
                        ImVec2 clip_lo, ImVec2 clip_hi) {
  if (!s.has_trace() || s.replay->position() == 0) return;
  const Replay& r = *s.replay;
  const uint32_t index = r.event_at(r.position());
  const std::string text = stale_read_text(r, index);
  if (text.empty()) return;
  const Event& e = r.trace().events[index];
  const Placed* p = nullptr;
  for (const Placed& a : arrays)
    if (a.id == e.array && (!a.shared || a.block == e.block)) p = &a;
  int row = 0, col = 0;
  if (!p || !p->cell_of(e.element, &row, &col)) return;
  const ImVec2 c0(p->pos.x + float(col) * p->cell, p->pos.y + float(row) * p->cell);
  const ImVec2 c1(c0.x + p->cell, c0.y + p->cell);
  const Palette& pal = palette(s.present.theme);
  // A ring around the cell: white on black, seen on any fill.
  const float pad = std::max(2.0f, p->cell * 0.15f);
  dl->AddRect(ImVec2(c0.x - pad, c0.y - pad), ImVec2(c1.x + pad, c1.y + pad),
              IM_COL32(0, 0, 0, 230), 0, 0, 6.0f);
  dl->AddRect(ImVec2(c0.x - pad, c0.y - pad), ImVec2(c1.x + pad, c1.y + pad),
              IM_COL32(255, 255, 255, 255), 0, 0, 3.0f);
  // The label: above the cell, else below it, inside the room.
  const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
  const float m = std::round(ImGui::GetFontSize() * 0.3f), gap = pad + m;
  const float w = ts.x + 2 * m, h = ts.y + m;
  float x = std::clamp((c0.x + c1.x - w) * 0.5f, clip_lo.x + 2,
                       std::max(clip_lo.x + 2, clip_hi.x - w - 2));
  // Above the cell, except on an array's first row, whose title it would cover.
  float y = c0.y - gap - h;
  const bool below = y < clip_lo.y + 2 || row == 0;
  if (below) y = c1.y + gap;
  y = std::clamp(y, clip_lo.y + 2, std::max(clip_lo.y + 2, clip_hi.y - h - 2));
  const ImU32 fill = pal.stale.abgr(), ink = IM_COL32(255, 255, 255, 255);
  // A pointer from the label to the ring.
  const float mx = std::clamp((c0.x + c1.x) * 0.5f, x + m, x + w - m);
  const float ly = below ? y : y + h, ty = below ? c1.y + pad : c0.y - pad;
  dl->AddTriangleFilled(ImVec2(mx - m, ly), ImVec2(mx + m, ly), ImVec2((c0.x + c1.x) * 0.5f, ty),
                        fill);
  dl->AddRectFilled(ImVec2(x - 2, y - 2), ImVec2(x + w + 2, y + h + 2), IM_COL32(0, 0, 0, 230),
                    m * 0.6f);
  dl->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + h), fill, m * 0.5f);
  dl->AddText(ImVec2(x + m, y + m * 0.5f), ink, text.c_str());
  CalloutFacts f;
  f.text = text;
  f.id = e.array;
  f.block = e.block;
  f.element = e.element;
  const float box[4] = {x, y, w, h}, cell[4] = {c0.x, c0.y, p->cell, p->cell};
  std::copy(box, box + 4, f.box);
  std::copy(cell, cell + 4, f.cell);
  f.fill = fill;
  f.ink = ink;
  s.grid_facts.callouts.push_back(std::move(f));
}

}  // namespace ts::app
