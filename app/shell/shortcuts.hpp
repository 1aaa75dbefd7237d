// The window's keys (the Help menu lists them): text size, files, theme,
// heatmap, grid focus, fullscreen, run, and moving through the replay.
#pragma once

#include "app/core/app_state.hpp"

namespace ts::app {

// Turns this frame's key presses into requests on `s`. While a file dialog or
// the budget dialog is open, only the Ctrl keys and F5/F11 act: the rest
// belong to the dialog.
void handle_shortcuts(AppState& s, bool file_dialog_open, bool budget_dialog_open);

}  // namespace ts::app
