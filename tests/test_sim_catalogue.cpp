// Every catalogue lesson on the CPU simulator, through run_simulator: right
// output, event counts equal to their closed forms, deterministic schedules,
// races that bite under warp skew, faults instead of crashes, truncation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

struct Counts {
  uint64_t gl = 0, gs = 0, sl = 0, ss = 0, arrive = 0, leave = 0, out_of_range = 0;
  uint64_t cl = 0;  // GlobalLoad events on a constant-memory array (a mask)
  uint64_t sa = 0;  // SharedAtomic events
};

Counts count_events(const std::vector<Event>& events, const ArrayTable& table = {}) {
  Counts c;
  for (const Event& e : events) {
    switch (e.kind) {
      case EventKind::GlobalLoad:
        if (const ArrayInfo* a = array_at(table, e.array); a && a->space == Space::Constant)
          ++c.cl;
        else
          ++c.gl;
        break;
      case EventKind::GlobalStore:
        ++c.gs;
        break;
      case EventKind::SharedLoad:
        ++c.sl;
        break;
      case EventKind::SharedStore:
        ++c.ss;
        break;
      case EventKind::BarrierArrive:
        ++c.arrive;
        break;
      case EventKind::BarrierLeave:
        ++c.leave;
        break;
      case EventKind::SharedAtomic:
        ++c.sa;
        break;
      default:
        break;
    }
    c.out_of_range += (e.flags & kFlagOutOfRange) != 0;
  }
  return c;
}

// Parameter sets for a lesson: sizes that are and are not multiples of the
// tile (1, 7, 16, 17; 33 x 20 x 45 for the rectangular multiply), stencil
// lengths and radii with edges. Sets the lesson rejects are left out.
std::vector<Params> parameter_sets(const LessonInfo& v) {
  std::vector<Params> out;
  auto add = [&](Params p) {
    if (!validate(v, p, DeviceLimits{})) out.push_back(p);
  };
  if (!v.tile_choices.empty()) {  // the SGEMM ladder: each block tile, whole tiles only
    for (int tile : v.tile_choices)
      for (int n : {32, 64, 96, 128}) {
        Params p = v.defaults;
        p.tile = tile, p.n = n;
        add(p);
      }
  } else if (!(v.uses & kUsesLength)) {  // matrices: n, or m x k x n, or m x n
    const bool tiled = v.uses & kUsesTile;
    for (int tile : tiled ? std::vector<int>{4, 16} : std::vector<int>{0})
      for (int n : {1, 7, 16, 17}) {
        Params p = v.defaults;
        p.tile = tiled ? tile : p.tile;
        if (v.uses & kUsesBlock) p.block = 8;
        if (v.uses & (kUsesM | kUsesK)) {
          p.m = n, p.k = n, p.n = n;
          add(p);
          p.m = 33, p.k = 20, p.n = 45;
          if (n == 1) add(p);  // once per tile
          p.m = n, p.k = 17, p.n = 7;
          add(p);
        } else {
          p.n = n;
          add(p);
        }
      }
  } else {
    // The lesson's default block too, where that is the smallest it allows.
    std::vector<int> blocks = {8, 32};
    if (v.defaults.block > 32) blocks.push_back(v.defaults.block);
    for (int length : {1, 7, 16, 17, 100})
      for (int radius : {0, 1, 3})
        for (int block : blocks) {
          Params p = v.defaults;
          p.length = length, p.radius = radius, p.block = block;
          add(p);
        }
  }
  return out;
}

// A lesson wrong by design (the exact-multiples kernel off the tile) says where.
bool expected_correct(const LessonInfo& v, const Params& p) {
  return !v.tests.wrong_by_design || !v.tests.wrong_by_design(p);
}

TEST(SimCatalogue, EveryVariantMatchesTheReferenceWithClosedFormCounts) {
  ASSERT_FALSE(all_lessons().empty());
  int runs = 0;
  for (const LessonInfo& v : all_lessons()) {
    const std::vector<Params> sets = parameter_sets(v);
    EXPECT_GE(sets.size(), 4u) << v.id << ": too few valid parameter sets to test";
    for (const Params& p : sets) {
      if (!expected_correct(v, p)) continue;
      RunRequest req;
      req.lesson_id = v.id;
      req.params = p;
      const RunResult r = run_simulator(req);
      ++runs;
      const std::string what = std::string(v.id) + " " + describe(v, p);
      ASSERT_TRUE(r.ok) << what << ": " << r.error;
      EXPECT_TRUE(r.verdict.checked) << what;
      EXPECT_TRUE(r.verdict.correct) << what << ": " << r.verdict.summary();
      EXPECT_TRUE(r.faults.empty()) << what << ": " << (r.faults.empty() ? "" : r.faults[0]);
      EXPECT_FALSE(r.trace.truncated()) << what;
      EXPECT_EQ(r.trace.config.arrays, arrays(v, p)) << what;
      // Event::instr counts each thread's events from 0, in its program order.
      std::map<std::pair<uint32_t, uint16_t>, uint16_t> next_instr;
      uint64_t misnumbered = 0;
      for (const Event& e : r.trace.events)
        misnumbered += e.instr != next_instr[{e.block, e.thread}]++;
      EXPECT_EQ(misnumbered, 0u) << what;

      const ExpectedCounts want = expected_counts(v, p);
      const Counts got = count_events(r.trace.events, r.trace.config.arrays);
      EXPECT_EQ(got.gl, want.global_loads) << what;
      EXPECT_EQ(got.cl, want.constant_loads) << what;
      EXPECT_EQ(got.gs, want.global_stores) << what;
      EXPECT_EQ(got.sl, want.shared_loads) << what;
      EXPECT_EQ(got.ss, want.shared_stores) << what;
      EXPECT_EQ(got.arrive, want.barrier_arrivals) << what;
      EXPECT_EQ(got.leave, want.barrier_arrivals) << what;
      // Warp-aggregated atomics: as many as the data asks, within the closed form's range.
      EXPECT_TRUE(want.allows_shared_atomics(got.sa))
          << what << ": " << got.sa << " shared atomics";
      EXPECT_EQ(r.trace.events.size() - got.sa, want.total() - want.shared_atomics) << what;
    }
  }
  RecordProperty("runs", runs);
  EXPECT_GE(runs, 10 * int(all_lessons().size()));
}

TEST(SimCatalogue, TiledMultiplyLoadsEachElementNOverTTimes) {
  // 2 * ceil(N / T) global loads per output element, not 2N as in the naive kernel.
  for (int n : {16, 17, 32}) {
    RunRequest req;
    req.lesson_id = picks::default_lesson().id;
    req.params = find_lesson(req.lesson_id)->defaults;
    req.params.n = n;
    req.params.tile = 8;
    const RunResult tiled = run_simulator(req);
    ASSERT_TRUE(tiled.ok) << tiled.error;
    const uint64_t tiles = (n + 7) / 8;
    EXPECT_EQ(count_events(tiled.trace.events).gl, uint64_t(n) * n * 2 * tiles) << "n=" << n;

    req.lesson_id = picks::ladder_step(2).id;  // the naive grid, coalesced
    req.params = find_lesson(req.lesson_id)->defaults;
    req.params.n = n;
    req.params.block = 8;
    const RunResult naive = run_simulator(req);
    ASSERT_TRUE(naive.ok) << naive.error;
    EXPECT_EQ(count_events(naive.trace.events).gl, uint64_t(n) * n * 2 * n) << "n=" << n;
  }
}

RunRequest skew_request(int tile, uint32_t mask, ScheduleKind kind) {
  RunRequest req;
  req.lesson_id = picks::default_lesson().id;
  req.params = find_lesson(req.lesson_id)->defaults;
  req.params.n = 32;
  req.params.tile = tile;
  req.barrier_mask = mask;
  req.schedule.kind = kind;
  return req;
}

TEST(SimCatalogue, WarpSkewWithoutBarriersIsWrongLockstepWithBarriersIsRight) {
  for (int tile : {8, 16}) {  // 2 and 8 warps per block
    const RunResult raced = run_simulator(skew_request(tile, 0, ScheduleKind::WarpSkew));
    ASSERT_TRUE(raced.ok) << raced.error;
    EXPECT_TRUE(raced.verdict.checked);
    EXPECT_FALSE(raced.verdict.correct) << "tile " << tile;
    EXPECT_FALSE(raced.verdict.wrong_cells.empty());

    const RunResult synced = run_simulator(skew_request(tile, ~0u, ScheduleKind::Lockstep));
    ASSERT_TRUE(synced.ok) << synced.error;
    EXPECT_TRUE(synced.verdict.correct) << "tile " << tile << ": " << synced.verdict.summary();

    // The barriers, not the schedule, make it right: skew with barriers is right too.
    const RunResult skewed = run_simulator(skew_request(tile, ~0u, ScheduleKind::WarpSkew));
    EXPECT_TRUE(skewed.verdict.correct) << "tile " << tile;
  }
  // Only the second barrier removed: a fast warp overwrites the tiles while a
  // slow one still reads them (the race that rarely bites on a real GPU).
  const RunResult second = run_simulator(skew_request(16, 0b01, ScheduleKind::WarpSkew));
  ASSERT_TRUE(second.ok);
  EXPECT_FALSE(second.verdict.correct);
  const RunResult second_lockstep = run_simulator(skew_request(16, 0b01, ScheduleKind::Lockstep));
  EXPECT_TRUE(second_lockstep.verdict.correct) << "in lockstep the missing barrier does not bite";
}

TEST(SimCatalogue, SchedulesAreDeterministicByteForByte) {
  for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random}) {
    RunRequest req = skew_request(8, 0, kind);  // no barriers: any change of order shows in values
    req.params.n = 20;
    req.schedule.seed = 7;
    const RunResult a = run_simulator(req), b = run_simulator(req);
    ASSERT_TRUE(a.ok && b.ok);
    ASSERT_EQ(a.trace.events.size(), b.trace.events.size());
    EXPECT_EQ(std::memcmp(a.trace.events.data(), b.trace.events.data(),
                          a.trace.events.size() * sizeof(Event)),
              0)
        << to_string(kind);
    const ArraySlot c = picks::array_slot(*find_lesson(req.lesson_id), "C", req.params);
    EXPECT_EQ(a.trace.buffer(c)->values, b.trace.buffer(c)->values);
    EXPECT_EQ(a.trace.config.schedule, req.schedule);
  }
  RunRequest req = skew_request(8, 0, ScheduleKind::Random);
  req.schedule.seed = 1;
  const RunResult s1 = run_simulator(req);
  req.schedule.seed = 2;
  const RunResult s2 = run_simulator(req);
  ASSERT_EQ(s1.trace.events.size(), s2.trace.events.size());
  EXPECT_NE(std::memcmp(s1.trace.events.data(), s2.trace.events.data(),
                        s1.trace.events.size() * sizeof(Event)),
            0);
}

// Per block, every thread's k-th barrier departure comes after all the
// block's k-th arrivals (every thread of these kernels reaches every barrier).
TEST(SimCatalogue, NoThreadLeavesABarrierBeforeItsBlockArrived) {
  for (const char* id :
       {picks::rectangular_tiled_lesson().id, picks::halo_lesson(picks::Halo::StaticShared).id,
        picks::dynamic_staging_lesson(2).id}) {
    for (ScheduleKind kind :
         {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random}) {
      RunRequest req;
      req.lesson_id = id;
      req.params = find_lesson(id)->defaults;
      req.schedule.kind = kind;
      req.schedule.skew_steps = 5;
      const RunResult r = run_simulator(req);
      ASSERT_TRUE(r.ok) << id << ": " << r.error;
      const uint32_t threads_per_block = uint32_t(r.trace.config.geometry.block.count());
      std::map<std::pair<uint32_t, int>, uint32_t> arrived;
      std::map<std::pair<uint32_t, uint16_t>, int> arrivals_of, leaves_of;
      uint64_t leaves = 0;
      for (const Event& e : r.trace.events) {
        if (e.kind == EventKind::BarrierArrive) {
          ++arrived[{e.block, arrivals_of[{e.block, e.thread}]++}];
        } else if (e.kind == EventKind::BarrierLeave) {
          const int k = leaves_of[{e.block, e.thread}]++;
          ASSERT_EQ(arrived[std::pair(e.block, k)], threads_per_block)
              << id << ": thread " << e.thread << " of block " << e.block << " left barrier "
              << "crossing " << k << " early";
          ++leaves;
        }
      }
      EXPECT_GT(leaves, 0u) << id;
    }
  }
}

TEST(SimCatalogue, ExactMultiplesKernelOnOtherSizesReportsFaults) {
  RunRequest req;
  req.lesson_id = picks::overreaching_lesson().id;  // exact multiples only
  req.params = find_lesson(req.lesson_id)->defaults;
  req.params.n = 17;
  req.params.tile = 16;
  const RunResult r = run_simulator(req);
  ASSERT_TRUE(r.ok) << r.error;  // it ran: the faults are the lesson
  ASSERT_FALSE(r.faults.empty());
  EXPECT_NE(r.faults[0].find("out-of-range"), std::string::npos) << r.faults[0];
  EXPECT_NE(r.faults[0].find("thread ("), std::string::npos) << r.faults[0];
  EXPECT_NE(r.faults[0].find("block ("), std::string::npos) << r.faults[0];
  EXPECT_NE(r.faults[0].find("289 elements"), std::string::npos) << r.faults[0];
  EXPECT_GT(count_events(r.trace.events).out_of_range, 0u);
  EXPECT_FALSE(r.verdict.correct);
}

TEST(SimCatalogue, TinyCapacityTruncates) {
  RunRequest req;
  req.lesson_id = picks::default_lesson().id;
  req.params = find_lesson(req.lesson_id)->defaults;
  req.trace_capacity = 10;
  const RunResult r = run_simulator(req);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.events.size(), 10u);
  EXPECT_EQ(r.trace.capacity, 10u);
  EXPECT_GT(r.trace.events_dropped, 0u);
  EXPECT_TRUE(r.trace.truncated());
  EXPECT_EQ(r.trace.events_needed(),
            expected_counts(*find_lesson(req.lesson_id), req.params).total());
  EXPECT_TRUE(r.verdict.correct);  // the kernel still ran to the end
}

TEST(SimCatalogue, TraceDescribesTheRun) {
  RunRequest req;
  req.lesson_id = picks::rectangular_tiled_lesson().id;
  req.params = find_lesson(req.lesson_id)->defaults;
  req.params.m = 33, req.params.k = 20, req.params.n = 45, req.params.tile = 8;
  req.barrier_mask = ~0u;
  const RunResult r = run_simulator(req);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.trace.config.lesson_id, picks::rectangular_tiled_lesson().id);
  EXPECT_EQ(r.trace.config.backend, BackendKind::Simulator);
  EXPECT_EQ(r.trace.config.device_name, "CPU simulator");
  EXPECT_EQ(r.trace.config.params, req.params);
  EXPECT_EQ(r.trace.config.geometry.grid, (Dim3{6, 5, 1}));
  ASSERT_EQ(r.trace.config.arrays, arrays(*find_lesson(req.lesson_id), req.params));
  const ArrayTable& table = r.trace.config.arrays;
  const ArraySlot kA = picks::array_slot(table, "A"), kB = picks::array_slot(table, "B"),
                  kC = picks::array_slot(table, "C"), kTileA = picks::array_slot(table, "tileA");
  EXPECT_EQ(array_name(r.trace.config.arrays, kTileA), "tileA");
  ASSERT_NE(r.trace.buffer(kA), nullptr);
  ASSERT_NE(r.trace.buffer(kB), nullptr);
  EXPECT_EQ(r.trace.buffer(kTileA), nullptr) << "shared arrays have no contents in the trace";
  const BufferData* c = r.trace.buffer(kC);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->rows, 33);
  EXPECT_EQ(c->cols, 45);
  EXPECT_TRUE(c->is_output);
  EXPECT_EQ(c->values.size(), 33u * 45u);
  // C[0][0] by hand from the recorded inputs.
  const BufferData* a = r.trace.buffer(kA);
  const BufferData* b = r.trace.buffer(kB);
  double s = 0;
  for (int k = 0; k < 20; ++k)
    s += double(a->values[k]) * b->values[k * 45];
  EXPECT_EQ(c->values[0], float(s));
}

TEST(SimCatalogue, UntracedRunStillRunsTheKernel) {
  RunRequest req;
  req.lesson_id = picks::halo_lesson(picks::Halo::DynamicShared).id;
  req.params = find_lesson(req.lesson_id)->defaults;
  req.traced = false;
  const RunResult r = run_simulator(req);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.trace.events.empty());
  EXPECT_TRUE(r.verdict.checked);
  EXPECT_TRUE(r.verdict.correct);
}

TEST(SimCatalogue, BadRequestsGetMessagesNotCrashes) {
  RunRequest req;
  req.lesson_id = "matmul.no_such_kernel";
  RunResult r = run_simulator(req);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find(picks::default_lesson().id), std::string::npos)
      << r.error;  // lists known ids

  req.lesson_id = picks::default_lesson().id;
  req.params = find_lesson(req.lesson_id)->defaults;
  req.params.tile = 64;
  r = run_simulator(req);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());

  req.params = find_lesson(req.lesson_id)->defaults;
  req.params.n = 0;
  r = run_simulator(req);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());

  req.params = find_lesson(req.lesson_id)->defaults;
  req.schedule.kind = ScheduleKind::WarpSkew;
  req.schedule.skew_steps = -3;
  r = run_simulator(req);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("skew"), std::string::npos) << r.error;

  // Far too much work for the simulator: refused up front with a reason.
  req.schedule = {};
  req.params.n = 4096;
  req.params.tile = 16;
  r = run_simulator(req);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("steps"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace ts

namespace ts {
namespace {

RunRequest defaults_request(const LessonInfo& v, const Params& p, uint32_t mask,
                            ScheduleKind kind) {
  RunRequest req;
  req.lesson_id = v.id;
  req.params = p;
  req.barrier_mask = mask;
  req.schedule.kind = kind;
  req.backend = BackendChoice::Sim;
  return req;
}

// The lecture's headline on the defaults: untick every barrier, choose warp
// skew, and the output is wrong (a class sees it without touching a size).
TEST(LessonDefaults, RemovingEveryBarrierUnderSkewBreaksTheOutput) {
  int lessons = 0;
  for (const LessonInfo& v : all_lessons()) {
    if (v.barriers.empty()) continue;
    ++lessons;
    EXPECT_GE(warps_per_block(v, v.defaults), 2) << v.id << ": one warp cannot show the race";
    const RunResult raced =
        run_simulator(defaults_request(v, v.defaults, 0u, ScheduleKind::WarpSkew));
    ASSERT_TRUE(raced.ok) << v.id << ": " << raced.error;
    EXPECT_FALSE(raced.verdict.correct) << v.id << ": " << raced.verdict.summary();
    // With every barrier kept the same schedule is right (unless the lesson
    // is wrong by design there: tiled_exact's defaults are not a multiple of the tile).
    if (expected_correct(v, v.defaults)) {
      const RunResult kept =
          run_simulator(defaults_request(v, v.defaults, ~0u, ScheduleKind::WarpSkew));
      EXPECT_TRUE(kept.verdict.correct) << v.id << ": " << kept.verdict.summary();
    }
  }
  // Every lesson with barriers was tried, these among them.
  for (const LessonInfo* v :
       {&picks::dynamic_staging_lesson(1), &picks::dynamic_staging_lesson(2),
        &picks::overreaching_lesson(), &picks::default_lesson(), &picks::rectangular_tiled_lesson(),
        &picks::halo_lesson(picks::Halo::StaticShared),
        &picks::halo_lesson(picks::Halo::DynamicShared), &picks::layout_lesson()})
    EXPECT_FALSE(v->barriers.empty()) << v->id;
  EXPECT_GE(lessons, 8);
}

// The one-warp case stays available as its own teaching point: without any
// barrier, every schedule still gives the right output.
TEST(LessonDefaults, OneWarpPerBlockKeepsTheRaceLatent) {
  int lessons = 0;
  for (const LessonInfo& v : all_lessons()) {
    if (v.barriers.empty()) continue;
    if (!v.with_warps) {  // a block of fixed size (transpose: 32 x 32): no such knob
      EXPECT_FALSE(params_with_warps(v, v.defaults, 1)) << v.id;
      continue;
    }
    ++lessons;
    const auto one = params_with_warps(v, v.defaults, 1);
    ASSERT_TRUE(one) << v.id;
    EXPECT_EQ(warps_per_block(v, *one), 1) << v.id;
    const auto two = params_with_warps(v, *one, 2);
    ASSERT_TRUE(two) << v.id;
    EXPECT_EQ(warps_per_block(v, *two), 2) << v.id;
    if (!expected_correct(v, *one)) continue;  // wrong by design anyway
    int right = 0;
    for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew}) {
      const RunResult r = run_simulator(defaults_request(v, *one, 0u, kind));
      ASSERT_TRUE(r.ok) << v.id << ": " << r.error;
      right += r.verdict.correct;
      if (v.tests.latent_in_one_warp)
        EXPECT_TRUE(r.verdict.correct) << v.id << " (" << describe(v, *one) << ")";
    }
    // A lesson that says its race bites within one warp must show it.
    if (!v.tests.latent_in_one_warp) EXPECT_LT(right, 2) << v.id << ": declared not latent";
  }
  EXPECT_GE(lessons, 7) << "the tiled, row and stencil lessons have the knob";
  EXPECT_FALSE(params_with_warps(picks::ladder_step(2), Params{.n = 10, .block = 4}, 2))
      << "a lesson without barriers has no race to show";
}

}  // namespace
}  // namespace ts
