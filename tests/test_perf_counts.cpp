// Access counts from simulator traces equal the textbook: 2N global loads per
// output for the naive multiply, 2 ceil(N/T) for the tiled one (2N/T only when
// T divides N), 2R+1 for the naive stencil and ceil(L/B)(B+2R)/L with a shared
// halo. What the panel shows without a GPU; the formula it prints ends in the
// number it computes, and that number is the count of a real run.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>

#include "analysis/perf_counts.hpp"
#include "engine/backend.hpp"
#include "engine/perf.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The number a formula ends with: "2*ceil(N/T) = 2*ceil(10/4) = 6" -> 6. What
// the panel puts on screen after its last "= "; a formula without one is its
// number, explained: "1 (every element of in read once)" -> 1 (NaN when the
// text starts with no number).
double shown_value(const std::string& formula) {
  size_t at = std::string::npos;
  for (size_t i = formula.find("= "); i != std::string::npos; i = formula.find("= ", i + 1))
    at = i;
  const char* text = formula.c_str() + (at == std::string::npos ? 0 : at + 2);
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  return end == text ? std::nan("") : v;
}

AccessCounts counts_of(const std::string& id, Params p) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  const RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  EXPECT_TRUE(r.verdict.correct) << id << ": " << r.verdict.summary();
  return perf_access_counts(r.trace);
}

Params matmul(int n, int tile, int block = 0) {
  Params p;
  p.m = p.k = p.n = n;
  p.tile = tile;
  p.block = block;
  return p;
}

TEST(PerfCounts, NaiveMultiplyReads2NPerOutput) {
  const AccessCounts c = counts_of(picks::ladder_step(2).id, matmul(32, 0, 16));
  EXPECT_EQ(c.outputs, 32u * 32u);
  EXPECT_DOUBLE_EQ(c.loads_per_output, 64.0);  // 2N
  EXPECT_DOUBLE_EQ(c.theory_per_output, 64.0);
  EXPECT_EQ(c.theory_formula.rfind("2N = ", 0), 0u) << c.theory_formula;
  const LessonInfo& naive = picks::ladder_step(2);
  EXPECT_EQ(c.global_loads_per_buffer[picks::array_slot(naive, "A")], 32u * 32u * 32u);
  EXPECT_EQ(c.global_loads_per_buffer[picks::array_slot(naive, "B")], 32u * 32u * 32u);
  EXPECT_EQ(c.global_loads_per_buffer[picks::array_slot(naive, "C")], 0u);
  EXPECT_EQ(c.shared_loads, 0u);
  EXPECT_EQ(c.global_stores, 32u * 32u);
  EXPECT_EQ(c.bytes_moved, 4u * (c.global_loads + c.global_stores));
  EXPECT_DOUBLE_EQ(c.compulsory_bytes, 4.0 * 3 * 32 * 32);
  EXPECT_FALSE(c.truncated);
}

TEST(PerfCounts, TiledMultiplyReads2NOverTPerOutput) {
  for (int tile : {4, 8, 16}) {
    SCOPED_TRACE("tile " + std::to_string(tile));
    const AccessCounts c = counts_of(picks::default_lesson().id, matmul(32, tile));
    EXPECT_DOUBLE_EQ(c.loads_per_output, 2.0 * 32 / tile);  // 2N/T
    EXPECT_DOUBLE_EQ(c.theory_per_output, 2.0 * 32 / tile);
    EXPECT_EQ(c.global_loads, c.expected.global_loads);  // the catalogue agrees
    // Every thread stores one element of each tile per phase and reads T of each.
    EXPECT_EQ(c.shared_stores, 2u * 32 * 32 * (32 / tile));
    EXPECT_EQ(c.shared_loads, 2u * 32 * 32 * 32);
    EXPECT_EQ(c.barrier_arrivals, 2u * 32 * 32 * (32 / tile));
  }
}

// The case: n = 10, tile 4 is 2 * ceil(10 / 4) = 6 loads per output,
// not 2N/T = 5, and the compulsory traffic is 3 n^2 floats, not 0.
TEST(PerfCounts, TileThatDoesNotDivideNCountsWholeTiles) {
  Params p;
  p.n = 10;  // as a lesson sets it: m and k stay 0 for the square kernels
  p.tile = 4;
  const AccessCounts c = counts_of(picks::default_lesson().id, p);
  EXPECT_DOUBLE_EQ(c.loads_per_output, 6.0);
  EXPECT_DOUBLE_EQ(c.theory_per_output, 6.0);
  EXPECT_EQ(c.theory_formula, "2*ceil(N/T) = 2*ceil(10/4) = 6");
  EXPECT_DOUBLE_EQ(c.compulsory_bytes, 1200.0);  // 3 * 10^2 * 4
  EXPECT_DOUBLE_EQ(c.flops, 2000.0);             // 2 n^3
  // 600 loads and 100 stores of 4 bytes: 2000 / 2800 flop per byte moved.
  EXPECT_EQ(c.bytes_moved, 2800u);
  EXPECT_DOUBLE_EQ(c.issued_intensity(), 2000.0 / 2800.0);
}

// Every lesson with a tile or block, at sizes the tile divides and sizes it
// does not: the formula's number equals the trace's loads per output (the
// simulator's real run), for the rectangular multiply with its own M, K, N.
TEST(PerfCounts, FormulaEqualsTheTraceForEverySizeAndTile) {
  int checked = 0;
  for (const LessonInfo& v : all_lessons()) {
    std::vector<Params> cases;
    if (!(v.uses & kUsesLength)) {
      if (std::string(v.id) == picks::one_block_lesson().id) {
        for (int n : {5, 8, 13})
          cases.push_back(matmul(n, 0, 0));
      } else if (v.uses & kUsesM) {  // m x k x n, or m x n (transpose: k and tile unused)
        for (auto [m, k, n, t] :
             {std::array{10, 12, 14, 8}, std::array{16, 8, 24, 8}, std::array{7, 9, 5, 4},
              std::array{12, 20, 6, 2}, std::array{40, 8, 48, 8}, std::array{64, 8, 32, 8}}) {
          Params p;
          p.m = m, p.k = k, p.n = n, p.tile = t;
          if (v.uses & kUsesRadius) p.radius = v.defaults.radius;  // the 2D convolutions
          cases.push_back(p);
        }
      } else {
        for (int n : {8, 10, 12, 16, 20})
          for (int t : {4, 8}) {
            Params p;  // a lesson's Params: n only for the square kernels
            p.n = n;
            p.tile = t;
            p.block = t;
            cases.push_back(p);
          }
      }
    } else {
      for (int len : {128, 150, 200})
        for (int b : {32, 64}) {
          Params p;
          p.length = len, p.radius = 3, p.block = b;
          cases.push_back(p);
        }
    }
    for (const Params& p : cases) {
      if (validate(v, p, DeviceLimits{})) continue;  // e.g. a reduction's block below 64
      SCOPED_TRACE(std::string(v.id) + " " + describe(v, p));
      RunRequest req;
      req.lesson_id = v.id;
      req.params = p;
      req.backend = BackendChoice::Sim;
      const RunResult r = run_simulator(req);
      ASSERT_TRUE(r.ok) << r.error;
      const AccessCounts c = perf_access_counts(r.trace);
      ASSERT_FALSE(c.truncated);
      EXPECT_NEAR(c.theory_per_output, c.loads_per_output, 1e-12 * c.loads_per_output)
          << c.theory_formula;
      // What the panel prints is the measured count (to the 4 digits it shows).
      EXPECT_NEAR(shown_value(c.theory_formula), c.loads_per_output, 5e-4 * c.loads_per_output)
          << c.theory_formula;
      EXPECT_EQ(c.theory_formula.find("catalogue closed form"), std::string::npos);
      EXPECT_EQ(c.global_loads, c.expected.global_loads);
      // Compulsory: every array once, 4 bytes an element; never 0 for a lesson's Params.
      double elements = 0;
      for (const ArrayInfo& a : arrays(v, p))
        if (!a.shared()) elements += double(a.rows) * a.cols;
      EXPECT_DOUBLE_EQ(c.compulsory_bytes, 4 * elements);
      if (v.flops)
        EXPECT_GT(c.flops, 0);
      else
        EXPECT_EQ(c.flops, 0);  // a lesson that moves data (transpose) does no arithmetic
      EXPECT_DOUBLE_EQ(c.issued_intensity(), c.flops / double(c.bytes_moved));
      EXPECT_DOUBLE_EQ(issued_bytes(v, p), double(c.bytes_moved));
      ++checked;
    }
  }
  EXPECT_GE(checked, 60);
}

TEST(PerfCounts, RectangularFormulaUsesItsOwnShape) {
  Params p;
  p.m = 10, p.k = 12, p.n = 14, p.tile = 8;
  const AccessCounts c = counts_of(picks::rectangular_tiled_lesson().id, p);
  // A read ceil(14/8) = 2 times, B ceil(10/8) = 2 times: (2*120 + 2*168) / 140.
  EXPECT_DOUBLE_EQ(c.loads_per_output, (2.0 * 120 + 2.0 * 168) / 140);
  EXPECT_EQ(c.theory_formula.rfind("K*ceil(N/T)/N + K*ceil(M/T)/M = 12*ceil(14/8)/14", 0), 0u)
      << c.theory_formula;
  EXPECT_DOUBLE_EQ(c.compulsory_bytes, 4.0 * (120 + 168 + 140));
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 10 * 12 * 14);
}

TEST(PerfCounts, RowLessonsAndStencilFormulas) {
  Params p;
  p.n = 12, p.tile = 8;
  EXPECT_EQ(counts_of(picks::dynamic_staging_lesson(1).id, p).theory_formula,
            "N + ceil(N/T) = 12 + ceil(12/8) = 14 (rows of A in shared, B from global)");
  EXPECT_EQ(counts_of(picks::dynamic_staging_lesson(2).id, p).theory_formula,
            "2*ceil(N/T) = 2*ceil(12/8) = 4 (rows of A and columns of B in shared)");
  Params s;
  s.length = 150, s.radius = 3, s.block = 64;
  const AccessCounts st = counts_of(picks::halo_lesson(picks::Halo::StaticShared).id, s);
  EXPECT_DOUBLE_EQ(st.loads_per_output, 3.0 * 70 / 150);  // the last block loads whole
  EXPECT_EQ(st.theory_formula, "ceil(L/B)*(B+2R)/L = ceil(150/64)*(64+2*3)/150 = 1.4");
  EXPECT_DOUBLE_EQ(st.compulsory_bytes, 4.0 * 300);
}

TEST(PerfCounts, TiledAgainstNaiveIsTheLesson) {
  const AccessCounts naive = counts_of(picks::ladder_step(2).id, matmul(32, 0, 16));
  const AccessCounts tiled = counts_of(picks::default_lesson().id, matmul(32, 16));
  EXPECT_DOUBLE_EQ(naive.loads_per_output / tiled.loads_per_output, 16.0);  // T times fewer
}

TEST(PerfCounts, StencilHaloCounts) {
  Params p;
  p.length = 256;
  p.radius = 3;
  p.block = 64;
  const AccessCounts naive = counts_of(picks::halo_lesson(picks::Halo::Global).id, p);
  EXPECT_DOUBLE_EQ(naive.loads_per_output, 7.0);  // 2R + 1
  EXPECT_DOUBLE_EQ(naive.theory_per_output, 7.0);
  const AccessCounts shared = counts_of(picks::halo_lesson(picks::Halo::StaticShared).id, p);
  EXPECT_DOUBLE_EQ(shared.loads_per_output, 1.0 + 6.0 / 64);  // 1 + 2R/B
  EXPECT_DOUBLE_EQ(shared.theory_per_output, 1.0 + 6.0 / 64);
  EXPECT_EQ(shared.shared_loads, 256u * 7u);
  EXPECT_NE(shared.theory_formula.find("(1 + 2R/B)"), std::string::npos) << shared.theory_formula;
}

TEST(PerfCounts, EveryMatmulVariantMatchesItsClosedForm) {
  for (const LessonInfo& v : all_lessons()) {
    if (std::string(v.family) != "matmul") continue;
    SCOPED_TRACE(v.id);
    Params p = matmul(32, 8, 8);
    if (std::string(v.id) == picks::one_block_lesson().id) p = matmul(16, 0, 0);
    const AccessCounts c = counts_of(v.id, p);
    EXPECT_EQ(c.global_loads, c.expected.global_loads);
    EXPECT_NEAR(c.loads_per_output, c.theory_per_output, 1e-9) << c.theory_formula;
  }
}

TEST(PerfCounts, AnUnknownVariantIsCountedNotGuessed) {
  Trace t;
  t.config.lesson_id = "matmul.from_the_future";
  Event e{};
  e.kind = EventKind::GlobalLoad;
  e.array = 1;
  t.events.push_back(e);
  const AccessCounts c = perf_access_counts(t);
  EXPECT_EQ(c.global_loads, 1u);
  EXPECT_EQ(c.theory_per_output, 0.0);
  EXPECT_NE(c.theory_formula.find("unknown lesson"), std::string::npos);
}

}  // namespace
}  // namespace ts
