#include "app/perf/ladder_chart.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/perf/plot.hpp"

namespace ts::app {

namespace {

// A plot's axis ranges.
struct AxisRange {
  double x0, x1, y0, y1;
};

// x: the step numbers; y: every point, every cuBLAS line and the peak, with
// headroom above the highest line for a label above the peak, whatever the
// plot's height (a 720p projector leaves it short). False: nothing counted.
bool ladder_range(const LadderChart& c, bool log_y, float plot_h, float lh, AxisRange* r) {
  r->x0 = c.steps.front().step - 0.5, r->x1 = c.steps.back().step + 0.5;
  double lo = 1e300, hi = 0;
  for (const LadderStep& s : c.steps)
    for (const LadderPoint& p : s.points)
      if (p.counted) lo = std::min(lo, p.gflops), hi = std::max(hi, p.gflops);
  for (double g : c.cublas_gflops)
    if (g > 0) lo = std::min(lo, g), hi = std::max(hi, g);
  if (c.fp32_peak_gflops > 0) hi = std::max(hi, c.fp32_peak_gflops), lo = std::min(lo, hi);
  if (!(hi > 0)) return false;
  r->y0 = log_y ? lo / 2 : 0;
  const double frac =
      std::min(0.45, (1.3 * lh + 8) / std::max(1.0, double(plot_h) - 5.4 * double(lh)));
  r->y1 = log_y ? r->y0 * std::pow(hi * 1.1 / r->y0, 1 / (1 - frac)) : hi * 1.05 / (1 - frac);
  return true;
}

// The steps' labels under their lines: "3 tiled_square", on two rows where
// one is too narrow, the numbers alone where two are.
void draw_step_labels(const LadderChart& c, const Axes& ax, ImVec2 origin, ImVec2 size,
                      std::vector<PlotMark>& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lh = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_TableBorderLight);
  std::vector<std::string> full, number;
  for (const LadderStep& s : c.steps) {
    full.push_back(std::to_string(s.step) + " " + s.short_title);
    number.push_back(std::to_string(s.step));
  }
  auto fits = [&](const std::vector<std::string>& l, int rows) {
    std::vector<float> right(size_t(rows), -1e30f);
    for (size_t i = 0; i < l.size(); ++i) {
      const float w = ImGui::CalcTextSize(l[i].c_str()).x;
      const float x = float(ax.tx(c.steps[i].step)) - w / 2;
      if (x < right[i % size_t(rows)] + lh * 0.5f) return false;
      right[i % size_t(rows)] = x + w;
    }
    return true;
  };
  const int rows = fits(full, 1) ? 1 : fits(full, 2) ? 2 : 0;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const float x = float(ax.tx(c.steps[i].step));
    dl->AddLine(ImVec2(x, ax.lo.y), ImVec2(x, ax.hi.y), grid);
    const std::string& l = rows ? full[i] : number[i];
    const float w = ImGui::CalcTextSize(l.c_str()).x;
    const float left = std::clamp(x - w / 2, origin.x, origin.x + size.x - w);
    const float y = ax.hi.y + 2 + (rows == 2 ? float(i % 2) * (lh + 2) : 0);
    dl->AddText(ImVec2(left, y), text, l.c_str());
    marks.push_back({"ladder", "tick", l, left, y, w, lh, text});
  }
}

// One line per size through the steps it has counted results for, and what
// the flat lines' labels must keep clear of: every marker, samples of every
// line, each other and the legend.
struct SizeLines {
  std::vector<std::string> labels;
  std::vector<ImU32> colours;
  std::vector<SeriesStyle> styles;
  struct Point {
    ImVec2 at;
    size_t size;
  };
  std::vector<Point> points;
  std::vector<std::pair<ImVec2, ImVec2>> segments;
  std::vector<size_t> segment_size;
  std::string hover;
  std::vector<Box> taken, markers;  // the lines' samples; the markers
  std::vector<ImVec2> plotted;      // where the legend should not go

  void sample_line(ImVec2 a, ImVec2 b, float half) {
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    for (float t = 0; t <= len; t += std::max(2.0f, half)) {
      const float f = len > 0 ? t / len : 0;
      const ImVec2 q(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f);
      taken.push_back({ImVec2(q.x - half, q.y - half), ImVec2(q.x + half, q.y + half)});
      plotted.push_back(q);  // the legend keeps clear of the lines too
    }
  }
};

// The first drawn is the widest, with the largest marker, so that a size whose
// GFLOP/s equal another's (n = 2048 and 4096 from step 6 on) still shows
// around it; each size has its own colour, marker and dash.
SizeLines trace_sizes(const LadderChart& c, const Axes& ax, std::vector<PlotMark>& marks) {
  SizeLines out;
  const float lh = ImGui::GetTextLineHeight();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < c.sizes.size(); ++i) {
    const SeriesStyle st = series_style(i, c.sizes.size(), lh);
    out.styles.push_back(st);
    out.labels.push_back("n = " + std::to_string(c.sizes[i]));
    out.colours.push_back(st.colour);
    bool have_prev = false;
    ImVec2 prev;
    for (size_t k = 0; k < c.steps.size(); ++k) {
      const LadderPoint* p = c.at(k, c.sizes[i]);
      if (!p || !p->counted) {
        have_prev = false;  // a gap where a step was not measured
        continue;
      }
      const ImVec2 q = ax.at(c.steps[k].step, p->gflops);
      if (have_prev) {
        out.segments.push_back({prev, q});
        out.segment_size.push_back(i);
        out.sample_line(prev, q, st.width / 2 + 1);
      }
      out.points.push_back({q, i});
      out.plotted.push_back(q);
      out.markers.push_back(
          {ImVec2(q.x - st.radius, q.y - st.radius), ImVec2(q.x + st.radius, q.y + st.radius)});
      marks.push_back({"ladder", "point",
                       std::string(c.steps[k].lesson->id) + " n=" + std::to_string(c.sizes[i]), q.x,
                       q.y, st.radius, 0, st.colour});
      if (std::hypot(mouse.x - q.x, mouse.y - q.y) < st.radius + 2)
        out.hover = std::to_string(c.steps[k].step) + " " + c.steps[k].lesson->title +
                    " at n = " + std::to_string(c.sizes[i]) + ": " + fmt("%.1f", p->gflops) +
                    " GFLOP/s" +
                    (p->pct_cublas > 0 ? ", " + fmt("%.1f", p->pct_cublas) + " % of cuBLAS" : "") +
                    (p->tile ? " (tile " + std::to_string(p->tile) + ")" : "");
      prev = q;
      have_prev = true;
    }
  }
  return out;
}

// The flat lines: cuBLAS per size dashed in its size's colour, the peak solid.
struct Flat {
  float y;
  ImU32 colour;
  std::string text;
  const char* kind;
};

std::vector<Flat> flat_lines(const LadderChart& c, const Axes& ax, const SizeLines& lines) {
  std::vector<Flat> flats;
  if (c.fp32_peak_gflops > 0)
    flats.push_back({float(ax.ty(c.fp32_peak_gflops)), ImGui::GetColorU32(ImGuiCol_Text),
                     "FP32 peak " + si(c.fp32_peak_gflops) + " GFLOP/s", "peak"});
  for (size_t i = 0; i < c.sizes.size(); ++i)
    if (c.cublas_gflops[i] > 0)
      flats.push_back({float(ax.ty(c.cublas_gflops[i])), lines.styles[i].colour,
                       "cuBLAS n = " + std::to_string(c.sizes[i]) + ": " + si(c.cublas_gflops[i]),
                       "cublas"});
  return flats;
}

void draw_lines(const Axes& ax, const std::vector<Flat>& flats, const SizeLines& lines,
                std::vector<PlotMark>& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(ax.lo, ax.hi, true);
  for (const Flat& f : flats) {
    if (std::string(f.kind) == "peak") {
      dl->AddLine(ImVec2(ax.lo.x, f.y), ImVec2(ax.hi.x, f.y), f.colour, 2.0f);
    } else {
      for (float x = ax.lo.x; x < ax.hi.x; x += 10)
        dl->AddLine(ImVec2(x, f.y), ImVec2(std::min(x + 6, ax.hi.x), f.y), f.colour, 1.5f);
    }
    marks.push_back({"ladder", f.kind, f.text, ax.lo.x, f.y, ax.hi.x - ax.lo.x, 0, f.colour});
  }
  for (size_t j = 0; j < lines.segments.size(); ++j)
    draw_segment(dl, lines.segments[j].first, lines.segments[j].second,
                 lines.styles[lines.segment_size[j]]);
  for (const SizeLines::Point& p : lines.points)
    draw_marker(dl, p.at, lines.styles[p.size]);
  dl->PopClipRect();
}

// Where the legend and the flat lines' labels go.
struct LabelPlan {
  struct Placed {
    size_t flat;
    Box box;
    ImVec2 text_at;
  };
  Box legend;
  std::vector<std::string> legend_labels;
  std::vector<Placed> placed;
  size_t missing = 0;
};

// Each flat line's label just above its line (else just below), as far right
// as it is free: first clear of everything, else across a line but never
// over a marker, another label or the legend.
LabelPlan plan_labels(const LadderChart& c, const Axes& ax, const SizeLines& lines,
                      const std::vector<Flat>& flats, bool cublas_in_legend) {
  const float lh = ImGui::GetTextLineHeight();
  LabelPlan p;
  p.legend_labels = lines.labels;
  if (cublas_in_legend)
    for (size_t i = 0; i < c.sizes.size(); ++i)
      if (c.cublas_gflops[i] > 0) p.legend_labels[i] += ", cuBLAS " + si(c.cublas_gflops[i]);
  p.legend = legend_box(ax, p.legend_labels, lines.plotted, true);
  std::vector<Box> hard = lines.markers;
  hard.push_back(p.legend);
  for (size_t k = 0; k < flats.size(); ++k) {
    const Flat& f = flats[k];
    if (cublas_in_legend && std::string(f.kind) == "cublas") continue;
    const ImVec2 w = ImGui::CalcTextSize(f.text.c_str());
    bool placed = false;
    for (int strict = 1; strict >= 0 && !placed; --strict)
      for (float y : {f.y - w.y - 3, f.y + 3})
        for (float x = ax.hi.x - w.x - 6; !placed && x >= ax.lo.x + 4; x -= lh / 2) {
          const Box b{ImVec2(x - 2, y), ImVec2(x + w.x + 2, y + w.y)};
          if (!ax.holds(b)) continue;
          auto hits = [&](const std::vector<Box>& v) {
            return std::any_of(v.begin(), v.end(), [&](const Box& t) { return b.hits(t); });
          };
          if (hits(hard) || (strict && hits(lines.taken))) continue;
          p.placed.push_back({k, b, ImVec2(x, y)});
          hard.push_back(b);
          placed = true;
        }
    p.missing += !placed;
  }
  return p;
}

// Where a cuBLAS label finds no place (a short plot: the lines a few pixels
// apart), every cuBLAS value goes into the legend beside its size instead.
void draw_legend_and_labels(const LadderChart& c, const Axes& ax, const SizeLines& lines,
                            const std::vector<Flat>& flats, std::vector<PlotMark>& marks) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  LabelPlan best = plan_labels(c, ax, lines, flats, false);
  if (best.missing > 0)
    if (LabelPlan q = plan_labels(c, ax, lines, flats, true); q.missing <= best.missing)
      best = std::move(q);
  draw_legend_at(dl, best.legend, best.legend_labels, lines.colours, &lines.styles);
  std::string legend_text;
  for (const std::string& l : best.legend_labels)
    legend_text += (legend_text.empty() ? "" : "; ") + l;
  marks.push_back({"ladder", "legend", legend_text, best.legend.a.x, best.legend.a.y,
                   best.legend.b.x - best.legend.a.x, best.legend.b.y - best.legend.a.y, text});
  const ImU32 label_bg = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f);
  const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
  for (const LabelPlan::Placed& p : best.placed) {
    const Flat& f = flats[p.flat];
    dl->AddRectFilled(p.box.a, p.box.b, label_bg);
    dl->AddText(p.text_at, text_safe(f.colour, bg), f.text.c_str());
    marks.push_back({"ladder", "label", f.text, p.box.a.x, p.box.a.y, p.box.b.x - p.box.a.x,
                     p.box.b.y - p.box.a.y, f.colour});
  }
}

void chart(const LadderChart& c, ImVec2 size, bool log_y, std::vector<PlotMark>& marks) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##ladder", size);
  if (c.steps.empty()) return;
  AxisRange r;
  if (!ladder_range(c, log_y, size.y, ImGui::GetTextLineHeight(), &r)) return;
  const Axes ax = frame(ImGui::GetWindowDrawList(), origin, size, r.x0, r.x1, r.y0, r.y1, false,
                        log_y, "The road to cuBLAS: GFLOP/s per step", "", "GFLOP/s", {}, false);
  draw_step_labels(c, ax, origin, size, marks);
  SizeLines lines = trace_sizes(c, ax, marks);
  const std::vector<Flat> flats = flat_lines(c, ax, lines);
  for (const Flat& f : flats)
    lines.taken.push_back({ImVec2(ax.lo.x, f.y - 1), ImVec2(ax.hi.x, f.y + 1)});
  draw_lines(ax, flats, lines, marks);
  draw_legend_and_labels(c, ax, lines, flats, marks);
  if (!lines.hover.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", lines.hover.c_str());
}

void table(const LadderChart& c) {
  const ImGuiTableFlags tf = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  const int cols = 5 + int(c.sizes.size());
  // As tall as its rows: a scrolling table would otherwise take the panel's rest.
  const float h = ImGui::GetTextLineHeightWithSpacing() * (float(c.steps.size()) + 1.2f) +
                  ImGui::GetStyle().ScrollbarSize;
  if (!ImGui::BeginTable("##ladder_table", cols, tf, ImVec2(0, h))) return;
  ImGui::TableSetupColumn("step");
  ImGui::TableSetupColumn("lesson");
  std::vector<std::string> heads;
  for (int n : c.sizes)
    heads.push_back("GFLOP/s n=" + std::to_string(n));
  for (const std::string& h : heads)
    ImGui::TableSetupColumn(h.c_str());
  const std::string pct = "% cuBLAS n=" + std::to_string(c.table_size);
  ImGui::TableSetupColumn(pct.c_str());
  ImGui::TableSetupColumn("flop / global B");
  ImGui::TableSetupColumn("shared B / flop");
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LadderStep& s = c.steps[i];
    table_step_cells(s.step, s.lesson->title, s.lesson->id, s.lesson->summary);
    for (int n : c.sizes) {
      const LadderPoint* p = c.at(i, n);
      table_number(p && p->counted ? p->gflops : 0, "%.1f");
    }
    const LadderPoint* t = c.at(i, c.table_size);
    table_number(t ? t->pct_cublas : 0, "%.1f");
    table_number(t ? t->global_intensity : 0, "%.3g");
    table_number(t ? t->shared_bytes_per_flop : 0, "%.3g");
  }
  ImGui::EndTable();
}

}  // namespace

void draw_ladder(const LadderChart& c, bool log_y, std::vector<PlotMark>& marks) {
  const float avail = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 16);
  // Within what is left of the panel where it can, so that a 1280 x 720
  // projector shows the whole chart.
  const float h = std::clamp(std::min(avail * 0.42f, ImGui::GetContentRegionAvail().y - 4),
                             ImGui::GetFontSize() * 10, ImGui::GetFontSize() * 24);
  chart(c, ImVec2(avail, h), log_y, marks);
  // The baseline's terms right under the chart (above it, they pushed the
  // chart off a 720p projector): what is compared with what.
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(readable(ImVec4(0.95f, 0.65f, 0.2f, 1)), "%s", kLadderMathNote);
  ImGui::PopTextWrapPos();
  table(c);
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled(
      "flop / global B: flops per byte the step loads and stores in global memory; shared B / "
      "flop: shared-memory bytes it loads and stores per flop. Both from the lessons' "
      "closed-form counts at n = %d (a traced run counts the same).",
      c.table_size);
  ImGui::TextUnformatted("Why each step helps:");
  for (const LadderStep& s : c.steps)
    ImGui::TextDisabled("%d %s: %s", s.step, s.short_title.c_str(), s.why.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace ts::app
