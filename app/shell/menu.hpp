// The main menu bar (File, View, Help and the status on its right) and the
// banner under it that reports errors, warnings and news.
#pragma once

#include "app/core/app_state.hpp"

namespace ts::app {

// Menu items set requests on `s`, as the shortcuts do.
void draw_menu(AppState& s);
// The banner at height y across width w; returns its height (0: none shown).
// An info banner closes itself after a few seconds.
float draw_banner(AppState& s, float y, float w);

}  // namespace ts::app
