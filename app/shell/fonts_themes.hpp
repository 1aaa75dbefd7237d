// Fonts (DejaVu at the user's size and the monitor's scale) and the dark and
// light themes (Okabe-Ito accents), applied between frames when they change.
#pragma once

#include "app/core/app_state.hpp"

namespace ts::app {

inline constexpr float kMinFont = 10.0f, kMaxFont = 40.0f;

// The style ImGui has now, so that it is rebuilt only when the theme or the
// monitor's scale changes.
struct AppliedStyle {
  Theme theme = Theme::Dark;
  float scale = 0;
};
void apply_theme(const Presentation& p, AppliedStyle& applied);

// When p.font_rebuild is set: the font atlas anew (main, mono, small mono,
// bold), and p's font pointers and note.
void rebuild_fonts(Presentation& p);

}  // namespace ts::app
