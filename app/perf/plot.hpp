// A small plotting kit on ImDrawList (Debian has no ImPlot): series colours
// that colour-blind viewers tell apart and that read on both themes, number
// labels, log or linear axes with ticks, a legend where it covers the fewest
// points, and labels placed beside their marks without overlapping.
#pragma once

#include <imgui.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "app/core/app_state.hpp"

namespace ts::app {

// Okabe-Ito, in an order that reads on dark and light themes; cycles.
ImU32 series_colour(size_t i);
// A series colour for text on `bg`: darkened on a light background, lightened
// on a dark one, just enough for 4.5 : 1 (WCAG AA).
ImU32 text_safe(ImU32 c, ImU32 bg);
// A status colour (ImVec4) made readable on the window's background, as text_safe.
ImVec4 readable(ImVec4 c);

std::string fmt(const char* f, double v);  // one number, printf-style
std::string si(double v);                  // 1234 -> "1.23k", 51000 -> "51k"
std::string grouped(uint64_t v);           // 1200 -> "1,200": exact counts, readable
std::string size_label(double v);          // 4096 as is; powers of two as 2^k from 64k on

// A ladder table's cells (the SGEMM ladder's and a family's): a row's first
// two, the step's number and its title with "id\ndetail" on hover; then one
// number per column, a greyed "-" where it was not measured (v <= 0).
void table_step_cells(int step, const char* title, const char* id, const char* detail);
void table_number(double v, const char* format);

// A screen rectangle: what labels must not cover, and where one went.
struct Box {
  ImVec2 a, b;
  bool hits(const Box& o, float m = 1) const {
    return a.x < o.b.x + m && o.a.x < b.x + m && a.y < o.b.y + m && o.a.y < b.y + m;
  }
};

// A plot area: data space <-> screen, log or linear on each axis.
struct Axes {
  ImVec2 lo, hi;  // screen rectangle of the data area
  double x0, x1, y0, y1;
  bool log_x, log_y;
  double tx(double x) const {
    const double a = log_x ? std::log10(x) : x, b0 = log_x ? std::log10(x0) : x0,
                 b1 = log_x ? std::log10(x1) : x1;
    return lo.x + (a - b0) / (b1 - b0) * (hi.x - lo.x);
  }
  double ty(double y) const {
    const double a = log_y ? std::log10(y) : y, b0 = log_y ? std::log10(y0) : y0,
                 b1 = log_y ? std::log10(y1) : y1;
    return hi.y - (a - b0) / (b1 - b0) * (hi.y - lo.y);
  }
  ImVec2 at(double x, double y) const { return ImVec2(float(tx(x)), float(ty(y))); }
  double ix(double px) const {  // screen x -> data x
    const double f = (px - lo.x) / (hi.x - lo.x);
    return log_x ? x0 * std::pow(x1 / x0, f) : x0 + f * (x1 - x0);
  }
  // The box lies in the data area, 2 px clear of its border.
  bool holds(const Box& x) const {
    return x.a.x >= lo.x + 2 && x.b.x <= hi.x - 2 && x.a.y >= lo.y + 2 && x.b.y <= hi.y - 2;
  }
};

// Decade ticks for a log axis, round steps for a linear one.
std::vector<double> ticks(double a, double b, bool log);

// Frame, grid, title and tick labels of a plot at `origin` of `size`; returns
// its axes. x ticks read as sizes (size_label) or as plain numbers; where
// tick_marks is given, each x tick label drawn is added to it.
Axes frame(ImDrawList* dl, ImVec2 origin, ImVec2 size, double x0, double x1, double y0, double y1,
           bool log_x, bool log_y, const char* title, const char* xlabel, const char* ylabel,
           const std::vector<double>& xticks, bool x_is_size = true,
           std::vector<PlotMark>* tick_marks = nullptr);

// How one of several series is drawn so that a line under another stays in
// sight: the series drawn first are wider (their edges show around a line
// drawn over them), each has its own marker shape and dash, markers are
// outlined in the background colour.
enum class Marker { Circle, Square, Diamond, Triangle };
struct SeriesStyle {
  ImU32 colour = 0;
  float width = 2;   // the line's
  float radius = 4;  // the marker's
  Marker marker = Marker::Circle;
  bool dashed = false;
};
// Series i of n (drawn in that order), lh the text line height.
SeriesStyle series_style(size_t i, size_t n, float lh);
void draw_segment(ImDrawList* dl, ImVec2 a, ImVec2 b, const SeriesStyle& st);
void draw_marker(ImDrawList* dl, ImVec2 at, const SeriesStyle& st);

// The legend goes in the corner of the data area that covers the fewest
// points, clear of `avoid` where it can; returns its box. With styles, each
// entry is a short line with its marker, else a colour swatch.
Box draw_legend(ImDrawList* dl, const Axes& ax, const std::vector<std::string>& labels,
                const std::vector<ImU32>& colours, const std::vector<ImVec2>& points = {},
                const std::vector<SeriesStyle>* styles = nullptr,
                const std::vector<Box>& avoid = {});
// The same in two steps: where it goes, then drawn there.
Box legend_box(const Axes& ax, const std::vector<std::string>& labels,
               const std::vector<ImVec2>& points, bool styled, const std::vector<Box>& avoid = {});
void draw_legend_at(ImDrawList* dl, const Box& at, const std::vector<std::string>& labels,
                    const std::vector<ImU32>& colours, const std::vector<SeriesStyle>* styles);

// A label to place: the point it names (its mark has radius `rad`) and its text.
struct LabelSpot {
  ImVec2 at;
  std::string text;
};
struct PlacedLabel {
  size_t spot;     // index into the spots
  Box box;         // the label's box, with its padding
  ImVec2 text_at;  // where its text starts
  float distance;  // from the point: 0 beside it, more with a leader line
};
// Each label at the free place nearest its point (beside it where that is
// free), clear of `taken`, of the other labels and of the data area's border;
// left out only where no place is free. Greedy, so the order matters: a few
// orders are tried and the one that names the most points, nearest, wins.
std::vector<PlacedLabel> place_labels(const Axes& ax, const std::vector<LabelSpot>& spots,
                                      const std::vector<Box>& taken, float rad);

}  // namespace ts::app
