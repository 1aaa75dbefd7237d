// Access counts from simulator traces equal the textbook: 2N global loads per
// output for the naive multiply, 2N/T for the tiled one, 2R+1 for the naive
// stencil and 1 + 2R/B with a shared halo. What the panel shows without a GPU.
#include <gtest/gtest.h>

#include "kernels/backend.hpp"
#include "kernels/perf.hpp"

namespace ts {
namespace {

AccessCounts counts_of(const std::string& id, Params p) {
  RunRequest req;
  req.variant = id;
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
  const AccessCounts c = counts_of("matmul.naive_grid", matmul(32, 0, 16));
  EXPECT_EQ(c.outputs, 32u * 32u);
  EXPECT_DOUBLE_EQ(c.loads_per_output, 64.0);  // 2N
  EXPECT_DOUBLE_EQ(c.theory_per_output, 64.0);
  EXPECT_EQ(c.theory_formula.rfind("2N = ", 0), 0u) << c.theory_formula;
  EXPECT_EQ(c.global_loads_per_buffer[int(Buffer::A)], 32u * 32u * 32u);
  EXPECT_EQ(c.global_loads_per_buffer[int(Buffer::B)], 32u * 32u * 32u);
  EXPECT_EQ(c.shared_loads, 0u);
  EXPECT_EQ(c.global_stores, 32u * 32u);
  EXPECT_EQ(c.bytes_moved, 4u * (c.global_loads + c.global_stores));
  EXPECT_DOUBLE_EQ(c.compulsory_bytes, 4.0 * 3 * 32 * 32);
  EXPECT_FALSE(c.truncated);
}

TEST(PerfCounts, TiledMultiplyReads2NOverTPerOutput) {
  for (int tile : {4, 8, 16}) {
    SCOPED_TRACE("tile " + std::to_string(tile));
    const AccessCounts c = counts_of("matmul.tiled_square", matmul(32, tile));
    EXPECT_DOUBLE_EQ(c.loads_per_output, 2.0 * 32 / tile);  // 2N/T
    EXPECT_DOUBLE_EQ(c.theory_per_output, 2.0 * 32 / tile);
    EXPECT_EQ(c.global_loads, c.expected.global_loads);  // the catalogue agrees
    // Every thread stores one element of each tile per phase and reads T of each.
    EXPECT_EQ(c.shared_stores, 2u * 32 * 32 * (32 / tile));
    EXPECT_EQ(c.shared_loads, 2u * 32 * 32 * 32);
    EXPECT_EQ(c.barrier_arrivals, 2u * 32 * 32 * (32 / tile));
  }
}

TEST(PerfCounts, TiledAgainstNaiveIsTheLesson) {
  const AccessCounts naive = counts_of("matmul.naive_grid", matmul(32, 0, 16));
  const AccessCounts tiled = counts_of("matmul.tiled_square", matmul(32, 16));
  EXPECT_DOUBLE_EQ(naive.loads_per_output / tiled.loads_per_output, 16.0);  // T times fewer
}

TEST(PerfCounts, StencilHaloCounts) {
  Params p;
  p.length = 256;
  p.radius = 3;
  p.block = 64;
  const AccessCounts naive = counts_of("stencil.naive", p);
  EXPECT_DOUBLE_EQ(naive.loads_per_output, 7.0);  // 2R + 1
  EXPECT_DOUBLE_EQ(naive.theory_per_output, 7.0);
  const AccessCounts shared = counts_of("stencil.shared", p);
  EXPECT_DOUBLE_EQ(shared.loads_per_output, 1.0 + 6.0 / 64);  // 1 + 2R/B
  EXPECT_DOUBLE_EQ(shared.theory_per_output, 1.0 + 6.0 / 64);
  EXPECT_EQ(shared.shared_loads, 256u * 7u);
}

TEST(PerfCounts, EveryMatmulVariantMatchesItsClosedForm) {
  for (const Variant& v : catalogue()) {
    if (v.family != Family::Matmul) continue;
    SCOPED_TRACE(v.id);
    Params p = matmul(32, 8, 8);
    if (std::string(v.id) == "matmul.naive_one_block") p = matmul(16, 0, 0);
    const AccessCounts c = counts_of(v.id, p);
    EXPECT_EQ(c.global_loads, c.expected.global_loads);
    EXPECT_NEAR(c.loads_per_output, c.theory_per_output, 1e-9) << c.theory_formula;
  }
}

TEST(PerfCounts, AnUnknownVariantIsCountedNotGuessed) {
  Trace t;
  t.config.variant = "matmul.from_the_future";
  Event e{};
  e.kind = EventKind::GlobalLoad;
  e.buffer = Buffer::A;
  t.events.push_back(e);
  const AccessCounts c = perf_access_counts(t);
  EXPECT_EQ(c.global_loads, 1u);
  EXPECT_EQ(c.theory_per_output, 0.0);
  EXPECT_NE(c.theory_formula.find("unknown variant"), std::string::npos);
}

}  // namespace
}  // namespace ts
