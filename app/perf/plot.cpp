#include "app/perf/plot.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

namespace ts::app {

namespace {

// Okabe-Ito: tells apart for colour-blind viewers, on dark and light themes.
// Yellow comes last: it reads poorly on the light theme.
// Dark blue after the brighter ones: it reads poorly on the dark theme.
constexpr ImU32 kSeriesColours[] = {IM_COL32(230, 159, 0, 255),   IM_COL32(86, 180, 233, 255),
                                    IM_COL32(0, 158, 115, 255),   IM_COL32(213, 94, 0, 255),
                                    IM_COL32(204, 121, 167, 255), IM_COL32(0, 114, 178, 255),
                                    IM_COL32(240, 228, 66, 255),  IM_COL32(160, 160, 160, 255)};
// WCAG: relative luminance of an sRGB colour and the contrast ratio of two.
double luminance(ImU32 c) {
  auto lin = [](unsigned v) {
    const double x = v / 255.0;
    return x <= 0.03928 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c & 255) + 0.7152 * lin((c >> 8) & 255) + 0.0722 * lin((c >> 16) & 255);
}
double contrast(ImU32 a, ImU32 b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
}  // namespace

ImU32 series_colour(size_t i) {
  return kSeriesColours[i % (sizeof kSeriesColours / sizeof(ImU32))];
}

// A series colour for text on `bg`: darkened on a light background, lightened
// on a dark one, just enough for 4.5 : 1 (WCAG AA). Okabe-Ito yellow and orange
// keep their hue but become readable on the light theme.
ImU32 text_safe(ImU32 c, ImU32 bg) {
  const bool light = luminance(bg) > 0.3;
  ImU32 out = c;
  for (int i = 1; i <= 20 && contrast(out, bg) < 4.5; ++i) {
    const float f = i / 20.0f;
    auto mix = [&](int shift) {
      const float v = float((c >> shift) & 255);
      return unsigned(std::lround(light ? v * (1 - f) : v + (255 - v) * f)) << shift;
    };
    out = mix(0) | mix(8) | mix(16) | (c & 0xFF000000u);
  }
  return out;
}

// A status colour (ImVec4) made readable on the window's background, as text_safe.
ImVec4 readable(ImVec4 c) {
  const ImU32 safe =
      text_safe(ImGui::ColorConvertFloat4ToU32(c), ImGui::GetColorU32(ImGuiCol_WindowBg));
  return ImGui::ColorConvertU32ToFloat4(safe);
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string si(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt("%.3gG", v / 1e9);
  if (a >= 1e6) return fmt("%.3gM", v / 1e6);
  if (a >= 1e3) return fmt("%.3gk", v / 1e3);
  return fmt("%.3g", v);
}
std::string grouped(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}
std::string size_label(double v) {
  const double l = std::log2(v);
  if (v >= 65536 && std::fabs(l - std::round(l)) < 1e-9) return "2^" + std::to_string(int(l));
  if (v < 65536 && v == std::floor(v)) return std::to_string(int64_t(v));
  return si(v);
}

void table_step_cells(int step, const char* title, const char* id, const char* detail) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::Text("%d", step);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(title);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", id, detail);
}

void table_number(double v, const char* format) {
  ImGui::TableNextColumn();
  if (v > 0)
    ImGui::Text(format, v);
  else
    ImGui::TextDisabled("-");
}

// Decade ticks for a log axis, round steps for a linear one.
std::vector<double> ticks(double a, double b, bool log) {
  std::vector<double> t;
  // Degenerate ranges (nothing measured yet, a window resized to a sliver) get no ticks.
  if (!(b > a) || !std::isfinite(a) || !std::isfinite(b) || (log && !(a > 0))) return t;
  if (log) {
    for (double d = std::pow(10.0, std::floor(std::log10(a))); d <= b * 1.0001; d *= 10)
      if (d >= a * 0.9999) t.push_back(d);
    return t;
  }
  const double step0 = (b - a) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(step0)));
  const double step = step0 / mag < 2 ? 2 * mag : step0 / mag < 5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(a / step) * step; v <= b * 1.0001 && t.size() < 50; v += step)
    t.push_back(v);
  return t;
}

// Frame, grid and tick labels; returns the axes.
Axes frame(ImDrawList* dl, ImVec2 origin, ImVec2 size, double x0, double x1, double y0, double y1,
           bool log_x, bool log_y, const char* title, const char* xlabel, const char* ylabel,
           const std::vector<double>& xticks, bool x_is_size, std::vector<PlotMark>* tick_marks) {
  const float lh = ImGui::GetTextLineHeight();
  Axes ax{ImVec2(origin.x + 4.5f * lh, origin.y + 1.6f * lh),
          ImVec2(origin.x + size.x - 0.8f * lh, origin.y + size.y - 2.6f * lh),
          x0,
          x1,
          y0,
          y1,
          log_x,
          log_y};
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_TableBorderLight);
  const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
  // A title too wide for a narrow plot keeps only what comes before its colon.
  const float title_x = origin.x + std::max(4.5f * lh, ImGui::CalcTextSize(ylabel).x + lh);
  std::string shown = title;
  if (ImGui::CalcTextSize(title).x > origin.x + size.x - title_x &&
      shown.find(':') != std::string::npos)
    shown.resize(shown.find(':'));
  dl->AddText(ImVec2(title_x, origin.y), text, shown.c_str());
  dl->AddRect(ax.lo, ax.hi, border);
  for (double t : ticks(y0, y1, log_y)) {
    const float y = float(ax.ty(t));
    dl->AddLine(ImVec2(ax.lo.x, y), ImVec2(ax.hi.x, y), grid);
    const std::string s = si(t);
    dl->AddText(ImVec2(ax.lo.x - ImGui::CalcTextSize(s.c_str()).x - 4, y - lh / 2), text,
                s.c_str());
  }
  // Tick labels centred under their line, kept inside the plot's own box (the
  // last one used to be cut at the panel's edge: "10000" read "1000"), and
  // left out where they would run into the one before.
  float last_right = -1e30f;
  for (double t : xticks) {
    const float x = float(ax.tx(t));
    dl->AddLine(ImVec2(x, ax.lo.y), ImVec2(x, ax.hi.y), grid);
    const std::string s = x_is_size ? size_label(t) : (t < 1 ? fmt("%g", t) : si(t));
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    const float left = std::clamp(x - w / 2, origin.x, origin.x + size.x - w);
    if (left < last_right + lh * 0.5f) continue;
    dl->AddText(ImVec2(left, ax.hi.y + 2), text, s.c_str());
    last_right = left + w;
    if (tick_marks) tick_marks->push_back({"", "tick", s, left, ax.hi.y + 2, w, lh, text});
  }
  const float xw = ImGui::CalcTextSize(xlabel).x;
  dl->AddText(ImVec2((ax.lo.x + ax.hi.x - xw) / 2, ax.hi.y + lh + 4), text, xlabel);
  dl->AddText(origin, ImGui::GetColorU32(ImGuiCol_TextDisabled), ylabel);
  return ax;
}

SeriesStyle series_style(size_t i, size_t n, float lh) {
  SeriesStyle st;
  st.colour = series_colour(i);
  const float step = std::max(2.5f, lh * 0.1f);
  const float under = float(n > i ? n - 1 - i : 0);  // how many series are drawn over this one
  st.width = std::max(2.0f, lh * 0.1f) + step * under;
  st.radius = std::max(4.0f, lh * 0.22f) + std::max(3.0f, lh * 0.15f) * under;
  st.marker = Marker(i % 4);
  st.dashed = i % 3 == 1;
  return st;
}

void draw_segment(ImDrawList* dl, ImVec2 a, ImVec2 b, const SeriesStyle& st) {
  if (!st.dashed) {
    dl->AddLine(a, b, st.colour, st.width);
    return;
  }
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len <= 0) return;
  const float dash = st.width * 2.5f + 4, gap = st.width + 3;
  const ImVec2 u((b.x - a.x) / len, (b.y - a.y) / len);
  for (float t = 0; t < len; t += dash + gap) {
    const float e = std::min(len, t + dash);
    dl->AddLine(ImVec2(a.x + u.x * t, a.y + u.y * t), ImVec2(a.x + u.x * e, a.y + u.y * e),
                st.colour, st.width);
  }
}

void draw_marker(ImDrawList* dl, ImVec2 p, const SeriesStyle& st) {
  const ImU32 edge = ImGui::GetColorU32(ImGuiCol_WindowBg);
  const float r = st.radius;
  switch (st.marker) {
    case Marker::Circle:
      dl->AddCircleFilled(p, r, st.colour);
      dl->AddCircle(p, r, edge, 0, 1.5f);
      break;
    case Marker::Square: {
      const float h = r * 0.85f;
      dl->AddRectFilled(ImVec2(p.x - h, p.y - h), ImVec2(p.x + h, p.y + h), st.colour);
      dl->AddRect(ImVec2(p.x - h, p.y - h), ImVec2(p.x + h, p.y + h), edge, 0, 0, 1.5f);
      break;
    }
    case Marker::Diamond: {
      const ImVec2 q[4] = {{p.x, p.y - r}, {p.x + r, p.y}, {p.x, p.y + r}, {p.x - r, p.y}};
      dl->AddConvexPolyFilled(q, 4, st.colour);
      dl->AddPolyline(q, 4, edge, ImDrawFlags_Closed, 1.5f);
      break;
    }
    case Marker::Triangle: {
      const ImVec2 q[3] = {
          {p.x, p.y - r}, {p.x + r * 0.95f, p.y + r * 0.7f}, {p.x - r * 0.95f, p.y + r * 0.7f}};
      dl->AddConvexPolyFilled(q, 3, st.colour);
      dl->AddPolyline(q, 3, edge, ImDrawFlags_Closed, 1.5f);
      break;
    }
  }
}

// The legend goes in the corner of the data area that covers the fewest points.
Box draw_legend(ImDrawList* dl, const Axes& ax, const std::vector<std::string>& labels,
                const std::vector<ImU32>& colours, const std::vector<ImVec2>& points,
                const std::vector<SeriesStyle>* styles, const std::vector<Box>& avoid) {
  const Box b = legend_box(ax, labels, points, styles != nullptr, avoid);
  draw_legend_at(dl, b, labels, colours, styles);
  return b;
}

namespace {
float legend_sample(bool styled) {  // a line with its marker, or a swatch
  return ImGui::GetTextLineHeight() * (styled ? 2.2f : 0.9f);
}
}  // namespace

Box legend_box(const Axes& ax, const std::vector<std::string>& labels,
               const std::vector<ImVec2>& points, bool styled, const std::vector<Box>& avoid) {
  const float lh = ImGui::GetTextLineHeight();
  float wmax = 0;
  for (const auto& l : labels)
    wmax = std::max(wmax, ImGui::CalcTextSize(l.c_str()).x);
  const ImVec2 box(wmax + legend_sample(styled) + lh * 0.7f, lh * labels.size() + 4);
  ImVec2 p(ax.lo.x + 6, ax.lo.y + 4);
  int best = INT32_MAX;
  for (int corner = 0; corner < 4; ++corner) {
    const ImVec2 c(corner % 2 ? ax.hi.x - 6 - box.x : ax.lo.x + 6,
                   corner / 2 ? ax.hi.y - 4 - box.y : ax.lo.y + 4);
    int covered = 0;
    for (const ImVec2& q : points)
      covered +=
          q.x >= c.x - 4 && q.x <= c.x + box.x + 4 && q.y >= c.y - 4 && q.y <= c.y + box.y + 4;
    const Box b{c, ImVec2(c.x + box.x, c.y + box.y)};
    for (const Box& t : avoid)
      covered += b.hits(t, 2) ? 1000 : 0;  // a label under the legend is worse than a point
    if (covered < best) best = covered, p = c;
  }
  return Box{p, ImVec2(p.x + box.x, p.y + box.y)};
}

void draw_legend_at(ImDrawList* dl, const Box& at, const std::vector<std::string>& labels,
                    const std::vector<ImU32>& colours, const std::vector<SeriesStyle>* styles) {
  const float lh = ImGui::GetTextLineHeight();
  const float sample = legend_sample(styles != nullptr);
  const ImVec2 p = at.a;
  dl->AddRectFilled(at.a, at.b, ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f));
  for (size_t i = 0; i < labels.size(); ++i) {
    const float y = p.y + 2 + lh * i;
    if (styles) {
      SeriesStyle st = (*styles)[i];
      st.width = std::min(st.width, lh * 0.3f);
      st.radius = std::min(st.radius, lh * 0.4f);
      const float ym = y + lh * 0.5f;
      draw_segment(dl, ImVec2(p.x + 3, ym), ImVec2(p.x + 3 + sample, ym), st);
      draw_marker(dl, ImVec2(p.x + 3 + sample / 2, ym), st);
    } else {
      dl->AddRectFilled(ImVec2(p.x + 3, y + lh * 0.3f), ImVec2(p.x + sample, y + lh * 0.7f),
                        colours[i]);
    }
    dl->AddText(ImVec2(p.x + sample + lh * 0.3f, y), ImGui::GetColorU32(ImGuiCol_Text),
                labels[i].c_str());
  }
}

std::vector<PlacedLabel> place_labels(const Axes& ax, const std::vector<LabelSpot>& spots,
                                      const std::vector<Box>& taken, float rad) {
  const float lh = ImGui::GetTextLineHeight();
  const float mid_x = (ax.lo.x + ax.hi.x) / 2;
  auto place_all = [&](const std::vector<size_t>& order) {
    std::vector<Box> blocked = taken;
    std::vector<PlacedLabel> out;
    for (size_t i : order) {
      const LabelSpot& a = spots[i];
      const ImVec2 w = ImGui::CalcTextSize(a.text.c_str());
      const float pad = 2;
      auto box_at = [&](float x, float y) {
        return Box{ImVec2(x - pad, y - 1), ImVec2(x + w.x + pad, y + w.y + 1)};
      };
      auto free_box = [&](const Box& b) {
        if (!ax.holds(b)) return false;
        for (const Box& t : blocked)
          if (b.hits(t)) return false;
        return true;
      };
      // Beside the mark, right of it in the left half of the plot and left in the right half...
      const bool right_first = a.at.x < mid_x;
      const float yc = a.at.y - w.y / 2;
      ImVec2 best(0, 0);
      float best_d = 1e30f;
      for (bool right : {right_first, !right_first}) {
        const float x = right ? a.at.x + rad + 6 : a.at.x - rad - 6 - w.x;
        if (best_d > 1e29f && free_box(box_at(x, yc))) best = ImVec2(x, yc), best_d = 0;
      }
      // ...else the nearest free place on a grid over the plot.
      if (best_d > 1e29f)
        for (float y = ax.lo.y + 3; y + w.y + 3 <= ax.hi.y; y += lh / 3)
          for (float x = ax.lo.x + 4; x + w.x + 4 <= ax.hi.x; x += lh / 2) {
            const Box b = box_at(x, y);
            const float dx = std::max({b.a.x - a.at.x, 0.f, a.at.x - b.b.x});
            const float dy = std::max({b.a.y - a.at.y, 0.f, a.at.y - b.b.y});
            const float dist = std::hypot(dx, dy);
            if (dist < best_d && free_box(b)) best = ImVec2(x, y), best_d = dist;
          }
      if (best_d > 1e29f) continue;
      out.push_back({i, box_at(best.x, best.y), best, best_d});
      blocked.push_back(out.back().box);
    }
    return out;
  };
  std::vector<size_t> by_y(spots.size());
  for (size_t i = 0; i < by_y.size(); ++i)
    by_y[i] = i;
  std::sort(by_y.begin(), by_y.end(), [&](size_t a, size_t b) {
    return spots[a].at.y < spots[b].at.y ||
           (spots[a].at.y == spots[b].at.y && spots[a].at.x < spots[b].at.x);
  });
  std::vector<size_t> by_x = by_y, by_x_back = by_y, crowded_first = by_y;
  std::stable_sort(by_x.begin(), by_x.end(),
                   [&](size_t a, size_t b) { return spots[a].at.x < spots[b].at.x; });
  std::stable_sort(by_x_back.begin(), by_x_back.end(),
                   [&](size_t a, size_t b) { return spots[a].at.x > spots[b].at.x; });
  auto neighbours = [&](size_t i) {
    int n = 0;
    for (const LabelSpot& o : spots)
      n += std::hypot(o.at.x - spots[i].at.x, o.at.y - spots[i].at.y) < 3 * lh;
    return n;
  };
  std::stable_sort(crowded_first.begin(), crowded_first.end(),
                   [&](size_t a, size_t b) { return neighbours(a) > neighbours(b); });
  std::vector<PlacedLabel> labels;
  float labels_d = 0;
  for (const auto* order : {&by_y, &crowded_first, &by_x, &by_x_back}) {
    std::vector<PlacedLabel> p = place_all(*order);
    float d = 0;
    for (const PlacedLabel& q : p)
      d += q.distance;
    if (p.size() > labels.size() || (p.size() == labels.size() && d < labels_d))
      labels = std::move(p), labels_d = d;
  }
  return labels;
}

}  // namespace ts::app
