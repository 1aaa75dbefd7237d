// SGEMM ladder steps 1, 4 and 5 (lessons/sgemm_naive_uncoalesced.hpp,
// sgemm_blocktile_1d.hpp, sgemm_blocktile_2d.hpp) on the simulator: right
// output at n = 64 and 128 for every block tile, event counts equal to the
// closed forms and to a count made here element by element, n that is not a
// multiple of the tiles refused, races without the first barrier, and the
// warp analysis of step 1 against step 2 (matmul.naive_grid): lanes that
// walk down a column of C read 32 sectors of A per request, not one.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/hazards.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

RunResult run(const std::string& id, const Params& p, uint32_t mask = ~0u,
              ScheduleKind kind = ScheduleKind::Lockstep, bool traced = true) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.barrier_mask = mask;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = kind;
  req.traced = traced;
  return run_simulator(req);
}

Params tiled(int n, int tile) {
  Params p;
  p.n = n, p.tile = tile;
  return p;
}

struct Tally {
  uint64_t gl = 0, gs = 0, sl = 0, ss = 0, arrive = 0, leave = 0;
  std::map<std::pair<ArraySlot, uint32_t>, uint64_t> loads_of;  // (array, element) -> loads
};
Tally tally(const Trace& t) {
  Tally c;
  for (const Event& e : t.events) {
    c.gl += e.kind == EventKind::GlobalLoad;
    c.gs += e.kind == EventKind::GlobalStore;
    c.sl += e.kind == EventKind::SharedLoad;
    c.ss += e.kind == EventKind::SharedStore;
    c.arrive += e.kind == EventKind::BarrierArrive;
    c.leave += e.kind == EventKind::BarrierLeave;
    if (e.kind == EventKind::GlobalLoad) ++c.loads_of[{e.array, e.element}];
  }
  return c;
}

// Every block tile of both block-tiling steps, at n = 64 and 128 where the tile divides n.
TEST(SgemmStepsA, BlockTilesMatchTheReferenceWithClosedFormCounts) {
  int runs = 0;
  for (const char* id : {picks::ladder_step(4).id, picks::ladder_step(5).id}) {
    const LessonInfo& v = *find_lesson(id);
    const bool two_d = std::string(id) == picks::ladder_step(5).id;
    EXPECT_STREQ(v.ladder, "sgemm");
    EXPECT_EQ(v.ladder_step, two_d ? 5 : 4);
    EXPECT_EQ(v.tile_choices, two_d ? std::vector<int>({32, 64, 128}) : std::vector<int>({32, 64}));
    for (int tile : v.tile_choices)
      for (int n : {64, 128}) {
        if (n % tile) continue;
        const Params p = tiled(n, tile);
        const std::string what = std::string(id) + " " + describe(v, p);
        ASSERT_FALSE(validate(v, p, DeviceLimits{})) << what;
        const RunResult r = run(id, p);
        ASSERT_TRUE(r.ok) << what << ": " << r.error;
        EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << what << ": " << r.verdict.summary();
        EXPECT_TRUE(r.faults.empty()) << what << ": " << (r.faults.empty() ? "" : r.faults[0]);
        ++runs;

        // Counted by hand: the block of tile x tile outputs reads its rows of A
        // and columns of B once, so every element of A and B is loaded n / tile
        // times; each load goes into a tile; every thread reads, per k, TM + 1
        // (1D) or TM + TN (2D) shared values and reaches two barriers per k step.
        const Tally got = tally(r.trace);
        const uint64_t N = n, T = tile, loads_each = N / T;
        for (ArraySlot a : {picks::array_slot(v, "A", p), picks::array_slot(v, "B", p)})
          for (uint32_t e = 0; e < N * N; e += 37)
            EXPECT_EQ(got.loads_of.count({a, e}) ? got.loads_of.at({a, e}) : 0, loads_each)
                << what << " array " << int(a) << " element " << e;
        const LaunchGeometry g = geometry(v, p);
        const uint64_t threads = g.grid.count() * g.block.count();
        EXPECT_EQ(g.grid.count(), (N / T) * (N / T)) << what;
        // 1D: TM = 8 rows of one column, k steps of tile / 8; 2D: TM x TN, k steps of 8.
        const int tm = two_d && tile == 32 ? 4 : 8;
        const int tn = two_d ? tm : 1;
        const int bk = two_d ? 8 : tile / 8;
        EXPECT_EQ(threads * tm * tn, N * N) << what << ": one thread per TM x TN outputs";
        EXPECT_EQ(got.gl, 2 * N * N * loads_each) << what;
        EXPECT_EQ(got.ss, got.gl) << what;
        EXPECT_EQ(got.gs, N * N) << what;
        EXPECT_EQ(got.sl, threads * N * uint64_t(two_d ? tm + tn : tm + 1)) << what;
        EXPECT_EQ(got.arrive, threads * (N / bk) * 2) << what;
        EXPECT_EQ(got.leave, got.arrive) << what;

        const ExpectedCounts want = expected_counts(v, p);
        EXPECT_EQ(want.global_loads, got.gl) << what;
        EXPECT_EQ(want.global_stores, got.gs) << what;
        EXPECT_EQ(want.shared_loads, got.sl) << what;
        EXPECT_EQ(want.shared_stores, got.ss) << what;
        EXPECT_EQ(want.barrier_arrivals, got.arrive) << what;
        EXPECT_EQ(r.trace.events.size(), want.total()) << what;
      }
  }
  EXPECT_EQ(runs, 2 * 2 + 2 * 2 + 1);  // 1D: 32 and 64 at both n; 2D: 32, 64 at both, 128 at 128
}

// The tuned shapes the performance sweep times (the last tile choice), and the small ones.
TEST(SgemmStepsA, ShapesAreTheDocumentedOnes) {
  EXPECT_EQ(geometry(picks::ladder_step(4), tiled(4096, 64)).block.count(), 512u);
  EXPECT_EQ(geometry(picks::ladder_step(4), tiled(64, 32)).block.count(), 128u);
  EXPECT_EQ(geometry(picks::ladder_step(5), tiled(4096, 128)).block.count(), 256u);
  EXPECT_EQ(geometry(picks::ladder_step(5), tiled(64, 64)).block.count(), 64u);
  EXPECT_EQ(geometry(picks::ladder_step(5), tiled(64, 32)).block.count(), 64u);
  EXPECT_EQ(geometry(picks::ladder_step(5), tiled(4096, 128)).static_shared_bytes,
            2u * 128 * 8 * 4);
  // The window's defaults: n = 64 with two warps or more per block, under ~400k events.
  for (const char* id : {picks::ladder_step(4).id, picks::ladder_step(5).id}) {
    const LessonInfo& v = *find_lesson(id);
    EXPECT_EQ(v.defaults.n, 64) << id;
    EXPECT_EQ(v.defaults.tile, v.tile_choices.front()) << id;
    EXPECT_GE(warps_per_block(v, v.defaults), 2) << id;
    EXPECT_LT(expected_counts(v, v.defaults).total(), 400000u) << id;
  }
}

TEST(SgemmStepsA, RefusesAnNThatIsNotAMultipleOfTheTiles) {
  for (const auto& [id, tile, multiple] :
       std::vector<std::tuple<std::string, int, int>>{{picks::ladder_step(4).id, 32, 32},
                                                      {picks::ladder_step(4).id, 64, 64},
                                                      {picks::ladder_step(5).id, 32, 32},
                                                      {picks::ladder_step(5).id, 128, 128}}) {
    const LessonInfo& v = *find_lesson(id);
    const auto e = validate(v, tiled(100, tile), DeviceLimits{});
    ASSERT_TRUE(e) << id << " tile " << tile;
    EXPECT_NE(e->find("n = 100"), std::string::npos) << *e;
    EXPECT_NE(e->find(id), std::string::npos) << *e;
    EXPECT_NE(e->find("use a multiple of " + std::to_string(multiple)), std::string::npos) << *e;
    const RunResult r = run(id, tiled(100, tile));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("use a multiple of " + std::to_string(multiple)), std::string::npos)
        << r.error;
  }
  // A tile it is not compiled for, and tile 128 on n = 64.
  const auto e = validate(picks::ladder_step(5), tiled(64, 16), DeviceLimits{});
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("block tiles 32, 64 or 128"), std::string::npos) << *e;
  EXPECT_TRUE(validate(picks::ladder_step(5), tiled(64, 128), DeviceLimits{}));
  EXPECT_TRUE(validate(picks::ladder_step(4), tiled(64, 128), DeviceLimits{}));
}

// Without barrier 1 a thread reads tile cells before their owner (another
// warp) stored them: read-after-write hazards in lockstep already, and a
// wrong C once the odd warps lag. With both barriers: right under skew too.
TEST(SgemmStepsA, WithoutTheFirstBarrierTheTilesRace) {
  for (const char* id : {picks::ladder_step(4).id, picks::ladder_step(5).id}) {
    const LessonInfo& v = *find_lesson(id);
    for (int tile : v.tile_choices) {
      const Params p = tiled(tile == 128 ? 128 : 64, tile);
      const std::string what = std::string(id) + " " + describe(v, p);
      const uint32_t without_1 = 0b10;
      const HazardReport lock = analyze_hazards(run(id, p, without_1).trace, HazardOptions{});
      EXPECT_TRUE(lock.has(HazardKind::ReadAfterWrite)) << what << ": " << lock.verdict();
      EXPECT_GT(lock.errors, 0u) << what << ": across warps";
      const ArraySlot as = picks::array_slot(v, "As", p), bs = picks::array_slot(v, "Bs", p);
      for (const Hazard& h : lock.hazards)
        EXPECT_TRUE(h.buffer == as || h.buffer == bs) << what;

      const RunResult skewed = run(id, p, without_1, ScheduleKind::WarpSkew);
      ASSERT_TRUE(skewed.ok) << skewed.error;
      EXPECT_TRUE(skewed.verdict.checked);
      EXPECT_FALSE(skewed.verdict.correct) << what << ": the lagging warps' cells are read early";

      const RunResult kept = run(id, p, ~0u, ScheduleKind::WarpSkew);
      EXPECT_TRUE(kept.verdict.correct) << what << ": " << kept.verdict.summary();
      EXPECT_TRUE(analyze_hazards(kept.trace, HazardOptions{}).empty()) << what;
    }
  }
}

// The same sums as matmul.naive_grid, any n.
TEST(SgemmStepsA, NaiveUncoalescedMatchesTheReferenceWithClosedFormCounts) {
  const LessonInfo& v = picks::ladder_step(1);
  EXPECT_STREQ(v.ladder, "sgemm");
  EXPECT_EQ(v.ladder_step, 1);
  EXPECT_TRUE(v.barriers.empty());
  for (int n : {64, 17, 40})
    for (int block : {8, 32}) {
      const Params p{.n = n, .block = block};
      const std::string what = describe(v, p);
      const RunResult r = run(v.id, p);
      ASSERT_TRUE(r.ok) << what << ": " << r.error;
      EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << what << ": " << r.verdict.summary();
      EXPECT_TRUE(r.faults.empty()) << what;
      const Tally got = tally(r.trace);
      const uint64_t N = n;
      EXPECT_EQ(got.gl, 2 * N * N * N) << what;
      EXPECT_EQ(got.gs, N * N) << what;
      EXPECT_EQ(r.trace.events.size(), expected_counts(v, p).total()) << what;
      EXPECT_EQ(expected_counts(v, p).global_loads, got.gl) << what;
    }
  // n = 128: right, untraced (4 million loads).
  const RunResult big =
      run(v.id, Params{.n = 128, .block = 32}, ~0u, ScheduleKind::Lockstep, false);
  ASSERT_TRUE(big.ok) << big.error;
  EXPECT_TRUE(big.verdict.checked && big.verdict.correct) << big.verdict.summary();
}

// Global requests of one array and kind, over all its source lines.
AccessTotals global_totals(const WarpAccesses& w, EventKind kind, ArraySlot array) {
  AccessTotals t;
  for (const WarpAccess& a : w.accesses)
    if (a.kind == kind && a.array == array) t.add(a);
  return t;
}

// Step 1 against step 2 at the same n and block: in step 1 a warp is 32 rows
// of one column of C, so its load of A touches 32 rows (32 sectors, 32 lines)
// where step 2's warp reads one word of A (a broadcast: one sector); its load
// of B is the broadcast instead; its stores into C fall in 32 sectors, step
// 2's in 4 (32 consecutive floats).
TEST(SgemmStepsA, NaiveUncoalescedReads32SectorsOfAPerRequestNaiveGridOne) {
  const Params p{.n = 64, .block = 32};
  const WarpAccesses bad = warp_accesses(run(picks::ladder_step(1).id, p).trace);
  const WarpAccesses good = warp_accesses(run(picks::ladder_step(2).id, p).trace);
  const uint64_t requests = 64ull * 64 * 64 / 32;  // one per warp and k
  const auto bad_slot = [](const char* name) {
    return picks::array_slot(picks::ladder_step(1), name);
  };
  const auto good_slot = [](const char* name) {
    return picks::array_slot(picks::ladder_step(2), name);
  };

  const AccessTotals bad_a = global_totals(bad, EventKind::GlobalLoad, bad_slot("A"));
  const AccessTotals good_a = global_totals(good, EventKind::GlobalLoad, good_slot("A"));
  EXPECT_EQ(bad_a.requests, requests);
  EXPECT_EQ(good_a.requests, requests);
  EXPECT_DOUBLE_EQ(bad_a.sectors_per_request(), 32.0);
  EXPECT_EQ(bad_a.lines, 32 * requests);
  EXPECT_DOUBLE_EQ(good_a.sectors_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(bad_a.ideal_sectors_per_request(), 4.0) << "32 distinct words";
  EXPECT_DOUBLE_EQ(good_a.ideal_sectors_per_request(), 1.0) << "one word";

  const AccessTotals bad_b = global_totals(bad, EventKind::GlobalLoad, bad_slot("B"));
  const AccessTotals good_b = global_totals(good, EventKind::GlobalLoad, good_slot("B"));
  EXPECT_DOUBLE_EQ(bad_b.sectors_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(good_b.sectors_per_request(), 4.0);

  const AccessTotals bad_c = global_totals(bad, EventKind::GlobalStore, bad_slot("C"));
  const AccessTotals good_c = global_totals(good, EventKind::GlobalStore, good_slot("C"));
  EXPECT_EQ(bad_c.requests, 64u * 64 / 32);
  EXPECT_DOUBLE_EQ(bad_c.sectors_per_request(), 32.0);
  EXPECT_DOUBLE_EQ(good_c.sectors_per_request(), 4.0);

  // In all: 8x the sectors of A's loads, and the totals say so as ncu would.
  EXPECT_EQ(bad.totals(EventKind::GlobalLoad).sectors, (32 + 1) * requests);
  EXPECT_EQ(good.totals(EventKind::GlobalLoad).sectors, (1 + 4) * requests);
}

}  // namespace
}  // namespace ts
