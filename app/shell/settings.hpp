// imgui.ini: the window's layout and presentation under [TileScope][Layout],
// so that a window opens as it was left.
#pragma once

#include "app/core/app_state.hpp"

namespace ts::app {

// Registers the handler that reads into and writes from `s` (which outlives
// the ImGui context's use of it); reading clamps every value to its range and
// leaves alone what the command line pinned.
void add_settings_handler(AppState& s);

}  // namespace ts::app
