// Quiz mode in the window (Quiz > Start quiz, Q, --quiz [SEED]): questions
// from analysis/quiz.hpp about the trace on screen. The replay stops before
// what is asked; the user clicks cells, drags rectangles (Shift adds, Ctrl
// removes, a plain drag replaces), uses arrows + Space and Shift+arrows, or
// picks a choice (1-9); Enter reveals the truth on the grid and in the replay: chosen and
// right cells green, missed ones ringed, extra ones red; N asks the next; Esc
// leaves. The score is kept across questions. app/quiz/view_quiz.cpp draws the band.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/quiz.hpp"

namespace ts::app {

struct AppState;

// How the grid marks a quiz cell (app/grid/view_grid.cpp asks each frame; the
// colours are in app/quiz/quiz_colours.hpp).
enum class QuizMark : uint8_t {
  Chosen,  // fill: the user's pick, before the reveal
  Right,   // fill: chosen and right
  Extra,   // fill: chosen, not in the truth
  Missed,  // thick ring: in the truth, not chosen
  Cursor,  // thick ring: the keyboard's cell
  Scope,   // fill: the cells a question is about (those a block writes), under the others
};
struct QuizPaint {
  ArraySlot buffer = kNoArray;
  uint32_t block = 0;  // shared arrays: whose copy
  uint32_t element = 0;
  QuizMark mark = QuizMark::Chosen;
  bool ring() const { return mark == QuizMark::Missed || mark == QuizMark::Cursor; }
};

struct QuizState {
  std::vector<Question> questions;
  uint64_t seed = 1;
  int index = -1;  // the question on screen; -1: no quiz
  bool revealed = false;
  Answer answer;
  Grade grade;
  int right = 0, answered = 0;  // the score line: "Score right / answered"
  int cursor = -1;              // the keyboard's cell (an element of the question's array)
  // A rectangle being picked: from a drag's first cell (or Shift+arrows'
  // anchor) to the cell under the pointer (the cursor), applied to the answer
  // as it was before.
  int drag_from = -1, drag_to = -1;  // mouse; -1: no drag
  int anchor = -1;                   // keyboard; -1: none
  int rect_op = 0;                   // 0 replace, 1 add, 2 remove
  std::vector<uint32_t> before;
  uint64_t generation = 0;  // the trace the questions came from (result.generation)
  std::string note;         // why there is no quiz (no trace, no question)
  // Requests (menu, keys, clicks), applied at the start of the next frame.
  bool start_request = false, leave_request = false, next_request = false, reveal_request = false;
  std::vector<QuizPaint> paint;                    // what the grid draws this frame
  float band[4] = {0, 0, 0, 0};                    // the question band as drawn (x, y, w, h)
  std::vector<std::array<float, 4>> choice_rects;  // each choice's button as drawn (x, y, w, h)
  // Scripted: a "choice:N" answer given while a cell question is on screen,
  // kept for the first choice question asked.
  std::string pending_answer;

  bool active() const { return index >= 0 && index < int(questions.size()); }
  const Question* question() const { return active() ? &questions[size_t(index)] : nullptr; }
  std::string score_line() const {
    return "Score " + std::to_string(right) + " / " + std::to_string(answered);
  }
};

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
// Scripted --quiz-answer: "truth", "truth-1" (the last true cell left out),
// "truth+1" (one cell too many), "none", cells "3,17,20", "choice:N" (1-based)
// or rectangles "rect:ARRAY:r0,c0-r1,c1" (a 1-D array: r 0), joined by ';'.
// A choice answer while a cell question is on screen waits for the first choice
// question (so `--quiz-answer choice:2 --keys n,n,n,enter` answers that one).
bool apply_quiz_answer(AppState& s, const std::string& spec, std::string* error);

}  // namespace ts::app
