// Predict, then reveal: quiz questions generated from a recorded run and
// graded by it, with no hand-written answers. Every question names arrays,
// blocks, threads and barriers as the trace's array table and events do, so
// any lesson (and any trace file) gets its quiz.
//
//   std::vector<Question> q = make_questions(trace, seed);
//   Grade g = grade(q[0], answer);   // right, and the missed and extra cells
//
// Kinds, each only where the trace supports it:
//   LoadCells      which cells of a global input does block b (or one of its
//                  warps, or threads, where the block's are too many) load
//                  between two barriers?
//   SharedReads    which cells of a shared array does thread t read between
//                  two barriers?
//   LastWarp       which warp of block b reaches barrier k last (this run's order)?
//   WrongWithout   which output cells will be wrong without barrier k? The truth
//                  needs a second run without it (wrong_without_request()), which
//                  the caller makes and hands to settle_wrong_without().
//   BankWays       how many ways does this shared warp access conflict?
//   Sectors        how many 32-byte sectors does this global warp load touch?
// Phases are counted as the replay counts them: the block-wide barriers a
// thread has left (0 before the first), a __syncwarp is no boundary. A
// question names its phase as a class reasons about it, never by number:
// "before barrier 1", "between barriers 1 and 2", "in the loop's 2nd pass,
// before barrier 1" where a barrier repeats in a loop.
// A class answers every cell question live: its truth takes at most kMaxPicks
// picks, a click picking a cell and a drag a rectangle (picks_for()); where a
// block's cells take more, the question asks about a warp or a thread. No two
// questions of a quiz ask the same fact (Question::fact).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "model/trace.hpp"

namespace ts {

enum class QuestionKind : uint8_t {
  LoadCells,
  SharedReads,
  LastWarp,
  WrongWithout,
  BankWays,
  Sectors
};
const char* to_string(QuestionKind k);

struct Question {
  QuestionKind kind = QuestionKind::LoadCells;
  std::string text;  // the question as the band shows it
  std::string hint;  // how to answer: "click the cells, then Enter"

  // Cell questions: the array whose cells are the answer (shared: the copy of `block`).
  ArraySlot array = kNoArray;
  uint32_t block = 0;
  int thread = -1;                    // SharedReads, LoadCells: the thread asked about
  int warp = -1;                      // LoadCells, WrongWithout: the warp asked about
  int phase = 0;                      // LoadCells, SharedReads, LastWarp: the phase asked about
  int barrier = 0;                    // LastWarp, WrongWithout: the barrier's id (1-based)
  std::vector<uint32_t> truth_cells;  // sorted, distinct elements of `array`

  // Choice questions: the answer is an index into choices.
  std::vector<std::string> choices;
  int truth_choice = -1;
  int truth_number = 0;  // BankWays, Sectors: the number the right choice names

  // The trace events the truth comes from (trace indices): the replay stops
  // just before the first and the reveal shows them all.
  std::vector<uint32_t> events;

  // WrongWithout: the run without the barrier; truth_cells is known once settled.
  std::optional<RunRequest> rerun;
  bool settled = true;
  // WrongWithout, settled with the asked trace: the output cells the question
  // is about (those `block`, or its warp `warp`, writes); empty: all of them.
  std::vector<uint32_t> scope_cells;
  uint64_t salt = 0;  // WrongWithout: picks that block or warp, from the seed

  // What is asked, without who is asked about: the kind, the array, the phase
  // or site and the truth's shape moved to its corner. Two blocks loading the
  // same pattern ask one fact.
  std::string fact;

  bool cells() const { return choices.empty(); }
};

struct Answer {
  std::vector<uint32_t> cells;  // cell questions: the elements chosen (any order)
  int choice = -1;              // choice questions
};

struct Grade {
  bool graded = false;  // false: an unsettled WrongWithout question
  bool right = false;
  std::vector<uint32_t> hit, missed, extra;  // cell questions, sorted
  int truth_choice = -1;
};

struct QuizOptions {
  int per_kind = 1;  // questions of each kind (cell questions: LoadCells twice this)
  // Offer WrongWithout questions (the caller must settle them with a second run).
  bool wrong_without = true;
};

// Deterministic in the seed: the same trace and seed give the same quiz.
std::vector<Question> make_questions(const Trace& t, uint64_t seed, const QuizOptions& opt = {});

// Grades an answer; cells compare as sets.
Grade grade(const Question& q, const Answer& a);

// A cell question's answer in picks: a click picks one cell, a drag the
// rectangle of a 2-D array it spans (a range of a 1-D one). At most
// kMaxPicks: a class can answer it live.
inline constexpr int kMaxPicks = 32;
// The picks that make exactly `cells` (greedy row runs stacked into
// rectangles: an upper bound of the fewest).
int picks_for(const std::vector<uint32_t>& cells, const ArrayInfo& a);
// The elements of rows r0..r1 and columns c0..c1 of `a` (in any order of the
// corners, clipped to the array), sorted. A 1-D array is one row.
std::vector<uint32_t> rectangle_cells(const ArrayInfo& a, int r0, int c0, int r1, int c1);

// The run that tells which outputs go wrong without the question's barrier:
// the same lesson, parameters and inputs on the simulator, with the warp-skew
// schedule, which makes a missing barrier's race bite (as the race lab does).
RunRequest wrong_without_request(const Trace& t, int barrier);
// The truth of a WrongWithout question from that run's trace: the output cells
// that differ from the reference. False when the run cannot be checked. With
// the asked trace, a truth of more than kMaxPicks picks narrows the question
// to the cells one block (or warp) writes, chosen by the question's salt.
bool settle_wrong_without(Question& q, const Trace& run_without, const Trace* asked = nullptr);

// The numeric choices offered for a number question: 1, 2, 4, ... 32 and the truth.
std::vector<int> number_choices(int truth);

}  // namespace ts
