// The quiz's cell colours (app/quiz/quiz.hpp): the same in both themes, chosen
// to stand apart from the grid's state colours on a projector.
#pragma once

#include "app/core/palette.hpp"
#include "app/quiz/quiz.hpp"

namespace ts::app {

inline constexpr Rgb kQuizChosen{70, 130, 255};
inline constexpr Rgb kQuizRight{40, 200, 90};
inline constexpr Rgb kQuizExtra{225, 45, 35};
inline constexpr Rgb kQuizMissed{255, 230, 0};
inline constexpr Rgb kQuizCursor{255, 255, 255};
inline constexpr Rgb kQuizScope{95, 70, 140};  // muted: the cells asked about, not an answer

inline Rgb quiz_colour(QuizMark m) {
  switch (m) {
    case QuizMark::Chosen:
      return kQuizChosen;
    case QuizMark::Right:
      return kQuizRight;
    case QuizMark::Extra:
      return kQuizExtra;
    case QuizMark::Missed:
      return kQuizMissed;
    case QuizMark::Cursor:
      return kQuizCursor;
    case QuizMark::Scope:
      return kQuizScope;
  }
  return kQuizCursor;
}

}  // namespace ts::app
