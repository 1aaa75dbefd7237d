// Quiz mode in the window (Quiz > Start quiz, Q, --quiz [SEED]): questions
// from analysis/quiz.hpp about the trace on screen. The replay stops before
// what is asked; the user clicks cells (or arrows + Space) or picks a choice
// (1-9); Enter reveals the truth on the grid and in the replay: chosen and
// right cells green, missed ones ringed, extra ones red; N asks the next; Esc
// leaves. The score is kept across questions. app/view_quiz.cpp draws the band.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/quiz.hpp"

namespace ts::app {

struct AppState;

// How the grid marks a quiz cell (app/view_grid.cpp asks each frame; the
// colours are in app/quiz_colours.hpp).
enum class QuizMark : uint8_t {
  Chosen,  // fill: the user's pick, before the reveal
  Right,   // fill: chosen and right
  Extra,   // fill: chosen, not in the truth
  Missed,  // thick ring: in the truth, not chosen
  Cursor,  // thick ring: the keyboard's cell
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
  uint64_t generation = 0;      // the trace the questions came from (result.generation)
  std::string note;             // why there is no quiz (no trace, no question)
  // Requests (menu, keys, clicks), applied at the start of the next frame.
  bool start_request = false, leave_request = false, next_request = false, reveal_request = false;
  std::vector<QuizPaint> paint;  // what the grid draws this frame
  float band[4] = {0, 0, 0, 0};  // the question band as drawn (x, y, w, h)

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
// A click on a grid cell: true when the quiz took it (a cell question on that array).
bool quiz_click(AppState& s, ArraySlot buffer, uint32_t block, uint32_t element);
// The band with the question, the choices, the verdict and the score (view_quiz.cpp).
void draw_quiz_band(AppState& s);
// Scripted --quiz-answer: "truth", "truth-1" (the last true cell left out),
// "truth+1" (one cell too many), "none", cells "3,17,20" or "choice:N" (1-based).
bool apply_quiz_answer(AppState& s, const std::string& spec, std::string* error);

}  // namespace ts::app
