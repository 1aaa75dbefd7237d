// Hazard analysis: hand-built traces with a known answer, then every catalogue
// lesson and every subset of its barriers on simulator traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "analysis/hazards.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/compiled_code.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The hand-built traces use the tiled multiply's (the default lesson's) array slots.
ArraySlot slot_tile_a() {
  return picks::default_lesson_slot("tileA");
}

// Builds a one-block trace event by event; the clock is the order of calls.
struct TraceBuilder {
  Trace t;
  uint64_t clock = 0;
  std::map<std::pair<uint32_t, uint16_t>, uint16_t> instr;  // next event number per thread
  void access(EventKind kind, uint16_t thread, uint32_t element, float value, uint16_t line,
              ArraySlot buf = slot_tile_a(), uint32_t block = 0) {
    Event e{};
    e.clock = e.globaltimer = clock++;
    e.block = block;
    e.element = element;
    e.value = value;
    e.thread = thread;
    e.instr = instr[{block, thread}]++;
    e.line = line;
    e.kind = kind;
    e.array = buf;
    t.events.push_back(e);
  }
  void store(uint16_t th, uint32_t el, float v, uint16_t line, ArraySlot b = slot_tile_a()) {
    access(EventKind::SharedStore, th, el, v, line, b);
  }
  void load(uint16_t th, uint32_t el, float v, uint16_t line, ArraySlot b = slot_tile_a()) {
    access(EventKind::SharedLoad, th, el, v, line, b);
  }
  void barrier(std::initializer_list<uint16_t> threads, uint16_t line = 50) {
    for (auto th : threads)
      access(EventKind::BarrierArrive, th, 0, 0, line, kNoArray);
    for (auto th : threads)
      access(EventKind::BarrierLeave, th, 0, 0, line, kNoArray);
  }
};

TEST(Hazards, EmptyTraceHasNone) {
  Trace t;
  auto r = analyze_hazards(t);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.verdict(), "none");
}

TEST(Hazards, ReadAfterWriteBetweenWarpsIsAnError) {
  TraceBuilder b;
  b.store(0, 5, 1.5f, 10);
  b.load(40, 5, 1.5f, 20);  // thread 40 is in warp 1
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.errors, 1u);
  ASSERT_EQ(r.groups.size(), 1u);
  const auto& g = r.groups[0];
  EXPECT_EQ(g.kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(g.severity, HazardSeverity::Error);
  EXPECT_EQ(g.first_line, 10);
  EXPECT_EQ(g.second_line, 20);
  ASSERT_EQ(r.hazards.size(), 1u);
  const auto& h = r.hazards[0];
  EXPECT_EQ(h.element, 5u);
  EXPECT_EQ(h.first.event, 0u);
  EXPECT_EQ(h.second.event, 1u);
  EXPECT_EQ(h.first.thread, 0);
  EXPECT_EQ(h.second.thread, 40);
  EXPECT_EQ(h.second.warp, 1);
  EXPECT_TRUE(h.first.is_write);
  EXPECT_FALSE(h.second.is_write);
  // Between warps the kind is the order they ran in: the verdict says so.
  EXPECT_EQ(r.seen_verdict(), "error RAW");
  EXPECT_EQ(r.verdict(), "error RAW (order-dependent: RAW/WAR)");
  EXPECT_TRUE(r.order_dependent());
}

TEST(Hazards, WithinOneWarpIsAWarning) {
  TraceBuilder b;
  b.store(0, 5, 1.f, 10);
  b.load(31, 5, 1.f, 20);
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.warnings, 1u);
  EXPECT_EQ(r.groups[0].severity, HazardSeverity::Warning);
  EXPECT_EQ(r.verdict(), "warning RAW");
}

TEST(Hazards, BarrierBetweenOrdersTheAccesses) {
  TraceBuilder b;
  b.store(0, 5, 1.f, 10);
  b.barrier({0, 40});
  b.load(40, 5, 1.f, 20);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, SameThreadNeverRaces) {
  TraceBuilder b;
  b.store(3, 5, 1.f, 10);
  b.load(3, 5, 1.f, 20);
  b.store(3, 5, 2.f, 30);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, ReadsOnlyNeverRace) {
  TraceBuilder b;
  b.load(0, 5, 1.f, 20);
  b.load(40, 5, 1.f, 20);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, DifferentElementsOrBuffersOrBlocksDoNotRace) {
  TraceBuilder b;
  b.store(0, 5, 1.f, 10);
  b.load(40, 6, 1.f, 20);
  b.load(40, 5, 1.f, 20, picks::default_lesson_slot("tileB"));
  b.access(EventKind::SharedLoad, 40, 5, 1.f, 20, picks::default_lesson_slot("tileA"), /*block=*/1);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, GlobalAccessesAreNotAnalysed) {
  TraceBuilder b;
  b.access(EventKind::GlobalStore, 0, 5, 1.f, 10, picks::default_lesson_slot("C"));
  b.access(EventKind::GlobalLoad, 40, 5, 1.f, 20, picks::default_lesson_slot("C"));
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, WriteAfterReadAndWriteAfterWrite) {
  TraceBuilder b;
  b.load(40, 7, 0.f, 20);   // reads the old tile
  b.store(0, 7, 3.f, 10);   // overwrites it: WAR
  b.store(33, 7, 4.f, 11);  // overwrites again: WAW with thread 0 (warps 0 and 1)
  auto r = analyze_hazards(b.t);
  EXPECT_EQ(r.total, 2u);
  EXPECT_EQ(r.by_kind[int(HazardKind::WriteAfterRead)], 1u);
  EXPECT_EQ(r.by_kind[int(HazardKind::WriteAfterWrite)], 1u);
  EXPECT_EQ(r.by_kind[int(HazardKind::ReadAfterWrite)], 0u);
  EXPECT_EQ(r.verdict(), "error WAR,WAW (order-dependent: RAW/WAR/WAW)");
  for (const auto& h : r.hazards) {
    if (h.kind == HazardKind::WriteAfterRead) {
      EXPECT_EQ(h.first.thread, 40);
      EXPECT_EQ(h.second.thread, 0);
      EXPECT_FALSE(h.first.is_write);
    } else {
      EXPECT_EQ(h.first.thread, 0);
      EXPECT_EQ(h.second.thread, 33);
      EXPECT_EQ(h.first.value, 3.f);
      EXPECT_EQ(h.second.value, 4.f);
    }
  }
}

TEST(Hazards, RecordedOrderWinsOverTraceOrder) {
  // The trace lists thread 40's events first, but the clocks say thread 0
  // stored before thread 40 loaded: read-after-write, as racecheck saw it.
  TraceBuilder b;
  b.load(40, 5, 1.f, 20);
  b.store(0, 5, 1.f, 10);
  b.t.events[0].clock = 9;
  b.t.events[1].clock = 3;
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.hazards[0].kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(r.hazards[0].first.event, 1u);
  EXPECT_EQ(r.hazards[0].second.event, 0u);
}

TEST(Hazards, IntervalsArePerThreadProgramOrder) {
  // Thread 0 has passed one barrier, thread 40 has not (its arrival is not in
  // the trace yet, as with a removed barrier on one path): both are in
  // different intervals only if they passed different numbers of barriers.
  TraceBuilder b;
  b.access(EventKind::BarrierLeave, 0, 0, 0, 50, kNoArray);
  b.store(0, 5, 1.f, 10);  // thread 0, interval 1
  b.load(40, 5, 1.f, 20);  // thread 40, interval 0: ordered by the barrier
  b.access(EventKind::BarrierLeave, 40, 0, 0, 50, kNoArray);
  b.load(40, 5, 1.f, 21);  // thread 40, interval 1: unordered with the store
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.hazards[0].second.line, 21);
  EXPECT_EQ(r.hazards[0].interval, 1u);
}

TEST(Hazards, GroupsCountEveryHazardButKeepCappedDetail) {
  TraceBuilder b;
  for (uint32_t el = 0; el < 10; ++el) {
    b.store(0, el, 1.f, 10);
    b.load(64, el, 1.f, 20);
    b.load(65, el, 1.f, 20);
  }
  HazardOptions opt;
  opt.detail_per_group = 4;
  opt.model = HazardModel::SinceLastWrite;  // both readers of each cell
  auto r = analyze_hazards(b.t, opt);
  EXPECT_EQ(r.total, 20u);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].count, 20u);
  EXPECT_EQ(r.groups[0].elements, 10u);
  EXPECT_EQ(r.groups[0].blocks, 1u);
  EXPECT_EQ(r.groups[0].detail.size(), 4u);
  EXPECT_EQ(r.hazards.size(), 4u);
}

TEST(Hazards, ErrorsAndWarningsAreSeparateGroups) {
  TraceBuilder b;
  b.store(0, 1, 1.f, 10);
  b.load(1, 1, 1.f, 20);  // same warp: warning
  b.store(0, 2, 1.f, 10);
  b.load(32, 2, 1.f, 20);  // other warp: error
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].severity, HazardSeverity::Error);  // errors first
  EXPECT_EQ(r.groups[1].severity, HazardSeverity::Warning);
  EXPECT_EQ(r.verdict(), "error RAW (order-dependent: RAW/WAR); warning RAW");
}

// racecheck's rules (analysis/hazards.hpp), each on a hand-built trace.

TEST(Hazards, LastAccessChecksTheAccessBeforeOnly) {
  // One store, two readers in another warp: racecheck reports the first reader.
  TraceBuilder b;
  b.store(0, 5, 1.f, 10);
  b.load(64, 5, 1.f, 20);
  b.load(65, 5, 1.f, 20);
  const HazardReport r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.hazards[0].second.thread, 64);
  HazardOptions every;
  every.model = HazardModel::SinceLastWrite;
  EXPECT_EQ(analyze_hazards(b.t, every).total, 2u);
  EXPECT_EQ(r.since_last_write_total, 2u);
  EXPECT_EQ(r.hidden_by_shadow(), 1u);
}

TEST(Hazards, AWritersOwnReadHidesTheReadBefore) {
  // The unrolled warp's v[i] += v[i + 16]: lane 0 reads v[16], lane 16 reads
  // its own v[16] and then stores it. racecheck: no WAR (its shadow holds
  // lane 16's own read when lane 16 stores); every read since the last
  // write: a WAR warning.
  TraceBuilder b;
  b.load(0, 16, 1.f, 23);
  b.load(16, 16, 1.f, 23);
  b.store(16, 16, 2.f, 23);
  const HazardReport r = analyze_hazards(b.t);
  EXPECT_TRUE(r.empty()) << r.verdict();
  EXPECT_EQ(r.since_last_write_verdict, "warning WAR");
  EXPECT_EQ(r.hidden_by_shadow(), 1u);
}

TEST(Hazards, WriteAfterWriteOnlyWhenTheValueChanges) {
  TraceBuilder same;
  same.store(0, 5, 2.f, 10);
  same.store(40, 5, 2.f, 11);
  EXPECT_TRUE(analyze_hazards(same.t).empty());
  TraceBuilder changed;
  changed.store(0, 5, 2.f, 10);
  changed.store(40, 5, 3.f, 11);
  const HazardReport r = analyze_hazards(changed.t);
  EXPECT_EQ(r.verdict(), "error WAW");  // WAW in either order: not order-dependent
  EXPECT_FALSE(r.order_dependent());
  // -0 and +0 are different bytes.
  TraceBuilder zeros;
  zeros.store(0, 5, 0.f, 10);
  zeros.store(40, 5, -0.f, 11);
  EXPECT_EQ(analyze_hazards(zeros.t).total, 1u);
}

TEST(Hazards, OrderNamesWhatAnotherOrderOfTheWarpsCouldShow) {
  // Warp 1 reads before warp 0 stores: WAR here, RAW had warp 0 run first.
  TraceBuilder b;
  b.load(40, 5, 1.f, 20);
  b.store(0, 5, 2.f, 10);
  b.store(41, 6, 2.f, 10);  // another cell: one writer, no pair
  const HazardReport r = analyze_hazards(b.t);
  EXPECT_EQ(r.seen_verdict(), "error WAR");
  EXPECT_TRUE(r.error_kinds_by_order[int(HazardKind::ReadAfterWrite)]);
  EXPECT_TRUE(r.error_kinds_by_order[int(HazardKind::WriteAfterRead)]);
  EXPECT_FALSE(r.error_kinds_by_order[int(HazardKind::WriteAfterWrite)]);
  EXPECT_EQ(r.verdict(), "error WAR (order-dependent: RAW/WAR)");
  // Within one warp the order is the program's: no mark.
  TraceBuilder warp;
  warp.load(1, 5, 1.f, 20);
  warp.store(0, 5, 2.f, 10);
  EXPECT_EQ(analyze_hazards(warp.t).verdict(), "warning WAR");
}

TEST(Hazards, ExplanationsExist) {
  for (int k = 0; k < kHazardKindCount; ++k) {
    EXPECT_GT(std::string(explanation(HazardKind(k))).size(), 40u);
    EXPECT_EQ(std::string(long_name(HazardKind(k))).size() > 10, true);
  }
}

// ---------------------------------------------------------------------------
// Every catalogue lesson, every subset of its barriers, on simulator traces.
//
// The expectation, from what each barrier guards:
//  - tiled multiplies: barrier 1 stands between the stores of a tile
//    (tileA[ty][tx] = ..., tileB[ty][tx] = ...) and the loads of the inner
//    loop: without it a thread may load a cell its neighbour has not stored
//    yet -> read-after-write. Barrier 2 stands between the last loads of a tile
//    and the stores of the next one: without it a fast thread may overwrite a
//    cell a slow one still has to read -> write-after-read (only when there is
//    a next tile). Each cell is stored by exactly one thread, so never WAW.
//  - rows / rows+columns in shared, shared-memory stencils: barrier 1 stands
//    between the cooperative loads and the reads of cells other threads
//    loaded -> read-after-write without it.
//  - kernels without shared memory: nothing to race on.
// In lockstep, when every thread of a block makes the same accesses, every
// warp takes the same steps, the recorded order of an unordered pair is the
// program's own order, and the kinds are exactly these. Where threads diverge
// (zero padding skips a global load, the first threads load the halo, some
// threads load one element more), or under a skewed schedule, a warp can run
// ahead and flip the recorded order of a pair (a reader recorded before the
// lagging writer: write-after-read instead of read-after-write); there the test
// asks for the same racing source-line pairs and no write-after-write.

// The sizes a lesson's descriptor names for these tests (its TestFacts):
// `larger` (two or more warps and tiles, no divergence: lockstep gives exactly
// the guarded kinds; the defaults where it names none) and `padded` (sizes
// that are not multiples; none where it names none).
bool named(const Params& p) {
  return !(p == Params{});
}
Params larger_case(const LessonInfo& v) {
  return named(v.tests.larger) ? v.tests.larger : v.defaults;
}

using Kinds = std::set<HazardKind>;

Kinds kinds_of_bits(unsigned bits) {
  Kinds k;
  if (bits & (kGuardsRaw | kGuardsRawInWarp)) k.insert(HazardKind::ReadAfterWrite);
  if (bits & (kGuardsWar | kGuardsWarInWarp)) k.insert(HazardKind::WriteAfterRead);
  if (bits & (kGuardsWaw | kGuardsWawInWarp)) k.insert(HazardKind::WriteAfterWrite);
  return k;
}

// What the descriptor says a barrier subset lets in (HazardBits): the union of
// the removed barriers' guards and the lesson's racy-by-design kinds, unless
// it lists the subset as an exception.
unsigned expected_bits(const LessonInfo& v, uint32_t kept) {
  for (const TestFacts::Exception& e : v.tests.exceptions)
    if (e.kept == kept) return e.guards;
  unsigned bits = v.tests.racy_by_design;
  for (size_t i = 0; i < v.barriers.size(); ++i)
    if (!(kept >> i & 1u)) bits |= v.barriers[i].guards;
  return bits;
}
constexpr unsigned kAcrossWarps = kGuardsRaw | kGuardsWar | kGuardsWaw;

Kinds kinds_of(const HazardReport& r) {
  Kinds k;
  for (int i = 0; i < kHazardKindCount; ++i)
    if (r.by_kind[i]) k.insert(HazardKind(i));
  return k;
}

std::set<std::pair<int, int>> line_pairs(const HazardReport& r) {
  std::set<std::pair<int, int>> s;
  for (const auto& g : r.groups)
    s.insert({std::min(g.first_line, g.second_line), std::max(g.first_line, g.second_line)});
  return s;
}

std::string kinds_text(const Kinds& k) {
  std::string s;
  for (HazardKind x : k)
    s += std::string(s.empty() ? "" : ",") + to_string(x);
  return s.empty() ? "none" : s;
}

Trace sim_trace(const char* lesson_id, const Params& p, uint32_t mask, Schedule sched) {
  RunRequest req;
  req.lesson_id = lesson_id;
  req.params = p;
  req.barrier_mask = mask;
  req.backend = BackendChoice::Sim;
  req.schedule = sched;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << lesson_id << ": " << r.error;
  EXPECT_FALSE(r.trace.truncated());
  return std::move(r.trace);
}

// Grouped counts and detail tell the same story.
void expect_consistent(const HazardReport& r, uint32_t cap) {
  uint64_t sum = 0, errors = 0, kept = 0;
  for (const auto& g : r.groups) {
    sum += g.count;
    if (g.severity == HazardSeverity::Error) errors += g.count;
    EXPECT_LE(g.detail.size(), cap);
    EXPECT_EQ(g.detail.size(), std::min<uint64_t>(g.count, cap));
    EXPECT_GE(g.count, g.elements);
    for (uint32_t i : g.detail) {
      ASSERT_LT(i, r.hazards.size());
      const Hazard& h = r.hazards[i];
      EXPECT_EQ(h.kind, g.kind);
      EXPECT_EQ(h.severity, g.severity);
      EXPECT_EQ(h.first.line, g.first_line);
      EXPECT_EQ(h.second.line, g.second_line);
      EXPECT_NE(h.first.thread, h.second.thread);
      EXPECT_EQ(h.severity == HazardSeverity::Warning, h.first.warp == h.second.warp);
      EXPECT_EQ(h.first.is_write, h.kind != HazardKind::WriteAfterRead);
      EXPECT_EQ(h.second.is_write, h.kind != HazardKind::ReadAfterWrite);
    }
    kept += g.detail.size();
  }
  EXPECT_EQ(sum, r.total);
  EXPECT_EQ(errors, r.errors);
  EXPECT_EQ(r.errors + r.warnings, r.total);
  EXPECT_EQ(kept, r.hazards.size());
}

// Whether two sizes of a lesson run code with its memory accesses on the
// same source lines (the compiled-code table's kernels for each; true where
// the table has no entry: nothing says otherwise). Not so where a template
// parameter picks another branch (conv2d.register_tile's radius).
bool same_kernel(const LessonInfo& v, const Params& a, const Params& b) {
  const std::optional<size_t> i = lesson_index(v.id);
  const CompiledKernel* ka = i ? compiled_kernel(*i, a) : nullptr;
  const CompiledKernel* kb = i ? compiled_kernel(*i, b) : nullptr;
  if (!ka || !kb) return true;
  const auto lines = [](const CompiledKernel& k) {
    std::set<int> out;
    for (const CompiledAccess& x : k.accesses)
      out.insert(x.line);
    return out;
  };
  return lines(*ka) == lines(*kb);
}

TEST(HazardsCatalogue, EveryVariantEveryBarrierSubset) {
  Schedule lockstep;
  Schedule skew;
  skew.kind = ScheduleKind::WarpSkew;
  skew.skew_steps = 40;
  // The guards name the races a barrier prevents: every pair since the last
  // write. racecheck's last-access model shows some of those kinds, and a
  // hazard (an error) wherever they have one.
  HazardOptions opt;
  opt.detail_per_group = 8;
  opt.model = HazardModel::SinceLastWrite;
  HazardOptions racecheck = opt;
  racecheck.model = HazardModel::LastAccess;
  for (const LessonInfo& lesson : all_lessons()) {
    const LessonInfo* v = &lesson;
    const Params larger = larger_case(*v);
    for (uint32_t mask = 0; mask <= all_barriers(*v); ++mask) {
      SCOPED_TRACE(std::string(v->id) + " barrier mask " + std::to_string(mask));
      const unsigned bits = expected_bits(*v, mask);
      const Kinds want = kinds_of_bits(bits);
      const Trace lock_trace = sim_trace(v->id, larger, mask, lockstep);
      const HazardReport lock = analyze_hazards(lock_trace, opt);
      EXPECT_EQ(kinds_text(kinds_of(lock)), kinds_text(want));
      expect_consistent(lock, opt.detail_per_group);
      const HazardReport shown = analyze_hazards(lock_trace, racecheck);
      for (HazardKind k : kinds_of(shown))
        EXPECT_TRUE(want.count(k)) << "racecheck's model: " << shown.verdict();
      EXPECT_EQ(shown.empty(), lock.empty()) << shown.verdict();
      EXPECT_EQ(shown.errors > 0, lock.errors > 0) << shown.verdict();
      expect_consistent(shown, racecheck.detail_per_group);
      // Across warps an error; within one warp (a warp-scope barrier, the
      // unrolled last warp) only warnings.
      EXPECT_EQ(lock.errors > 0, (bits & kAcrossWarps) != 0) << lock.verdict();

      // Diverging threads and skewed warps: the same races, maybe seen the other way round.
      std::vector<std::pair<Params, Schedule>> others = {{larger, skew}};
      if (named(v->tests.padded)) {
        others.push_back({v->tests.padded, lockstep});
        others.push_back({v->tests.padded, skew});
      }
      for (const auto& [params, sched] : others) {
        SCOPED_TRACE(sched.kind == ScheduleKind::WarpSkew ? "warp skew" : "lockstep, padded");
        const HazardReport r = analyze_hazards(sim_trace(v->id, params, mask, sched), opt);
        EXPECT_EQ(r.empty(), want.empty()) << r.verdict();
        if (!want.count(HazardKind::WriteAfterWrite)) {
          EXPECT_EQ(r.by_kind[int(HazardKind::WriteAfterWrite)], 0u);
        }
        // The same lines race where the same code runs: not where the sizes
        // pick another compiled kernel (a radius at compile time that reads
        // its window in other loads, conv2d.register_tile at R = 3).
        if ((sched.kind != ScheduleKind::WarpSkew || v->tests.same_pairs_under_skew) &&
            same_kernel(*v, larger, params)) {
          EXPECT_EQ(line_pairs(r), line_pairs(lock));
        }
        expect_consistent(r, opt.detail_per_group);
      }
    }
  }
}

TEST(HazardsCatalogue, NoFalsePositivesWithAllBarriersAnySchedule) {
  for (const LessonInfo& v : all_lessons()) {
    // Its race (the unrolled warp without __syncwarp) is the lesson.
    if (v.tests.racy_by_design) continue;
    for (uint64_t seed : {1, 2, 3}) {
      Schedule random;
      random.kind = ScheduleKind::Random;
      random.seed = seed;
      SCOPED_TRACE(std::string(v.id) + " seed " + std::to_string(seed));
      // The lesson defaults and the larger case.
      const HazardReport d = analyze_hazards(sim_trace(v.id, v.defaults, all_barriers(v), random));
      EXPECT_TRUE(d.empty()) << d.verdict();
      if (named(v.tests.larger)) {
        const HazardReport r =
            analyze_hazards(sim_trace(v.id, v.tests.larger, all_barriers(v), random));
        EXPECT_TRUE(r.empty()) << r.verdict();
      }
    }
  }
}

TEST(HazardsCatalogue, OneWarpBlocksGiveWarningsOnly) {
  // Tile 4: a block of 4 x 4 = 16 threads is one warp; racecheck calls its
  // hazards warnings (warp-level programming), never errors.
  for (uint32_t mask : {0u, 1u, 2u}) {
    SCOPED_TRACE("mask " + std::to_string(mask));
    const HazardReport r = analyze_hazards(
        sim_trace(picks::default_lesson().id, Params{.n = 12, .tile = 4}, mask, {}));
    EXPECT_GT(r.warnings, 0u);
    EXPECT_EQ(r.errors, 0u);
    EXPECT_EQ(r.verdict().rfind("warning ", 0), 0u) << r.verdict();
  }
}

TEST(HazardsCatalogue, TiledTile16BarrierTwoIsWriteAfterReadAcrossWarps) {
  // The case the issue measured on the GPU: tile 16, second barrier removed.
  const HazardReport r =
      analyze_hazards(sim_trace(picks::default_lesson().id, Params{.n = 64, .tile = 16}, 0x1u, {}));
  EXPECT_EQ(r.verdict(), "error WAR (order-dependent: RAW/WAR); warning WAR");
  // tileB[kk][tx] is read by every row's thread and stored by row kk's:
  // across warps. tileA[ty][kk] stays within the two rows of one warp.
  for (const auto& g : r.groups) {
    if (g.buffer == picks::default_lesson_slot("tileA")) {
      EXPECT_EQ(g.severity, HazardSeverity::Warning);
    }
  }
  bool tileB_error = false;
  for (const auto& g : r.groups)
    tileB_error |=
        g.buffer == picks::default_lesson_slot("tileB") && g.severity == HazardSeverity::Error;
  EXPECT_TRUE(tileB_error);
}

TEST(HazardsCatalogue, TiledBarrierTwoGuardsNothingWithOneTile) {
  // n <= tile: there is no next tile to overwrite the shared tiles.
  const HazardReport r =
      analyze_hazards(sim_trace(picks::default_lesson().id, Params{.n = 8, .tile = 8}, 0x1u, {}));
  EXPECT_TRUE(r.empty()) << r.verdict();
}

// ---------------------------------------------------------------------------
// `tilescope-cli races`, run as a user runs it (the built binary).

struct CliResult {
  int code = -1;
  std::string out;
};

CliResult races_cli(const std::string& args, bool with_stderr) {
  CliResult r;
#ifdef TS_CLI_PATH
  const testing::CliRun run = testing::run_cli("races " + args, with_stderr);
  r.code = run.code;
  r.out = run.out;
#else
  (void)args;
  (void)with_stderr;
#endif
  return r;
}

#ifdef TS_CLI_PATH
#define REQUIRE_CLI()
#else
#define REQUIRE_CLI() GTEST_SKIP() << "tilescope-cli is not built"
#endif

TEST(RacesCli, JsonVerdictAndRuns) {
  REQUIRE_CLI();
  const CliResult r = races_cli(std::string(picks::default_lesson().id) +
                                    " --n 32 --tile 8 --no-barrier 2 --backend sim --runs 2 --json",
                                false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["hazards"]["verdict"], "error WAR (order-dependent: RAW/WAR); warning WAR");
  EXPECT_EQ(j["hazards"]["seen_verdict"], "error WAR; warning WAR");
  EXPECT_EQ(j["hazards"]["kinds"]["error"], nlohmann::json::array({"WAR"}));
  EXPECT_EQ(j["hazards"]["error_kinds_by_order"], nlohmann::json::array({"RAW", "WAR"}));
  EXPECT_TRUE(j["hazards"]["order_dependent"].get<bool>());
  EXPECT_EQ(j["barrier_mask"], 1);
  EXPECT_EQ(j["runs"]["done"], 2);
  EXPECT_EQ(j["stale_reads"]["stale"], 0) << "lockstep: the race is there but did not bite";
  EXPECT_EQ(std::string(j["runs"]["state"]).rfind("race present", 0), 0u);
}

// The line of a lesson header on which `text` first stands (0: nowhere).
int line_of(const std::string& header, const std::string& text) {
  const std::string_view source = lesson_source(header);
  const size_t at = source.find(text);
  if (at == std::string_view::npos) return 0;
  return 1 + int(std::count(source.begin(), source.begin() + long(at), '\n'));
}

TEST(RacesCli, TextReportGroupsAndDetail) {
  REQUIRE_CLI();
  const LessonInfo& stencil = picks::halo_lesson(picks::Halo::StaticShared);
  const CliResult r =
      races_cli(std::string(stencil.id) +
                    " --length 128 --radius 3 --block 64 --barriers none --backend sim "
                    "--schedule skew --runs 1 --detail --detail-limit 1",
                true);
  ASSERT_EQ(r.code, 0) << r.out;
  // The shared array under its name in the kernel's source (cache), from the
  // line that loads each thread's own element to the line that sums.
  const int store = line_of(stencil.source_file, "cache[s] = in[");
  const int load = line_of(stencil.source_file, "sum += cache[s + j]");
  // Within a warp the store comes first; the skewed warp stores after the
  // other warp has read: between warps the other way round.
  EXPECT_NE(r.out.find("WARNING RAW (read-after-write) cache line " + std::to_string(store) +
                       " (write) -> line " + std::to_string(load) + " (read)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ERROR   WAR (write-after-read) cache line " + std::to_string(load) +
                       " (read) -> line " + std::to_string(store) + " (write)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("order-dependent: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("that racecheck does not report"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Detail"), std::string::npos);
  EXPECT_NE(r.out.find("Stale reads"), std::string::npos);
  EXPECT_NE(r.out.find("race present"), std::string::npos);
}

TEST(RacesCli, AllBarriersNoRace) {
  REQUIRE_CLI();
  const CliResult r = races_cli(
      std::string(picks::rectangular_tiled_lesson().id) + " --barriers 1,2 --backend sim --runs 2",
      true);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("no race found; output right in all 2 runs"), std::string::npos) << r.out;
}

TEST(RacesCli, BadInputIsAUsageError) {
  REQUIRE_CLI();
  const std::string tiled = picks::default_lesson().id;
  for (const std::string& args :
       {tiled + " --runs 0", tiled + " --runs 10001", tiled + " --barriers 3",
        std::string("no.such.kernel"), std::string()}) {
    const CliResult r = races_cli(args, true);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("error:"), std::string::npos) << args << ": " << r.out;
  }
  EXPECT_NE(races_cli(tiled + " --runs 0", true).out.find("1 to 10000"), std::string::npos);
}

TEST(RacesCli, CasesListTheCatalogue) {
  REQUIRE_CLI();
  const CliResult r = races_cli("--cases", false);
  ASSERT_EQ(r.code, 0);
  for (const LessonInfo& v : all_lessons())
    EXPECT_NE(r.out.find(std::string(v.id) + " " + std::to_string(v.barriers.size()) + "\n"),
              std::string::npos)
        << v.id;
}

}  // namespace
}  // namespace ts
