// The quiz's cell colours (app/quiz/quiz.hpp): the same in both themes, from
// the Okabe-Ito palette as the rest of the window (right and extra apart for
// every common colour blindness: bluish green against vermillion, never red
// against green), filled over the state colours of the question's cells.
#pragma once

#include "app/core/palette.hpp"
#include "app/quiz/quiz.hpp"

namespace ts::app {

inline constexpr Rgb kQuizChosen = okabe_ito::kBlue;
inline constexpr Rgb kQuizRight = okabe_ito::kGreen;
inline constexpr Rgb kQuizExtra = okabe_ito::kVermillion;
inline constexpr Rgb kQuizMissed = okabe_ito::kYellow;
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
