// SGEMM ladder steps 9 and 10 (lessons/sgemm_double_buffer.hpp,
// lessons/sgemm_hopper.hpp) on the simulator: right outputs at n = 64 and 128
// for the small configurations, event counts derived by hand from the kernel,
// one barrier per k step, the race without it, refused sizes, and float4
// shared reads with no bank conflicts.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "analysis/hazards.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The ladder's step 9.
std::string double_buffer_id() {
  return picks::ladder_step(9).id;
}

// A lesson's small configuration: its block tile and thread tile, as the header says.
struct Config {
  const char* id;
  int tile;
  int bm, bn, tm, tn;
};
constexpr int kBK = 8;
// The ladder's steps 9 and 10 (double-buffered tiles; larger warp tiles).
std::vector<Config> small_configs() {
  return {
      {picks::ladder_step(9).id, 32, 32, 32, 4, 4},
      {picks::ladder_step(9).id, 64, 64, 64, 8, 8},
      {picks::ladder_step(10).id, 32, 32, 64, 4, 8},
      {picks::ladder_step(10).id, 64, 64, 64, 8, 8},
  };
}

std::string what(const Config& c, int n) {
  return std::string(c.id) + " tile " + std::to_string(c.tile) + " n " + std::to_string(n);
}

// Each inner-loop read site: a column of As (each quarter-warp on one float4,
// side by side) shares a wavefront per half-warp, 2 a request; a row of Bs
// (each quarter the same 8 float4, every bank) takes 4. Nsight Compute on an
// H100 counted exactly these (docs/measurements.md, session 6).
void expect_register_tile_reads(const Trace& t, const WarpAccesses& w, const std::string& what) {
  for (const SiteTotals& s : w.per_site) {
    if (s.kind != EventKind::SharedLoad) continue;
    const std::string array = array_name(t.config.arrays, s.array);
    EXPECT_EQ(s.totals.wavefronts, (array == "As" ? 2u : 4u) * s.totals.requests)
        << what << " " << array << " line " << s.line;
  }
}

RunResult simulate(const char* id, Params p, uint32_t mask = ~0u,
                   ScheduleKind kind = ScheduleKind::Lockstep) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.barrier_mask = mask;
  req.schedule.kind = kind;
  req.backend = BackendChoice::Sim;
  return run_simulator(req);
}

TEST(SgemmStepsC, SmallConfigsAreRightWithHandDerivedCounts) {
  for (const Config& c : small_configs())
    for (int n : {64, 128}) {
      const RunResult r = simulate(c.id, Params{.n = n, .tile = c.tile});
      ASSERT_TRUE(r.ok) << what(c, n) << ": " << r.error;
      EXPECT_TRUE(r.verdict.checked && r.verdict.correct)
          << what(c, n) << ": " << r.verdict.summary();
      EXPECT_TRUE(r.faults.empty()) << what(c, n);
      EXPECT_FALSE(r.trace.truncated()) << what(c, n);
      // By hand: each of the (n / BM) (n / BN) blocks reads a BM x n strip of
      // A and an n x BN strip of B once and stores them once into shared
      // memory; each thread reads TM + TN shared values per k for TM x TN
      // outputs; every output is stored once; each thread arrives at one
      // barrier per k step.
      const uint64_t N = uint64_t(n), n3 = N * N * N;
      const uint64_t threads = N * N / uint64_t(c.tm * c.tn);
      uint64_t gl = 0, gs = 0, sl = 0, ss = 0, arrive = 0, leave = 0, wide = 0;
      for (const Event& e : r.trace.events) {
        gl += e.kind == EventKind::GlobalLoad;
        gs += e.kind == EventKind::GlobalStore;
        sl += e.kind == EventKind::SharedLoad;
        ss += e.kind == EventKind::SharedStore;
        arrive += e.kind == EventKind::BarrierArrive;
        leave += e.kind == EventKind::BarrierLeave;
        wide += is_vector_element(e);
      }
      EXPECT_EQ(gl, n3 / c.bn + n3 / c.bm) << what(c, n);
      EXPECT_EQ(ss, gl) << what(c, n);
      EXPECT_EQ(sl, n3 * uint64_t(c.tm + c.tn) / uint64_t(c.tm * c.tn)) << what(c, n);
      EXPECT_EQ(gs, N * N) << what(c, n);
      EXPECT_EQ(arrive, threads * (N / kBK)) << what(c, n);
      EXPECT_EQ(leave, arrive) << what(c, n);
      // Every access is a float4 but the transposed stores into As (4 single
      // stores per float4 of A): those are the only 4-byte events.
      EXPECT_EQ(r.trace.events.size() - wide, n3 / c.bn + 2 * arrive) << what(c, n);
      // The registry's closed form says the same.
      const ExpectedCounts want = expected_counts(*find_lesson(c.id), r.trace.config.params);
      EXPECT_EQ(want.global_loads, gl);
      EXPECT_EQ(want.shared_loads, sl);
      EXPECT_EQ(want.shared_stores, ss);
      EXPECT_EQ(want.global_stores, gs);
      EXPECT_EQ(want.barrier_arrivals, arrive);
      EXPECT_EQ(want.total(), r.trace.events.size()) << what(c, n);
    }
}

TEST(SgemmStepsC, OneBarrierPerKStep) {
  // Every thread arrives n / BK times: once at the prologue's barrier 1, then
  // n / BK - 1 times at barrier 2 (after each store of the next stage).
  for (const Config& c : small_configs()) {
    const int n = 128;
    const RunResult r = simulate(c.id, Params{.n = n, .tile = c.tile});
    ASSERT_TRUE(r.ok) << r.error;
    std::map<std::pair<uint32_t, uint16_t>, std::array<int, 3>> per_thread;
    for (const Event& e : r.trace.events)
      if (e.kind == EventKind::BarrierArrive) {
        ASSERT_TRUE(e.barrier == 1 || e.barrier == 2) << what(c, n);
        ++per_thread[{e.block, e.thread}][e.barrier];
      }
    EXPECT_EQ(per_thread.size(), size_t(n * n / (c.tm * c.tn))) << what(c, n);
    for (const auto& [who, by_id] : per_thread) {
      EXPECT_EQ(by_id[1], 1) << what(c, n);
      EXPECT_EQ(by_id[2], n / kBK - 1) << what(c, n);
    }
    EXPECT_EQ(find_lesson(c.id)->barriers.size(), 2u);
  }
}

TEST(SgemmStepsC, WithoutTheLoopBarrierTheStagesRace) {
  for (const Config& c : small_configs()) {
    const Params p{.n = 64, .tile = c.tile};
    // Barrier 2 off (mask keeps barrier 1 only): the hazard analysis finds
    // both races on both tiles, whatever the schedule: a read of the next
    // stage before its store (RAW) and a store into the stage being read (WAR).
    const RunResult raced = simulate(c.id, p, 0b01);
    ASSERT_TRUE(raced.ok) << raced.error;
    const HazardReport h = analyze_hazards(raced.trace);
    EXPECT_TRUE(h.has(HazardKind::ReadAfterWrite)) << what(c, 64) << ": " << h.verdict();
    EXPECT_TRUE(h.has(HazardKind::WriteAfterRead)) << what(c, 64) << ": " << h.verdict();
    EXPECT_GT(h.errors, 0u) << "the warps race across the block: errors, not warnings";
    std::map<std::string, int> racing;
    for (const HazardGroup& g : h.groups)
      ++racing[array_name(raced.trace.config.arrays, g.buffer)];
    EXPECT_TRUE(racing.count("As") && racing.count("Bs")) << what(c, 64);

    // Under warp skew the lagging warp's part of the next stage is read
    // before it is stored: the output is wrong.
    const RunResult skewed = simulate(c.id, p, 0b01, ScheduleKind::WarpSkew);
    ASSERT_TRUE(skewed.ok) << skewed.error;
    EXPECT_FALSE(skewed.verdict.correct) << what(c, 64);

    // With the barrier, the same skew is right and the trace race-free.
    const RunResult kept = simulate(c.id, p, ~0u, ScheduleKind::WarpSkew);
    ASSERT_TRUE(kept.ok) << kept.error;
    EXPECT_TRUE(kept.verdict.correct) << what(c, 64) << ": " << kept.verdict.summary();
    EXPECT_TRUE(analyze_hazards(kept.trace).empty()) << analyze_hazards(kept.trace).verdict();

    // The prologue's barrier alone off: stage 0 races (RAW) and skew breaks C.
    const RunResult no_first = simulate(c.id, p, 0b10, ScheduleKind::WarpSkew);
    ASSERT_TRUE(no_first.ok) << no_first.error;
    EXPECT_TRUE(analyze_hazards(no_first.trace).has(HazardKind::ReadAfterWrite)) << what(c, 64);
    EXPECT_FALSE(no_first.verdict.correct) << what(c, 64);
  }
}

TEST(SgemmStepsC, SizesThatAreNotWholeTilesAreRefused) {
  const LessonInfo& db = picks::ladder_step(9);
  const LessonInfo& hop = picks::ladder_step(10);
  auto refused = [](const LessonInfo& v, int n, int tile) {
    const auto e = validate(v, Params{.n = n, .tile = tile}, DeviceLimits{});
    return e ? *e : std::string();
  };
  std::string e = refused(db, 96, 64);
  EXPECT_NE(e.find("n = 96: " + double_buffer_id() + " computes whole 64 x 64 tiles"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("use a multiple of 64 (64, 128, 192, ...)"), std::string::npos) << e;
  e = refused(hop, 128, 128);  // the tuned 128 x 256 tile needs multiples of 256
  EXPECT_NE(e.find("128 x 256 tiles"), std::string::npos) << e;
  EXPECT_NE(e.find("multiple of 256"), std::string::npos) << e;
  e = refused(hop, 100, 32);
  EXPECT_NE(e.find("multiple of 64"), std::string::npos) << e;
  e = refused(db, 64, 16);
  EXPECT_NE(e.find("tile 16"), std::string::npos) << e;
  EXPECT_FALSE(validate(db, Params{.n = 128, .tile = 128}, DeviceLimits{}));
  EXPECT_FALSE(validate(hop, Params{.n = 256, .tile = 128}, DeviceLimits{}));
  // The tuned configurations are the last choices (what the performance sweep times).
  EXPECT_EQ(db.tile_choices.back(), 128);
  EXPECT_EQ(hop.tile_choices.back(), 128);
  EXPECT_EQ(db.ladder_step, 9);
  EXPECT_EQ(hop.ladder_step, 10);
  EXPECT_EQ(db.geometry(Params{.n = 4096, .tile = 128}).block.count(), 256u);
  EXPECT_EQ(hop.geometry(Params{.n = 4096, .tile = 128}).block.count(), 256u);
  EXPECT_EQ(hop.geometry(Params{.n = 4096, .tile = 128}).grid.x, 4096u / 256u);
  EXPECT_EQ(hop.geometry(Params{.n = 4096, .tile = 128}).grid.y, 4096u / 128u);
}

TEST(SgemmStepsC, SharedReadsAreConflictFreeFloat4WarpAccesses) {
  for (const Config& c : small_configs()) {
    const RunResult r = simulate(c.id, Params{.n = 64, .tile = c.tile});
    ASSERT_TRUE(r.ok) << r.error;
    const WarpAccesses w = warp_accesses(r.trace);
    uint64_t loads = 0, sl_events = 0;
    for (const WarpAccess& a : w.accesses)
      if (a.kind == EventKind::SharedLoad) {
        ++loads;
        EXPECT_EQ(a.bytes, 16) << what(c, 64);
        EXPECT_EQ(a.lane_count, 32) << what(c, 64);
        EXPECT_EQ(a.bank.degree, 1) << what(c, 64) << " line " << a.line;
      }
    for (const Event& e : r.trace.events)
      sl_events += e.kind == EventKind::SharedLoad;
    // One warp access per float4 of 32 lanes: 4 events per lane.
    const AccessTotals& ld = w.totals(EventKind::SharedLoad);
    EXPECT_EQ(loads, sl_events / (4 * 32)) << what(c, 64);
    EXPECT_EQ(ld.requests, loads);
    EXPECT_EQ(ld.bank_conflicts(), 0u) << what(c, 64);
    expect_register_tile_reads(r.trace, w, what(c, 64));
    // The stores too: B's float4s and A's transposed columns (rows padded to BM + 4).
    EXPECT_EQ(w.totals(EventKind::SharedStore).bank_conflicts(), 0u) << what(c, 64);
    // The global float4 loads ask for no more sectors than the bytes need.
    const AccessTotals& gl = w.totals(EventKind::GlobalLoad);
    EXPECT_EQ(gl.sectors, gl.ideal_sectors) << what(c, 64);
  }
}

TEST(SgemmStepsC, TunedConfigsAreRightAndConflictFreeOnTheSimulator) {
  // The GPU's configurations at the smallest n they take: 128 x 128 (256
  // threads) at n = 128, and the tuned 128 x 256 x 8 (256 threads, thread 8 x
  // 16 in interleaved float4 groups) at n = 256: 3.6 million events.
  for (const auto& [id, n] :
       {std::pair{picks::ladder_step(9).id, 128}, std::pair{picks::ladder_step(10).id, 256}}) {
    const RunResult r = simulate(id, Params{.n = n, .tile = 128});
    ASSERT_TRUE(r.ok) << id << ": " << r.error;
    EXPECT_TRUE(r.verdict.correct) << id << ": " << r.verdict.summary();
    EXPECT_EQ(r.trace.events.size(),
              expected_counts(*find_lesson(id), r.trace.config.params).total())
        << id;
    const WarpAccesses w = warp_accesses(r.trace);
    EXPECT_EQ(w.totals(EventKind::SharedLoad).bank_conflicts(), 0u) << id;
    EXPECT_EQ(w.totals(EventKind::SharedStore).bank_conflicts(), 0u) << id;
    expect_register_tile_reads(r.trace, w, id);
  }
}

}  // namespace
}  // namespace ts
