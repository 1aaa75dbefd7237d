// What the Banks panel says of the compiled level (app/views/compiled_note),
// without a window: at a merged load it names the wide instruction and how
// many source loads it serves; at a predicated access the warps that issue it
// with every lane off; the run's counts give both levels, source first.
#include <gtest/gtest.h>

#include <string>

#include "app/views/compiled_note.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace ts::app {
namespace {

Trace simulate(const LessonInfo& v) {
  RunRequest req;
  req.lesson_id = v.id;
  req.params = v.defaults;
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << v.id << ": " << r.error;
  return std::move(r.trace);
}

// The first source access whose compiled access has `property`, and its note.
template <class Has>
std::string note_where(const LessonInfo& v, Has has) {
  const Trace t = simulate(v);
  const auto w = build_warp_index(t);
  for (const WarpAccess& a : w->accesses.accesses)
    if (const WarpAccess* c = compiled_of(w->compiled, w->accesses, t, a); c && has(*w, *c))
      return compiled_note(*w, t, a);
  return "";
}

TEST(CompiledNote, AMergedLoadNamesItsWideInstruction) {
  // The window's default lesson: its inner loop reads a row of one tile.
  const std::string note = note_where(
      picks::default_lesson(), [](const WarpIndex&, const WarpAccess& c) { return c.merged > 1; });
  EXPECT_EQ(note.rfind("GPU: this line's 4 loads per lane run as one LDS.128 (", 0), 0u) << note;
  EXPECT_NE(note.find("Nsight Compute counts the GPU's."), std::string::npos) << note;
}

TEST(CompiledNote, APredicatedAccessNamesTheWarpsWithEveryLaneOff) {
  bool seen = false;
  for (const LessonInfo& v : all_lessons()) {
    const std::string note = note_where(v, [](const WarpIndex& w, const WarpAccess& c) {
      for (const WarpAccess& x : w.compiled.accesses)
        if (x.idle && x.block == c.block && x.phase == c.phase && x.line == c.line &&
            x.kind == c.kind && x.array == c.array)
          return true;
      return false;
    });
    if (note.empty()) continue;
    seen = true;
    EXPECT_NE(note.find("of this block issue it too, every lane predicated off ("),
              std::string::npos)
        << v.id << ": " << note;
    break;
  }
  EXPECT_TRUE(seen) << "some lesson guards a shared access with a predicate";
}

// Where the lesson has no current compiled-code table (edited since it was
// made, or a lesson file), the panel says why instead of a GPU count.
TEST(CompiledNote, WithoutACompiledKernelTheNoteSaysWhy) {
  const Trace t = simulate(picks::default_lesson());
  WarpIndex w = *build_warp_index(t);
  ASSERT_FALSE(w.accesses.accesses.empty());
  w.code = nullptr;
  w.why_source = "the compiled-code table for this lesson was made from other sources";
  EXPECT_EQ(compiled_note(w, t, w.accesses.accesses[0]),
            "GPU: not shown, the compiled-code table for this lesson was made from other "
            "sources.");
}

TEST(CompiledNote, TotalsGiveTheSourceThenTheGpu) {
  const Trace t = simulate(picks::default_lesson());
  const auto w = build_warp_index(t);
  const std::vector<std::string> lines = level_totals(*w);
  ASSERT_FALSE(lines.empty());
  const AccessTotals& s = w->accesses.totals(EventKind::SharedLoad);
  const AccessTotals& c = w->compiled.totals(EventKind::SharedLoad);
  ASSERT_LT(c.instructions(), s.requests) << "the default lesson's loads merge";
  EXPECT_EQ(lines[0], "shared loads: source " + std::to_string(s.requests) + " accesses, " +
                          std::to_string(s.wavefronts) + " wavefronts; GPU " +
                          std::to_string(c.instructions()) + " instructions, " +
                          std::to_string(c.wavefronts) + " wavefronts");
}

}  // namespace
}  // namespace ts::app
