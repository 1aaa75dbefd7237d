#include "app/perf/family_ladder_chart.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/perf/plot.hpp"

namespace ts::app {

namespace {

constexpr const char* kPlot = "family_ladder";

// The steps with a counted result at some length: the ones with bars.
std::vector<size_t> timed_steps(const LadderChart& c) {
  std::vector<size_t> out;
  for (size_t i = 0; i < c.steps.size(); ++i)
    for (const LadderPoint& p : c.steps[i].points)
      if (p.counted) {
        out.push_back(i);
        break;
      }
  return out;
}

// A flat line across the chart: the copy, or a library routine at the
// largest length it was measured at.
struct Flat {
  double gbps = 0;
  ImU32 colour = 0;
  std::string text;  // its label: "copy 4149 GB/s"
  const char* kind;  // "copy" or "library"
  bool dashed = false;
};

std::vector<Flat> flat_lines(const LadderChart& c) {
  std::vector<Flat> out;
  if (c.copy_gbps > 0)
    out.push_back({c.copy_gbps, ImGui::GetColorU32(ImGuiCol_Text),
                   "copy " + fmt("%.0f", c.copy_gbps) + " GB/s", "copy", false});
  for (size_t i = 0; i < c.library.size(); ++i) {
    const LibraryLine& l = c.library[i];
    for (size_t k = std::min(c.sizes.size(), l.gbps.size()); k-- > 0;) {
      if (!(l.gbps[k] > 0)) continue;
      std::string text = std::string(l.anchor->title) + " " + fmt("%.0f", l.gbps[k]) + " GB/s";
      if (c.sizes.size() > 1) text += " at " + size_label(c.sizes[k]);
      if (l.anchor->input != LibraryInput::SmallIntegers)
        text += std::string(" (") + to_string(l.anchor->input) + " input)";
      // After the lengths' colours: a library line is never taken for a length's bars.
      out.push_back({l.gbps[k], series_colour(c.sizes.size() + i), text, "library", true});
      break;
    }
  }
  return out;
}

// The chart's title row: the title where there is room, then the legend (a
// swatch per length); the legend alone where both do not fit. In the row
// frame() keeps for the title, so that the legend costs no height (a 720p
// projector has none to spare).
void title_and_legend(const LadderChart& c, ImVec2 origin, ImVec2 size,
                      std::vector<PlotMark>& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lh = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float sample = lh * 0.9f, inner = lh * 0.3f, gap = lh;
  std::vector<std::string> labels;
  float legend_w = 0;
  for (int n : c.sizes) {
    labels.push_back(size_label(n) + " elements");
    legend_w += (labels.size() > 1 ? gap : 0) + sample + inner +
                ImGui::CalcTextSize(labels.back().c_str()).x;
  }
  // Where frame() would put its title.
  float x = origin.x + std::max(4.5f * lh, ImGui::CalcTextSize("GB/s").x + lh);
  const float right = origin.x + size.x - 0.8f * lh;
  const std::string title = "The " + c.ladder + " family: GB/s and % of copy per step";
  const float title_w = ImGui::CalcTextSize(title.c_str()).x;
  if (x + title_w + 1.5f * gap + legend_w <= right) {
    dl->AddText(ImVec2(x, origin.y), text, title.c_str());
    marks.push_back({kPlot, "title", title, x, origin.y, title_w, lh, text});
    x += title_w + 1.5f * gap;
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    const float w = sample + inner + ImGui::CalcTextSize(labels[i].c_str()).x;
    const ImU32 colour = series_colour(i);
    dl->AddRectFilled(ImVec2(x, origin.y + lh * 0.15f), ImVec2(x + sample, origin.y + lh * 0.85f),
                      colour);
    dl->AddText(ImVec2(x + sample + inner, origin.y), text, labels[i].c_str());
    marks.push_back({kPlot, "legend", labels[i], x, origin.y, w, lh, colour});
    x += w + gap;
  }
}

// The y range: from 0 to above the highest bar or line, with room above the
// highest for a label a line tall, whatever the plot's height.
double top_of(const LadderChart& c, const std::vector<Flat>& flats, float plot_h, float lh) {
  double hi = 0;
  for (const LadderStep& s : c.steps)
    for (const LadderPoint& p : s.points)
      if (p.counted) hi = std::max(hi, p.gbps);
  for (const Flat& f : flats)
    hi = std::max(hi, f.gbps);
  if (!(hi > 0)) return 0;
  const double data_h = std::max(1.0, double(plot_h) - 4.2 * double(lh));  // frame()'s margins
  const double frac = std::min(0.45, (1.4 * lh + 8) / data_h);
  return hi * 1.03 / (1 - frac);
}

// The steps' names under their bars: "3 sequential" on one row, on two
// where one is too narrow, the numbers alone where two are (the table under
// the chart names them).
void step_labels(const LadderChart& c, const std::vector<size_t>& shown, const Axes& ax,
                 ImVec2 origin, ImVec2 size, std::vector<PlotMark>& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lh = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  std::vector<std::string> full, number;
  for (size_t i : shown) {
    full.push_back(std::to_string(c.steps[i].step) + " " + c.steps[i].short_title);
    number.push_back(std::to_string(c.steps[i].step));
  }
  auto fits = [&](const std::vector<std::string>& l, size_t rows) {
    std::vector<float> right(rows, -1e30f);
    for (size_t k = 0; k < l.size(); ++k) {
      const float w = ImGui::CalcTextSize(l[k].c_str()).x;
      const float x = float(ax.tx(double(k))) - w / 2;
      if (x < origin.x || x + w > origin.x + size.x) return false;
      if (x < right[k % rows] + lh * 0.5f) return false;
      right[k % rows] = x + w;
    }
    return true;
  };
  const size_t rows = fits(full, 1) ? 1 : fits(full, 2) ? 2 : 0;
  for (size_t k = 0; k < shown.size(); ++k) {
    const std::string& l = rows ? full[k] : number[k];
    const float w = ImGui::CalcTextSize(l.c_str()).x;
    const float left = std::clamp(float(ax.tx(double(k))) - w / 2, origin.x, origin.x + size.x - w);
    const float y = ax.hi.y + 2 + (rows == 2 ? float(k % 2) * (lh + 2) : 0);
    dl->AddText(ImVec2(left, y), text, l.c_str());
    marks.push_back({kPlot, "tick", l, left, y, w, lh, text});
  }
}

// Each flat line's label just above its line, else just below, as far right
// as it is clear of the bars, the percentages and the other labels. Those
// with no room are returned, for the row under the chart.
std::vector<const Flat*> label_lines(const Axes& ax, const std::vector<Flat>& flats,
                                     std::vector<Box> taken, std::vector<PlotMark>& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lh = ImGui::GetTextLineHeight();
  const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
  const ImU32 label_bg = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f);
  std::vector<const Flat*> missing;
  for (const Flat& f : flats) {
    const float y_line = float(ax.ty(f.gbps));
    const ImVec2 w = ImGui::CalcTextSize(f.text.c_str());
    bool placed = false;
    for (float y : {y_line - w.y - 3, y_line + 3}) {
      for (float x = ax.hi.x - w.x - 6; !placed && x >= ax.lo.x + 4; x -= lh / 2) {
        const Box b{ImVec2(x - 2, y), ImVec2(x + w.x + 2, y + w.y)};
        if (!ax.holds(b) ||
            std::any_of(taken.begin(), taken.end(), [&](const Box& t) { return b.hits(t); }))
          continue;
        dl->AddRectFilled(b.a, b.b, label_bg);
        dl->AddText(ImVec2(x, y), text_safe(f.colour, bg), f.text.c_str());
        marks.push_back(
            {kPlot, "label", f.text, b.a.x, b.a.y, b.b.x - b.a.x, b.b.y - b.a.y, f.colour, f.gbps});
        taken.push_back(b);
        placed = true;
      }
      if (placed) break;
    }
    if (!placed) missing.push_back(&f);
  }
  return missing;
}

// The chart itself; returns the flat lines whose labels found no room.
std::vector<const Flat*> chart(const LadderChart& c, const std::vector<size_t>& shown,
                               const std::vector<Flat>& flats, ImVec2 size,
                               std::vector<PlotMark>& marks) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##family_ladder", size);
  const bool hovered = ImGui::IsItemHovered();
  const float lh = ImGui::GetTextLineHeight();
  const double y1 = top_of(c, flats, size.y, lh);
  if (shown.empty() || !(y1 > 0)) return {};
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Axes ax = frame(dl, origin, size, -0.5, double(shown.size()) - 0.5, 0, y1, false, false, "",
                        "", "GB/s", {}, false);
  title_and_legend(c, origin, size, marks);
  marks.push_back(
      {kPlot, "area", c.ladder, ax.lo.x, ax.lo.y, ax.hi.x - ax.lo.x, ax.hi.y - ax.lo.y, 0, y1});
  step_labels(c, shown, ax, origin, size, marks);

  // The bars: one group per step, one bar per length in the length's colour.
  const float group = (ax.hi.x - ax.lo.x) / float(shown.size());
  const float span = group * 0.78f, bar = span / float(std::max<size_t>(1, c.sizes.size()));
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  std::string hover;
  std::vector<Box> taken;
  std::vector<float> group_top(shown.size(), ax.hi.y);
  for (size_t k = 0; k < shown.size(); ++k) {
    const LadderStep& s = c.steps[shown[k]];
    const float left = float(ax.tx(double(k))) - span / 2;
    for (size_t i = 0; i < c.sizes.size(); ++i) {
      const LadderPoint* p = c.at(shown[k], c.sizes[i]);
      if (!p || !p->counted) continue;
      const Box b{ImVec2(left + float(i) * bar + 1, float(ax.ty(p->gbps))),
                  ImVec2(left + float(i + 1) * bar - 1, ax.hi.y)};
      const ImU32 colour = series_colour(i);
      dl->AddRectFilled(b.a, b.b, colour);
      taken.push_back(b);
      group_top[k] = std::min(group_top[k], b.a.y);
      marks.push_back({kPlot, "bar", std::string(s.lesson->id) + " n=" + std::to_string(p->size),
                       b.a.x, b.a.y, b.b.x - b.a.x, b.b.y - b.a.y, colour, p->gbps});
      if (mouse.x >= b.a.x && mouse.x <= b.b.x && mouse.y >= b.a.y && mouse.y <= b.b.y)
        hover =
            std::to_string(s.step) + " " + s.lesson->title + " at " + size_label(p->size) +
            " elements: " + fmt("%.1f", p->gbps) + " GB/s" +
            (p->pct_copy > 0 ? ", " + fmt("%.1f", p->pct_copy) + " % of the copy" : "") +
            (p->pct_library > 0 ? ", " + fmt("%.1f", p->pct_library) + " % of the library" : "");
    }
  }

  // Each step's % of the copy at the largest length, over its bars; the
  // shorter form where a group is narrow, none where even that does not fit
  // (the table has it).
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 label_bg = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f);
  for (size_t k = 0; k < shown.size(); ++k) {
    const LadderPoint* p = c.at(shown[k], c.table_size);
    if (!p || !(p->pct_copy > 0)) continue;
    std::string l = fmt("%.0f %%", p->pct_copy);
    if (ImGui::CalcTextSize(l.c_str()).x > group - 6) l = fmt("%.0f%%", p->pct_copy);
    const ImVec2 w = ImGui::CalcTextSize(l.c_str());
    if (w.x > group - 6) continue;
    const float x = float(ax.tx(double(k))) - w.x / 2;
    const float y = std::max(ax.lo.y + 3, group_top[k] - w.y - 3);
    const Box b{ImVec2(x - 2, y), ImVec2(x + w.x + 2, y + w.y)};
    dl->AddRectFilled(b.a, b.b, label_bg);
    dl->AddText(ImVec2(x, y), text, l.c_str());
    marks.push_back(
        {kPlot, "pct", l, b.a.x, b.a.y, b.b.x - b.a.x, b.b.y - b.a.y, text, p->pct_copy});
    taken.push_back(b);
  }

  // The copy and the library as flat lines over the bars, then their labels.
  dl->PushClipRect(ax.lo, ax.hi, true);
  for (const Flat& f : flats) {
    const float y = float(ax.ty(f.gbps));
    SeriesStyle st;
    st.colour = f.colour;
    st.width = std::max(2.0f, lh * 0.08f);
    st.dashed = f.dashed;
    draw_segment(dl, ImVec2(ax.lo.x, y), ImVec2(ax.hi.x, y), st);
    marks.push_back({kPlot, f.kind, f.text, ax.lo.x, y, ax.hi.x - ax.lo.x, 0, f.colour, f.gbps});
  }
  dl->PopClipRect();
  std::vector<const Flat*> missing = label_lines(ax, flats, taken, marks);
  if (hovered && !hover.empty()) ImGui::SetTooltip("%s", hover.c_str());
  return missing;
}

void table(const LadderChart& c) {
  const ImGuiTableFlags tf = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  const bool lib = !c.library.empty();
  const int cols = 3 + int(c.sizes.size()) + (lib ? 1 : 0);
  const float rows = float(c.steps.size() + c.library.size() + 1);
  // As tall as its rows: a scrolling table would otherwise take the panel's rest.
  const float h =
      ImGui::GetTextLineHeightWithSpacing() * (rows + 1.2f) + ImGui::GetStyle().ScrollbarSize;
  if (!ImGui::BeginTable("##family_ladder_table", cols, tf, ImVec2(0, h))) return;
  ImGui::TableSetupColumn("step");
  ImGui::TableSetupColumn("lesson");
  std::vector<std::string> heads;
  for (int n : c.sizes)
    heads.push_back("GB/s " + size_label(n));
  heads.push_back("% copy " + size_label(c.table_size));
  if (lib) heads.push_back("% library " + size_label(c.table_size));
  for (const std::string& h : heads)
    ImGui::TableSetupColumn(h.c_str());
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LadderStep& s = c.steps[i];
    table_step_cells(s.step, s.lesson->title, s.lesson->id, s.why.c_str());
    for (int n : c.sizes) {
      const LadderPoint* p = c.at(i, n);
      table_number(p && p->counted ? p->gbps : 0, "%.1f");
    }
    const LadderPoint* t = c.at(i, c.table_size);
    table_number(t ? t->pct_copy : 0, "%.1f");
    if (lib) table_number(t ? t->pct_library : 0, "%.1f");
  }
  for (const LibraryLine& l : c.library) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("lib");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(l.anchor->title);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: %s", l.anchor->id, l.anchor->note);
    for (size_t k = 0; k < c.sizes.size(); ++k) {
      ImGui::TableNextColumn();
      if (k < l.gbps.size() && l.gbps[k] > 0)
        ImGui::Text("%.1f", l.gbps[k]);
      else
        ImGui::TextDisabled("%s", k < l.status.size() && l.status[k] != PerfStatus::Skipped
                                      ? to_string(l.status[k])
                                      : "-");
    }
    const double last = l.gbps.empty() ? 0 : l.gbps.back();
    table_number(c.copy_gbps > 0 ? 100.0 * last / c.copy_gbps : 0, "%.1f");
    if (lib) ImGui::TableNextColumn();
  }
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted("copy (device to device)");
  for (size_t k = 0; k < c.sizes.size(); ++k)
    table_number(c.copy_gbps, "%.1f");
  ImGui::EndTable();
}

// What the numbers are, what the report lacks and how to measure it.
void notes(const LadderChart& c, const std::vector<size_t>& shown,
           const std::vector<const Flat*>& missing) {
  ImGui::PushTextWrapPos(0);
  for (const Flat* f : missing)  // a label with no room on its line
    ImGui::TextDisabled("%s line: %s", f->kind, f->text.c_str());
  ImGui::TextDisabled(
      "GB/s: every input read once and every output written once, per second. Over each step: "
      "its %% of the copy (cudaMemcpy device to device, same run) at %s elements.",
      size_label(c.table_size).c_str());
  std::string untimed;
  for (size_t i = 0; i < c.steps.size(); ++i)
    if (std::find(shown.begin(), shown.end(), i) == shown.end())
      untimed += (untimed.empty() ? "" : ", ") + std::to_string(c.steps[i].step) + " " +
                 c.steps[i].short_title;
  bool library_measured = false;
  for (const LibraryLine& l : c.library)
    library_measured = library_measured ||
                       std::any_of(l.gbps.begin(), l.gbps.end(), [](double g) { return g > 0; });
  if (!untimed.empty()) ImGui::TextDisabled("Not timed in this report: %s.", untimed.c_str());
  if (c.library.empty())
    ImGui::TextDisabled(
        "No library routine is timed for this family: the copy is the line to reach.");
  else if (!library_measured)
    ImGui::TextDisabled("%s: not measured in this report.", c.library.front().anchor->title);
  if (!untimed.empty() || (!c.library.empty() && !library_measured))
    ImGui::TextDisabled(
        "`tilescope-cli bench --ladder %s --json FILE` on a GPU machine times "
        "every step and the library beside them.",
        c.ladder.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

std::vector<LadderChart> family_ladders(const PerfReport& r) {
  std::vector<LadderChart> out;
  const std::vector<std::string> declared = ladders();
  for (const char* f : families()) {
    if (std::find(declared.begin(), declared.end(), f) != declared.end()) continue;
    const std::vector<const LessonInfo*> steps = ladder_lessons(f);
    if (steps.empty() || steps.front()->metric != PerfMetric::Bytes) continue;
    std::vector<int> lengths;
    for (const PerfResult& x : r.results)
      if (x.counted() && std::find(lengths.begin(), lengths.end(), x.size) == lengths.end() &&
          std::any_of(steps.begin(), steps.end(),
                      [&](const LessonInfo* v) { return x.kernel == v->id; }))
        lengths.push_back(x.size);
    if (lengths.empty()) continue;
    std::sort(lengths.begin(), lengths.end());
    LadderChart c = ladder_chart(r, f, lengths);
    if (timed_steps(c).size() >= size_t(kFamilyLadderMinSteps)) out.push_back(std::move(c));
  }
  return out;
}

void draw_family_ladders(const std::vector<LadderChart>& charts, FamilyLadderState& state,
                         std::vector<PlotMark>& marks) {
  if (charts.empty()) return;
  auto chosen = std::find_if(charts.begin(), charts.end(),
                             [&](const LadderChart& c) { return c.ladder == state.family; });
  if (chosen == charts.end()) chosen = charts.begin();
  if (charts.size() > 1) {
    ImGui::TextUnformatted("Family:");
    for (const LadderChart& c : charts) {
      const float w = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                      ImGui::CalcTextSize(c.ladder.c_str()).x;
      ImGui::SameLine();
      if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
      if (ImGui::RadioButton(c.ladder.c_str(), &c == &*chosen)) state.family = c.ladder;
      marks.push_back({kPlot, "family_option", c.ladder, 0, 0, 0, 0, 0});
    }
  }
  const LadderChart& c = *chosen;
  marks.push_back({kPlot, "family", c.ladder, 0, 0, 0, 0, 0});
  const std::vector<size_t> shown = timed_steps(c);
  const std::vector<Flat> flats = flat_lines(c);
  const float avail = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 16);
  // Within what is left of the panel where it can, so that a 1280 x 720
  // projector shows the whole chart.
  const float h = std::clamp(std::min(avail * 0.42f, ImGui::GetContentRegionAvail().y - 4),
                             ImGui::GetFontSize() * 10, ImGui::GetFontSize() * 24);
  const std::vector<const Flat*> missing = chart(c, shown, flats, ImVec2(avail, h), marks);
  notes(c, shown, missing);
  table(c);
}

}  // namespace ts::app
