// The caption strip: the lecture's caption, the quiz's question band and, in
// presenter mode, the lesson's narration get a strip of their own beside or
// below the grid, never drawn over it. The layout (app/shell/layout.cpp) carves it
// out of the centre slot: beside where the grid keeps bigger cells that way,
// else below, as high as its text needs.
#pragma once

#include <memory>
#include <vector>

#include "app/core/app_state.hpp"
#include "app/core/view.hpp"

namespace ts::app {

// Presenter mode with the memory colours on: the strip shows the Banks view.
bool banks_in_strip(const AppState& s);
// Whether a strip is wanted this frame: a lecture, or presenter mode (its quiz questions too).
bool strip_wanted(const AppState& s);
// The height its text needs at this width (pixels; the narration, whose
// length varies with the moment, asks for a fixed share of `room_h`). A
// caption shrinks its type, down to the panel's text size, to fit in `max_h`.
float strip_height_for_width(const AppState& s, float width, float room_h, float max_h);
// Its width beside a room this wide.
float strip_width_beside(const AppState& s, float room_w);
// Draws the strip at s.strip_rect: the quiz's band while a question is up,
// else the lecture's caption, else (presenter mode) the Narration view.
void draw_caption_strip(AppState& s, const std::vector<std::unique_ptr<View>>& views);
// The caption's text size in pixels: large for the back of a room, but not
// so large at big fonts that a caption eats the grid's room.
float caption_text_size(const AppState& s);
// One line of what the run on screen came to, for a room that sees no
// panels: "output right  |  racecheck: 12 hazards (warnings: one warp's lanes)".
// Empty without a trace.
std::string presenter_facts(const AppState& s);
// The largest caption size, from caption_text_size down to the panel's text
// size, whose caption fits in a strip `width` wide and `max_h` high.
float caption_fit_size(const AppState& s, float width, float max_h);

}  // namespace ts::app
