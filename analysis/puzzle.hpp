// The puzzles (assets/puzzles/<NN>_<id>/: puzzle.json with the statement,
// the hints and the budgets; skeleton.hpp, the lesson file a student starts
// from) and their grader. The grader compiles a solution as a lesson file
// (engine/lesson_file.hpp), runs it on the simulator at the puzzle's hidden
// sizes (engine/puzzles.hpp) and checks, rule by rule:
//
//   compiles  the file compiles and loads as a lesson file;
//   setup     its descriptor is the puzzle's (arrays, launch, parameters);
//   output    right output at every hidden size, against the puzzle's CPU
//             reference on the run's own inputs; no out-of-range access, no
//             endless loop, no barrier divergence;
//   hazards   with every barrier the solution has, no racing pair of shared
//             accesses (racecheck's model), in lockstep and under warp skew;
//   budget    each budget of puzzle.json, measured from the trace at its size:
//             global loads per output, sectors per request, bank conflicts,
//             shared accesses per output.
//
// GUI-free: the command line (`tilescope-cli check`) and the window share it.
//
//   PuzzleList all = load_puzzles();
//   const Puzzle* p = find_puzzle(all, "shared");
//   PuzzleGrade g = grade_puzzle(*p, "my_shared.hpp");
//   for (const RuleResult& r : g.rules) std::cout << r.rule << ": " << r.reason << "\n";
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/params.hpp"

namespace ts {

// A limit measured from the trace.
struct PuzzleBudget {
  // "global_loads_per_output", "global_load_sectors_per_request",
  // "global_store_sectors_per_request", "bank_conflicts" (extra shared
  // wavefronts, loads and stores), "shared_accesses_per_output".
  std::string metric;
  std::string array;  // only this array's accesses ("" = all)
  double max = 0;
  Params at;  // the size it is measured at (the puzzle's defaults for the rest)
  // The grader measures it at `at` and at twice that size, where a limit that
  // grows with a size (matmul's 2 n / tile loads per output) names it here:
  // the limit is then scaled by that parameter's ratio.
  std::string scales_with;
  std::string why;  // where the limit comes from, in the statement's words
};

struct Puzzle {
  std::string id;      // "shared": engine/puzzles.hpp's setup
  std::string folder;  // the puzzle's folder (absolute)
  int number = 0;      // its place in the course, from the folder name "08_shared"
  std::string title;
  std::string statement;
  std::vector<std::string> hints;  // unfolded one at a time
  std::vector<PuzzleBudget> budgets;
  // The student's start, in plain CUDA (docs/plain_cuda.md); the lesson-header one beside it.
  std::string skeleton_path() const { return folder + "/skeleton.cu"; }
  std::string skeleton_hpp_path() const { return folder + "/skeleton.hpp"; }
};

struct PuzzleList {
  std::string dir;
  std::vector<Puzzle> puzzles;        // in course order
  std::vector<std::string> problems;  // a folder that could not be read, and why
};

// The puzzles of `dir` (engine/puzzles.hpp's puzzles_dir() when empty).
PuzzleList load_puzzles(const std::string& dir = "");
// By id ("shared"), folder name ("08_shared") or number ("8"); nullptr when none.
const Puzzle* find_puzzle(const PuzzleList& list, std::string_view name);

enum class RuleStatus : uint8_t { Pass, Fail, NotChecked };
const char* to_string(RuleStatus s);  // "pass", "fail", "not checked"

struct RuleResult {
  std::string rule;  // "compiles", "setup", "output", "hazards", "budget <metric>"
  RuleStatus status = RuleStatus::NotChecked;
  std::string reason;  // what failed and where, or what passed
  // Where it failed, when it is a place: the solution's line (a compile
  // error, an access), the other line of a racing pair, the size.
  int line = 0, other_line = 0;
  std::string at;  // "length=17"
  // output: the first wrong cell, its value and the expected one.
  std::string cell;
  double got = 0, expected = 0;
  bool never_written = false;
  // budget: what was measured against the limit.
  double measured = 0, limit = 0;
};

struct PuzzleGrade {
  std::string puzzle;  // id
  std::string solution;
  bool passed = false;
  std::vector<RuleResult> rules;
  bool cached = false;         // the plug-in came from the cache
  double compile_seconds = 0;  // compile and load
  double seconds = 0;          // everything
  const RuleResult* first_failure() const;
};

struct GradeOptions {
  // Also run each hidden size on the GPU (the rule "gpu": the GPU's output is
  // right and each thread's accesses are the simulator's). Needs a usable GPU
  // and a plug-in compiled with nvcc (engine/lesson_file.hpp does where there
  // is one); the simulator's rules are the same either way.
  bool gpu = false;
};

PuzzleGrade grade_puzzle(const Puzzle& puzzle, const std::string& solution_path,
                         const GradeOptions& options = {});

// A student's progress: "solved" or "attempted" by puzzle id, kept with the
// user's data (puzzle_progress_path()), never in the working folder. The
// window's Puzzles panel records every grade; `tilescope-cli check --record` too.
inline constexpr const char* kPuzzleProgressFile = "tilescope_puzzles.json";
// $TILESCOPE_PROGRESS (a file), else $XDG_DATA_HOME/tilescope/puzzles.json,
// else ~/.local/share/tilescope/puzzles.json; kPuzzleProgressFile in the
// working folder only where there is no home at all.
std::string puzzle_progress_path();
using PuzzleProgress = std::map<std::string, std::string>;
// (analysis/puzzle_progress.cpp.) Empty where there is none; a file that is
// there but unreadable or not a progress file is empty too, and `problem`
// says so (naming it: it is kept, never written over).
PuzzleProgress read_puzzle_progress(const std::string& path, std::string* problem = nullptr);
// Records the grade (record_grade) in the file at `path`: read strictly,
// changed under a lock, written to a new file and renamed over it; a device
// is written directly, a FIFO or folder refused; a missing folder is made
// (0700). The reason it did not, or nullopt.
std::optional<std::string> record_puzzle_progress(const PuzzleGrade& g, const std::string& path);
// The grade's puzzle becomes "solved" when it passed, else "attempted"
// unless it was solved before (a solved puzzle stays solved).
void record_grade(PuzzleProgress& p, const PuzzleGrade& g);

// "length=17", "m=3 n=5": the parameters the puzzle declares.
std::string puzzle_params_text(const Puzzle& puzzle, const Params& p);

}  // namespace ts
