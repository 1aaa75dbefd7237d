// The registry of views (see app/core/view.hpp).
#include "app/core/view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace ts::app {

std::vector<ViewFactory>& view_factories() {
  // A function-local static so that registrars in other files find it constructed.
  static std::vector<ViewFactory> factories;
  return factories;
}

std::vector<std::unique_ptr<View>> make_views() {
  std::vector<std::unique_ptr<View>> views;
  for (const auto& f : view_factories())
    views.push_back(f());
  std::stable_sort(views.begin(), views.end(), [](const auto& a, const auto& b) {
    if (a->slot() != b->slot()) return a->slot() < b->slot();
    return a->order() < b->order();
  });
  return views;
}

float value_font_size(float cell, float font) {
  // Three fifths of the cell: two digits fill it, and a projector's bigger
  // cells (presenter mode zooms to the text size) give bigger digits.
  return std::min(font, std::round(cell * 0.6f));
}

bool values_readable(float cell, float font) {
  // At least 8 pixels, and two fifths of the panel's text up to 10 pixels (cells of 19):
  // past that the font serves the controls only, and the grid's zoom makes values bigger.
  return value_font_size(cell, font) >= std::max(8.0f, std::min(font * 0.4f, 10.0f));
}

bool same_line_if_fits(float width) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width;
  if (right > ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) return false;
  ImGui::SameLine();
  return true;
}

namespace {

// The ends of text_wrapped_at_spaces's lines: [start, end) pairs.
std::vector<std::pair<size_t, size_t>> lines_at_spaces(const std::string& text) {
  const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4);
  const char* base = text.data();
  std::vector<std::pair<size_t, size_t>> lines;
  size_t start = 0;
  while (start < text.size()) {
    // The longest run of whole words from `start` that fits.
    size_t fit = std::string::npos, from = start;
    while (true) {
      const size_t sp = text.find(' ', from);
      const size_t end = sp == std::string::npos ? text.size() : sp;
      if (ImGui::CalcTextSize(base + start, base + end).x > width) break;
      fit = end;
      if (sp == std::string::npos) break;
      from = sp + 1;
    }
    if (fit == std::string::npos) {  // one word wider than the panel: it gets its own line
      fit = text.find(' ', start);
      if (fit == std::string::npos) fit = text.size();
    }
    lines.emplace_back(start, fit);
    start = fit;
    while (start < text.size() && text[start] == ' ')
      ++start;
  }
  return lines;
}

}  // namespace

void text_wrapped_at_spaces(const std::string& text) {
  for (const auto& [a, b] : lines_at_spaces(text))
    ImGui::TextUnformatted(text.data() + a, text.data() + b);
}

float wrapped_at_spaces_height(const std::string& text) {
  return float(lines_at_spaces(text).size()) * ImGui::GetTextLineHeightWithSpacing();
}

}  // namespace ts::app
