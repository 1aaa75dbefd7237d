// The performance sweep on a real GPU (label gpu; skipped without a device):
// correct outputs and positive times at small sizes, the references measured,
// tiled faster than naive at 1024, cancel keeps what was measured.
#include <gtest/gtest.h>

#include <thread>

#include "engine/backend.hpp"
#include "engine/perf.hpp"
#include "tests/gpu_require.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

const PerfResult* find(const PerfReport& r, const std::string& kernel, int tile, int size) {
  for (const auto& x : r.results)
    if (x.kernel == kernel && x.tile == tile && x.size == size) return &x;
  return nullptr;
}

TEST(GpuPerf, SmallSweepIsCorrectAndTimed) {
  REQUIRE_GPU();
  PerfConfig c;
  c.kernels = {"all"};
  c.matmul_sizes = {64, 100};  // 100: not a multiple of any tile
  c.stencil_lengths = {1 << 16};
  c.tiles = {16};
  c.reps = 3;
  c.warmup = 1;
  const PerfReport r = run_perf_sweep(c);
  ASSERT_TRUE(r.device.usable) << r.device.reason;
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.device.fp32_peak_gflops, 0);
  EXPECT_GT(r.device.copy_gbps, 10);  // any GPU copies faster than 10 GB/s
  ASSERT_FALSE(r.results.empty());
  int timed = 0;
  for (const auto& x : r.results) {
    SCOPED_TRACE(x.label() + " size " + std::to_string(x.size) + ": " + x.message);
    if (x.status == PerfStatus::Skipped) {
      EXPECT_FALSE(x.message.empty());  // a skip always says why
      continue;
    }
    // Every correct kernel (the exact-multiples one is skipped at 100) computes the right output.
    EXPECT_EQ(x.status, PerfStatus::Ok);
    EXPECT_GT(x.ms_median, 0);
    EXPECT_LE(x.ms_min, x.ms_median);
    EXPECT_LE(x.ms_median, x.ms_max);
    EXPECT_GT(x.reps, 0);
    if (x.kernel != kCopyId && x.kernel != kCublasId && !find_library_anchor(x.kernel)) {
      EXPECT_TRUE(x.attrs.known);
      EXPECT_GT(x.attrs.registers, 0);
      EXPECT_GT(x.attrs.threads_per_block, 0);
      EXPECT_GT(x.attrs.occupancy, 0);
      EXPECT_LE(x.attrs.occupancy, 1.0);
    }
    ++timed;
  }
  EXPECT_GE(timed, 10);
  const PerfResult* tiled = find(r, picks::default_lesson().id, 16, 100);
  ASSERT_TRUE(tiled);
  EXPECT_EQ(tiled->status, PerfStatus::Ok);
  EXPECT_GT(tiled->attrs.static_shared_bytes, 2 * 16 * 16 * 4 - 1);  // two 16 x 16 float tiles
  const PerfResult* cublas = find(r, kCublasId, 0, 64);
  ASSERT_TRUE(cublas);
  EXPECT_EQ(cublas->status, PerfStatus::Ok);
  EXPECT_GT(tiled->pct_cublas, 0);
}

TEST(GpuPerf, LibraryLinesAreCheckedAndTimed) {
  REQUIRE_GPU();
  PerfConfig c;
  for (const LibraryAnchor& a : kLibraryAnchors)
    c.kernels.push_back(a.id);
  c.stencil_lengths = {1 << 20, 1000003};  // a prime: no multiple of any block
  c.reps = 3;
  c.warmup = 1;
  const PerfReport r = run_perf_sweep(c);
  ASSERT_TRUE(r.device.usable) << r.device.reason;
  for (const LibraryAnchor& a : kLibraryAnchors)
    for (int n : c.stencil_lengths) {
      SCOPED_TRACE(std::string(a.id) + " n=" + std::to_string(n));
      const PerfResult* x = find(r, a.id, 0, n);
      ASSERT_TRUE(x);
      if (x->status == PerfStatus::Skipped && (x->message.find("cuBLAS") != std::string::npos ||
                                               x->message.find("cuDNN") != std::string::npos))
        continue;  // a machine without cuBLAS or cuDNN: said so, not timed
      EXPECT_EQ(x->status, PerfStatus::Ok) << x->message;
      EXPECT_GT(x->ms_median, 0);
      EXPECT_GT(x->gbps, 1);
      EXPECT_GT(x->pct_copy, 0);
    }
}

TEST(GpuPerf, TiledFasterThanNaiveAt1024) {
  REQUIRE_GPU();
  PerfConfig c;
  c.kernels = {picks::ladder_step(2).id, picks::default_lesson().id};
  c.matmul_sizes = {1024};
  c.tiles = {16};
  c.with_copy = false;
  const PerfReport r = run_perf_sweep(c);
  const PerfResult* naive = find(r, picks::ladder_step(2).id, 16, 1024);
  const PerfResult* tiled = find(r, picks::default_lesson().id, 16, 1024);
  ASSERT_TRUE(naive && tiled);
  ASSERT_TRUE(naive->counted()) << naive->message;
  ASSERT_TRUE(tiled->counted()) << tiled->message;
  EXPECT_EQ(tiled->checked_against.rfind("cuBLAS", 0), 0u) << tiled->checked_against;
  EXPECT_LT(tiled->ms_median, naive->ms_median)
      << "tiled " << tiled->ms_median << " ms, naive " << naive->ms_median << " ms";
  EXPECT_GT(tiled->gflops, naive->gflops);
}

TEST(GpuPerf, CancelKeepsResultsSoFar) {
  REQUIRE_GPU();
  PerfConfig c;
  c.kernels = {picks::default_lesson().id};
  c.matmul_sizes = {256, 512, 1024, 2048};
  c.tiles = {8, 16, 32};
  BackgroundSweep bg;
  ASSERT_TRUE(bg.start(c));
  // Cancel once a few results are in.
  for (int i = 0; i < 6000 && bg.partial().size() < 3 && bg.running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  bg.cancel();
  std::optional<PerfReport> r;
  for (int i = 0; i < 6000 && !r; ++i) {
    r = bg.take();
    if (!r) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->cancelled);
  EXPECT_GE(r->results.size(), 3u);
  EXPECT_LT(r->results.size(), 1u + 4u + 12u);  // not all of them
  for (const auto& x : r->results)
    EXPECT_NE(x.status, PerfStatus::Error) << x.message;
}

TEST(GpuPerf, SizeBeyondMemoryIsSkippedWithAMessage) {
  REQUIRE_GPU();
  PerfConfig c;
  c.kernels = {picks::default_lesson().id};
  c.matmul_sizes = {256, 4096};  // 4096: four 64 MiB matrices
  c.tiles = {32};
  c.with_copy = false;
  c.reps = 2;
  c.warmup = 0;
  c.max_gpu_bytes = 32u << 20;  // as if the GPU had 32 MiB free
  const PerfReport r = run_perf_sweep(c);
  const PerfResult* small = find(r, picks::default_lesson().id, 32, 256);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, PerfStatus::Ok) << small->message;
  const PerfResult* x = find(r, picks::default_lesson().id, 32, 4096);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->status, PerfStatus::Skipped);
  EXPECT_NE(x->message.find("does not fit in GPU memory"), std::string::npos) << x->message;
  EXPECT_TRUE(r.error.empty()) << r.error;  // a skipped size is not an error
}

}  // namespace
}  // namespace ts
