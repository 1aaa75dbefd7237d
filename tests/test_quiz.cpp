// The quiz (analysis/quiz.hpp): questions generated from a run and graded by
// it. Each truth is recomputed here from the events, independently of the
// generator; right answers grade right, answers one cell off grade wrong and
// name that cell.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/quiz.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"

namespace ts {
namespace {

Trace simulate_defaults(const std::string& id) {
  const Variant* v = find_variant(id);
  EXPECT_NE(v, nullptr) << id;
  RunRequest req;
  req.variant = id;
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
  check_load_cells("matmul.tiled_square");
}
TEST(Quiz, LoadCellsStencil) {
  check_load_cells("stencil.shared");
}

TEST(Quiz, SharedReadsAreTheThreadsLoadsInItsPhase) {
  const Trace t = simulate_defaults("reduction.sequential");
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
  const Trace plain = simulate_defaults("transpose.shared");
  const std::vector<Question> qs = make_questions(plain, 3);
  const Question* q = first_of(qs, QuestionKind::BankWays);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->truth_number, 32) << q->text;  // the column read: one bank
  EXPECT_EQ(q->choices[size_t(q->truth_choice)], "32-way");
  EXPECT_TRUE(grade(*q, Answer{{}, q->truth_choice}).right);
  EXPECT_FALSE(grade(*q, Answer{{}, 0}).right);  // "1-way"

  const Trace padded = simulate_defaults("transpose.shared_padded");
  const std::vector<Question> qp = make_questions(padded, 3);
  const Question* p = first_of(qp, QuestionKind::BankWays);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->truth_number, 1) << p->text;
  EXPECT_EQ(p->choices[size_t(p->truth_choice)], "1-way");
}

TEST(Quiz, SectorsOfACoalescedLoad) {
  // transpose.shared reads `in` row by row: 32 lanes x 4 bytes, 4 sectors.
  const Trace t = simulate_defaults("transpose.shared");
  const std::vector<Question> qs = make_questions(t, 1);
  const Question* q = first_of(qs, QuestionKind::Sectors);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->truth_number, 4) << q->text;
  EXPECT_TRUE(grade(*q, Answer{{}, q->truth_choice}).right);
}

TEST(Quiz, LastWarpIsTheLastToArrive) {
  const Trace t = simulate_defaults("matmul.tiled_square");  // tile 8: two warps a block
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
  const Trace t = simulate_defaults("matmul.tiled_square");
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
  for (const Variant& v : catalogue()) {
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

TEST(Quiz, TheSameSeedGivesTheSameQuiz) {
  const Trace t = simulate_defaults("matmul.tiled_square");
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

}  // namespace
}  // namespace ts
