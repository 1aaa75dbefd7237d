// The histogram ladder past step 2, on the simulator: a private copy per warp
// (each atomic lands in its own warp's row), warp-aggregated atomics (one
// atomic per distinct bin in a warp, added by the group's lowest lane with
// the group's size), and the grid-stride step (16-byte loads a grid apart, a
// grid that stops growing, one global atomic per bin and block). Every step
// counts every bin right on odd sizes, partial warps and every schedule.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/backend.hpp"
#include "lessons/histogram_kit.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

using lessons::histogram_kit::bin_of;
using lessons::histogram_kit::kBinCount;

// The steps, picked by what they do.
bool is_histogram(const LessonInfo& v) {
  return std::string(v.family) == picks::shared_atomics_lesson().family;
}
const LessonInfo& aggregated() {
  return picks::first_with("with warp-aggregated shared atomics", [](const LessonInfo& v) {
    return picks::default_counts(v).fewest_shared_atomics > 0;
  });
}
// Shared atomics into a shared array of one row per warp, one element per thread.
const LessonInfo& per_warp() {
  return picks::first_with(
      "with a histogram row per warp, not aggregated", [](const LessonInfo& v) {
        if (!is_histogram(v) || picks::default_counts(v).fewest_shared_atomics > 0) return false;
        for (const ArrayInfo& a : arrays(v, v.defaults))
          if (a.shared() && a.rows == (v.defaults.block + 31) / 32 && a.rows > 1) return true;
        return false;
      });
}
// The histogram whose grid stops growing: each thread counts many elements.
bool strides(const LessonInfo& v) {
  const Params p{.length = 1 << 24, .block = 256};
  return is_histogram(v) && uint64_t(geometry(v, p).grid.x) * 256 < uint64_t(p.length);
}
const LessonInfo& grid_stride() {
  return picks::first_with("a histogram with a grid stride", strides);
}

RunResult sim(const LessonInfo& v, Params p, ScheduleKind kind = ScheduleKind::Lockstep,
              InputKind inputs = InputKind::SmallIntegers) {
  RunRequest req;
  req.lesson_id = v.id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = kind;
  req.inputs = inputs;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << v.id << ": " << r.error;
  return r;
}

const std::vector<float>& input(const LessonInfo& v, const RunResult& r) {
  return r.trace.buffer(picks::array_slot(v, "in", r.trace.config.params))->values;
}

TEST(HistogramSteps, EveryLaterStepCountsEveryBinRight) {
  for (const LessonInfo* v : {&per_warp(), &aggregated(), &grid_stride()})
    for (auto [length, block] :
         {std::pair{200, 64}, {1, 32}, {7, 32}, {33, 32}, {1003, 96}, {100, 8}, {4099, 128}})
      for (ScheduleKind kind :
           {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random})
        for (InputKind inputs : {InputKind::SmallIntegers, InputKind::Uniform}) {
          SCOPED_TRACE(std::string(v->id) + " length " + std::to_string(length) + " block " +
                       std::to_string(block) + " " + to_string(kind));
          const RunResult r = sim(*v, {.length = length, .block = block}, kind, inputs);
          ASSERT_TRUE(r.ok);
          EXPECT_TRUE(r.verdict.correct) << r.verdict.summary();
          EXPECT_TRUE(r.faults.empty());
        }
}

TEST(HistogramSteps, APerWarpCopyTakesOnlyItsOwnWarpsAtomics) {
  const LessonInfo& v = per_warp();
  const RunResult r = sim(v, {.length = 1000, .block = 128});
  const ArraySlot rows = picks::array_slot(v, "warp_bins", r.trace.config.params);
  uint64_t atomics = 0;
  for (const Event& e : r.trace.events)
    if (e.kind == EventKind::SharedAtomic) {
      ++atomics;
      EXPECT_EQ(e.array, rows);
      EXPECT_EQ(e.element / kBinCount, e.thread / 32u) << "thread " << e.thread;
    }
  EXPECT_EQ(atomics, 1000u);  // one per element: nothing aggregated
}

// The groups __match_any_sync makes: per block and warp, the bins its lanes hold.
std::map<std::tuple<uint32_t, uint32_t, int>, std::vector<uint32_t>> groups(
    const std::vector<float>& in, int block) {
  std::map<std::tuple<uint32_t, uint32_t, int>, std::vector<uint32_t>> g;
  for (size_t i = 0; i < in.size(); ++i) {
    const uint32_t b = uint32_t(i / size_t(block)), t = uint32_t(i % size_t(block));
    g[{b, t / 32, bin_of(in[i])}].push_back(t);
  }
  return g;
}

TEST(HistogramSteps, AggregatedAtomicsAreOnePerDistinctBinOfAWarpByItsLowestLane) {
  const LessonInfo& v = aggregated();
  for (auto [length, block] : {std::pair{200, 64}, {1000, 96}, {100, 8}, {77, 32}})
    for (InputKind inputs : {InputKind::SmallIntegers, InputKind::Uniform}) {
      SCOPED_TRACE("length " + std::to_string(length) + " block " + std::to_string(block));
      const Params p{.length = length, .block = block};
      const RunResult r = sim(v, p, ScheduleKind::WarpSkew, inputs);
      ASSERT_TRUE(r.ok);
      EXPECT_TRUE(r.verdict.correct) << r.verdict.summary();
      const auto want = groups(input(v, r), block);
      // Each group: one atomic, by its lowest lane, on its warp's row and its
      // bin; the counter grows by the group's size (the events of one counter
      // come in the order they ran, and each holds the value after its add).
      std::set<std::tuple<uint32_t, uint32_t, int>> seen;
      std::map<std::pair<uint32_t, uint32_t>, float> last;  // (block, counter): value
      for (const Event& e : r.trace.events) {
        if (e.kind != EventKind::SharedAtomic) continue;
        const auto key = std::tuple{e.block, e.thread / 32u, int(e.element % kBinCount)};
        ASSERT_EQ(e.element / kBinCount, e.thread / 32u);
        auto it = want.find(key);
        ASSERT_NE(it, want.end()) << "block " << e.block << " thread " << e.thread;
        EXPECT_EQ(e.thread, it->second.front()) << "the leader is the lowest lane";
        EXPECT_TRUE(seen.insert(key).second) << "one atomic per group";
        float& before = last[{e.block, e.element}];
        EXPECT_EQ(e.value - before, float(it->second.size()));
        before = e.value;
      }
      EXPECT_EQ(seen.size(), want.size());
      const ExpectedCounts c = expected_counts(v, p);
      EXPECT_TRUE(c.allows_shared_atomics(seen.size()));
      EXPECT_LT(c.fewest_shared_atomics, c.shared_atomics);
    }
}

TEST(HistogramSteps, AggregationNeedsFewerAtomicsWhereLanesShareBins) {
  // The small integers fill 9 bins: a warp of 32 lanes makes at most 9 atomics.
  const LessonInfo& v = aggregated();
  const RunResult r = sim(v, {.length = 1024, .block = 64});
  uint64_t atomics = 0;
  for (const Event& e : r.trace.events)
    atomics += e.kind == EventKind::SharedAtomic;
  EXPECT_LE(atomics, 32u * 9u);
  EXPECT_GE(atomics, 32u);  // at least one per warp
}

TEST(HistogramSteps, TheGridStrideStepLoadsFloat4sAGridApart) {
  const LessonInfo& v = grid_stride();
  const Params p{.length = 2048 + 3, .block = 64};
  const RunResult r = sim(v, p);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(r.verdict.correct) << r.verdict.summary();
  const LaunchGeometry g = geometry(v, p);
  EXPECT_GE(g.grid.x, 2u);
  const uint32_t stride = g.grid.x * g.block.x;                          // threads in the grid
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> quads;  // thread: its float4s
  uint64_t wide = 0, narrow = 0;
  for (const Event& e : r.trace.events) {
    if (e.kind != EventKind::GlobalLoad) continue;
    if (access_bytes(e.flags) == 16) {
      ++wide;
      if (e.element % 4 == 0) quads[{e.block, e.thread}].push_back(e.element / 4);
    } else {
      ++narrow;
    }
  }
  EXPECT_EQ(wide, 2048u);
  EXPECT_EQ(narrow, 3u);  // the tail, one element per thread
  for (const auto& [who, q] : quads) {
    const uint32_t first = who.first * g.block.x + who.second;
    for (size_t k = 0; k < q.size(); ++k)
      EXPECT_EQ(q[k], first + k * stride) << "block " << who.first << " thread " << who.second;
  }
  // One global atomic per bin and block.
  EXPECT_EQ(expected_counts(v, p).global_atomics, uint64_t(g.grid.x) * kBinCount);
}

TEST(HistogramSteps, TheGridStopsGrowingSoGlobalAtomicsStayFew) {
  const LessonInfo& v = grid_stride();
  const Params big{.length = 1 << 26, .block = 256};
  const LaunchGeometry g = geometry(v, big);
  EXPECT_EQ(g.grid.x, uint32_t(lessons::histogram_kit::kMaxBlocks));
  const ExpectedCounts c = expected_counts(v, big);
  EXPECT_EQ(c.global_atomics, uint64_t(g.grid.x) * kBinCount);
  // Step 2 at the same size: one block per 256 elements, 256 times the global atomics.
  const ExpectedCounts before = expected_counts(picks::shared_atomics_lesson(), big);
  EXPECT_EQ(before.global_atomics, c.global_atomics * 256);
}

TEST(HistogramSteps, TheLadderRunsFromGlobalAtomicsToTheGridStride) {
  std::vector<const LessonInfo*> steps = picks::all_with(is_histogram);
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[0], &picks::global_atomics_lesson());
  EXPECT_EQ(steps[1], &picks::shared_atomics_lesson());
  EXPECT_EQ(steps[2], &per_warp());
  EXPECT_EQ(steps[3], &aggregated());
  EXPECT_EQ(steps[4], &grid_stride());
}

}  // namespace
}  // namespace ts
