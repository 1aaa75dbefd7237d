// The quiz's state as the window keeps it in AppState (app/core/app_state.hpp):
// the questions, the answer being picked, the score, and what the grid paints.
// What the quiz does with it is app/quiz/quiz.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/quiz.hpp"

namespace ts::app {

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
  // Every item of the band as drawn ("header", "score", "question", "choice 1",
  // "reveal", "hint", ...): the tests check that none overlaps another or leaves the band.
  std::vector<std::pair<std::string, std::array<float, 4>>> items;
  // Scripted: a "choice:N" answer given while a cell question is on screen,
  // kept for the first choice question asked.
  std::string pending_answer;

  bool active() const { return index >= 0 && index < int(questions.size()); }
  const Question* question() const { return active() ? &questions[size_t(index)] : nullptr; }
  std::string score_line() const {
    return "Score " + std::to_string(right) + " / " + std::to_string(answered);
  }
};

}  // namespace ts::app
