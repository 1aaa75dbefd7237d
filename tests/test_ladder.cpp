// The SGEMM ladder in a performance report (io/ladder.hpp): which steps the
// chart shows and in which order (the catalogue's ladder fields, never a
// lesson id), the best result per step and size, its share of cuBLAS, and the
// traffic per step from the closed-form counts, checked against the formulas
// worked out by hand for the naive and the tiled multiply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli_process.hpp"
#include "engine/backend.hpp"
#include "io/ladder.hpp"
#include "io/perf_report.hpp"
#include "lessons/sgemm_kit.hpp"

namespace ts {
namespace {

PerfResult row(const std::string& kernel, int tile, int n, double ms) {
  PerfResult x;
  x.kernel = kernel;
  x.metric = PerfMetric::Flops;
  x.tile = tile;
  x.size = n;
  x.params.m = x.params.k = x.params.n = n;
  x.params.tile = x.params.block = tile;
  x.flops = flop_count(PerfMetric::Flops, x.params);
  x.compulsory_bytes = compulsory_bytes(PerfMetric::Flops, x.params);
  x.ms_median = x.ms_min = x.ms_max = ms;
  x.reps = 10;
  return x;
}

std::string fmt_ratio(double r) {
  char b[32];
  std::snprintf(b, sizeof b, r >= 10 ? "%.0fx" : "%.1fx", r);
  return b;
}

int tuned(const LessonInfo& v) {
  return lesson_kit::tile_values(v).back();
}

// cuBLAS at 1 ms per size; step i (0-based, in ladder order) at (i + 2) ms,
// its tuned tile; every step also a slower run at another tile where it has one.
PerfReport ladder_report() {
  PerfReport r;
  r.device.usable = true;
  r.device.fp32_peak_gflops = 60000;
  for (int n : kLadderSizes) {
    r.results.push_back(row(kCublasId, 0, n, 1.0));
    const auto steps = ladder_lessons(lessons::sgemm_kit::kLadder);
    for (size_t i = 0; i < steps.size(); ++i) {
      const LessonInfo& v = *steps[i];
      r.results.push_back(row(v.id, tuned(v), n, double(i + 2)));
      const auto tiles = lesson_kit::tile_values(v);
      if (tiles.size() > 1) r.results.push_back(row(v.id, tiles.front(), n, 50.0 + double(i)));
    }
  }
  return r;
}

TEST(Ladder, StepsComeFromTheCatalogueInLadderOrder) {
  const auto names = ladders();
  ASSERT_NE(std::find(names.begin(), names.end(), lessons::sgemm_kit::kLadder), names.end());
  const auto steps = ladder_lessons(lessons::sgemm_kit::kLadder);
  ASSERT_GE(steps.size(), 2u);  // matmul.naive_grid and matmul.tiled_square at least
  size_t marked = 0;
  for (const LessonInfo& v : all_lessons())
    marked += v.ladder && std::string(v.ladder) == lessons::sgemm_kit::kLadder;
  EXPECT_EQ(steps.size(), marked);
  for (size_t i = 1; i < steps.size(); ++i)
    EXPECT_LT(steps[i - 1]->ladder_step, steps[i]->ladder_step);
  // In this order in the chart, each with a short title: the id after its family.
  const LadderChart c = ladder_chart(ladder_report(), lessons::sgemm_kit::kLadder);
  ASSERT_EQ(c.steps.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(c.steps[i].lesson, steps[i]);
    EXPECT_EQ(c.steps[i].step, steps[i]->ladder_step);
    const std::string id = steps[i]->id;
    EXPECT_EQ(c.steps[i].short_title, id.substr(id.find('.') + 1));
  }
}

TEST(Ladder, BestResultPerStepAndSizeAgainstCublas) {
  const LadderChart c = ladder_chart(ladder_report(), lessons::sgemm_kit::kLadder);
  ASSERT_EQ(c.sizes, (std::vector<int>{1024, 2048, 4096}));
  EXPECT_EQ(c.table_size, 4096);
  EXPECT_DOUBLE_EQ(c.fp32_peak_gflops, 60000);
  for (size_t k = 0; k < c.sizes.size(); ++k) {
    const double n = c.sizes[k];
    EXPECT_NEAR(c.cublas_gflops[k], 2 * n * n * n / 1e-3 / 1e9, 1e-6);
  }
  for (size_t i = 0; i < c.steps.size(); ++i)
    for (int n : c.sizes) {
      const LadderPoint* p = c.at(i, n);
      ASSERT_NE(p, nullptr);
      ASSERT_TRUE(p->counted);
      // The tuned tile's run (i + 2 ms), not the slower one at the smallest tile.
      EXPECT_EQ(p->tile, tuned(*c.steps[i].lesson));
      const double nn = n;
      EXPECT_NEAR(p->gflops, 2 * nn * nn * nn / ((i + 2) * 1e-3) / 1e9, 1e-6);
      EXPECT_NEAR(p->pct_cublas, 100.0 / double(i + 2), 1e-9);
    }
}

TEST(Ladder, WrongAndMissingResultsAreNotCharted) {
  PerfReport r = ladder_report();
  const auto steps = ladder_lessons(lessons::sgemm_kit::kLadder);
  // The first step's runs at 2048 turn out wrong, and cuBLAS at 1024 is not timed.
  for (PerfResult& x : r.results) {
    if (x.kernel == steps[0]->id && x.size == 2048) x.status = PerfStatus::Wrong;
    if (x.kernel == kCublasId && x.size == 1024) x.status = PerfStatus::Skipped;
  }
  const LadderChart c = ladder_chart(r, lessons::sgemm_kit::kLadder);
  EXPECT_FALSE(c.at(0, 2048)->counted);
  EXPECT_EQ(c.at(0, 2048)->gflops, 0);
  EXPECT_TRUE(c.at(0, 4096)->counted);
  EXPECT_EQ(c.cublas_gflops[0], 0);
  EXPECT_EQ(c.at(0, 1024)->pct_cublas, 0);  // no cuBLAS to compare with
  EXPECT_TRUE(c.any_counted());
  // A report without the ladder's lessons: every step there, none counted.
  PerfReport other;
  other.results.push_back(row(kCublasId, 0, 4096, 1.0));
  const LadderChart none = ladder_chart(other, lessons::sgemm_kit::kLadder);
  EXPECT_EQ(none.steps.size(), steps.size());
  EXPECT_FALSE(none.any_counted());
}

TEST(Ladder, TrafficPerStepFromTheClosedForm) {
  const LadderChart c = ladder_chart(ladder_report(), lessons::sgemm_kit::kLadder);
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LessonInfo& v = *c.steps[i].lesson;
    const LadderPoint* p = c.at(i, 4096);
    Params q = v.defaults;
    q.m = q.k = q.n = 4096;
    if (v.uses & kUsesTile) q.tile = p->tile;
    if (v.uses & kUsesBlock) q.block = p->tile;
    const ExpectedCounts e = expected_counts(v, q);
    const double flops = flop_count(v, q);
    EXPECT_NEAR(p->global_intensity, flops / (4.0 * double(e.global_loads + e.global_stores)), 1e-9)
        << v.id;
    EXPECT_NEAR(p->shared_bytes_per_flop, 4.0 * double(e.shared_loads + e.shared_stores) / flops,
                1e-12)
        << v.id;
    EXPECT_FALSE(c.steps[i].why.empty());
  }
  // By hand, for steps 2 (the coalesced naive grid) and 3 (the shared tiles) of
  // the ladder's brief. Naive: 2n loads and 1 store per output for 2n flops:
  // 2n / (4 (2n + 1)) ~ 0.25 flop/B, no shared memory. Tiled (T divides n):
  // 2n/T loads and 1 store per output: T times fewer global bytes per flop;
  // shared 2n loads + 2n/T stores per output: 4 (1 + 1/T) bytes per flop.
  const double n = 4096;
  const LadderPoint *naive = nullptr, *tiled = nullptr;
  size_t tiled_at = 0;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    if (c.steps[i].step == 2) naive = c.at(i, 4096);
    if (c.steps[i].step == 3) tiled = c.at(i, 4096), tiled_at = i;
  }
  ASSERT_NE(naive, nullptr);
  ASSERT_NE(tiled, nullptr);
  EXPECT_NEAR(naive->global_intensity, 2 * n / (4 * (2 * n + 1)), 1e-12);
  EXPECT_EQ(naive->shared_bytes_per_flop, 0);
  const double T = tiled->tile;
  EXPECT_NEAR(tiled->global_intensity, 2 * n / (4 * (2 * n / T + 1)), 1e-9);
  EXPECT_NEAR(tiled->shared_bytes_per_flop, 4 * (1 + 1 / T), 1e-12);
  // Its caption says what the counts say.
  ASSERT_GT(tiled_at, 0u);
  EXPECT_NE(c.steps[tiled_at].why.find(fmt_ratio(T) + " fewer global bytes per flop"),
            std::string::npos)
      << c.steps[tiled_at].why;
}

TEST(Ladder, TerminalTable) {
  const LadderChart c = ladder_chart(ladder_report(), lessons::sgemm_kit::kLadder);
  const std::string t = format_ladder_table(c);
  EXPECT_NE(t.find("no tensor cores, no TF32; cuBLAS with CUBLAS_DEFAULT_MATH"), std::string::npos);
  EXPECT_NE(t.find("GFLOP/s 4096"), std::string::npos) << t;
  EXPECT_NE(t.find("%cuBLAS 4096"), std::string::npos) << t;
  // One line per step, in ladder order, with its % of cuBLAS at 4096 (100 / (i + 2)).
  size_t at = 0;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const size_t line = t.find(c.steps[i].lesson->id, at);
    ASSERT_NE(line, std::string::npos) << c.steps[i].lesson->id << "\n" << t;
    const std::string rest = t.substr(line, t.find('\n', line) - line);
    char pct[32];
    std::snprintf(pct, sizeof pct, " %.1f ", 100.0 / double(i + 2));
    EXPECT_NE(rest.find(pct), std::string::npos) << rest;
    at = line;
  }
}

TEST(Ladder, SavedH100ReportChartsStepsTwoAndThree) {
  // docs/perf_h100_panel.json: an H100 sweep of the matmul family before the
  // ladder's own lessons existed: steps 2 and 3 at tiles 16 and 32, cuBLAS.
  std::string err;
  const auto r = load_report(std::string(TS_SOURCE_DIR) + "/docs/perf_h100_panel.json", &err);
  ASSERT_TRUE(r.has_value()) << err;
  const LadderChart c = ladder_chart(*r, lessons::sgemm_kit::kLadder);
  EXPECT_NEAR(c.fp32_peak_gflops, 66908.16, 0.01);
  EXPECT_NEAR(c.cublas_gflops[0], 33927.6, 0.1);
  EXPECT_NEAR(c.cublas_gflops[2], 51087.4, 0.1);
  int found = 0;
  for (size_t i = 0; i < c.steps.size(); ++i) {
    const LadderPoint* p = c.at(i, 4096);
    if (c.steps[i].step == 2) {  // the naive grid: block side 32 is its faster run
      ++found;
      EXPECT_EQ(p->tile, 32);
      EXPECT_NEAR(c.at(i, 1024)->gflops, 6133.7, 0.1);
      EXPECT_NEAR(p->gflops, 6120.3, 0.1);
    } else if (c.steps[i].step == 3) {
      ++found;
      EXPECT_EQ(p->tile, 32);
      EXPECT_NEAR(c.at(i, 2048)->gflops, 9338.7, 0.1);
      EXPECT_NEAR(p->pct_cublas, 100 * 9031.62 / 51087.38, 0.01);  // 17.7 %
    } else {
      EXPECT_FALSE(p->counted) << c.steps[i].lesson->id << ": not in that sweep";
    }
  }
  EXPECT_EQ(found, 2);
}

#ifdef TS_CLI_PATH
TEST(Ladder, BenchLadderWithoutGpuSaysSo) {
  if (cuda_status().usable)
    GTEST_SKIP() << "skipped: a CUDA device is present (this checks the message without one)";
  const auto r = testing::run_cli("bench --ladder", true);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("Timings need an NVIDIA GPU"), std::string::npos) << r.out;
  const auto both = testing::run_cli("bench --ladder --kernels all", true);
  EXPECT_EQ(both.code, 2) << both.out;
  EXPECT_NE(both.out.find("--ladder picks the kernels"), std::string::npos) << both.out;
}
#endif

}  // namespace
}  // namespace ts
