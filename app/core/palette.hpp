// Colours: the Okabe-Ito palette, which stays distinguishable for the common
// kinds of colour blindness, plus neutral tones per theme. Every view takes
// its colours from here so that the legend and the grid always agree.
#pragma once

#include <cstdint>

#include "app/core/app_state.hpp"

namespace ts::app {

struct Rgb {
  uint8_t r, g, b;
  uint32_t abgr(uint8_t a = 255) const {  // ImU32 (IM_COL32) layout
    return uint32_t(r) | (uint32_t(g) << 8) | (uint32_t(b) << 16) | (uint32_t(a) << 24);
  }
  bool operator==(const Rgb&) const = default;
};

namespace okabe_ito {
inline constexpr Rgb kOrange{230, 159, 0};
inline constexpr Rgb kSkyBlue{86, 180, 233};
inline constexpr Rgb kGreen{0, 158, 115};  // bluish green
inline constexpr Rgb kYellow{240, 228, 66};
inline constexpr Rgb kBlue{0, 114, 178};
inline constexpr Rgb kVermillion{213, 94, 0};
inline constexpr Rgb kPurple{204, 121, 167};  // reddish purple
}  // namespace okabe_ito

struct Palette {
  Rgb background;     // window background
  Rgb cell;           // a cell nobody touched yet
  Rgb cell_input;     // an input cell that was read at some point
  Rgb loaded;         // input cells whose values sit in the selected block's shared memory now
  Rgb loaded_other;   // ... in another block's shared memory
  Rgb shared_loaded;  // a shared cell holding a value loaded from global memory
  Rgb shared_empty;   // a shared cell not written in this run yet
  Rgb padded;         // zero padding (a tile hanging over the matrix edge)
  Rgb hatch;          // hatching over padding
  Rgb halo;           // stencil halo cells
  Rgb written;        // output cells written
  Rgb stale;          // a read that saw an unsynchronised value
  Rgb wrong;          // an output cell that differs from the reference
  Rgb touched;        // outline: the cells the last warp instruction touched
  Rgb selected;       // outline: the selected block / thread
  Rgb grid_line, tile_line;
  Rgb text, text_dim, text_on_light, text_on_dark;
  Rgb phase_a, phase_b;  // alternating barrier phases in the timeline
  Rgb barrier;           // barrier markers
  Rgb now;               // the position line
};

const Palette& palette(Theme t);
// Heatmap colour for a fraction 0..1 (a perceptually ordered blue-to-yellow ramp).
Rgb heat(float f);
// A second ramp for a second scale on one picture (global memory's atomics
// beside shared memory's): dark to light through red and orange, so that
// its top never reads as heat()'s yellow.
Rgb heat_warm(float f);
// Text colour that reads on `fill`.
Rgb text_on(const Palette& p, Rgb fill);
inline float to_f(uint8_t c) {
  return float(c) / 255.0f;
}

}  // namespace ts::app
