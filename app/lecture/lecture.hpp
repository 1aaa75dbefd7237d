// Lecture scripts in the window (io/lecture_file.hpp): open one, go step by
// step (PageDown / PageUp, as a presenter's remote sends), each step re-runs
// its lesson as the lesson panel's Run does, places the replay, sets the
// panels and the grid's colours, and shows its caption beside or below the grid.
#pragma once

#include <string>

#include "app/core/app_state.hpp"
#include "app/core/budget_dialog.hpp"

namespace ts::app {

// Loads the lecture and asks for its step `first` (0-based); false with the
// reason (also in the banner) when the file is not a lecture.
bool open_lecture(AppState& s, const std::string& path, int first, std::string* error);
// Each frame, before the replay's requests: a lecture opened, left or moved to
// another step starts that step's run; a finished run gets the step's
// position. wait: block until the run is in (scripted mode).
void update_lecture(AppState& s, BudgetDialog& budget, bool scripted, bool wait);
// The caption with the title and "step 3 / 9", in the caption strip's window
// (app/lecture/caption_strip.hpp), `w` wide; never over the grid.
void draw_lecture_caption(AppState& s, float w);
bool is_lecture_path(const std::string& path);

}  // namespace ts::app
