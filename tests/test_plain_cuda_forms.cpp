// Forms of plain CUDA beyond the tutorials' (docs/plain_cuda.md), run on the
// simulator as a student writes them:
// - cooperative groups, as the CUDA samples and NVIDIA's introduction write
//   them: block.sync() and cg::sync(block) a numbered __syncthreads(), a
//   tile's sync() a __syncwarp() of its lanes, a tile's shfl_down a shuffle of
//   the tile's width; what needs more than one block is refused at its line;
// - __constant__ arrays that main filled with cudaMemcpyToSymbol, given their
//   values by the launch block and traced as constant memory;
// - `static __shared__`, as the reduction blogs write it.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/hazards.hpp"
#include "analysis/memory_estimate.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "engine/plain_cuda.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/lesson_picks.hpp"
#include "tests/plain_cuda_suite.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

// The kernels the GPU runs too (tests/gpu_lesson_files.cpp).
const std::string kGroupsDir = (test::kPlainCudaFiles / "groups/").string();
const std::string kConstantDir = (test::kPlainCudaFiles / "constant/").string();
const std::string kFormsDir = (test::kPlainCudaFiles / "forms/").string();

struct PlainCudaForms : test::PlainCudaSuite {
  // The shared stores to `array`'s elements from `first` on.
  static uint64_t shared_stores(const RunResult& r, const std::string& array, uint32_t first = 0) {
    const ArraySlot slot = slot_named(r.trace.config.arrays, array);
    EXPECT_NE(slot, kNoArray) << array;
    uint64_t n = 0;
    for (const Event& e : r.trace.events)
      n += e.kind == EventKind::SharedStore && e.array == slot && e.element >= first;
    return n;
  }
};
struct PlainCudaGroups : PlainCudaForms {};
struct PlainCudaConstant : PlainCudaForms {};

// The block's sum: a barrier per cg::sync(cta) and cta.sync() at their lines,
// then 5 shuffles of the first warp's 32 lanes per block at the shfl_down line.
TEST_F(PlainCudaGroups, BlockAndTileOfTheSamplesReductionRunAsWritten) {
  const std::string id = load(kGroupsDir + "block_reduce.cu");
  const RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  EXPECT_TRUE(r.faults.empty()) << r.faults.front();
  const LessonInfo* v = find_lesson(id);
  ASSERT_EQ(v->barriers.size(), 2u);
  EXPECT_EQ(v->barriers[0].line,
            test::line_holding(kGroupsDir + "block_reduce.cu", "cg::sync(cta);"));
  EXPECT_EQ(v->barriers[1].line, test::line_holding(kGroupsDir + "block_reduce.cu", "cta.sync();"));
  EXPECT_FALSE(v->barriers[0].warp_scope || v->barriers[1].warp_scope);
  const int shfl_line =
      test::line_holding(kGroupsDir + "block_reduce.cu", "warp.shfl_down(sum, offset)");
  const uint32_t blocks = (1000 + 127) / 128;
  uint64_t shuffles = 0, block_arrivals = 0;
  for (const Event& e : r.trace.events) {
    if (e.kind == EventKind::WarpShuffle) {
      ++shuffles;
      EXPECT_EQ(e.line, shfl_line);
      EXPECT_LT(e.thread, 32u);
    }
    block_arrivals += e.kind == EventKind::BarrierArrive && !(e.flags & kFlagWarpScope);
  }
  EXPECT_EQ(shuffles, 32u * 5u * blocks);
  // cg::sync once, then cta.sync() at s = 64: 2 arrivals of 128 threads per block.
  EXPECT_EQ(block_arrivals, 2u * 128u * blocks);

  // Without cta.sync() the first warp reads what the second wrote: errors, as racecheck's.
  BarrierSet kept = BarrierSet::all();
  kept.remove(2);
  const RunResult without = run_on_sim(id, nullptr, kept);
  ASSERT_TRUE(without.ok) << without.error;
  EXPECT_GT(analyze_hazards(without.trace).errors, 0u);
}

// A function written for any group syncs a tile of 16 as a __syncwarp of its
// 16 lanes; cg::reduce and a tile's ballot give the tile's sum and count.
TEST_F(PlainCudaGroups, TilesOfSixteenSyncShuffleAndVoteAsTheirLanes) {
  const std::string id = load(kGroupsDir + "tile_sums.cu");
  const RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  const std::vector<float> in = values(r, "in"), sums = values(r, "sums"),
                           reduced = values(r, "reduced"), votes = values(r, "votes");
  ASSERT_EQ(in.size(), 256u);
  ASSERT_EQ(sums.size(), 16u);
  for (size_t t = 0; t < 16; ++t) {
    float s = 0, odd = 0;
    for (size_t i = t * 16; i < t * 16 + 16; ++i)
      s += in[i], odd += int(in[i]) % 2 != 0;
    EXPECT_EQ(sums[t], s) << "tile " << t;
    EXPECT_EQ(reduced[t], s) << "tile " << t;
    EXPECT_EQ(votes[t], odd) << "tile " << t;
  }
  // g.sync() on the tile: every arrival a warp-scope one, 16 lanes meeting.
  uint64_t arrivals = 0, warp_arrivals = 0, shuffles = 0;
  const int reduce_line =
      test::line_holding(kGroupsDir + "tile_sums.cu", "cooperative_groups::reduce(");
  for (const Event& e : r.trace.events) {
    arrivals += e.kind == EventKind::BarrierArrive;
    warp_arrivals += e.kind == EventKind::BarrierArrive && (e.flags & kFlagWarpScope);
    if (e.kind == EventKind::WarpShuffle) {
      ++shuffles;
      EXPECT_EQ(e.line, reduce_line);
    }
  }
  EXPECT_EQ(arrivals, warp_arrivals);
  EXPECT_EQ(arrivals, 256u * 4u * 2u);  // 4 halvings of 16, two syncs each
  EXPECT_EQ(shuffles, 256u * 4u);       // log2(16) butterfly steps per thread

  // Without the first g.sync() a lane reads its partner's slot before it is
  // written: read-after-write within a warp, a warning in racecheck's terms.
  BarrierSet kept = BarrierSet::all();
  kept.remove(1);
  const RunResult without = run_on_sim(id, nullptr, kept);
  ASSERT_TRUE(without.ok) << without.error;
  const HazardReport h = analyze_hazards(without.trace);
  ASSERT_FALSE(h.groups.empty());
  EXPECT_EQ(h.groups[0].kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(h.groups[0].first_line,
            test::line_holding(kGroupsDir + "tile_sums.cu", "scratch[lane] = v;"));
}

// Which call is which barrier, from the group it is called on.
TEST(PlainCudaGroupsRewrite, ABlocksSyncIsSyncthreadsATilesIsSyncwarp) {
  const std::string text =
      "/* tilescope: grid 1; block 64; params length=64; array a out length */\n"
      "#include <cooperative_groups.h>\n"
      "namespace cg = cooperative_groups;\n"
      "__global__ void k(float* a) {\n"
      "  cg::thread_block b = cg::this_thread_block();\n"
      "  auto t = cg::tiled_partition<8>(b);\n"
      "  a[b.thread_rank()] = 1;\n"
      "  b.sync();\n"
      "  t.sync();\n"
      "  cg::sync(t);\n"
      "  cg::this_thread_block().sync();\n"
      "  cg::sync(b);\n"
      "}\n";
  const PlainCudaPlugin p = translate_plain_cuda("/x/k.cu", text);
  ASSERT_EQ(p.error, "");
  const std::vector<BarrierStatement> s = plain_cuda_barriers(text);
  ASSERT_EQ(s.size(), 6u);
  const std::vector<std::pair<int, bool>> want = {
      {8, false}, {9, true}, {10, true}, {11, false}, {12, false}};
  for (size_t id = 1; id < s.size(); ++id) {
    EXPECT_EQ(s[id].line, want[id - 1].first) << "barrier " << id;
    EXPECT_EQ(s[id].warp_scope, want[id - 1].second) << "barrier " << id;
  }
}

// A grid's sync needs a cooperative launch, and the other headers copy around
// the trace: each refused at its line, saying what to do instead.
TEST(PlainCudaGroupsRewrite, WhatNeedsMoreThanABlockIsRefusedAtItsLine) {
  const std::string head =
      "/* tilescope: grid 2; block 32; params length=64; array a out length */\n";
  const PlainCudaPlugin grid =
      translate_plain_cuda("/x/k.cu", head +
                                          "#include <cooperative_groups.h>\n"
                                          "namespace cg = cooperative_groups;\n"
                                          "__global__ void k(float* a) {\n"
                                          "  cg::grid_group g = cg::this_grid();\n"
                                          "  g.sync();\n"
                                          "}\n");
  EXPECT_NE(grid.error.find("/x/k.cu:5: cooperative_groups::grid_group in k()"), std::string::npos)
      << grid.error;
  EXPECT_NE(grid.error.find("launch a second one"), std::string::npos) << grid.error;
  const PlainCudaPlugin copy =
      translate_plain_cuda("/x/k.cu", head +
                                          "#include <cooperative_groups/memcpy_async.h>\n"
                                          "__global__ void k(float* a) { a[0] = 1; }\n");
  EXPECT_NE(copy.error.find("/x/k.cu:2:"), std::string::npos) << copy.error;
  EXPECT_NE(copy.error.find("not this header"), std::string::npos) << copy.error;
}

// `static __shared__`, as the reduction blogs write their per-warp sums: one
// traced array, the block's sum right; __ldg's loads traced at their line.
TEST_F(PlainCudaForms, StaticSharedIsTheSharedArray) {
  const RunResult r = run_on_sim(load(kFormsDir + "warp_sums.cu"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  EXPECT_EQ(shared_stores(r, "partial"), 2u * 4u);  // lane 0 of each of the 2 warps, 4 blocks
  const int ldg_line = test::line_holding(kFormsDir + "warp_sums.cu", "__ldg(&in[");
  uint64_t loads = 0;
  for (const Event& e : r.trace.events)
    if (e.kind == EventKind::GlobalLoad) {
      ++loads;
      EXPECT_EQ(e.line, ldg_line);
    }
  EXPECT_EQ(loads, 256u);
}

// The tiled convolution with its mask in constant memory: right, the mask a
// constant-memory array of 5 x 5 whose every read is traced at its line, 25
// per output element.
TEST_F(PlainCudaConstant, MaskInConstantMemoryIsReadTracedAndRight) {
  const std::string id = load(kConstantDir + "tiled_conv2d.cu");
  const RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  const ArrayTable& a = r.trace.config.arrays;
  const ArraySlot mask = slot_named(a, "mask");
  ASSERT_NE(mask, kNoArray);
  EXPECT_EQ(a[mask - 1].space, Space::Constant);
  EXPECT_EQ(a[mask - 1].rows, 5);
  EXPECT_EQ(a[mask - 1].cols, 5);
  const int read_line = test::line_holding(kConstantDir + "tiled_conv2d.cu", "sum += mask[i][j]");
  uint64_t reads = 0;
  std::map<uint32_t, uint64_t> per_element;
  for (const Event& e : r.trace.events)
    if (e.array == mask) {
      EXPECT_EQ(e.kind, EventKind::GlobalLoad);
      EXPECT_EQ(e.line, read_line);
      ++reads, ++per_element[e.element];
    }
  const uint64_t outputs = 37u * 37u;
  EXPECT_EQ(reads, outputs * 25u);
  ASSERT_EQ(per_element.size(), 25u);
  for (const auto& [element, n] : per_element)
    EXPECT_EQ(n, outputs) << "mask element " << element;
}

// The window sizes a run up before it starts: for a plain CUDA file the
// launch block's events bound (4096 a thread) is no count, so the 16.8 M it
// gives here must not read as a run the trace would cut (its ~100 K events fit).
TEST_F(PlainCudaConstant, ABoundIsNotTakenForTheRunsSize) {
  const std::string id = load(kConstantDir + "tiled_conv2d.cu");
  const LessonInfo* v = find_lesson(id);
  ASSERT_NE(v, nullptr);
  const uint64_t capacity = RunRequest{}.trace_capacity;
  const RunEstimate e = estimate_run(*v, v->defaults, capacity);
  EXPECT_TRUE(e.bound_only);
  EXPECT_GT(e.events_needed, capacity);
  const RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LT(r.trace.events.size(), capacity / 10);
  EXPECT_FALSE(
      estimate_run(picks::default_lesson(), picks::default_lesson().defaults, capacity).bound_only);
}

// What main did with cudaMemcpyToSymbol the launch block must say, at the
// size the declaration has; an array the file initialises itself is read
// as it is (untraced), and a scalar `__device__ __constant__` is traced too.
TEST_F(PlainCudaConstant, TheLaunchBlockGivesTheValuesAtTheDeclaredSize) {
  auto file = [](const std::string& arrays) {
    return "/* tilescope: kernel k; params length=32; grid 1; block 32\n" + arrays +
           "   array out out length */\n"
           "__constant__ float w[4];\n"
           "__constant__ float fixed[2] = {10.0f, 20.0f};\n"
           "__device__ __constant__ int scale;\n"
           "__global__ void k(float* out) {\n"
           "  out[threadIdx.x] = w[threadIdx.x % 4] * scale + fixed[1];\n"
           "}\n";
  };
  const std::string none = translate_plain_cuda("/x/k.cu", file("")).error;
  EXPECT_NE(none.find("/x/k.cu:3: __constant__ w has no values: add `array w in SIZE`"),
            std::string::npos)
      << none;
  const std::string written =
      translate_plain_cuda("/x/k.cu", file("   array w out 4; array scale in 1\n")).error;
  EXPECT_NE(written.find("a __constant__ array is read-only in a kernel"), std::string::npos)
      << written;

  const std::string id =
      load_text("constants.cu", file("   array w in length / 8; array scale in 1\n"));
  RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> w = values(r, "w"), scale = values(r, "scale"), out = values(r, "out");
  ASSERT_EQ(w.size(), 4u);
  ASSERT_EQ(scale.size(), 1u);
  ASSERT_EQ(out.size(), 32u);
  for (size_t t = 0; t < 32; ++t)
    EXPECT_FLOAT_EQ(out[t], w[t % 4] * float(int(scale[0])) + 20.0f) << "thread " << t;
  uint64_t constant_reads = 0;
  for (const Event& e : r.trace.events)
    constant_reads += e.kind == EventKind::GlobalLoad;
  EXPECT_EQ(constant_reads, 2u * 32u);  // w and scale; `fixed` is the file's own, untraced

  // At another length the block gives w 8 elements: refused before the run.
  RunRequest req;
  req.lesson_id = id;
  req.params = find_lesson(id)->defaults;
  req.params.length = 64;
  req.backend = BackendChoice::Sim;
  r = run(req);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("array w 8 elements, but its __constant__ declaration (line 4) holds 4"),
            std::string::npos)
      << r.error;
}

// A float2 as a value, and one extern __shared__ array carved in two by
// pointers, as the programming guide does for several dynamic arrays: the
// second half traced as elements 32.. of the one array.
TEST_F(PlainCudaForms, VectorValuesAndADynamicArrayCarvedInTwo) {
  const RunResult r = run_on_sim(load(kFormsDir + "carved.cu"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  EXPECT_EQ(shared_stores(r, "s", 32), 64u);  // the second half: 32 threads x 2 blocks
}

// __activemask() names the lanes that happen to run together, and
// __syncthreads_count() votes at a barrier: refused, with what to write instead.
TEST(PlainCudaFormsRewrite, ActiveMaskAndVotingBarriersAreRefusedWithWhatToWrite) {
  const PlainCudaPlugin p = translate_plain_cuda(
      "/x/k.cu",
      "/* tilescope: grid 1; block 32; params length=32; array a out length */\n"
      "__global__ void k(float* a) {\n"
      "  a[threadIdx.x] = __shfl_sync(__activemask(), 1.0f, 0);\n"
      "}\n");
  EXPECT_NE(p.error.find("/x/k.cu:3: __activemask() in k()"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("__ballot_sync(0xffffffff, condition)"), std::string::npos) << p.error;
  // A barrier that votes is not traced yet: said at its line, with what to write.
  const PlainCudaPlugin vote = translate_plain_cuda(
      "/x/k.cu",
      "/* tilescope: grid 1; block 32; params length=32; array a out length */\n"
      "__global__ void k(float* a) {\n"
      "  a[threadIdx.x] = __syncthreads_count(threadIdx.x % 2);\n"
      "}\n");
  EXPECT_NE(vote.error.find("/x/k.cu:3: __syncthreads_count() in k() is not traced yet"),
            std::string::npos)
      << vote.error;
}

}  // namespace
}  // namespace ts
