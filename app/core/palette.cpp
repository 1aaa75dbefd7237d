#include "app/core/palette.hpp"

#include <algorithm>
#include <cmath>

namespace ts::app {

namespace oi = okabe_ito;

const Palette& palette(Theme t) {
  static const Palette dark{
      .background = {28, 30, 34},
      .cell = {58, 62, 70},
      .cell_input = {84, 90, 102},
      .loaded = oi::kOrange,
      .loaded_other = {128, 104, 56},
      .shared_loaded = oi::kOrange,
      .shared_empty = {46, 49, 56},
      .padded = {92, 78, 92},
      .hatch = oi::kPurple,
      .halo = oi::kYellow,
      .written = oi::kGreen,
      .stale = oi::kBlue,  // apart from the tiles' orange for every common colour blindness
      .wrong = oi::kVermillion,
      .touched = oi::kSkyBlue,
      .selected = {250, 250, 250},
      .grid_line = {24, 26, 30},
      .tile_line = {200, 204, 212},
      .text = {235, 236, 240},
      .text_dim = {150, 155, 165},
      .text_on_light = {16, 16, 20},
      .text_on_dark = {245, 245, 248},
      .phase_a = {0, 114, 178},
      .phase_b = {60, 150, 205},
      .barrier = oi::kYellow,
      .now = oi::kVermillion,
  };
  static const Palette light{
      .background = {246, 246, 248},
      .cell = {226, 228, 233},
      .cell_input = {200, 204, 212},
      .loaded = oi::kOrange,
      .loaded_other = {240, 210, 150},
      .shared_loaded = oi::kOrange,
      .shared_empty = {236, 237, 240},
      .padded = {226, 206, 218},
      .hatch = oi::kPurple,
      .halo = oi::kYellow,
      .written = oi::kGreen,
      .stale = oi::kBlue,  // apart from the tiles' orange for every common colour blindness
      .wrong = oi::kVermillion,
      .touched = oi::kBlue,
      .selected = {20, 20, 24},
      .grid_line = {160, 164, 172},
      .tile_line = {40, 44, 52},
      .text = {20, 22, 26},
      .text_dim = {100, 104, 112},
      .text_on_light = {16, 16, 20},
      .text_on_dark = {250, 250, 252},
      .phase_a = {0, 114, 178},
      .phase_b = {86, 180, 233},
      .barrier = {180, 120, 0},
      .now = oi::kVermillion,
  };
  return t == Theme::Light ? light : dark;
}

namespace {

// f in [0, 1] along five evenly spaced stops, linearly between them.
Rgb ramp(const Rgb (&stops)[5], float f) {
  f = std::clamp(f, 0.0f, 1.0f) * 4.0f;
  const int i = std::min(3, int(f));
  const float u = f - float(i);
  auto mix = [&](uint8_t a, uint8_t b) { return uint8_t(std::lround(a + (b - a) * u)); };
  return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g),
          mix(stops[i].b, stops[i + 1].b)};
}

}  // namespace

Rgb heat(float f) {
  // A few stops of a viridis-like ramp: dark blue, teal, green, yellow.
  static const Rgb stops[] = {
      {48, 18, 90}, {40, 90, 140}, {30, 150, 135}, {110, 200, 80}, {250, 230, 35}};
  return ramp(stops, f);
}

Rgb heat_warm(float f) {
  static const Rgb stops[] = {
      {52, 40, 46}, {112, 44, 72}, {178, 62, 58}, {226, 120, 40}, {250, 196, 150}};
  return ramp(stops, f);
}

Rgb text_on(const Palette& p, Rgb fill) {
  const float lum = 0.2126f * to_f(fill.r) + 0.7152f * to_f(fill.g) + 0.0722f * to_f(fill.b);
  return lum > 0.5f ? p.text_on_light : p.text_on_dark;
}

}  // namespace ts::app
