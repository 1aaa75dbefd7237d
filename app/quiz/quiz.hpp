// Quiz mode in the window (Quiz > Start quiz, Q, --quiz [SEED]): questions
// from analysis/quiz.hpp about the trace on screen. The replay stops before
// what is asked; the user clicks cells, drags rectangles (Shift adds, Ctrl
// removes, a plain drag replaces), uses arrows + Space and Shift+arrows, or
// picks a choice (1-9); Enter reveals the truth on the grid and in the replay: chosen and
// right cells green, missed ones ringed, extra ones red; N asks the next; Esc
// leaves. The score is kept across questions. app/quiz/view_quiz.cpp draws the band.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/quiz.hpp"
#include "app/core/quiz_state.hpp"

namespace ts::app {

struct AppState;

// Each frame, before the replay's requests: starts, leaves, reveals, moves on;
// a new trace ends the quiz.
void update_quiz(AppState& s);
// Keys while a quiz is on (shortcuts.cpp hands them over): true when it took the replay keys.
bool quiz_keys(AppState& s);
// The pointer over a grid cell (view_grid.cpp, each frame): a press starts a
// pick (a click toggles the cell, a drag picks a rectangle). True when the
// quiz took the press (a cell question on that array).
bool quiz_hover(AppState& s, ArraySlot buffer, uint32_t block, uint32_t element);
// The cells of the rectangle between two elements of the question's array as
// a drag picks them: rows x columns of a 2-D array, the range of a 1-D one.
std::vector<uint32_t> quiz_rectangle(const ArrayInfo& a, uint32_t from, uint32_t to);
// The band with the question, the choices, the verdict and the score (view_quiz.cpp).
void draw_quiz_band(AppState& s);
// The height the band needs at this width, every choice and button in view
// (the caption strip, app/lecture/caption_strip.cpp, is made this high).
float quiz_band_height(const AppState& s, float width, float question_scale = 1.2f);
// Scripted --quiz-answer: "truth", "truth-1" (the last true cell left out),
// "truth+1" (one cell too many), "none", cells "3,17,20", "choice:N" (1-based)
// or rectangles "rect:ARRAY:r0,c0-r1,c1" (a 1-D array: r 0), joined by ';'.
// A choice answer while a cell question is on screen waits for the first choice
// question (so `--quiz-answer choice:2 --keys n,n,n,enter` answers that one).
bool apply_quiz_answer(AppState& s, const std::string& spec, std::string* error);

}  // namespace ts::app
