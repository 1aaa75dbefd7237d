// The quiz (analysis/quiz.hpp): questions generated from a run and graded by
// it. Each truth is recomputed here from the events, independently of the
// generator; right answers grade right, answers one cell off grade wrong and
// name that cell.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "analysis/quiz.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

Trace simulate_defaults(const std::string& id) {
  const LessonInfo* v = find_lesson(id);
  EXPECT_NE(v, nullptr) << id;
  RunRequest req;
  req.lesson_id = id;
  req.params = v ? v->defaults : Params{};
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  return std::move(r.trace);
}

const Question* first_of(const std::vector<Question>& qs, QuestionKind k) {
  for (const Question& q : qs)
    if (q.kind == k) return &q;
  return nullptr;
}

// The elements block `block` loads from `array` in phase `phase`, counted from
// the events: a thread's phase goes up when it leaves a block-wide barrier.
std::set<uint32_t> loaded_in_phase(const Trace& t, ArraySlot array, uint32_t block, int phase) {
  std::map<std::pair<uint32_t, uint32_t>, int> left;
  std::set<uint32_t> cells;
  for (const Event& e : t.events) {
    int& p = left[{e.block, e.thread}];
    if (e.kind == EventKind::BarrierLeave && !(e.flags & kFlagWarpScope)) ++p;
    if (e.kind == EventKind::GlobalLoad && e.array == array && e.block == block && p == phase)
      cells.insert(e.element);
  }
  return cells;
}

void check_load_cells(const std::string& id) {
  SCOPED_TRACE(id);
  const Trace t = simulate_defaults(id);
  const std::vector<Question> qs = make_questions(t, 7);
  const Question* q = first_of(qs, QuestionKind::LoadCells);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q->text.find(array_name(t.config.arrays, q->array)), std::string::npos) << q->text;
  const std::set<uint32_t> want = loaded_in_phase(t, q->array, q->block, q->phase);
  ASSERT_GE(want.size(), 2u);
  EXPECT_EQ(std::vector<uint32_t>(want.begin(), want.end()), q->truth_cells);

  Answer right{q->truth_cells};
  std::reverse(right.cells.begin(), right.cells.end());  // a set: any order
  const Grade g = grade(*q, right);
  EXPECT_TRUE(g.graded);
  EXPECT_TRUE(g.right);
  EXPECT_TRUE(g.missed.empty() && g.extra.empty());
  EXPECT_EQ(g.hit, q->truth_cells);

  Answer missing = right;
  const uint32_t dropped = missing.cells.back();
  missing.cells.pop_back();
  const Grade gm = grade(*q, missing);
  EXPECT_FALSE(gm.right);
  EXPECT_EQ(gm.missed, std::vector<uint32_t>{dropped});
  EXPECT_TRUE(gm.extra.empty());

  uint32_t outside = 0;  // a cell of the array the block does not load in that phase
  while (want.count(outside))
    ++outside;
  Answer extra = right;
  extra.cells.push_back(outside);
  const Grade ge = grade(*q, extra);
  EXPECT_FALSE(ge.right);
  EXPECT_TRUE(ge.missed.empty());
  EXPECT_EQ(ge.extra, std::vector<uint32_t>{outside});
}

TEST(Quiz, LoadCellsTiledMultiply) {
  check_load_cells(picks::default_lesson().id);
}
TEST(Quiz, LoadCellsStencil) {
  check_load_cells(picks::halo_lesson(picks::Halo::StaticShared).id);
}

TEST(Quiz, SharedReadsAreTheThreadsLoadsInItsPhase) {
  // A tree reduction: each barrier phase reads other threads' shared cells.
  const Trace t =
      simulate_defaults(picks::first_with("a 1D lesson with one shared array and two barriers",
                                          [](const LessonInfo& v) {
                                            return picks::reads(v, kUsesLength | kUsesBlock) &&
                                                   picks::shared_array_count(v) == 1 &&
                                                   v.barriers.size() >= 2;
                                          })
                            .id);
  const Question* q = nullptr;
  std::vector<Question> qs;
  for (uint64_t seed = 1; seed < 5 && !q; ++seed) {
    qs = make_questions(t, seed);
    q = first_of(qs, QuestionKind::SharedReads);
  }
  ASSERT_NE(q, nullptr);
  std::map<std::pair<uint32_t, uint32_t>, int> left;
  std::set<uint32_t> want;
  for (const Event& e : t.events) {
    int& p = left[{e.block, e.thread}];
    if (e.kind == EventKind::BarrierLeave && !(e.flags & kFlagWarpScope)) ++p;
    if (e.kind == EventKind::SharedLoad && e.array == q->array && e.block == q->block &&
        e.thread == q->thread && p == q->phase)
      want.insert(e.element);
  }
  EXPECT_EQ(std::vector<uint32_t>(want.begin(), want.end()), q->truth_cells) << q->text;
  EXPECT_TRUE(grade(*q, Answer{q->truth_cells}).right);
  EXPECT_FALSE(grade(*q, Answer{}).right);
}

TEST(Quiz, BankWaysOfTheTransposes) {
  const Trace plain = simulate_defaults(picks::layout_lesson().id);
  const std::vector<Question> qs = make_questions(plain, 3);
  const Question* q = first_of(qs, QuestionKind::BankWays);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->truth_number, 32) << q->text;  // the column read: one bank
  EXPECT_EQ(q->choices[size_t(q->truth_choice)], "32-way");
  EXPECT_TRUE(grade(*q, Answer{{}, q->truth_choice}).right);
  EXPECT_FALSE(grade(*q, Answer{{}, 0}).right);  // "1-way"

  const Trace padded = simulate_defaults(picks::padded_layout_lesson().id);
  const std::vector<Question> qp = make_questions(padded, 3);
  const Question* p = first_of(qp, QuestionKind::BankWays);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->truth_number, 1) << p->text;
  EXPECT_EQ(p->choices[size_t(p->truth_choice)], "1-way");
}

TEST(Quiz, SectorsOfACoalescedLoad) {
  // transpose.shared reads `in` row by row: 32 lanes x 4 bytes, 4 sectors.
  const Trace t = simulate_defaults(picks::layout_lesson().id);
  const std::vector<Question> qs = make_questions(t, 1);
  const Question* q = first_of(qs, QuestionKind::Sectors);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->truth_number, 4) << q->text;
  EXPECT_TRUE(grade(*q, Answer{{}, q->truth_choice}).right);
}

TEST(Quiz, LastWarpIsTheLastToArrive) {
  const Trace t = simulate_defaults(picks::default_lesson().id);  // tile 8: two warps a block
  const std::vector<Question> qs = make_questions(t, 2);
  const Question* q = first_of(qs, QuestionKind::LastWarp);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q->hint.find("this recorded run"), std::string::npos);
  uint32_t last = 0;  // the last arrival in the trace's (the simulator's recorded) order
  for (uint32_t i : q->events)
    last = std::max(last, i);
  EXPECT_EQ(q->truth_choice, int(warp_of(t.events[last])));
  EXPECT_TRUE(grade(*q, Answer{{}, q->truth_choice}).right);
  EXPECT_FALSE(grade(*q, Answer{{}, 1 - q->truth_choice}).right);
}

TEST(Quiz, WrongWithoutABarrierIsGradedByTheSecondRun) {
  const Trace t = simulate_defaults(picks::default_lesson().id);
  std::vector<Question> qs = make_questions(t, 5);
  Question* q = nullptr;
  for (Question& c : qs)
    if (c.kind == QuestionKind::WrongWithout) q = &c;
  ASSERT_NE(q, nullptr);
  ASSERT_TRUE(q->rerun.has_value());
  EXPECT_FALSE(grade(*q, Answer{}).graded);  // not before the second run
  const RunResult without = run(*q->rerun);
  ASSERT_TRUE(without.ok) << without.error;
  ASSERT_TRUE(settle_wrong_without(*q, without.trace));
  EXPECT_EQ(q->truth_cells, without.verdict.wrong_cells);
  EXPECT_FALSE(q->truth_cells.empty()) << q->text;  // two warps, odd one skewed: it bites
  EXPECT_TRUE(grade(*q, Answer{q->truth_cells}).right);
  EXPECT_FALSE(grade(*q, Answer{}).right);
}

TEST(Quiz, EveryLessonGetsQuestions) {
  for (const LessonInfo& v : all_lessons()) {
    SCOPED_TRACE(v.id);
    const Trace t = simulate_defaults(v.id);
    const std::vector<Question> qs = make_questions(t, 1);
    EXPECT_FALSE(qs.empty());
    for (const Question& q : qs) {
      EXPECT_FALSE(q.text.empty());
      if (q.settled) {
        // The truth grades right.
        Answer a{q.truth_cells, q.truth_choice};
        EXPECT_TRUE(grade(q, a).right) << q.text;
      }
    }
  }
}

// Rectangles counted by hand: a click picks a cell, a drag a rectangle of a
// 2-D array or a range of a 1-D one.
TEST(Quiz, PicksCountCellsAndRectangles) {
  ArrayInfo m;
  m.rows = 8;
  m.cols = 8;
  EXPECT_EQ(picks_for({}, m), 0);
  EXPECT_EQ(picks_for(rectangle_cells(m, 2, 1, 5, 6), m), 1);  // one drag
  EXPECT_EQ(rectangle_cells(m, 5, 6, 2, 1), rectangle_cells(m, 2, 1, 5, 6));
  EXPECT_EQ(rectangle_cells(m, 2, 1, 5, 6).size(), 4u * 6u);
  EXPECT_EQ(picks_for(rectangle_cells(m, 0, 3, 7, 3), m), 1);  // a column
  std::vector<uint32_t> ell = rectangle_cells(m, 0, 0, 3, 0);  // an L: two drags
  for (uint32_t e : rectangle_cells(m, 3, 1, 3, 5))
    ell.push_back(e);
  std::sort(ell.begin(), ell.end());
  EXPECT_EQ(picks_for(ell, m), 2);
  std::vector<uint32_t> diagonal;  // no two touch: one click each
  for (uint32_t i = 0; i < 8; ++i)
    diagonal.push_back(i * 9);
  EXPECT_EQ(picks_for(diagonal, m), 8);
  ArrayInfo v;  // 1-D: a range is one drag, even across the drawn rows
  v.rows = 1;
  v.cols = 300;
  EXPECT_EQ(picks_for(rectangle_cells(v, 0, 10, 0, 200), v), 1);
  EXPECT_EQ(rectangle_cells(v, 0, 10, 0, 200).size(), 191u);
  EXPECT_EQ(picks_for({1, 2, 3, 7, 8}, v), 2);
}

// The questions of a quiz with their WrongWithout questions settled as the
// window settles them (a run without the barrier).
std::vector<Question> settled_quiz(const Trace& t, uint64_t seed) {
  std::vector<Question> qs = make_questions(t, seed);
  for (auto it = qs.begin(); it != qs.end();) {
    bool keep = it->settled;
    if (!keep && it->rerun) {
      const RunResult r = run(*it->rerun);
      keep = r.ok && settle_wrong_without(*it, r.trace, &t);
    }
    it = keep ? it + 1 : qs.erase(it);
  }
  return qs;
}

// Every cell question of every lesson can be answered live: its truth takes at
// most kMaxPicks clicks and drags (the transposes asked for 512 clicks).
TEST(Quiz, EveryCellQuestionIsAnswerableInALecture) {
  for (const LessonInfo& v : all_lessons()) {
    SCOPED_TRACE(v.id);
    const Trace t = simulate_defaults(v.id);
    for (uint64_t seed : {1u, 2u, 3u}) {
      for (const Question& q : settled_quiz(t, seed)) {
        if (!q.cells()) continue;
        const ArrayInfo* a = t.array(q.array);
        ASSERT_NE(a, nullptr) << q.text;
        EXPECT_LE(picks_for(q.truth_cells, *a), kMaxPicks)
            << q.text << ": " << q.truth_cells.size() << " cells";
        for (uint32_t e : q.truth_cells)
          EXPECT_LT(e, a->count()) << q.text;
        if (!q.scope_cells.empty()) {  // narrowed: the truth lies in the cells asked about
          EXPECT_TRUE(std::includes(q.scope_cells.begin(), q.scope_cells.end(),
                                    q.truth_cells.begin(), q.truth_cells.end()))
              << q.text;
          EXPECT_TRUE(grade(q, Answer{q.truth_cells}).right) << q.text;
        }
      }
    }
  }
}

// A block whose loads are scattered (64 cells, no two adjacent: 64 picks) is
// asked about one warp's 32 cells instead: the kind stays, the unit shrinks.
TEST(Quiz, ScatteredLoadsAskAboutOneWarp) {
  Trace t;
  t.config.geometry.grid = {1, 1, 1};
  t.config.geometry.block = {64, 1, 1};
  ArrayInfo in;
  in.name = "in";
  in.rows = 1;
  in.cols = 1024;
  t.config.arrays = {in};
  for (uint16_t th = 0; th < 64; ++th) {
    Event e{};
    e.kind = EventKind::GlobalLoad;
    e.array = 1;
    e.thread = th;
    e.element = uint32_t(th) * 7;  // no two next to each other
    t.events.push_back(e);
  }
  const std::vector<Question> qs = make_questions(t, 1);
  const Question* q = first_of(qs, QuestionKind::LoadCells);
  ASSERT_NE(q, nullptr);
  ASSERT_GE(q->warp, 0) << q->text;
  EXPECT_NE(q->text.find("warp " + std::to_string(q->warp) + " of block 0"), std::string::npos)
      << q->text;
  std::vector<uint32_t> want;
  for (uint32_t th = uint32_t(q->warp) * 32; th < uint32_t(q->warp + 1) * 32; ++th)
    want.push_back(th * 7);
  EXPECT_EQ(q->truth_cells, want);
  EXPECT_LE(picks_for(q->truth_cells, in), kMaxPicks);
}

// Where the outputs a missing barrier spoils take too many picks, the question
// asks about the cells one block (or warp) writes, shaded: the truth is the
// spoiled cells among those, recounted here from the stores and the verdict.
TEST(Quiz, WrongWithoutNarrowsToOneBlocksCells) {
  int narrowed = 0;
  for (const LessonInfo& v : all_lessons()) {
    SCOPED_TRACE(v.id);
    const Trace t = simulate_defaults(v.id);
    for (Question q : make_questions(t, 1)) {
      if (q.kind != QuestionKind::WrongWithout || !q.rerun) continue;
      const RunResult without = run(*q.rerun);
      ASSERT_TRUE(without.ok) << without.error;
      if (!settle_wrong_without(q, without.trace, &t)) continue;
      std::vector<uint32_t> all = without.verdict.wrong_cells;
      std::sort(all.begin(), all.end());
      if (q.scope_cells.empty()) {
        EXPECT_EQ(q.truth_cells, all) << q.text;
        continue;
      }
      ++narrowed;
      std::set<uint32_t> mine;  // what the block (warp) stores to the output
      for (const Event& e : t.events)
        if ((e.kind == EventKind::GlobalStore || e.kind == EventKind::GlobalAtomic) &&
            e.array == q.array && e.block == q.block && (q.warp < 0 || int(warp_of(e)) == q.warp) &&
            !(e.flags & kFlagOutOfRange))
          mine.insert(e.element);
      EXPECT_EQ(std::vector<uint32_t>(mine.begin(), mine.end()), q.scope_cells) << q.text;
      std::vector<uint32_t> want;
      std::set_intersection(all.begin(), all.end(), mine.begin(), mine.end(),
                            std::back_inserter(want));
      EXPECT_EQ(want, q.truth_cells) << q.text;
      EXPECT_NE(q.text.find(" writes to "), std::string::npos) << q.text;
    }
  }
  EXPECT_GT(narrowed, 0);  // the transposes spoil ~650 scattered cells without their barrier
}

// Two questions are one when they ask the same kind about the same thing for
// another block, warp or thread: the loads of one array in one phase (an edge
// tile smaller), the reads of one shared array in one phase, one access site,
// one barrier in one phase. Recomputed here from the events.
std::string pattern(const Trace& t, const Question& q) {
  std::string s = std::string(to_string(q.kind)) + "|" + std::to_string(q.array) + "|";
  if (q.cells())
    return s + std::to_string(q.phase) + "|" +
           (q.warp >= 0     ? "warp"
            : q.thread >= 0 ? "thread"
                            : "block");
  const Event& e = t.events[q.events.front()];
  return s + std::to_string(e.line) + "|" + std::to_string(q.barrier) + "|" +
         (q.kind == QuestionKind::LastWarp ? std::to_string(q.phase) : std::string());
}

TEST(Quiz, NoQuestionTwiceInAQuiz) {
  const LessonInfo& v = default_lesson();
  const Trace t = simulate_defaults(v.id);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<Question> qs = make_questions(t, seed);
    std::map<std::string, std::string> asked;  // pattern -> the question that asked it
    int cells = 0;
    for (const Question& q : qs) {
      if (q.events.empty()) continue;  // WrongWithout: one a barrier
      cells += q.cells();
      const auto [it, fresh] = asked.emplace(pattern(t, q), q.text);
      EXPECT_TRUE(fresh) << "asked twice: \"" << it->second << "\" and \"" << q.text << "\"";
    }
    EXPECT_GE(cells, 2);  // still two load questions and a shared-read one where it can
  }
}

TEST(Quiz, TheSameSeedGivesTheSameQuiz) {
  const Trace t = simulate_defaults(picks::default_lesson().id);
  const std::vector<Question> a = make_questions(t, 42), b = make_questions(t, 42);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GE(a.size(), 5u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].text, b[i].text);
    EXPECT_EQ(a[i].truth_cells, b[i].truth_cells);
    EXPECT_EQ(a[i].truth_choice, b[i].truth_choice);
  }
  bool differs = false;  // and another seed asks something else
  for (uint64_t seed = 43; seed < 48 && !differs; ++seed) {
    const std::vector<Question> c = make_questions(t, seed);
    differs = c.size() != a.size() || c[0].text != a[0].text || c[1].text != a[1].text;
  }
  EXPECT_TRUE(differs);
}

// A question says when in words a class reasons with: the barrier that ends
// the moment asked about ("before barrier 1", "between barriers 1 and 2"),
// and the loop's pass where that barrier repeats ("phase 2" of the tiled
// multiply was its second tile's load): never "phase 2" unexplained. The
// barrier and the pass are recounted here from the asked thread's events.
TEST(Quiz, QuestionsSayWhenByBarriersNotPhaseNumbers) {
  const std::regex phase_number("phase\\s*[0-9]");
  int checked = 0, passes = 0;
  for (const LessonInfo& v : all_lessons()) {
    if (v.barriers.empty()) continue;
    SCOPED_TRACE(v.id);
    const Trace t = simulate_defaults(v.id);
    QuizOptions opt;
    opt.wrong_without = false;
    for (uint64_t seed : {1u, 2u}) {
      for (const Question& q : make_questions(t, seed, opt)) {
        EXPECT_FALSE(std::regex_search(q.text, phase_number)) << q.text;
        if ((q.kind != QuestionKind::LoadCells && q.kind != QuestionKind::SharedReads) ||
            q.events.empty())
          continue;
        // The asked thread's next block-wide barrier after the first event, and
        // how many times it has reached that barrier then (that one included).
        const Event& first = t.events[q.events.front()];
        auto arrival = [&](const Event& e) {
          return e.kind == EventKind::BarrierArrive && !(e.flags & kFlagWarpScope) &&
                 e.block == first.block && e.thread == first.thread;
        };
        int next = 0, pass = 0, total = 0;
        for (size_t i = q.events.front(); i < t.events.size() && next == 0; ++i)
          if (arrival(t.events[i])) next = t.events[i].barrier;
        for (size_t i = 0; i < t.events.size(); ++i)
          if (arrival(t.events[i]) && t.events[i].barrier == next) {
            ++total;
            pass += i < q.events.front();
          }
        ++checked;
        if (next == 0) {
          EXPECT_NE(q.text.find("after"), std::string::npos) << q.text;
          continue;
        }
        const std::string n = std::to_string(next);
        const bool ends = q.text.find("before barrier " + n + "?") != std::string::npos ||
                          q.text.find(" and " + n + "?") != std::string::npos;
        EXPECT_TRUE(ends) << q.text << ": the moment ends at barrier " << n;
        if (total > 1) {
          ++passes;
          const std::string nth = std::to_string(pass + 1);
          EXPECT_NE(q.text.find("loop's " + nth), std::string::npos)
              << q.text << ": pass " << nth << " of " << total;
        }
      }
    }
  }
  EXPECT_GT(checked, 10);
  EXPECT_GT(passes, 2);  // the tiled multiplies and the tree reductions loop
}

}  // namespace
}  // namespace ts
