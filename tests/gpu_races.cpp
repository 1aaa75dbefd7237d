// GPU race lab tests (label gpu): hazards found on GPU traces agree with the
// simulator's, and the skew control makes the latent race (second barrier of
// the tiled multiply removed) bite. Without a usable CUDA device every test is
// skipped, never passed.
//
//   build/headless/tests/ts_gpu_tests --gtest_filter='GpuRaces*'
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/hazards.hpp"
#include "analysis/race_runs.hpp"
#include "analysis/stale_reads.hpp"
#include "engine/backend.hpp"
#include "tests/gpu_require.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// Blocks of two or more warps, two or more tiles, no diverging threads (as in
// tests/test_hazards.cpp), so that every barrier guards something.
std::vector<std::pair<const char*, Params>> race_cases() {
  return {
      {picks::one_block_lesson().id, Params{.n = 6}},
      {picks::ladder_step(2).id, Params{.n = 10, .block = 4}},
      {picks::dynamic_staging_lesson(1).id, Params{.n = 16, .tile = 8}},
      {picks::dynamic_staging_lesson(2).id, Params{.n = 16, .tile = 8}},
      {picks::overreaching_lesson().id, Params{.n = 32, .tile = 8}},
      {picks::default_lesson().id, Params{.n = 32, .tile = 16}},
      {picks::rectangular_tiled_lesson().id, Params{.m = 16, .k = 24, .n = 32, .tile = 8}},
      {picks::halo_lesson(picks::Halo::Global).id, Params{.length = 128, .radius = 3, .block = 64}},
      {picks::halo_lesson(picks::Halo::StaticShared).id,
       Params{.length = 128, .radius = 3, .block = 64}},
      {picks::halo_lesson(picks::Halo::DynamicShared).id,
       Params{.length = 128, .radius = 3, .block = 64}},
      {picks::layout_family_naive_lesson().id, Params{.m = 64, .n = 64}},
      {picks::layout_lesson().id, Params{.m = 64, .n = 64}},
      {picks::global_atomics_lesson().id, Params{.length = 256, .block = 64}},
      {picks::shared_atomics_lesson().id, Params{.length = 256, .block = 64}},
      {picks::constant_memory_lesson(true).id, Params{.m = 16, .n = 16, .tile = 8, .radius = 2}},
  };
}

std::set<std::pair<int, int>> line_pairs(const HazardReport& r) {
  std::set<std::pair<int, int>> s;
  for (const auto& g : r.groups)
    s.insert({std::min(g.first_line, g.second_line), std::max(g.first_line, g.second_line)});
  return s;
}

RunResult traced(const char* id, const Params& p, uint32_t mask, BackendChoice b) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.barrier_mask = mask;
  req.backend = b;
  RunResult r = b == BackendChoice::Cuda ? run_cuda(req) : run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  EXPECT_FALSE(r.trace.truncated()) << id;
  return r;
}

TEST(GpuRaces, HazardsOnGpuTracesMatchTheSimulator) {
  REQUIRE_GPU();
  for (const auto& [id, p] : race_cases()) {
    const LessonInfo* v = find_lesson(id);
    ASSERT_NE(v, nullptr) << id;
    for (uint32_t mask = 0; mask <= all_barriers(*v); ++mask) {
      SCOPED_TRACE(std::string(id) + " barrier mask " + std::to_string(mask));
      const Trace gpu_trace = traced(id, p, mask, BackendChoice::Cuda).trace;
      const Trace sim_trace = traced(id, p, mask, BackendChoice::Sim).trace;
      // Every pair since the last write: whether there is a race, and between
      // which source lines, does not depend on timing; which of an unordered
      // pair ran first does (and which pairs racecheck's one-access shadow sees).
      HazardOptions every;
      every.model = HazardModel::SinceLastWrite;
      const HazardReport gpu = analyze_hazards(gpu_trace, every);
      const HazardReport sim = analyze_hazards(sim_trace, every);
      std::printf("%-24s mask %u  GPU: %-32s sim: %s\n", id, mask, gpu.verdict().c_str(),
                  sim.verdict().c_str());
      // Within a warp the order is the program's: racecheck's warnings alike.
      const HazardReport gpu_shown = analyze_hazards(gpu_trace);
      const HazardReport sim_shown = analyze_hazards(sim_trace);
      for (int k = 0; k < kHazardKindCount; ++k)
        EXPECT_EQ(gpu_shown.has(HazardSeverity::Warning, HazardKind(k)),
                  sim_shown.has(HazardSeverity::Warning, HazardKind(k)))
            << "GPU " << gpu_shown.verdict() << ", sim " << sim_shown.verdict();
      EXPECT_EQ(gpu.empty(), sim.empty());
      EXPECT_EQ(line_pairs(gpu), line_pairs(sim));
      EXPECT_EQ(gpu.errors > 0, sim.errors > 0);
      // Write-after-write only where the simulator sees it too (the histogram's
      // zeroing against its atomics; no other lesson has one).
      EXPECT_EQ(gpu.has(HazardKind::WriteAfterWrite), sim.has(HazardKind::WriteAfterWrite));
      if (mask == all_barriers(*v)) {
        EXPECT_TRUE(gpu.empty()) << "false positive on a correct kernel: " << gpu.verdict();
      }
    }
  }
}

TEST(GpuRaces, OneWarpBlocksGiveWarningsOnGpuToo) {
  REQUIRE_GPU();
  for (uint32_t mask : {0u, 1u, 2u}) {
    const HazardReport r = analyze_hazards(
        traced(picks::default_lesson().id, Params{.n = 16, .tile = 4}, mask, BackendChoice::Cuda)
            .trace);
    EXPECT_GT(r.warnings, 0u) << mask;
    EXPECT_EQ(r.errors, 0u) << mask;
  }
}

RaceRunsResult gpu_runs(uint32_t mask, int skew_ns, int runs) {
  RaceRunsRequest req;
  req.base.lesson_id = picks::default_lesson().id;
  req.base.params = Params{.n = 64, .tile = 16};
  req.base.barrier_mask = mask;
  req.base.backend = BackendChoice::Cuda;
  req.base.skew_ns = skew_ns;
  req.base.skew_warps = 0xAAAAAAAAu;  // the odd warps sleep halfway through the inner loop
  req.runs = runs;
  RaceRunsResult r = run_race_runs(req);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.runs_done, runs);
  std::printf(
      "tiled 64x64 tile 16, barriers mask %u, skew %4d ns: %2d of %d runs wrong, max error "
      "%g; %s\n",
      mask, skew_ns, r.wrong_runs, r.runs_done, r.max_abs_error, r.state().c_str());
  return r;
}

TEST(GpuRaces, SkewMakesTheMissingSecondBarrierBite) {
  REQUIRE_GPU();
  const int kRuns = 20;
  // The race is there whatever the timing.
  const RaceRunsResult plain = gpu_runs(0x1u, 0, kRuns);
  EXPECT_TRUE(plain.race_present());
  // With the odd warps delayed, the fast warps overwrite tiles still in use.
  const RaceRunsResult skewed = gpu_runs(0x1u, 1000, kRuns);
  EXPECT_TRUE(skewed.race_present());
  EXPECT_GE(skewed.wrong_runs, 1) << "skew 1000 ns made no run wrong (measured before: 100/100)";
  // With both barriers, the same skew changes nothing.
  const RaceRunsResult safe = gpu_runs(0x3u, 1000, kRuns);
  EXPECT_FALSE(safe.race_present());
  EXPECT_EQ(safe.wrong_runs, 0);
}

TEST(GpuRaces, StaleReadsOnASkewedGpuTrace) {
  REQUIRE_GPU();
  RunRequest req;
  req.lesson_id = picks::default_lesson().id;
  req.params = Params{.n = 64, .tile = 16};
  req.barrier_mask = 0x1u;
  req.backend = BackendChoice::Cuda;
  req.skew_ns = 1000;
  RunResult r = run_cuda(req);
  ASSERT_TRUE(r.ok) << r.error;
  const StaleReadReport s = find_stale_reads(r.trace);
  ASSERT_TRUE(s.compared) << s.error;
  EXPECT_EQ(s.stale_global, 0u);
  const OutputDamage d = output_damage(r.trace);
  std::printf(
      "traced GPU run, barrier 2 removed, skew 1000 ns: %llu stale reads of %llu loads, "
      "%zu wrong cells\n",
      (unsigned long long)s.stale, (unsigned long long)s.loads_compared, d.wrong.size());
  // A wrong output needs a stale read somewhere.
  if (!d.wrong.empty()) {
    EXPECT_GT(s.stale, 0u);
  }
  // All barriers: nothing stale.
  req.barrier_mask = 0x3u;
  RunResult ok = run_cuda(req);
  ASSERT_TRUE(ok.ok) << ok.error;
  const StaleReadReport s2 = find_stale_reads(ok.trace);
  ASSERT_TRUE(s2.compared) << s2.error;
  EXPECT_EQ(s2.stale, 0u);
}

}  // namespace
}  // namespace ts
