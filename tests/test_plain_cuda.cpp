// Plain CUDA in (engine/plain_cuda.hpp, docs/plain_cuda.md): .cu files as a
// course prints them, with only the launch described, compiled into plug-ins
// in this process (as the window does) and run on the simulator. What a
// student would check: the output, every access at the line that wrote it
// under the name the source gives it, barriers numbered in source order, a
// race once a __syncthreads() is removed, and the tutorials' kernels
// (../shared/seeds) counted as the built-in lessons that teach them.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/hazards.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "engine/plain_cuda.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/lesson_picks.hpp"
#include "tests/plain_cuda_suite.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;
const fs::path& kFiles = test::kPlainCudaFiles;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

// ---- The rewrite alone (no compiler) ----

TEST(PlainCudaRewrite, KeepsEveryLineAndNumbersTheBarriersInSourceOrder) {
  const std::string text = test::read_all((kFiles / "day10_tiled.cu").string());
  const PlainCudaPlugin p = translate_plain_cuda("/x/day10_tiled.cu", text);
  ASSERT_EQ(p.error, "");
  const std::vector<std::string> before = lines_of(text), after = lines_of(p.rewritten);
  ASSERT_EQ(before.size(), after.size());
  std::vector<int> sync_lines;
  for (size_t i = 0; i < before.size(); ++i)
    if (before[i].find("__syncthreads();") != std::string::npos) sync_lines.push_back(int(i) + 1);
  ASSERT_EQ(sync_lines.size(), 2u);
  for (int id = 1; id <= 2; ++id)
    EXPECT_NE(after[size_t(sync_lines[size_t(id - 1)] - 1)].find(
                  "syncthreads(" + std::to_string(id) + ", __LINE__)"),
              std::string::npos);
  const std::vector<BarrierStatement> b = plain_cuda_barriers(text);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1].line, sync_lines[0]);
  EXPECT_EQ(b[2].line, sync_lines[1]);
  EXPECT_EQ(plain_cuda_kernel_name(text), "tiledMatrixMul");
}

TEST(PlainCudaRewrite, AutoIsAValueAndAReferenceStaysOne) {
  const std::string text =
      "/* tilescope: grid 1; block 32; params length=32; array a out length */\n"
      "__global__ void k(float* a) {\n"
      "  auto v = a[threadIdx.x];\n"
      "  auto& r = a[0];\n"
      "  *a += v;\n"
      "}\n";
  const PlainCudaPlugin p = translate_plain_cuda("/x/k.cu", text);
  ASSERT_EQ(p.error, "");
  const std::vector<std::string> l = lines_of(p.rewritten);
  ASSERT_EQ(l.size(), 6u);
  EXPECT_NE(l[2].find("auto v = ::ts::pc::val(a[threadIdx.x])"), std::string::npos) << l[2];
  EXPECT_NE(l[3].find("auto&& r = a[0]"), std::string::npos) << l[3];
  EXPECT_NE(l[4].find("(a)[0] += v"), std::string::npos) << l[4];
}

TEST(PlainCudaRewrite, SaysWhatTheLaunchBlockLacks) {
  const std::string kernel = "__global__ void k(const float* in, float* out, int n) {}\n";
  auto error = [&](const std::string& block) {
    return translate_plain_cuda("/x/k.cu", block + kernel).error;
  };
  EXPECT_NE(error("").find("no launch block"), std::string::npos);
  EXPECT_NE(error("// tilescope: grid 1; block 32; array in in 32; arg n = 32\n")
                .find("pointer parameter 'out' of k() has no `array out in|out SIZE` line"),
            std::string::npos);
  EXPECT_NE(error("// tilescope: grid 1; block 32; array in in 32; array out out 32\n")
                .find("kernel parameter 'n' has no value"),
            std::string::npos);
  EXPECT_NE(error("// tilescope: params width=3\n").find("/x/k.cu:1: params: 'width=3'"),
            std::string::npos);
}

// ---- Compiled and run ----

struct PlainCuda : test::PlainCudaSuite {};

// Events by kind: what the counters panel shows.
struct Counts {
  uint64_t gl = 0, gs = 0, sl = 0, ss = 0, arrive = 0, warp_arrive = 0, atomics = 0, shuffles = 0;
  bool operator==(const Counts&) const = default;
};
std::ostream& operator<<(std::ostream& o, const Counts& c) {
  return o << "global loads " << c.gl << ", global stores " << c.gs << ", shared loads " << c.sl
           << ", shared stores " << c.ss << ", barrier arrivals " << c.arrive << " (warp "
           << c.warp_arrive << "), atomics " << c.atomics << ", shuffles " << c.shuffles;
}
Counts counts(const Trace& t) {
  Counts c;
  for (const Event& e : t.events) {
    c.gl += e.kind == EventKind::GlobalLoad;
    c.gs += e.kind == EventKind::GlobalStore;
    c.sl += e.kind == EventKind::SharedLoad;
    c.ss += e.kind == EventKind::SharedStore;
    c.arrive += e.kind == EventKind::BarrierArrive;
    c.warp_arrive += e.kind == EventKind::BarrierArrive && (e.flags & kFlagWarpScope);
    c.atomics += is_atomic(e.kind);
    c.shuffles += e.kind == EventKind::WarpShuffle;
  }
  return c;
}

// Every access sits on a line of the file that names its array with an
// index ("tileA[" or "A["; `aliases`: or indexes any pointer, as a helper's
// parameter names it, or names a scalar __shared__), every barrier on its
// __syncthreads() line.
void expect_accesses_where_written(const Trace& t, const std::string& file, bool aliases = false) {
  const std::vector<std::string> src = lines_of(test::read_all((kFiles / file).string()));
  std::map<std::pair<int, int>, bool> seen;  // (line, slot)
  for (const Event& e : t.events) {
    if (seen.count({e.line, e.array})) continue;
    seen[{e.line, e.array}] = true;
    ASSERT_GE(e.line, 1);
    ASSERT_LE(size_t(e.line), src.size());
    const std::string& l = src[e.line - 1];
    if (is_barrier(e.kind)) {
      EXPECT_NE(l.find(e.flags & kFlagWarpScope ? "__syncwarp" : "__syncthreads"),
                std::string::npos)
          << file << ":" << e.line;
    } else if (e.kind != EventKind::WarpShuffle) {
      const std::string name = array_name(t.config.arrays, e.array);
      EXPECT_TRUE(l.find(name + "[") != std::string::npos ||
                  l.find("&" + name) != std::string::npos ||
                  (aliases && (l.find_first_of("[*") != std::string::npos ||
                               l.find(name) != std::string::npos)))
          << file << ":" << e.line << " holds no " << name << "[: " << l;
    }
  }
}

TEST_F(PlainCuda, TutorialTiledMultiplyRunsRightTracedAsWritten) {
  const std::string id = load("day10_tiled.cu");
  const RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct);
  const ArrayTable& a = r.trace.config.arrays;
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].name, "A");
  EXPECT_EQ(a[2].name, "C");
  EXPECT_EQ(a[3].name, "tileA");
  EXPECT_EQ(a[3].rows, 16);
  EXPECT_EQ(a[3].cols, 16);
  EXPECT_EQ(a[4].shared_offset, 16u * 16u * 4u);
  expect_accesses_where_written(r.trace, "day10_tiled.cu");
  const LessonInfo* v = find_lesson(id);
  ASSERT_EQ(v->barriers.size(), 2u);
  EXPECT_STREQ(v->function, "tiledMatrixMul");
}

// Without the first __syncthreads() the tiles are read before every warp has
// written them: read-after-write pairs between the store and the load lines.
TEST_F(PlainCuda, RemovingABarrierShowsTheRace) {
  const std::string id = load("day10_tiled.cu");
  const RunResult with = run_on_sim(id);
  ASSERT_TRUE(with.ok) << with.error;
  EXPECT_EQ(analyze_hazards(with.trace).errors, 0u);
  BarrierSet kept = BarrierSet::all();
  kept.remove(1);
  const RunResult without = run_on_sim(id, nullptr, kept);
  ASSERT_TRUE(without.ok) << without.error;
  const HazardReport h = analyze_hazards(without.trace);
  ASSERT_GT(h.errors, 0u);
  const std::vector<std::string> src =
      lines_of(test::read_all((kFiles / "day10_tiled.cu").string()));
  bool raw_on_tiles = false;
  for (const HazardGroup& g : h.groups)
    raw_on_tiles = raw_on_tiles || (g.kind == HazardKind::ReadAfterWrite &&
                                    src[g.first_line - 1].find("= A[") != std::string::npos &&
                                    src[g.second_line - 1].find("Pvalue +=") != std::string::npos);
  EXPECT_TRUE(raw_on_tiles);
}

// The features a course uses, checked against a host reference in the file.
TEST_F(PlainCuda, FeaturesRunAsCudaDefinesThem) {
  const std::string id = load("features.cu");
  const RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct)
      << r.verdict.wrong_cells.size() << " wrong cells";
  EXPECT_TRUE(r.faults.empty()) << r.faults.front();
  expect_accesses_where_written(r.trace, "features.cu", true);
  const std::vector<std::string> src = lines_of(test::read_all((kFiles / "features.cu").string()));
  int value_line = 0;
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i].find("v += 100.0f;") != std::string::npos) value_line = int(i) + 1;
  ASSERT_GT(value_line, 0);
  const Counts c = counts(r.trace);
  EXPECT_GT(c.atomics, 0u);
  EXPECT_GT(c.shuffles, 0u);
  EXPECT_GT(c.warp_arrive, 0u);
  for (const Event& e : r.trace.events)  // `auto v = tile[..]; v += ...` touches no memory
    EXPECT_NE(e.line, value_line) << to_string(e.kind);
  // atomicMax and atomicCAS on a second output array.
  const ArraySlot stats = slot_named(r.trace.config.arrays, "stats");
  ASSERT_NE(stats, kNoArray);
  for (const BufferData& b : r.trace.buffers)
    if (b.slot == stats) {
      EXPECT_EQ(b.values[0], float(find_lesson(id)->defaults.length - 1));
      EXPECT_EQ(b.values[1], 7.0f);
    }
}

// The tutorials' kernels (../shared/seeds), written as printed with only the
// launch described, against the built-in lessons that teach them (picked by
// what they are, tests/lesson_picks.hpp).
bool multiply(const LessonInfo& v, size_t barriers) {
  return std::string_view(v.family) == "matmul" && v.barriers.size() == barriers;
}
struct SeedCase {
  const char* file;
  const char* what;
  picks::Property lesson;
  Params params;
  uint64_t extra_global_loads;  // C[...] += alpha * sum: C is read before it is written
  bool warp_barrier;            // __syncwarp() where the lesson has __syncthreads()
};

TEST_F(PlainCuda, TutorialKernelsCountAsTheBuiltInLessons) {
  const auto square_tiled = [](const LessonInfo& v, bool exact) {
    return multiply(v, 2) && !picks::reads(v, kUsesM) &&
           (v.tests.wrong_by_design != nullptr) == exact;
  };
  const auto staged = [](const LessonInfo& v, int copies) {
    return multiply(v, 1) && picks::shared_array_count(v) == copies;
  };
  const SeedCase cases[] = {
      {"day10_tiled.cu",
       "the square tiled multiply with bounds checks",
       [&](const LessonInfo& v) { return square_tiled(v, false); },
       {.n = 37, .tile = 16},
       0,
       false},
      {"it_one_block.cu",
       "the naive multiply in one block",
       [](const LessonInfo& v) { return multiply(v, 0) && v.uses == kUsesN; },
       {.n = 12},
       12 * 12,
       false},
      {"it_grid.cu",
       "the naive multiply on a grid of blocks",
       [](const LessonInfo& v) { return multiply(v, 0) && picks::reads(v, kUsesBlock); },
       {.n = 40, .block = 16},
       40 * 40,
       false},
      {"it_tiled.cu",
       "the tiled multiply without bounds checks",
       [&](const LessonInfo& v) { return square_tiled(v, true); },
       {.n = 32, .tile = 16},
       32 * 32,
       false},
      {"camp_int_tiled.cu",
       "the rectangular tiled multiply",
       [](const LessonInfo& v) { return multiply(v, 2) && picks::reads(v, kUsesM); },
       {.m = 32, .k = 48, .n = 32, .tile = 16},
       0,
       false},
      {"rows_in_shared.cu",
       "the multiply with rows of A in shared memory",
       [&](const LessonInfo& v) { return staged(v, 1); },
       {.n = 16, .tile = 16},
       0,
       true},
      {"rows_cols_in_shared.cu",
       "the multiply with rows of A and columns of B in shared memory",
       [&](const LessonInfo& v) { return staged(v, 2); },
       {.n = 16, .tile = 16},
       0,
       false},
      {"tiled_exact.cu",
       "the tiled multiply without bounds checks",
       [&](const LessonInfo& v) { return square_tiled(v, true); },
       {.n = 32, .tile = 16},
       0,
       false},
      {"stencil1d.cu",
       "the stencil with extern __shared__",
       [](const LessonInfo& v) {
         return std::string_view(v.family) == "stencil" && picks::has_dynamic_shared(v) &&
                v.barriers.size() == 1;
       },
       {.length = 100, .radius = 1, .block = 32},
       0,
       false},
  };
  for (const SeedCase& c : cases) {
    const LessonInfo& lesson = picks::first_with(c.what, c.lesson);
    SCOPED_TRACE(std::string(c.file) + " against " + lesson.id);
    const RunResult mine = run_on_sim(load(c.file));
    const RunResult theirs = run_on_sim(lesson.id, &c.params);
    ASSERT_TRUE(mine.ok) << mine.error;
    ASSERT_TRUE(theirs.ok) << theirs.error;
    EXPECT_TRUE(mine.verdict.correct);
    EXPECT_TRUE(theirs.verdict.correct);
    Counts want = counts(theirs.trace);
    want.gl += c.extra_global_loads;
    if (c.warp_barrier) want.warp_arrive = want.arrive;
    EXPECT_EQ(counts(mine.trace), want) << "built-in: " << counts(theirs.trace);
    expect_accesses_where_written(mine.trace, c.file);
  }
}

// A whole program as pasted (includes, main with cudaMalloc and <<<...>>>):
// main is left out, the helper's barrier is barrier 1, every element of the
// input lands in one shared atomic.
TEST_F(PlainCuda, AWholeProgramWithMainRuns) {
  const std::string id = load("histogram_with_main.cu");
  const RunResult r = run_on_sim(id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct);
  const std::vector<std::string> src =
      lines_of(test::read_all((kFiles / "histogram_with_main.cu").string()));
  const LessonInfo* v = find_lesson(id);
  ASSERT_EQ(v->barriers.size(), 2u);
  EXPECT_NE(src[size_t(v->barriers[0].line - 1)].find("__syncthreads"), std::string::npos);
  EXPECT_LT(v->barriers[0].line, v->barriers[1].line);
  uint64_t shared_atomics = 0;
  for (const Event& e : r.trace.events)
    shared_atomics += e.kind == EventKind::SharedAtomic;
  EXPECT_EQ(shared_atomics, uint64_t(v->defaults.length));
  expect_accesses_where_written(r.trace, "histogram_with_main.cu", true);
  // `atomicAdd(&bins[t], local[t])` loads local[t] once, as the GPU does (the
  // simulator read the operand twice, once more as atomicCAS's compare: the
  // GPU's trace had 64 events fewer, found on an H200).
  int line = 0;
  for (size_t i = 0; i < src.size() && !line; ++i)
    if (src[i].find("atomicAdd(&bins[") != std::string::npos) line = int(i + 1);
  ASSERT_GT(line, 0);
  std::map<std::pair<uint32_t, uint32_t>, int> loads, atomics;
  for (const Event& e : r.trace.events)
    if (e.line == line) {
      loads[{e.block, e.thread}] += e.kind == EventKind::SharedLoad;
      atomics[{e.block, e.thread}] += e.kind == EventKind::GlobalAtomic;
    }
  ASSERT_FALSE(atomics.empty());
  for (const auto& [who, n] : atomics) {
    EXPECT_EQ(n, 1);
    EXPECT_EQ(loads[who], 1) << "block " << who.first << " thread " << who.second;
  }
}

// `__ldg(&a[i])`, the read-only cache's load courses use, is a traced global
// load at its own line (it did not compile: "'__ldg' was not declared").
TEST_F(PlainCuda, LdgIsATracedLoadAtItsLine) {
  const std::string path = (dir->path / "ldg.cu").string();
  test::write_text(path, R"(/* tilescope: kernel scale; params length=64
   grid 1; block 64; array a in length; array out out length; arg n = length
   reference copy */
__global__ void scale(const float* __restrict__ a, float* __restrict__ out, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = __ldg(&a[i]);
}
)");
  const LessonFile f = load_lesson_file(path);
  ASSERT_TRUE(f.ok) << describe_failure(f);
  const RunResult r = run_on_sim(f.lesson_id);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  int loads = 0;
  for (const Event& e : r.trace.events)
    if (e.kind == EventKind::GlobalLoad) {
      ++loads;
      EXPECT_EQ(e.line, 6);
      EXPECT_EQ(array_name(r.trace.config.arrays, e.array), "a");
    }
  EXPECT_EQ(loads, 64);
}

// Off the tile's multiples the summer camp's kernel (seed 003) drops the last
// partial tile (`n / BLOCK_SIZE`) and stores past C: the verdict says so.
TEST_F(PlainCuda, TutorialBugOffTheTileShowsInTheVerdict) {
  const Params p{.m = 20, .k = 20, .n = 20};
  const RunResult r = run_on_sim(load("camp_int_tiled.cu"), &p);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked);
  EXPECT_FALSE(r.verdict.correct);
  EXPECT_FALSE(r.faults.empty());  // stores past the end of c
}

#ifdef TS_CLI_PATH
TEST_F(PlainCuda, CommandLineRunsAndRacesAPlainCudaFile) {
  const std::string path = (kFiles / "day10_tiled.cu").string();
  const testing::CliRun r =
      testing::run_cli("run --lesson-file " + path + " --backend sim --check", true);
  EXPECT_EQ(r.code, 0) << r.out;
  const testing::CliRun races = testing::run_cli(
      "races --lesson-file " + path + " --backend sim --no-barrier 1 --runs 2 --json", true);
  EXPECT_EQ(races.code, 0) << races.out;
  EXPECT_NE(races.out.find("\"RAW\""), std::string::npos) << races.out;
}

// A kernel's printf, a student's first debugger, is shown by `run` as CUDA
// shows it (it was swallowed with the lesson child's output); in --json as
// "printed".
TEST_F(PlainCuda, CommandLineShowsWhatTheKernelPrinted) {
  const std::string path = (dir->path / "printing.cu").string();
  test::write_text(path, R"(/* tilescope: kernel hello; params length=64
   grid 2; block 32; array out out length; arg n = length */
#include <cstdio>
__global__ void hello(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) printf("block %d says hello\n", blockIdx.x);
  if (i < n) out[i] = 1.0f;
}
)");
  testing::CliRun r = testing::run_cli("run --lesson-file " + path + " --backend sim", true);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("printed by the kernel (2 lines):\n  block 0 says hello\n  block 1 says "
                       "hello\n"),
            std::string::npos)
      << r.out;
  r = testing::run_cli("run --lesson-file " + path + " --backend sim --json", false);
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j.value("printed", ""), "block 0 says hello\nblock 1 says hello\n");
}

// A kernel's assert() checks, as nvcc compiles it (TileScope's own code is
// built with NDEBUG, which silenced the file's asserts): the first thread
// that fails it is named, with the assertion and what was printed before it.
TEST_F(PlainCuda, AFailedAssertNamesItsThread) {
  const std::string path = (dir->path / "asserting.cu").string();
  test::write_text(path, R"(/* tilescope: kernel checked; params length=64
   grid 1; block 64; array out out length; arg n = length */
#include <cassert>
#include <cstdio>
__global__ void checked(float* out, int n) {
  const int i = threadIdx.x;
  if (i == 0) printf("starting\n");
  assert(i < 32);
  out[i] = 1.0f;
}
)");
  const testing::CliRun r = testing::run_cli("run --lesson-file " + path + " --backend sim", true);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("Assertion `i < 32' failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in the kernel: thread (32, 0, 0) of block (0, 0, 0)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("printed by the kernel (2 lines):\n  starting\n"), std::string::npos)
      << r.out;
}
#endif

}  // namespace
}  // namespace ts
