#include "app/perf/perf_plots.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "app/perf/plot.hpp"

namespace ts::app {

ImU32 SeriesColours::of(const std::string& label) {
  auto it = std::find(order_.begin(), order_.end(), label);
  if (it == order_.end()) it = order_.insert(order_.end(), label);
  return series_colour(size_t(it - order_.begin()));
}

void draw_throughput(const PerfReport& r, const std::string& family, ImVec2 size, bool log_y,
                     SeriesColours& colours, std::vector<PlotMark>& marks) {
  const auto series = throughput_series(r, family);
  PerfMetric f = PerfMetric::Flops;
  for (const LessonInfo& v : all_lessons())
    if (family == v.family) {
      f = v.metric;
      break;
    }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##throughput", size);
  if (series.empty()) {
    ImGui::GetWindowDrawList()->AddText(origin, ImGui::GetColorU32(ImGuiCol_TextDisabled),
                                        "No counted results to plot for this family yet.");
    return;
  }
  double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
  std::vector<double> xt;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
      if (std::find(xt.begin(), xt.end(), x) == xt.end()) xt.push_back(x);
    }
  if (x1 <= x0) {
    x0 /= 1.5;
    x1 *= 1.5;
  }
  y0 = log_y ? y0 / 1.5 : 0;
  // Headroom above the data for the legend, so that it covers no line.
  {
    const float lh = ImGui::GetTextLineHeight();
    const double frac = std::min(
        0.6, (lh * double(series.size()) + 14) / std::max(1.0, double(size.y - 4.2f * lh)));
    if (log_y)
      y1 = y0 * std::pow(y1 * 1.1 / y0, 1 / (1 - frac));
    else
      y1 = y1 * 1.05 / (1 - frac);
  }
  std::sort(xt.begin(), xt.end());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const bool mm = f == PerfMetric::Flops;
  const Axes ax =
      frame(dl, origin, size, x0 / 1.15, x1 * 1.15, y0, y1, true, log_y,
            mm ? "GFLOP/s against n (log n)" : "GB/s against length (log length)",
            mm ? "n (n x n x n multiply)" : "elements", mm ? "GFLOP/s" : "GB/s (compulsory)", xt);
  dl->PushClipRect(ax.lo, ax.hi, true);
  std::vector<std::string> labels;
  std::vector<ImU32> legend_colours;
  std::vector<SeriesStyle> styles;
  std::vector<ImVec2> plotted;
  std::string hover;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    const ImU32 c = s.reference ? ImGui::GetColorU32(ImGuiCol_Text) : colours.of(s.label);
    labels.push_back(s.label);
    legend_colours.push_back(c);
    // A marker shape per series besides its colour, and the series drawn
    // first a little wider: two kernels at one value (stencil.shared and
    // shared_dynamic) both stay in sight.
    float under = 0;  // kernels drawn after this one (the references stay thin)
    for (size_t j = i + 1; j < series.size() && !s.reference; ++j)
      under += !series[j].reference;
    SeriesStyle st;
    st.colour = c;
    st.width = (s.reference ? 1.5f : 2.0f) + 1.5f * under;
    st.radius = std::max(3.5f, ImGui::GetTextLineHeight() * 0.2f) + 1.5f * under;
    st.marker = Marker(i % 4);
    styles.push_back(st);
    for (size_t k = 0; k < s.points.size(); ++k) {
      const ImVec2 p = ax.at(s.points[k].first, s.points[k].second);
      plotted.push_back(p);
      if (k) {  // the lines count as covered too
        const ImVec2 q = ax.at(s.points[k - 1].first, s.points[k - 1].second);
        for (int m = 1; m < 8; ++m)
          plotted.push_back(ImVec2(q.x + (p.x - q.x) * m / 8, q.y + (p.y - q.y) * m / 8));
      }
      if (k) draw_segment(dl, ax.at(s.points[k - 1].first, s.points[k - 1].second), p, st);
      marks.push_back({"throughput", "point", s.label, p.x, p.y, 0, 0, c});
      if (std::hypot(mouse.x - p.x, mouse.y - p.y) < 6)
        hover = s.label + " at " + size_label(s.points[k].first) + ": " +
                fmt("%.1f", s.points[k].second) + (mm ? " GFLOP/s" : " GB/s");
    }
  }
  // The markers over every line.
  for (size_t i = 0; i < series.size(); ++i)
    for (const auto& [x, y] : series[i].points)
      draw_marker(dl, ax.at(x, y), styles[i]);
  dl->PopClipRect();
  const Box lg = draw_legend(dl, ax, labels, legend_colours, plotted, &styles);
  marks.push_back(
      {"throughput", "legend", "", lg.a.x, lg.a.y, lg.b.x - lg.a.x, lg.b.y - lg.a.y, 0});
  if (!hover.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hover.c_str());
}

namespace {

// Why there is no roofline: a family timed in GB/s, or no GPU run yet.
void draw_no_roofline(const std::string& family, ImVec2 origin, ImVec2 size) {
  bool flops = false;
  for (const LessonInfo& v : all_lessons())
    flops = flops || (family == v.family && v.metric == PerfMetric::Flops);
  const std::string why =
      flops || family.empty()
          ? std::string("Roofline: needs counted results and the measured ceilings (a GPU run).")
          : "No roofline for " + family + ": its kernels are timed in GB/s (left), not GFLOP/s.";
  ImGui::PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
  ImGui::GetWindowDrawList()->AddText(nullptr, 0, origin, ImGui::GetColorU32(ImGuiCol_TextDisabled),
                                      why.c_str(), nullptr, size.x);
  ImGui::PopClipRect();
}

struct RoofRange {
  double x0, x1, y0, y1;
};

// The marks and the ridge with a margin, not whole decades: a range rounded
// out to decades left most of a lecture-size plot empty and the marks crowded.
RoofRange roofline_range(const std::vector<RooflinePoint>& pts, const PerfDevice& d) {
  const double ridge = d.fp32_peak_gflops / d.copy_gbps;
  RoofRange r{ridge / 2, ridge * 2, d.fp32_peak_gflops, d.fp32_peak_gflops * 1.6};
  for (const auto& p : pts) {
    for (double x : {p.intensity, p.issued_intensity}) {
      if (x <= 0) continue;
      r.x0 = std::min(r.x0, x / 1.6);
      r.x1 = std::max(r.x1, x * 1.6);
    }
    r.y0 = std::min(r.y0, p.gflops / 2);
  }
  // At least one decade on each axis, for a tick to read.
  if (std::floor(std::log10(r.x1)) < std::ceil(std::log10(r.x0)))
    r.x0 = std::pow(10.0, std::floor(std::log10(r.x0)));
  if (std::floor(std::log10(r.y1)) < std::ceil(std::log10(r.y0)))
    r.y0 = std::pow(10.0, std::floor(std::log10(r.y0)));
  return r;
}

// A kernel's marks: a ring at the compulsory intensity, a filled dot at the
// one the kernel issues.
struct Anchor {
  ImVec2 ring, dot, at;  // `at`: where the label points, the dot if there is one
  bool has_dot;
  ImU32 colour;
  std::string text, label;
};

// One roofline being drawn: its axes, the boxes labels must keep clear of
// (the roof's own texts, every mark, the legend) and the marks it reports.
struct RooflinePainter {
  const PerfDevice& d;
  const Axes& ax;
  ImDrawList* dl;
  std::vector<PlotMark>& marks;
  std::vector<Box> taken;
  double ridge = 0;
  float lh = 0, rad = 0;
  ImU32 bg = 0, label_bg = 0, roof = 0, dim = 0;

  void mark(const char* kind, const std::string& label, ImVec2 a, ImVec2 b, ImU32 c) {
    marks.push_back({"roofline", kind, label, a.x, a.y, b.x - a.x, b.y - a.y, c});
  }
  bool is_free(const Box& x) const {
    if (!ax.holds(x)) return false;
    for (const Box& t : taken)
      if (x.hits(t)) return false;
    return true;
  }

  void draw_roof(double x0, double x1) {
    dl->AddLine(ax.at(x0, d.copy_gbps * x0), ax.at(ridge, d.fp32_peak_gflops), roof, 2);
    dl->AddLine(ax.at(ridge, d.fp32_peak_gflops), ax.at(x1, d.fp32_peak_gflops), roof, 2);
    for (float px = ax.lo.x; px <= ax.hi.x; px += 4) {  // no label across the roof
      const float y = float(ax.ty(roofline_ceiling(d, ax.ix(px))));
      taken.push_back({ImVec2(px - 2, y - 2), ImVec2(px + 2, y + 2)});
    }
  }

  // Placed first (labels keep clear of them), drawn last (on top of leader lines).
  std::vector<Anchor> place_anchors(const std::vector<RooflinePoint>& pts, SeriesColours& colours);
  void draw_dotted_lines(const std::vector<Anchor>& anchors);
  void draw_anchor_marks(const std::vector<Anchor>& anchors);
  void draw_marks_legend();
  void draw_ceiling_label(const std::string& t, ImVec2 at, bool found, ImVec2 anchor);
  void draw_ceiling_labels();
  void draw_point_labels(const std::vector<Anchor>& anchors);
};

std::vector<Anchor> RooflinePainter::place_anchors(const std::vector<RooflinePoint>& pts,
                                                   SeriesColours& colours) {
  // Names without the family when every kernel is of one (narrow plots).
  bool one_family = true;
  std::string prefix;  // "matmul."
  for (const auto& p : pts) {
    if (p.reference) continue;
    const std::string f = p.label.substr(0, p.label.find('.') + 1);
    if (prefix.empty()) prefix = f;
    one_family = one_family && f == prefix;
  }
  auto short_label = [&](const RooflinePoint& p) {
    if (p.label == kCublasId) return std::string("cuBLAS");
    if (one_family && !prefix.empty() && p.label.rfind(prefix, 0) == 0)
      return p.label.substr(prefix.size());
    return p.label;
  };
  std::vector<Anchor> anchors;
  for (const auto& p : pts) {
    Anchor a{};
    a.colour = p.reference ? roof : colours.of(p.label);
    a.ring = a.at = ax.at(p.intensity, p.gflops);
    a.has_dot = p.issued_intensity > 0;
    if (a.has_dot) a.dot = a.at = ax.at(p.issued_intensity, p.gflops);
    a.text = short_label(p);
    a.label = p.label;
    for (const ImVec2 q : {a.ring, a.dot})
      if (q.x == a.ring.x || a.has_dot)
        taken.push_back({ImVec2(q.x - rad, q.y - rad), ImVec2(q.x + rad, q.y + rad)});
    anchors.push_back(std::move(a));
  }
  return anchors;
}

// A dotted line from the dot to the ring (same time, so the same height),
// under the labels.
void RooflinePainter::draw_dotted_lines(const std::vector<Anchor>& anchors) {
  for (const Anchor& a : anchors) {
    const float len = a.ring.x - a.dot.x;
    for (float x = 0; a.has_dot && x + 3 < std::fabs(len) - 2 * rad; x += 7) {
      const float sx = a.dot.x + (len > 0 ? rad + x : -rad - x);
      dl->AddLine(ImVec2(sx, a.dot.y), ImVec2(sx + (len > 0 ? 3.f : -3.f), a.dot.y),
                  (a.colour & 0x00FFFFFFu) | 0x99000000u, 1.0f);
    }
  }
}

void RooflinePainter::draw_anchor_marks(const std::vector<Anchor>& anchors) {
  for (const Anchor& a : anchors) {
    dl->AddCircle(a.ring, rad, a.colour, 0, 2.0f);
    mark("compulsory", a.label, a.ring, a.ring, a.colour);
    if (!a.has_dot) continue;
    dl->AddCircleFilled(a.dot, rad, a.colour);
    mark("issued", a.label, a.dot, a.dot, a.colour);
  }
}

// The legend of the two marks, in the corner that covers the fewest of them
// (before the ceilings' names, which then keep clear of it).
void RooflinePainter::draw_marks_legend() {
  // Short: the note under the plots says it in full.
  const char* names[2] = {"kernel's traffic", "compulsory"};
  const float wmax = std::max(ImGui::CalcTextSize(names[0]).x, ImGui::CalcTextSize(names[1]).x);
  const ImVec2 box(wmax + lh * 1.8f, lh * 2 + 6);
  Box best{};
  int fewest = INT32_MAX;
  // Lower right first: under the flat roof at high intensity, where kernels seldom are.
  for (int corner : {3, 2, 1, 0}) {
    const ImVec2 a(corner % 2 ? ax.hi.x - 6 - box.x : ax.lo.x + 6,
                   corner / 2 ? ax.hi.y - 6 - box.y : ax.lo.y + 6);
    const Box b{a, ImVec2(a.x + box.x, a.y + box.y)};
    int covered = 0;
    for (const Box& t : taken)  // the marks, the roof's samples and its texts
      covered += b.hits(t, 4);
    if (covered < fewest) fewest = covered, best = b;
  }
  dl->AddRectFilled(best.a, best.b, label_bg);
  dl->AddRect(best.a, best.b, ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (int i = 0; i < 2; ++i) {
    const ImVec2 m(best.a.x + lh * 0.7f, best.a.y + 3 + lh * (i + 0.5f));
    if (i == 0)
      dl->AddCircleFilled(m, rad, text);
    else
      dl->AddCircle(m, rad, text, 0, 2.0f);
    dl->AddText(ImVec2(best.a.x + lh * 1.4f, best.a.y + 3 + lh * i), text, names[i]);
  }
  mark("legend", std::string(names[0]) + "; " + names[1], best.a, best.b, text);
  taken.push_back(best);
}

// Where no place on the line is free: the free place nearest to it
// (place_labels), never over another text.
void RooflinePainter::draw_ceiling_label(const std::string& t, ImVec2 at, bool found,
                                         ImVec2 anchor) {
  const ImVec2 w = ImGui::CalcTextSize(t.c_str());
  if (!found) {
    const auto p = place_labels(ax, {{anchor, t}}, taken, 0);
    if (p.empty()) return;
    at = p[0].text_at;
  }
  dl->AddText(at, dim, t.c_str());
  taken.push_back({at, ImVec2(at.x + w.x, at.y + w.y)});
  mark("ceiling_label", t, at, ImVec2(at.x + w.x, at.y + w.y), dim);
}

// The ceilings' names on their lines, clear of the marks: the peak above the
// flat roof (below it where there is no room), right of the ridge or
// right-aligned; the copy just under the rising slope (a box whose top left
// corner is below the line stays below it), as far left as it fits.
void RooflinePainter::draw_ceiling_labels() {
  const std::string peak = "FP32 peak " + si(d.fp32_peak_gflops) + " GFLOP/s";
  const ImVec2 w = ImGui::CalcTextSize(peak.c_str());
  const float roof_y = float(ax.ty(d.fp32_peak_gflops));
  ImVec2 at;
  bool found = false;
  for (float y : {roof_y - w.y - 4, roof_y + 4})
    for (float x = ax.hi.x - w.x - 4; !found && x >= float(ax.tx(ridge)) + 6; x -= lh / 2) {
      const Box b{ImVec2(x, y), ImVec2(x + w.x, y + w.y)};
      if (is_free(b)) at = b.a, found = true;
    }
  draw_ceiling_label(peak, at, found, ImVec2((float(ax.tx(ridge)) + ax.hi.x) / 2, roof_y));
  const std::string copy = "copy " + si(d.copy_gbps) + " GB/s";
  const ImVec2 cw = ImGui::CalcTextSize(copy.c_str());
  ImVec2 c;
  found = false;
  for (float lx = ax.lo.x; lx < std::min(float(ax.tx(ridge)), ax.hi.x - cw.x); lx += 4) {
    // The line's point at lx, the box 6 px right of it and 4 below.
    const ImVec2 q(lx + 6, float(ax.ty(d.copy_gbps * ax.ix(lx))) + 4);
    if (is_free({q, ImVec2(q.x + cw.x, q.y + cw.y)})) {
      c = q, found = true;
      break;
    }
  }
  const float mid = (ax.lo.x + float(ax.tx(ridge))) / 2;
  draw_ceiling_label(copy, c, found, ImVec2(mid, float(ax.ty(d.copy_gbps * ax.ix(mid)))));
}

// Labels at the free place nearest their mark, with a leader line when moved
// away; left out (the tooltip still names it) only where no place is free.
void RooflinePainter::draw_point_labels(const std::vector<Anchor>& anchors) {
  std::vector<LabelSpot> spots;
  for (const Anchor& a : anchors)
    spots.push_back({a.at, a.text});
  for (const PlacedLabel& l : place_labels(ax, spots, taken, rad)) {
    const Anchor& a = anchors[l.spot];
    const Box& b = l.box;
    taken.push_back(b);
    if (l.distance > 0) {  // a leader line from the mark to the nearest point of the label
      const ImVec2 to(std::clamp(a.at.x, b.a.x, b.b.x), std::clamp(a.at.y, b.a.y, b.b.y));
      dl->AddLine(a.at, to, a.colour, 1.0f);
    }
    dl->AddRectFilled(b.a, b.b, label_bg);
    const ImU32 tc = text_safe(a.colour, bg);
    dl->AddText(l.text_at, tc, a.text.c_str());
    mark("label", a.label, b.a, b.b, tc);
  }
}

// The tooltip of the mark under the mouse: its throughput, both intensities
// and how close to the roof it runs.
std::string roofline_hover(const std::vector<RooflinePoint>& pts, const PerfDevice& d,
                           const Axes& ax, float rad) {
  std::string hover;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const auto& p : pts)
    for (double x : {p.issued_intensity, p.intensity}) {
      if (x <= 0) continue;
      const ImVec2 q = ax.at(x, p.gflops);
      if (std::hypot(mouse.x - q.x, mouse.y - q.y) >= rad + 3) continue;
      hover = p.label + " (n = " + size_label(p.size) + "): " + fmt("%.1f", p.gflops) +
              " GFLOP/s\n" + fmt("%.3g", p.intensity) + " flop per compulsory byte" +
              (p.issued_intensity > 0
                   ? "\n" + fmt("%.3g", p.issued_intensity) +
                         " flop per byte the kernel loads and stores: " +
                         fmt("%.0f", 100 * p.gflops / roofline_ceiling(d, p.issued_intensity)) +
                         " % of the roof there"
                   : std::string());
    }
  return hover;
}

}  // namespace

void draw_roofline(const PerfReport& r, const std::string& family, ImVec2 size,
                   SeriesColours& colours, std::vector<PlotMark>& marks) {
  const auto pts = roofline_points(r, family);
  const PerfDevice& d = r.device;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##roofline", size);
  if (pts.empty() || d.fp32_peak_gflops <= 0 || d.copy_gbps <= 0) {
    draw_no_roofline(family, origin, size);
    return;
  }
  const RoofRange range = roofline_range(pts, d);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  std::vector<PlotMark> tick_marks;
  const Axes ax =
      frame(dl, origin, size, range.x0, range.x1, range.y0, range.y1, true, true,
            "Roofline (log-log): measured copy bandwidth and FP32 peak",
            "arithmetic intensity (flop per byte)", "GFLOP/s", ticks(range.x0, range.x1, true),
            /*x_is_size=*/false, &tick_marks);
  for (PlotMark& m : tick_marks) {
    m.plot = "roofline";
    marks.push_back(m);
  }
  RooflinePainter rp{d, ax, dl, marks};
  rp.ridge = d.fp32_peak_gflops / d.copy_gbps;
  rp.lh = ImGui::GetTextLineHeight();
  rp.bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
  rp.label_bg = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f);
  rp.mark("area", "", ax.lo, ax.hi, 0);
  dl->PushClipRect(ax.lo, ax.hi, true);
  rp.roof = ImGui::GetColorU32(ImGuiCol_Text);
  rp.dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  rp.draw_roof(range.x0, range.x1);
  rp.rad = std::max(4.0f, rp.lh * 0.25f);
  const std::vector<Anchor> anchors = rp.place_anchors(pts, colours);
  rp.draw_dotted_lines(anchors);
  rp.draw_marks_legend();
  rp.draw_ceiling_labels();
  rp.draw_point_labels(anchors);
  rp.draw_anchor_marks(anchors);
  dl->PopClipRect();
  const std::string hover = roofline_hover(pts, d, ax, rp.rad);
  if (!hover.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hover.c_str());
}

}  // namespace ts::app
