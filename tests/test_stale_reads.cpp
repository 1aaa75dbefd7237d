// Stale reads, output damage and repeated race runs: what a race actually did.
#include <gtest/gtest.h>

#include <atomic>

#include "analysis/hazards.hpp"
#include "analysis/race_runs.hpp"
#include "analysis/stale_reads.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The hand-built events are the default lesson's (the tiled multiply's).
ArraySlot slot_a() {
  return picks::default_lesson_slot("A");
}
ArraySlot slot_tile_a() {
  return picks::default_lesson_slot("tileA");
}

Event load(uint32_t block, uint16_t thread, ArraySlot buf, uint32_t element, float value) {
  Event e{};
  e.block = block;
  e.thread = thread;
  e.kind = buf == slot_a() ? EventKind::GlobalLoad : EventKind::SharedLoad;
  e.array = buf;
  e.element = element;
  e.value = value;
  e.line = 40;
  return e;
}

TEST(StaleReads, MatchesLoadsByThreadAndPosition) {
  Trace ref, run;
  ref.config.lesson_id = run.config.lesson_id = picks::default_lesson().id;
  // Reference: thread 0 loads A[0] = 1 then tileA[3] = 2; thread 1 loads tileA[3] = 2.
  ref.events = {load(0, 0, slot_a(), 0, 1), load(0, 0, slot_tile_a(), 3, 2),
                load(0, 1, slot_tile_a(), 3, 2)};
  // The run interleaves differently (positions per thread stay), and thread
  // 1 saw the old contents of tileA[3].
  run.events = {load(0, 1, slot_tile_a(), 3, 0), load(0, 0, slot_a(), 0, 1),
                load(0, 0, slot_tile_a(), 3, 2)};
  StaleReadReport r = find_stale_reads(run, ref);
  ASSERT_TRUE(r.compared) << r.error;
  EXPECT_EQ(r.loads_compared, 3u);
  EXPECT_EQ(r.stale, 1u);
  EXPECT_EQ(r.stale_shared, 1u);
  EXPECT_EQ(r.unmatched, 0u);
  ASSERT_EQ(r.reads.size(), 1u);
  EXPECT_EQ(r.reads[0].event, 0u);
  EXPECT_EQ(r.reads[0].reference_event, 2u);
  EXPECT_EQ(r.reads[0].thread, 1);
  EXPECT_EQ(r.reads[0].got, 0.f);
  EXPECT_EQ(r.reads[0].expected, 2.f);
  ASSERT_EQ(r.by_line.size(), 1u);
  EXPECT_EQ(r.by_line[0].count, 1u);
}

TEST(StaleReads, DifferentElementsAreUnmatchedNotStale) {
  Trace ref, run;
  ref.events = {load(0, 0, slot_tile_a(), 3, 2)};
  run.events = {load(0, 0, slot_tile_a(), 4, 5), load(0, 0, slot_tile_a(), 5, 5)};
  StaleReadReport r = find_stale_reads(run, ref);
  ASSERT_TRUE(r.compared);
  EXPECT_EQ(r.stale, 0u);
  EXPECT_EQ(r.unmatched, 2u);
}

TEST(StaleReads, TruncatedTraceIsRefusedWithTheSizeThatFits) {
  Trace ref, run;
  run.events = {load(0, 0, slot_tile_a(), 3, 2)};
  run.events_dropped = 10;
  StaleReadReport r = find_stale_reads(run, ref);
  EXPECT_FALSE(r.compared);
  EXPECT_NE(r.error.find("11"), std::string::npos) << r.error;
}

RunResult sim_run(const char* lesson_id, Params p, uint32_t mask, ScheduleKind kind) {
  RunRequest req;
  req.lesson_id = lesson_id;
  req.params = p;
  req.barrier_mask = mask;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = kind;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << r.error;
  return r;
}

TEST(StaleReads, NoneWithAllBarriersOnAnySchedule) {
  for (const LessonInfo& v : all_lessons()) {
    for (ScheduleKind k : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random}) {
      SCOPED_TRACE(std::string(v.id) + " schedule " + std::to_string(int(k)));
      Params p = v.defaults;
      // The exact-multiples kernel is only right on multiples of its tile.
      if (std::string(v.id) == picks::overreaching_lesson().id) p.n = 2 * p.tile;
      // Racy on purpose with every barrier kept (scan.single_buffer's one buffer).
      if (v.tests.wrong_by_design && v.tests.wrong_by_design(p)) continue;
      RunResult r = sim_run(v.id, p, all_barriers(v), k);
      StaleReadReport s = find_stale_reads(r.trace);
      ASSERT_TRUE(s.compared) << s.error;
      EXPECT_GT(s.loads_compared, 0u);
      EXPECT_EQ(s.stale, 0u);
      EXPECT_EQ(s.unmatched, 0u);
      const OutputDamage d = output_damage(r.trace);
      ASSERT_TRUE(d.checked) << d.error;
      EXPECT_TRUE(d.wrong.empty());
    }
  }
}

TEST(StaleReads, WarpSkewWithABarrierRemovedReadsStaleValues) {
  // Tile 16: two warps per block row pair; the skewed (odd) warps fall behind.
  const Params p{.n = 32, .tile = 16};
  for (uint32_t mask : {0x2u /* barrier 1 removed */, 0x1u /* barrier 2 removed */}) {
    SCOPED_TRACE("mask " + std::to_string(mask));
    RunResult r = sim_run(picks::default_lesson().id, p, mask, ScheduleKind::WarpSkew);
    StaleReadReport s = find_stale_reads(r.trace);
    ASSERT_TRUE(s.compared) << s.error;
    EXPECT_GT(s.stale, 0u);
    EXPECT_EQ(s.stale_global, 0u) << "inputs never change: only shared loads go stale";
    EXPECT_EQ(s.stale, s.stale_shared);
    for (const auto& sr : s.reads) {
      EXPECT_TRUE(sr.buffer == slot_tile_a() || sr.buffer == picks::default_lesson_slot("tileB"));
      EXPECT_NE(sr.got, sr.expected);
      EXPECT_EQ(r.trace.events[sr.event].value, sr.got);
    }
    // And so the output is wrong, by a measurable amount.
    const OutputDamage d = output_damage(r.trace);
    ASSERT_TRUE(d.checked) << d.error;
    EXPECT_FALSE(d.wrong.empty());
    EXPECT_EQ(d.wrong.size(), r.verdict.wrong_cells.size());
    EXPECT_GT(d.max_abs_error, 0.0);
    EXPECT_EQ(d.wrong.front().abs_error, d.max_abs_error);
    for (const auto& c : d.wrong)
      EXPECT_NE(c.got, c.want);
  }
}

TEST(StaleReads, LockstepRaceIsPresentButDoesNotBite) {
  // Lockstep keeps every warp in step: the missing barrier's race is there
  // (hazards), yet every load sees what the synchronised program saw.
  RunResult r = sim_run(picks::default_lesson().id, Params{.n = 32, .tile = 16}, 0x1u,
                        ScheduleKind::Lockstep);
  EXPECT_FALSE(analyze_hazards(r.trace).empty());
  StaleReadReport s = find_stale_reads(r.trace);
  ASSERT_TRUE(s.compared) << s.error;
  EXPECT_EQ(s.stale, 0u);
  EXPECT_TRUE(r.verdict.correct);
}

TEST(StaleReads, StencilWithoutBarrierUnderSkew) {
  RunResult r =
      sim_run(picks::halo_lesson(picks::Halo::StaticShared).id,
              Params{.length = 200, .radius = 3, .block = 64}, 0x0u, ScheduleKind::WarpSkew);
  StaleReadReport s = find_stale_reads(r.trace);
  ASSERT_TRUE(s.compared) << s.error;
  EXPECT_GT(s.stale_shared, 0u);
  EXPECT_FALSE(output_damage(r.trace).wrong.empty());
}

// ---- repeated runs ----

TEST(RaceRuns, RunCountOutOfRangeIsRefused) {
  RaceRunsRequest req;
  req.base.lesson_id = picks::default_lesson().id;
  for (int n : {0, -3, kMaxRaceRuns + 1}) {
    req.runs = n;
    auto err = validate_race_runs(req);
    ASSERT_TRUE(err.has_value()) << n;
    EXPECT_NE(err->find("1 to 10000"), std::string::npos) << *err;
    RaceRunsResult res = run_race_runs(req);
    EXPECT_FALSE(res.ok);
    EXPECT_EQ(res.error, *err);
  }
  req.runs = 1;
  req.base.lesson_id = "no.such.kernel";
  EXPECT_TRUE(validate_race_runs(req).has_value());
}

TEST(RaceRuns, HistogramBins) {
  RunHistogram h = make_histogram({0, 0, 3, 10, 1}, 4);
  ASSERT_EQ(h.counts.size(), 4u);  // 0 | 1-4 | 5-8 | 9-10
  EXPECT_EQ(h.counts[0], 2u);
  EXPECT_EQ(h.lower[1], 1u);
  EXPECT_EQ(h.upper[1], 4u);
  EXPECT_EQ(h.counts[1], 2u);
  EXPECT_EQ(h.counts[2], 0u);
  EXPECT_EQ(h.counts[3], 1u);
  EXPECT_EQ(h.upper.back(), 10u);
  // All wrong by the same amount: one bar for that amount, not an empty axis.
  RunHistogram same = make_histogram({504, 504, 0}, 10);
  ASSERT_EQ(same.counts.size(), 2u);
  EXPECT_EQ(same.counts[0], 1u);
  EXPECT_EQ(same.lower[1], 504u);
  EXPECT_EQ(same.upper[1], 504u);
  EXPECT_EQ(same.counts[1], 2u);
  RunHistogram spread = make_histogram({100, 190}, 10);  // 9 bins of 10 over 100..190
  EXPECT_EQ(spread.lower[1], 100u);
  EXPECT_EQ(spread.upper.back(), 190u);
  EXPECT_EQ(spread.counts[1] + spread.counts.back(), 2u);
  RunHistogram none = make_histogram({0, 0, 0});
  ASSERT_EQ(none.counts.size(), 1u);
  EXPECT_EQ(none.counts[0], 3u);
}

RaceRunsRequest sim_request(uint32_t mask, int runs) {
  RaceRunsRequest req;
  req.base.lesson_id = picks::default_lesson().id;
  req.base.params = Params{.n = 32, .tile = 16};
  req.base.barrier_mask = mask;
  req.base.backend = BackendChoice::Sim;
  req.base.schedule.kind = ScheduleKind::Random;  // seeds 1..runs; lockstep would run once
  req.runs = runs;
  return req;
}

TEST(RaceRuns, AllBarriersNeverWrong) {
  int calls = 0;
  RaceRunsResult res = run_race_runs(sim_request(0x3u, 4), [&](int done, int total) {
    ++calls;
    EXPECT_EQ(total, 4);
    EXPECT_EQ(done, calls);
  });
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(res.runs_done, 4);
  EXPECT_EQ(res.wrong_runs, 0);
  EXPECT_TRUE(res.hazards_checked);
  EXPECT_FALSE(res.race_present());
  EXPECT_EQ(res.wrong_cells_per_run, std::vector<uint32_t>(4, 0));
  EXPECT_EQ(res.output_cells, 32u * 32u);
  EXPECT_EQ(res.state(), "no race found; output right in all 4 runs");
}

TEST(RaceRuns, RaceFoundWhetherOrNotItBit) {
  RaceRunsResult res = run_race_runs(sim_request(0x1u, 4));
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_TRUE(res.race_present());
  EXPECT_EQ(res.runs_done, 4);
  EXPECT_EQ(res.state().rfind("race present", 0), 0u) << res.state();
  uint32_t histogram_runs = 0;
  for (uint32_t c : res.histogram.counts)
    histogram_runs += c;
  EXPECT_EQ(histogram_runs, 4u);
  int wrong = 0;
  for (uint32_t w : res.wrong_cells_per_run)
    wrong += w > 0;
  EXPECT_EQ(wrong, res.wrong_runs);
  std::printf("simulator, random schedules, barrier 2 removed: %d of 4 runs wrong; %s\n",
              res.wrong_runs, res.state().c_str());
}

TEST(RaceRuns, SkewScheduleMakesItBiteEveryTime) {
  RaceRunsRequest req = sim_request(0x1u, 3);
  req.base.schedule.kind = ScheduleKind::WarpSkew;
  RaceRunsResult res = run_race_runs(req);
  ASSERT_TRUE(res.ok) << res.error;
  // Deterministic: one run stands for all three, and the result says so.
  EXPECT_TRUE(res.deterministic);
  EXPECT_EQ(res.runs_done, 1);
  EXPECT_EQ(res.wrong_runs, 1);
  EXPECT_NE(res.plan.find("ran once (not 3 times"), std::string::npos) << res.plan;
  EXPECT_GT(res.max_abs_error, 0.0);
  EXPECT_NE(res.state().find("it bit"), std::string::npos) << res.state();
}

TEST(RaceRuns, CancelStopsBetweenRuns) {
  std::atomic<bool> cancel{false};
  RaceRunsResult res = run_race_runs(
      sim_request(0x3u, 50),
      [&](int done, int) {
        if (done == 2) cancel = true;
      },
      &cancel);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_TRUE(res.cancelled);
  EXPECT_EQ(res.runs_done, 2);
  EXPECT_NE(res.state().find("cancelled after 2 of 50"), std::string::npos) << res.state();
}

TEST(RaceRuns, ConfigurationThatCannotRunSaysWhy) {
  RaceRunsRequest req = sim_request(0x3u, 2);
  req.base.params.tile = 64;
  RaceRunsResult res = run_race_runs(req);
  EXPECT_FALSE(res.ok);
  EXPECT_FALSE(res.error.empty());
}

}  // namespace
}  // namespace ts
