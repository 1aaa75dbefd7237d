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

// ---- A bandwidth family as a ladder: its lessons, the copy, its library line

// A family that has a library line, picked by that property.
std::string family_with_library() {
  return kLibraryAnchors[0].family;
}

std::vector<const LessonInfo*> family_lessons(const std::string& family) {
  std::vector<const LessonInfo*> out;
  for (const LessonInfo& v : all_lessons())
    if (family == v.family) out.push_back(&v);
  return out;
}

TEST(FamilyLadder, StepsAreTheFamilysLessonsInCatalogueOrder) {
  const std::vector<std::string> names = ladder_names();
  ASSERT_FALSE(names.empty());
  const std::vector<std::string> declared_ladders = ladders();  // one vector: begin and end of it
  EXPECT_EQ(names.front(), declared_ladders.front()) << "the declared ladder first: --ladder alone";
  for (const char* f : families()) {
    SCOPED_TRACE(f);
    EXPECT_NE(std::find(names.begin(), names.end(), f), names.end());
    const bool declared =
        std::find(declared_ladders.begin(), declared_ladders.end(), f) != declared_ladders.end();
    if (declared) continue;  // the SGEMM ladder: its declared steps (above)
    EXPECT_EQ(ladder_lessons(f), family_lessons(f));
  }
  // A family's steps are numbered by their place in the list.
  const std::string fam = family_with_library();
  const LadderChart c = ladder_chart(PerfReport{}, fam, {1 << 20});
  ASSERT_EQ(c.steps.size(), family_lessons(fam).size());
  EXPECT_EQ(c.metric, PerfMetric::Bytes);
  for (size_t i = 0; i < c.steps.size(); ++i)
    EXPECT_EQ(c.steps[i].step, int(i + 1));
  EXPECT_TRUE(ladder_lessons("no_such_ladder").empty());
}

TEST(FamilyLadder, ConfigPicksTheStepsAndTheSizesOfItsKind) {
  PerfConfig c;
  std::vector<int> chart;
  const std::string fam = family_with_library();
  ASSERT_FALSE(ladder_config(fam, {}, {}, c, chart).has_value());
  std::vector<std::string> ids;
  for (const LessonInfo* v : family_lessons(fam))
    ids.push_back(v->id);
  EXPECT_EQ(c.kernels, ids);
  EXPECT_EQ(c.stencil_lengths,
            std::vector<int>(std::begin(kFamilyLadderLengths), std::end(kFamilyLadderLengths)));
  EXPECT_EQ(chart, c.stencil_lengths);
  EXPECT_FALSE(selected_anchors(c).empty()) << "the family's library line runs in the same sweep";
  ASSERT_FALSE(ladder_config(fam, {}, {4096}, c, chart).has_value());
  EXPECT_EQ(chart, std::vector<int>{4096});
  // The SGEMM ladder (what --ladder alone names) keeps its n.
  PerfConfig s;
  ASSERT_FALSE(ladder_config(ladders().front(), {}, {}, s, chart).has_value());
  EXPECT_EQ(s.kernels.size(), ladder_lessons(ladders().front()).size());
  EXPECT_EQ(s.matmul_sizes, std::vector<int>(std::begin(kLadderSizes), std::end(kLadderSizes)));
  EXPECT_TRUE(s.stencil_lengths.empty());
  // Refused: no such ladder (the message lists them), sizes of the other kind.
  const auto bad = ladder_config("no_such_ladder", {}, {}, c, chart);
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find(fam), std::string::npos) << *bad;
  EXPECT_NE(ladder_config(fam, {64}, {}, c, chart)->find("--lengths"), std::string::npos);
  EXPECT_NE(ladder_config(ladders().front(), {}, {64}, c, chart)->find("--sizes"),
            std::string::npos);
}

PerfResult bandwidth_row(const std::string& kernel, int size, double gbps) {
  PerfResult x;
  x.kernel = kernel;
  x.metric = PerfMetric::Bytes;
  x.size = size;
  x.params.length = size;
  x.compulsory_bytes = 8.0 * size;
  x.ms_median = x.ms_min = x.ms_max = x.compulsory_bytes / (gbps * 1e9) * 1e3;
  x.reps = 10;
  return x;
}

TEST(FamilyLadder, GbpsPerStepAgainstTheCopyAndTheLibrary) {
  const std::string fam = family_with_library();
  const auto steps = family_lessons(fam);
  const int n = 1 << 24;
  PerfReport r;
  r.device.usable = true;
  r.device.copy_gbps = 4000;
  for (size_t i = 0; i < steps.size(); ++i)  // step i at 400 (i + 1) GB/s
    r.results.push_back(bandwidth_row(steps[i]->id, n, 400.0 * double(i + 1)));
  r.results.push_back(bandwidth_row(kLibraryAnchors[0].id, n, 3000));
  const LadderChart c = ladder_chart(r, fam, {n});
  ASSERT_EQ(c.steps.size(), steps.size());
  EXPECT_DOUBLE_EQ(c.copy_gbps, 4000);
  ASSERT_FALSE(c.library.empty());
  EXPECT_EQ(c.library.front().anchor, &kLibraryAnchors[0]);
  EXPECT_NEAR(c.library.front().gbps[0], 3000, 1e-6);
  for (size_t i = 0; i < steps.size(); ++i) {
    const LadderPoint* p = c.at(i, n);
    ASSERT_TRUE(p && p->counted);
    const double g = 400.0 * double(i + 1);
    EXPECT_NEAR(p->gbps, g, 1e-6);
    EXPECT_NEAR(p->pct_copy, 100 * g / 4000, 1e-9);
    EXPECT_NEAR(p->pct_library, 100 * g / 3000, 1e-9);
  }
  const std::string t = format_ladder_table(c);
  EXPECT_NE(t.find("GB/s " + std::to_string(n)), std::string::npos) << t;
  EXPECT_NE(t.find("%copy " + std::to_string(n)), std::string::npos) << t;
  EXPECT_NE(t.find("%library " + std::to_string(n)), std::string::npos) << t;
  EXPECT_NE(t.find(kLibraryAnchors[0].title), std::string::npos) << t;
  // The last step's line: its GB/s, 10 % of the copy per 400 GB/s, its share of the library.
  const size_t last = t.find(steps.back()->id);
  ASSERT_NE(last, std::string::npos);
  const std::string line = t.substr(last, t.find('\n', last) - last);
  const double g = 400.0 * double(steps.size());
  char want[64];
  std::snprintf(want, sizeof want, "%.1f", 100 * g / 4000);
  EXPECT_NE(line.find(want), std::string::npos) << line;
  std::snprintf(want, sizeof want, "%.1f", 100 * g / 3000);
  EXPECT_NE(line.find(want), std::string::npos) << line;
  // Wrong results never count: the library's wrong run shows as wrong, not as a speed.
  r.results.back().status = PerfStatus::Wrong;
  const LadderChart w = ladder_chart(r, fam, {n});
  EXPECT_EQ(w.library.front().gbps[0], 0);
  EXPECT_EQ(w.at(steps.size() - 1, n)->pct_library, 0);
  EXPECT_NE(format_ladder_table(w).find("wrong"), std::string::npos);
}

TEST(FamilyLadder, SavedH200FamiliesReport) {
  // docs/perf_h200_families.json: the bandwidth families at 2^24 and 2^26 on
  // an H200, copy 4,149 GB/s, before the library lines existed.
  std::string err;
  const auto r = load_report(std::string(TS_SOURCE_DIR) + "/docs/perf_h200_families.json", &err);
  ASSERT_TRUE(r.has_value()) << err;
  const std::vector<int> sizes(std::begin(kFamilyLadderLengths), std::end(kFamilyLadderLengths));
  int charted = 0;
  for (const std::string& fam : report_families(*r)) {
    SCOPED_TRACE(fam);
    const LadderChart c = ladder_chart(*r, fam, sizes);
    ASSERT_EQ(c.metric, PerfMetric::Bytes);
    EXPECT_NEAR(c.copy_gbps, 4149.18, 0.01);
    for (size_t i = 0; i < c.steps.size(); ++i)
      for (int n : sizes) {
        const PerfResult* x = nullptr;
        for (const PerfResult& y : r->results)
          if (y.kernel == c.steps[i].lesson->id && y.size == n) x = &y;
        const LadderPoint* p = c.at(i, n);
        if (!x) {  // a lesson added since: a step with no result
          EXPECT_FALSE(p->counted);
          continue;
        }
        ++charted;
        const double gbps = x->compulsory_bytes / (x->ms_median * 1e-3) / 1e9;
        EXPECT_NEAR(p->gbps, gbps, 1e-6 * gbps) << c.steps[i].lesson->id;
        EXPECT_NEAR(p->pct_copy, 100 * gbps / c.copy_gbps, 1e-6) << c.steps[i].lesson->id;
        EXPECT_EQ(p->pct_library, 0) << "no library line in that report";
      }
    const std::string t = format_ladder_table(c);
    if (!c.library.empty())
      EXPECT_NE(t.find("not measured in this report"), std::string::npos) << t;
    else
      EXPECT_NE(t.find("none timed for this family"), std::string::npos) << t;
  }
  EXPECT_GE(charted, 30);  // 36 lesson rows in that report
}

#ifdef TS_CLI_PATH
TEST(FamilyLadder, BenchLadderParsesAFamily) {
  const std::string fam = family_with_library();
  const auto bad = testing::run_cli("bench --ladder no_such_ladder", true);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("a ladder is one of"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find(fam), std::string::npos) << bad.out;
  const auto sizes = testing::run_cli("bench --ladder " + fam + " --sizes 64", true);
  EXPECT_EQ(sizes.code, 2) << sizes.out;
  EXPECT_NE(sizes.out.find("give --lengths"), std::string::npos) << sizes.out;
  if (cuda_status().usable)
    GTEST_SKIP() << "skipped: a CUDA device is present (the rest checks the message without one)";
  const auto ok = testing::run_cli("bench --ladder " + fam + " --lengths 4096 --quiet", true);
  EXPECT_EQ(ok.code, 1) << ok.out;  // parsed and accepted; no GPU to time it
  EXPECT_NE(ok.out.find("Timings need an NVIDIA GPU"), std::string::npos) << ok.out;
}

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
