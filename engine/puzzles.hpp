// The puzzles' setups (assets/puzzles/): for each puzzle the arrays, the
// launch, the parameters, the sizes the grader runs and the CPU reference.
// A puzzle's skeleton is a lesson file (engine/lesson_file.hpp) whose
// descriptor is one call:
//
//   struct Lesson {
//     static LessonSpec descriptor() { return puzzles::setup("shared", __FILE__); }
//   };
//
// (__FILE__: setup() reads the kernel's SYNCTHREADS/SYNCWARP statements from
// the file and states one barrier for each, so a student adds or removes
// barriers without touching the descriptor). The plug-in
// resolves setup() against the program that loads it, so the arrays, the
// launch and the reference are TileScope's, never the student's; the grader
// (analysis/puzzle.hpp) checks that a solution kept them and computes the
// expected output with the reference here, from the run's own inputs.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lessons/lesson.hpp"

namespace ts::puzzles {

// The most barrier statements a puzzle's kernel may have.
inline constexpr int kMaxPuzzleBarriers = 8;

// The descriptor of the puzzle `id` ("map", "shared", ...) with a barrier
// ("your barrier k") for each barrier statement of `source_file` (the
// solution's own path: __FILE__). Throws std::invalid_argument for an
// unknown id or more than kMaxPuzzleBarriers barriers: the lesson-file
// loader reports it as the descriptor's message.
LessonSpec setup(const char* id, const char* source_file);

struct PuzzleSetup {
  const char* id;        // as setup() and the puzzle's folder name it
  LessonSpec (*spec)();  // without barriers
  // The sizes the grader checks the output at, odd ones among them (hidden
  // from the student: the statement gives only the example size).
  std::vector<Params> hidden;
};

// Every puzzle's setup, in the order of the course.
std::span<const PuzzleSetup> all_setups();
const PuzzleSetup* find_setup(std::string_view id);

// Where the puzzles' files are: $TILESCOPE_PUZZLES, else an installed
// TileScope's ../share/tilescope/puzzles beside the program, else the source
// tree's assets/puzzles (a build tree). "" when none of them exists.
std::string puzzles_dir();

}  // namespace ts::puzzles
