// The reduction family (issue 11): every step against its reference on the
// simulator, bank conflicts of the strided step against a closed form,
// hazards with and without each barrier (__syncthreads and __syncwarp), the
// warp shuffles as recorded, and traces with shuffles and warp barriers
// through validation, files, replay, decode and the Chrome export.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/decode.hpp"
#include "analysis/hazards.hpp"
#include "analysis/replay.hpp"
#include "analysis/trace_validate.hpp"
#include "analysis/warp_access.hpp"
#include "cli_process.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "io/chrome_export.hpp"
#include "io/trace_file.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The family's steps, from the registry: a step added is tested here too.
std::vector<const char*> family_lessons() {
  std::vector<const char*> ids;
  for (const LessonInfo& v : all_lessons())
    if (std::string(v.family) == "reduction") ids.push_back(v.id);
  return ids;
}
const std::vector<const char*> kLessons = family_lessons();

// The steps the tests single out, by what they are (tests/lesson_picks.hpp).
const LessonInfo& divergent_step() {  // step 1: interleaved, a divergent branch
  return picks::reduction_step(1);
}
const LessonInfo& strided_step() {  // step 2: interleaved, a strided index (bank conflicts)
  return picks::reduction_step(2);
}
const LessonInfo& sequential_step() {  // step 3: sequential addressing
  return picks::reduction_step(3);
}
const LessonInfo& first_add_step() {  // step 4: the first add during the load
  return picks::reduction_step(4);
}
const LessonInfo& volatile_step() {  // the unrolled last warp without __syncwarp: racy
  return picks::racy_by_design_lesson();
}
const LessonInfo& syncwarp_step() {  // the unrolled last warp with __syncwarp
  return picks::warp_barrier_lesson();
}
const LessonInfo& shuffle_step() {  // the last warp through shuffles
  return picks::warp_shuffle_lesson();
}

// The steps whose tree stops at 64 for an unrolled last warp: blocks of at
// least two warps, and no 1-warp knob (the whole-tree steps have one).
bool warp_lesson(const std::string& id) {
  return !find_lesson(id)->with_warps;
}

RunResult run(const std::string& id, Params p, uint32_t mask = ~0u,
              ScheduleKind kind = ScheduleKind::Lockstep, uint64_t seed = 1) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.barrier_mask = mask;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = kind;
  req.schedule.seed = seed;
  return run_simulator(req);
}

Params params(int length, int block) {
  Params p;
  p.length = length;
  p.block = block;
  return p;
}

uint64_t count(const Trace& t, EventKind k) {
  uint64_t n = 0;
  for (const Event& e : t.events)
    n += e.kind == k;
  return n;
}

TEST(Reduction, EveryStepMatchesItsReferenceUnderEverySchedule) {
  int runs = 0;
  for (const char* id : kLessons) {
    const LessonInfo& v = *find_lesson(id);
    EXPECT_STREQ(v.family, "reduction");
    EXPECT_EQ(v.metric, PerfMetric::Bytes);
    for (int block : {32, 64, 128, 256}) {
      if (block == 32 && warp_lesson(id)) continue;
      // Not multiples of the block (or of two blocks), one element, and the defaults.
      for (int length : {1, 100, 333, 1000, v.defaults.length})
        for (ScheduleKind kind :
             {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random}) {
          const RunResult r = run(id, params(length, block), ~0u, kind, 7);
          const std::string what = std::string(id) + " length " + std::to_string(length) +
                                   " block " + std::to_string(block) + " " +
                                   std::to_string(int(kind));
          ASSERT_TRUE(r.ok) << what << ": " << r.error;
          EXPECT_TRUE(r.verdict.correct) << what << ": " << r.verdict.summary();
          EXPECT_TRUE(r.faults.empty()) << what;
          EXPECT_EQ(r.trace.events.size(), expected_counts(v, params(length, block)).total())
              << what;
          ++runs;
        }
    }
  }
  EXPECT_GE(runs, 7 * 3 * 15);
}

TEST(Reduction, BlocksArePowersOfTwoFrom32And64ForTheUnrolledWarp) {
  for (const char* id : kLessons) {
    const LessonInfo& v = *find_lesson(id);
    for (int block : {0, 16, 48, 96, 2048}) {
      const auto e = validate(v, params(256, block), DeviceLimits{});
      ASSERT_TRUE(e) << id << " block " << block;
      EXPECT_NE(e->find("power of two"), std::string::npos) << *e;
    }
    const auto e32 = validate(v, params(256, 32), DeviceLimits{});
    EXPECT_EQ(bool(e32), warp_lesson(id)) << id;
    if (e32) {
      EXPECT_NE(e32->find("sdata[tid + 32]"), std::string::npos) << *e32;
    }
    EXPECT_FALSE(validate(v, params(256, 1024), DeviceLimits{})) << id;
  }
}

TEST(Reduction, ClosedFormCountsByHand) {
  // interleaved, defaults: 256 elements, 4 blocks of 64. Per block: 64 stores
  // of the load, 63 adds (2 loads, 1 store each), thread 0's final load;
  // barrier 1 once and barrier 2 in each of the 6 steps.
  ExpectedCounts c = expected_counts(divergent_step(), params(256, 64));
  EXPECT_EQ(c.global_loads, 256u);
  EXPECT_EQ(c.global_stores, 4u);
  EXPECT_EQ(c.shared_loads, 4u * (2 * 63 + 1));
  EXPECT_EQ(c.shared_stores, 4u * (64 + 63));
  EXPECT_EQ(c.barrier_arrivals, 4u * 64 * 7);
  EXPECT_EQ(c.warp_shuffles, 0u);
  // first add: 512 elements, 2 blocks of 128.
  c = expected_counts(first_add_step(), params(512, 128));
  EXPECT_EQ(c.global_stores, 2u);
  EXPECT_EQ(c.shared_loads, 2u * (2 * 127 + 1));
  // syncwarp: the tree down to 64 (one step of 64 adds), then 32 lanes x 6
  // steps with two __syncwarp each.
  c = expected_counts(syncwarp_step(), params(512, 128));
  EXPECT_EQ(c.shared_loads, 2u * (2 * 64 + 32 + 32 * 6));
  EXPECT_EQ(c.shared_stores, 2u * (128 + 64 + 32 * 6));
  EXPECT_EQ(c.barrier_arrivals, 2u * (128 * 2 + 32 * 12));
  // shuffle: 32 lanes x 5 shuffles (16, 8, 4, 2, 1) per block.
  c = expected_counts(shuffle_step(), params(512, 128));
  EXPECT_EQ(c.warp_shuffles, 2u * 160);
  EXPECT_EQ(c.shared_loads, 2u * (2 * 64 + 64));
}

// Bank conflicts of one warp-wide access of the strided step: at step j
// (s = 2^j) thread tid works on cell 2s * tid, so lanes are d = 2s words
// apart and A = B / d threads work. A >= 32: A / 32 full warps, each with
// d lanes on one bank (d - 1 extra wavefronts). A < 32: one warp of A lanes,
// B / 32 of them on one bank while d < 32, all A of them once d >= 32.
uint64_t strided_conflicts_per_block(uint64_t B) {
  uint64_t total = 0;
  for (uint64_t d = 2; d <= B; d *= 2) {
    const uint64_t active = B / d;
    if (active >= 32)
      total += active / 32 * (d - 1);
    else
      total += (d < 32 ? B / 32 : active) - 1;
  }
  return total;
}

TEST(Reduction, StridedStepHasBankConflictsOfTheClosedFormSequentialNone) {
  EXPECT_EQ(strided_conflicts_per_block(64), 5u);
  EXPECT_EQ(strided_conflicts_per_block(128), 15u);
  EXPECT_EQ(strided_conflicts_per_block(256), 35u);
  for (int block : {32, 64, 128, 256, 1024})
    for (int length : {1000, 4096}) {
      const Params p = params(length, block);
      const uint64_t blocks = (uint64_t(length) + block - 1) / block;
      const RunResult strided = run(strided_step().id, p);
      ASSERT_TRUE(strided.ok) << strided.error;
      const WarpAccesses w = warp_accesses(strided.trace);
      const uint64_t per_access = blocks * strided_conflicts_per_block(uint64_t(block));
      // Two loads (sdata[index + s], sdata[index]) and one store per step and warp.
      EXPECT_EQ(w.totals(EventKind::SharedLoad).bank_conflicts(), 2 * per_access)
          << "block " << block << " length " << length;
      EXPECT_EQ(w.totals(EventKind::SharedStore).bank_conflicts(), per_access) << block;
      if (block >= 64) {
        EXPECT_GT(per_access, 0u);
      }
      for (const char* id : kLessons) {
        if (std::string(id) == strided_step().id || (block == 32 && warp_lesson(id))) continue;
        const RunResult r = run(id, p);
        ASSERT_TRUE(r.ok) << id << ": " << r.error;
        const WarpAccesses c = warp_accesses(r.trace);
        EXPECT_EQ(c.totals(EventKind::SharedLoad).bank_conflicts(), 0u) << id << " " << block;
        EXPECT_EQ(c.totals(EventKind::SharedStore).bank_conflicts(), 0u) << id << " " << block;
      }
    }
}

#ifdef TS_CLI_PATH
TEST(Reduction, RunJsonCountersNamesTheConflictsAsNsightComputeDoes) {
  for (const auto& [id, want_ld, want_st] :
       std::vector<std::tuple<std::string, uint64_t, uint64_t>>{
           // defaults: 4 blocks of 128, 15 extra wavefronts per block and access
           {strided_step().id, 2 * 4 * 15, 4 * 15},
           {sequential_step().id, 0, 0}}) {
    const auto r = testing::run_cli("run " + id + " --backend sim --json", false);
    ASSERT_EQ(r.code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    const auto& ncu = j["counters"]["ncu"];
    EXPECT_EQ(ncu["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"].get<uint64_t>(),
              want_ld)
        << id;
    EXPECT_EQ(ncu["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"].get<uint64_t>(),
              want_st)
        << id;
  }
  const auto list = testing::run_cli("list", false);
  EXPECT_NE(list.out.find("3 (line "), std::string::npos);
  EXPECT_NE(list.out.find(") __syncwarp"), std::string::npos) << list.out;
}
#endif

HazardReport hazards(const std::string& id, uint32_t mask, Params p = {},
                     HazardModel model = HazardModel::LastAccess) {
  const LessonInfo& v = *find_lesson(id);
  const RunResult r = run(id, p.block ? p : v.defaults, mask);
  EXPECT_TRUE(r.ok) << r.error;
  HazardOptions opt;
  opt.model = model;
  return analyze_hazards(r.trace, opt);
}
// Every pair since the last write: the races the barriers' guards name.
HazardReport every_pair(const std::string& id, uint32_t mask) {
  return hazards(id, mask, {}, HazardModel::SinceLastWrite);
}

// Every lesson and every subset of its barriers (bit id - 1 kept), at the
// defaults (4 warps per block), in lockstep: racecheck's verdict as our
// model gives it. scripts/racecheck_compare.sh puts racecheck beside it on
// the GPU. Without barrier 1 the first step reads cells of other warps
// (errors), except in the interleaved tree whose first step pairs neighbours;
// the strided tree's steps write the same cells (WAW); the volatile warp races
// with all barriers kept; __syncwarp 3 guards WAR, 4 guards RAW.
// The verdict a barrier subset gets, from the descriptor (HazardBits): the
// union of the removed barriers' guards and the racy-by-design kinds, errors
// (across warps) then warnings (within a warp), as HazardReport::verdict() says it.
std::string expected_verdict(const LessonInfo& v, uint32_t kept) {
  unsigned bits = v.tests.racy_by_design;
  for (size_t i = 0; i < v.barriers.size(); ++i)
    if (!(kept >> i & 1u)) bits |= v.barriers[i].guards;
  for (const TestFacts::Exception& e : v.tests.exceptions)
    if (e.kept == kept) bits = e.guards;
  const auto kinds = [](unsigned raw, unsigned war, unsigned waw) {
    std::string k;
    for (auto [on, name] : {std::pair{raw, "RAW"}, {war, "WAR"}, {waw, "WAW"}})
      if (on) k += std::string(k.empty() ? "" : ",") + name;
    return k;
  };
  const std::string errors = kinds(bits & kGuardsRaw, bits & kGuardsWar, bits & kGuardsWaw);
  const std::string warnings =
      kinds(bits & kGuardsRawInWarp, bits & kGuardsWarInWarp, bits & kGuardsWawInWarp);
  if (errors.empty() && warnings.empty()) return "none";
  if (warnings.empty()) return "error " + errors;
  return errors.empty() ? "warning " + warnings : "error " + errors + "; warning " + warnings;
}

std::string severities(const HazardReport& h) {
  return std::string(h.errors ? "error" : "") + (h.errors && h.warnings ? "," : "") +
         (h.warnings ? "warning" : "");
}

TEST(Reduction, VerdictForEveryLessonAndBarrierSubset) {
  for (const char* id : kLessons) {
    const LessonInfo& v = *find_lesson(id);
    for (uint32_t kept = 0; kept <= all_barriers(v); ++kept) {
      SCOPED_TRACE(std::string(id) + " kept " + std::to_string(kept));
      const HazardReport lock = every_pair(id, kept);
      EXPECT_EQ(lock.seen_verdict(), expected_verdict(v, kept));
      // racecheck's model: some of those kinds, with the same severities.
      const HazardReport shown = hazards(id, kept);
      EXPECT_EQ(severities(shown), severities(lock)) << shown.verdict();
      for (int sev = 0; sev < 2; ++sev)
        for (int k = 0; k < kHazardKindCount; ++k)
          if (shown.by_severity[sev][k]) EXPECT_TRUE(lock.by_severity[sev][k]) << shown.verdict();
      // Warp skew may record a racing pair the other way round (RAW as WAR),
      // never with another severity.
      const RunResult skew = run(id, v.defaults, kept, ScheduleKind::WarpSkew);
      ASSERT_TRUE(skew.ok);
      HazardOptions every;
      every.model = HazardModel::SinceLastWrite;
      EXPECT_EQ(severities(analyze_hazards(skew.trace, every)), severities(lock));
    }
  }
}

TEST(Reduction, VolatileLastWarpRacesWithinTheWarp) {
  const HazardReport h = hazards(volatile_step().id, ~0u);
  EXPECT_GT(h.total, 0u);
  EXPECT_EQ(h.errors, 0u) << h.verdict();
  EXPECT_GT(h.warnings, 0u);
  // Lane i reads sdata[i + s] that lane i + s overwrites (WAR), then reads
  // cells other lanes have just written (RAW): both inside warp 0. racecheck
  // shows the RAW only: lane i + s reads its own cell after lane i, so the
  // read its store meets is its own (analysis/hazards.hpp, "Last access").
  EXPECT_EQ(h.verdict(), "warning RAW");
  EXPECT_EQ(every_pair(volatile_step().id, ~0u).verdict(), "warning RAW,WAR");
  EXPECT_EQ(h.since_last_write_verdict, "warning RAW,WAR");
  for (const Hazard& x : h.hazards) {
    EXPECT_EQ(x.first.warp, 0);
    EXPECT_EQ(x.second.warp, 0);
    EXPECT_NE(x.first.thread, x.second.thread);
  }
}

TEST(Reduction, SyncwarpRemovesTheRaceAndEachRemovalBringsItBack) {
  const LessonInfo& v = syncwarp_step();
  ASSERT_EQ(v.barriers.size(), 4u);
  EXPECT_FALSE(v.barriers[0].warp_scope);
  EXPECT_FALSE(v.barriers[1].warp_scope);
  EXPECT_TRUE(v.barriers[2].warp_scope);
  EXPECT_TRUE(v.barriers[3].warp_scope);
  EXPECT_STREQ(barrier_call(v.barriers[2]), "__syncwarp");
  EXPECT_STREQ(barrier_call(v.barriers[0]), "__syncthreads");

  EXPECT_TRUE(hazards(v.id, ~0u).empty()) << hazards(v.id, ~0u).verdict();
  // Without barrier 3 a lane overwrites its cell before its partner has read it.
  EXPECT_EQ(hazards(v.id, ~0u & ~(1u << 2)).verdict(), "warning WAR");
  // Without barrier 4 a lane reads a cell before its owner has stored.
  EXPECT_EQ(hazards(v.id, ~0u & ~(1u << 3)).verdict(), "warning RAW");
  // Both: the volatile version's hazards.
  EXPECT_EQ(hazards(v.id, ~0u & ~(3u << 2)).verdict(), "warning RAW,WAR");
}

TEST(Reduction, EachSyncthreadsRemovalIsAHazard) {
  for (const char* id : kLessons) {
    const LessonInfo& v = *find_lesson(id);
    const bool racy = v.tests.racy_by_design != 0;
    for (const BarrierInfo& b : v.barriers) {
      if (b.warp_scope) continue;
      const HazardReport h = hazards(id, ~0u & ~(1u << (b.id - 1)));
      ASSERT_GT(h.total, 0u) << id << " without barrier " << b.id;
      // The first step of the interleaved tree pairs neighbours of one warp:
      // without barrier 1 only warnings; every other removal crosses warps
      // (at the defaults' 4 warps per block: with 2, the strided and
      // sequential trees run in warp 0 alone and barrier 2 guards warnings).
      if (&v == &divergent_step() && b.id == 1) {
        EXPECT_EQ(h.errors, 0u) << h.verdict();
        EXPECT_EQ(h.verdict(), "warning RAW");
      } else {
        EXPECT_GT(h.errors, 0u) << id << " without barrier " << b.id << ": " << h.verdict();
      }
    }
    if (!racy) {
      EXPECT_TRUE(hazards(id, ~0u).empty()) << id << ": " << hazards(id, ~0u).verdict();
    }
  }
  // Every barrier combination of the syncwarp lesson: hazards exactly when one is missing.
  const LessonInfo& s = syncwarp_step();
  for (uint32_t mask = 0; mask < 16; ++mask)
    EXPECT_EQ(hazards(s.id, mask).empty(), mask == 15) << "mask " << mask;
}

TEST(Reduction, ShufflesAreRecordedWithTheSendersValue) {
  const LessonInfo& v = shuffle_step();
  for (const Params& p : {v.defaults, params(1000, 256), params(77, 64)}) {
    const RunResult r = run(v.id, p, ~0u, ScheduleKind::Random, 3);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.verdict.correct) << r.verdict.summary();
    const uint64_t blocks = r.trace.config.geometry.grid.count();
    EXPECT_EQ(count(r.trace, EventKind::WarpShuffle), blocks * 32 * 5);
    EXPECT_EQ(count(r.trace, EventKind::WarpShuffle), expected_counts(v, p).warp_shuffles);

    // Per (block, lane): v starts as the sum of the lane's last two shared
    // loads; each shuffle receives the source lane's v of that round.
    struct Lane {
      std::vector<float> loads;
      std::vector<const Event*> shuffles;
    };
    std::map<std::pair<uint32_t, uint16_t>, Lane> lanes;
    for (const Event& e : r.trace.events) {
      Lane& l = lanes[{e.block, e.thread}];
      if (e.kind == EventKind::SharedLoad && l.shuffles.empty()) l.loads.push_back(e.value);
      if (e.kind == EventKind::WarpShuffle) {
        EXPECT_EQ(e.array, kNoArray);
        EXPECT_LT(e.thread, 32);
        l.shuffles.push_back(&e);
      }
    }
    const BufferData* out = r.trace.buffer(2);
    ASSERT_NE(out, nullptr);
    for (uint32_t b = 0; b < blocks; ++b) {
      float val[32];
      for (int lane = 0; lane < 32; ++lane) {
        const Lane& l = lanes[{b, uint16_t(lane)}];
        ASSERT_GE(l.loads.size(), 2u);
        ASSERT_EQ(l.shuffles.size(), 5u);
        val[lane] = l.loads[l.loads.size() - 2] + l.loads.back();
      }
      for (int round = 0; round < 5; ++round) {
        const int delta = 16 >> round;
        float next[32];
        for (int lane = 0; lane < 32; ++lane) {
          const Event& e = *lanes[{b, uint16_t(lane)}].shuffles[size_t(round)];
          const int src = lane + delta < 32 ? lane + delta : lane;
          EXPECT_EQ(e.element, uint32_t(src)) << "block " << b << " lane " << lane;
          EXPECT_EQ(e.value, val[src]) << "block " << b << " lane " << lane << " round " << round;
          next[lane] = val[lane] + e.value;
        }
        std::copy(next, next + 32, val);
      }
      EXPECT_EQ(val[0], out->values[b]) << "lane 0 ends with the block's sum";
    }
  }
}

TEST(Reduction, WarpBarriersAndShufflesWorkUnderRandomSchedules) {
  // The exchange through the per-warp slots and the warp barrier are right
  // whichever warp the scheduler picks next.
  for (const char* id : {shuffle_step().id, syncwarp_step().id})
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      const RunResult r = run(id, params(1500, 256), ~0u, ScheduleKind::Random, seed);
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_TRUE(r.verdict.correct) << id << " seed " << seed << ": " << r.verdict.summary();
    }
}

TEST(Reduction, SyncwarpWaitsForItsOwnWarpOnly) {
  // Warp 0's lanes leave each __syncwarp only after all 32 arrived, while the
  // other warps (done with the tree) are not waited for: they exit.
  const RunResult r = run(syncwarp_step().id, params(512, 128), ~0u, ScheduleKind::WarpSkew);
  ASSERT_TRUE(r.ok) << r.error;
  std::map<std::tuple<uint32_t, int, uint16_t>, int> arrivals, leaves;  // (block, barrier, n)
  std::map<std::pair<uint32_t, uint16_t>, std::map<int, uint16_t>> nth;
  for (const Event& e : r.trace.events) {
    if (!is_barrier(e.kind) || !(e.flags & kFlagWarpScope)) continue;
    EXPECT_LT(e.thread, 32) << "only warp 0 meets a __syncwarp";
    const uint16_t n = e.kind == EventKind::BarrierArrive ? nth[{e.block, e.thread}][e.barrier]
                                                          : nth[{e.block, e.thread}][e.barrier]++;
    if (e.kind == EventKind::BarrierArrive) {
      ++arrivals[{e.block, e.barrier, n}];
    } else {
      EXPECT_EQ((arrivals[{e.block, e.barrier, n}]), 32) << "left before the warp arrived";
      ++leaves[{e.block, e.barrier, n}];
    }
  }
  EXPECT_EQ(leaves.size(), 2u * 2 * 6);
}

TEST(Reduction, TracesWithShufflesAndWarpBarriersValidateAndRoundTrip) {
  for (const char* id : {shuffle_step().id, syncwarp_step().id}) {
    const RunResult r = run(id, find_lesson(id)->defaults);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(check_trace_semantics(r.trace), std::nullopt) << id;
    std::string err;
    const auto back = parse_trace(serialize_trace(r.trace), &err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(back->events.size(), r.trace.events.size());
    EXPECT_EQ(std::memcmp(back->events.data(), r.trace.events.data(),
                          r.trace.events.size() * sizeof(Event)),
              0);
  }
}

// The first event of `kind` (and, for barriers, warp scope or not).
size_t first_of(const Trace& t, EventKind kind, int warp_scope = -1) {
  for (size_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].kind == kind &&
        (warp_scope < 0 || bool(t.events[i].flags & kFlagWarpScope) == bool(warp_scope)))
      return i;
  ADD_FAILURE() << "no such event";
  return 0;
}

std::string refused(Trace t, size_t i, void (*edit)(Event&)) {
  edit(t.events[i]);
  const auto e = check_trace_semantics(t);
  std::string err;
  const auto parsed = parse_trace(serialize_trace(t), &err);
  EXPECT_FALSE(parsed) << "the file loader accepted it too";
  return e ? *e : std::string();
}

TEST(Reduction, BadShuffleAndWarpBarrierFieldsAreRefused) {
  const RunResult sh = run(shuffle_step().id, shuffle_step().defaults);
  ASSERT_TRUE(sh.ok);
  const size_t s = first_of(sh.trace, EventKind::WarpShuffle);
  EXPECT_NE(refused(sh.trace, s, [](Event& e) { e.array = 1; }).find("a shuffle touches no array"),
            std::string::npos);
  EXPECT_NE(refused(sh.trace, s, [](Event& e) { e.element = 32; })
                .find("source lane is 32; allowed: 0 to 31"),
            std::string::npos);
  EXPECT_NE(refused(sh.trace, s, [](Event& e) { e.flags = kFlagWarpScope; }).find("bit 3"),
            std::string::npos);
  EXPECT_NE(refused(sh.trace, s, [](Event& e) { e.barrier = 3; }).find("a shuffle has 0"),
            std::string::npos);

  const RunResult sw = run(syncwarp_step().id, syncwarp_step().defaults);
  ASSERT_TRUE(sw.ok);
  // A __syncwarp's events carry the warp-scope flag; a __syncthreads' do not;
  // an access never does.
  const size_t w = first_of(sw.trace, EventKind::BarrierArrive, 1);
  EXPECT_NE(refused(sw.trace, w, [](Event& e) { e.flags = 0; }).find("is a __syncwarp"),
            std::string::npos);
  const size_t b = first_of(sw.trace, EventKind::BarrierLeave, 0);
  EXPECT_NE(
      refused(sw.trace, b, [](Event& e) { e.flags = kFlagWarpScope; }).find("is a __syncthreads"),
      std::string::npos);
  const size_t a = first_of(sw.trace, EventKind::SharedLoad);
  EXPECT_NE(refused(sw.trace, a, [](Event& e) { e.flags = kFlagWarpScope; }).find("bit 3"),
            std::string::npos);
  // A well-formed shuffle in a lesson whose kernel has none is refused
  // (issue 20: shuffles and atomics only where the lesson has them).
  Trace t = sw.trace;
  t.events[a].kind = EventKind::WarpShuffle;
  t.events[a].array = kNoArray;
  t.events[a].element = 5;
  const auto why = check_trace_semantics(t);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find(std::string("a warp shuffle; ") + syncwarp_step().id + " has none"),
            std::string::npos);
}

TEST(Reduction, WarpBarriersAreNoBlockPhasesAndShufflesTouchNoCell) {
  const LessonInfo& v = syncwarp_step();
  const RunResult r = run(v.id, v.defaults);
  ASSERT_TRUE(r.ok);
  // Block 128: barrier 1, one tree step's barrier 2: three phases, whatever
  // the 12 __syncwarp of warp 0.
  const Replay rp(std::make_shared<Trace>(r.trace));
  EXPECT_EQ(rp.phase_count(), 3);
  const DecodedTrace d = decode(r.trace);
  ASSERT_FALSE(d.blocks.empty());
  EXPECT_EQ(d.blocks[0].barriers.size(), 2u);
  EXPECT_TRUE(d.blocks[0].balanced);

  // The shuffle lesson's replay ends with out as computed; no shuffle changes a cell.
  const LessonInfo& sv = shuffle_step();
  const RunResult s = run(sv.id, sv.defaults, ~0u, ScheduleKind::WarpSkew);
  ASSERT_TRUE(s.ok);
  Replay sr(std::make_shared<Trace>(s.trace));
  for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
    sr.set_order(o);
    std::vector<CellState> before;
    sr.seek(0);
    int shuffles = 0;
    for (uint64_t pos = 1; pos <= sr.size(); ++pos) {
      const bool shuffle = s.trace.events[sr.event_at(pos)].kind == EventKind::WarpShuffle;
      if (shuffle) before.assign(sr.cells().begin(), sr.cells().end());
      sr.seek(pos);
      if (!shuffle) continue;
      ++shuffles;
      ASSERT_EQ(before.size(), sr.cells().size());
      for (size_t c = 0; c < before.size(); ++c)
        ASSERT_EQ(before[c].value, sr.cells()[c].value) << "cell " << c << " at " << pos;
    }
    EXPECT_EQ(shuffles, 2 * 160);
    sr.seek(sr.size());
    const BufferData* out = s.trace.buffer(2);
    for (uint32_t b = 0; b < out->values.size(); ++b)
      EXPECT_EQ(sr.cell(2, 0, b)->value, out->values[b]) << to_string(o);
  }

  // The Chrome export names shuffles and warp-scope barriers.
  std::ostringstream chrome;
  ASSERT_TRUE(write_chrome_trace(s.trace, chrome));
  EXPECT_NE(chrome.str().find("\"cat\":\"shuffle\""), std::string::npos);
  EXPECT_NE(chrome.str().find("\"src_lane\":"), std::string::npos);
  std::ostringstream chrome_sw;
  ASSERT_TRUE(write_chrome_trace(r.trace, chrome_sw));
  EXPECT_NE(chrome_sw.str().find("\"scope\":\"warp\""), std::string::npos);
}

TEST(Reduction, BarrierStatementsKnowTheirScope) {
  const auto found = barrier_statements(
      "  SYNCTHREADS(1);\n"
      "  // SYNCWARP(2); a comment\n"
      "  SYNCWARP(2);\n"
      "  SYNCWARP(x);\n"
      "  SYNCTHREADS(3);\n");
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[1].line, 1);
  EXPECT_FALSE(found[1].warp_scope);
  EXPECT_EQ(found[2].line, 3);
  EXPECT_TRUE(found[2].warp_scope);
  EXPECT_EQ(found[3].line, 5);
  EXPECT_FALSE(found[3].warp_scope);
  ASSERT_EQ(barrier_statements("  SYNCWARP(1);\n").size(), 2u);
  EXPECT_EQ(barrier_statements("  SYNCWARP(1);\n")[1].line, 1);
}

}  // namespace
}  // namespace ts
