// The puzzles in plain CUDA (docs/plain_cuda.md, `/* tilescope: puzzle ID */`):
// every reference solution tests/puzzle_solutions/<id>.cu passes `check`, the
// wrong ones (the lesson-header ones' edits, in CUDA) fail with the same rule
// and reason, and a kernel that is not the puzzle's is refused with a message
// that says what it should be.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/puzzle.hpp"
#include "engine/backend.hpp"
#include "engine/plain_cuda.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/puzzle_check.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

// A student's file is CUDA: every skeleton and reference compiles with nvcc
// as it is (where nvcc is installed; no GPU needed).
TEST(PuzzlesCu, EveryCuCompilesWithNvccAsItIs) {
  std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) {
    if (std::system("command -v nvcc > /dev/null 2>&1") != 0) GTEST_SKIP() << "no nvcc";
    nvcc = "nvcc";
  }
  test::TempDir dir{"ts_puzzles_nvcc_", "all"};
  std::string files;
  for (const auto& e : std::filesystem::directory_iterator(kPuzzles)) {
    const std::string name = e.path().filename().string();
    std::filesystem::copy_file(e.path() / "skeleton.cu", dir / ("skeleton_" + name + ".cu"));
    files += " " + (dir / ("skeleton_" + name + ".cu"));
  }
  for (const std::string& id : puzzle_ids())
    files += " " + kSolutions + id + ".cu";
  const std::string cmd =
      nvcc + " -arch=sm_90 -c -odir " + dir.path.string() + files + " > /dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// The window's Puzzles panel follows the puzzle of the file on screen: a .cu
// names it in its launch block.
TEST(PuzzlesCu, ALaunchBlockNamesItsPuzzle) {
  for (const std::string& id : puzzle_ids())
    EXPECT_EQ(plain_cuda_puzzle_id(test::read_all(kSolutions + id + ".cu")), id);
  EXPECT_EQ(plain_cuda_puzzle_id(
                test::read_all(std::string(TS_SOURCE_DIR) + "/tests/plain_cuda/stencil1d.cu")),
            "");
}

#ifdef TS_CLI_PATH

struct ReferenceSolutionCu : PuzzleCheck, ::testing::WithParamInterface<std::string> {};

TEST_P(ReferenceSolutionCu, PassesEveryRule) {
  int code = 0;
  const nlohmann::json g = check(GetParam(), kSolutions + GetParam() + ".cu", &code);
  EXPECT_EQ(code, 0) << g.dump(2);
  EXPECT_EQ(g["passed"], true) << g.dump(2);
  ASSERT_TRUE(g.contains("rules")) << g.dump(2);
  EXPECT_GE(g["rules"].size(), 4u);
  for (const auto& r : g["rules"])
    EXPECT_EQ(r["status"], "pass") << r.dump(2);
  EXPECT_NE(rule(g, "output")->at("reason").get<std::string>().find("right at"), std::string::npos);
}
INSTANTIATE_TEST_SUITE_P(Puzzles, ReferenceSolutionCu, ::testing::ValuesIn(puzzle_ids()),
                         [](const auto& info) { return info.param; });

const char* kNoBarrier = "  // (no barrier here)";

// clang-format off
const std::vector<Wrong> kWrongCu = {
    {"map", "off_by_one", {{"STORE", "  out[i] = a[i + 1] + 10.0f;"}}, "output", "out-of-range global load of a["},
    {"map", "wrong_constant", {{"STORE", "  out[i] = a[i] + 1.0f;"}}, "output", ", expected "},
    {"map", "skips_the_first", {{"STORE", "  if (i > 0) out[i] = a[i] + 10.0f;"}}, "output", "out[0], was never written"},
    {"zip", "off_by_one", {{"STORE", "  out[i] = a[i] + b[i + 1];"}}, "output", "out-of-range global load of b["},
    {"zip", "same_input_twice", {{"STORE", "  out[i] = a[i] + a[i];"}}, "output", ", expected "},
    {"zip", "store_shifted", {{"STORE", "  out[i + 1] = a[i] + b[i];"}}, "output", "out-of-range global store of out["},
    {"guards", "no_guard", {{"GUARD", "  if (true)"}}, "output", "out-of-range global load of a["},
    {"guards", "off_by_one", {{"GUARD", "  if (i <= length)"}}, "output", "out-of-range global"},
    {"guards", "one_short", {{"GUARD", "  if (i < length - 1)"}}, "output", "was never written"},
    {"map_2d", "uncoalesced", {{"INDEX", "  const int row = tx, col = ty;"}}, "budget global_load_sectors_per_request", "8 sectors per load request, over the budget of 4", {"STORE"}, true},
    {"map_2d", "off_by_one", {{"GUARD", "  if (row <= n && col < n)"}}, "output", "out-of-range global"},
    {"map_2d", "transposed_store", {{"STORE", "    out[col * n + row] = a[row * n + col] + 10.0f;"}}, "output", ", expected "},
    {"broadcast", "square_guard", {{"GUARD", "  if (row < n && col < n)"}}, "output", "out-of-range global"},
    {"broadcast", "row_stride_m", {{"STORE", "    out[row * m + col] = a[row] + b[col];"}}, "output", "wrong output at m=3 n=5"},
    {"broadcast", "off_by_one", {{"GUARD", "  if (row < m && col <= n)"}}, "output", "out-of-range global load of b["},
    {"blocks", "no_block_offset", {{"INDEX", "  const int i = threadIdx.x;"}}, "output", "out[8], was never written"},
    {"blocks", "no_guard", {{"GUARD", "  if (true)"}}, "output", "out-of-range global load of a["},
    {"blocks", "off_by_one", {{"INDEX", "  const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;"}}, "output", "out[0], was never written"},
    {"blocks_2d", "uncoalesced", {{"ROW", "  const int row = blockIdx.x * blockDim.x + threadIdx.x;"}, {"COL", "  const int col = blockIdx.y * blockDim.y + threadIdx.y;"}}, "budget global_load_sectors_per_request", "over the budget of 4", {}, true},
    {"blocks_2d", "no_column_guard", {{"GUARD", "  if (row < n)"}}, "output", "out-of-range global"},
    {"blocks_2d", "row_from_x_block", {{"ROW", "  const int row = blockIdx.x * blockDim.y + threadIdx.y;"}}, "output", "was never written"},
    {"shared", "missing_barrier", {{"BARRIER", kNoBarrier}}, "hazards", "read-after-write hazard (RAW, racecheck error) on cache", {"LOAD", "STORE"}},
    {"shared", "off_by_one", {{"STORE", "  if (t < count) out[start + t] = cache[count - t];"}}, "output", "wrong output at length=1"},
    {"shared", "ignores_the_partial_block", {{"STORE", "  if (t < count) out[start + t] = cache[63 - t];"}}, "output", "wrong output at length=1"},
    {"pooling", "global_reads", {{"LOAD", "  // (no shared memory)"}, {"HALO", "  //"}, {"BARRIER", kNoBarrier}, {"STORE", "  if (i < length) out[i] = (i >= 2 ? float(a[i - 2]) : 0.0f) + (i >= 1 ? float(a[i - 1]) : 0.0f) + a[i];"}}, "budget global_loads_per_output", "over the budget of 1.1", {}, true},
    {"pooling", "missing_barrier", {{"BARRIER", kNoBarrier}}, "hazards", "hazard (RAW", {"STORE"}},
    {"pooling", "halo_off_by_one", {{"HALO", "  if (t < 2) cache[t] = i - 3 >= 0 ? float(a[i - 3]) : 0.0f;"}}, "output", ", expected "},
    {"dot", "uncoalesced", {{"LOOP", "  for (int j = t * ((length + 63) / 64); j < (t + 1) * ((length + 63) / 64) && j < length; ++j)"}}, "budget global_load_sectors_per_request", "over the budget of 4", {}, true},
    {"dot", "missing_barrier", {{"BARRIER2", kNoBarrier}}, "hazards", "hazard", {"ADD"}},
    {"dot", "tree_one_step_short", {{"TREE", "  for (int s = 32; s > 1; s /= 2) {"}}, "output", "the first, out[0], is "},
    {"conv1d", "global_reads", {{"SUM", "      sum += (i + j - radius >= 0 && i + j - radius < length ? float(a[i + j - radius]) : 0.0f) * w[j];"}}, "budget global_loads_per_output (a)", "global loads of a per output, over the budget of 1.2", {}, true},
    {"conv1d", "missing_barrier", {{"BARRIER", kNoBarrier}}, "hazards", "read-after-write", {"SUM"}},
    {"conv1d", "halo_off_by_one", {{"HALO", "    const int left = i - radius, right = i + 64 + 1;"}}, "output", ", expected "},
    {"prefix_sum", "missing_barrier", {{"BARRIER2", kNoBarrier}}, "hazards", "hazard", {"WRITE"}},
    {"prefix_sum", "one_buffer", {{"WRITE", "    buf[from][t] = v;"}, {"SWAP", "    // (one buffer)"}}, "hazards", "hazard", {"WRITE"}},
    {"prefix_sum", "one_step_short", {{"STEPS", "  for (int d = 1; d < 32; d *= 2) {"}}, "output", "wrong output at length=37"},
    {"axis_sum", "uncoalesced", {{"LOOP", "  for (int j = t * ((n + 63) / 64); j < (t + 1) * ((n + 63) / 64) && j < n; ++j)"}}, "budget global_load_sectors_per_request", "over the budget of 4", {"LOAD"}, true},
    {"axis_sum", "missing_barrier", {{"BARRIER2", kNoBarrier}}, "hazards", "hazard", {"ADD"}},
    {"axis_sum", "off_by_one", {{"LOOP", "  for (int j = t; j <= n; j += 64)"}}, "output", "out-of-range global load of a["},
    {"matmul", "naive_global_reads", {{"INNER", "    for (int k = t * TILE; k < t * TILE + TILE; ++k)\n      if (row < n && col < n && k < n) sum += A[row * n + k] * B[k * n + col];\n    for (int k = 0; k < 0; ++k)"}}, "budget global_loads_per_output", "over the budget of 8", {}, true},
    {"matmul", "missing_barrier", {{"BARRIER2", kNoBarrier}}, "hazards", "write-after-read hazard (WAR", {"FMA"}},
    {"matmul", "tiles_off_by_one", {{"TILES", "  for (int t = 0; t < n / TILE; ++t) {"}}, "output", "wrong output at n=1: 1 of 1 cells wrong; the first, C[0], is 0, expected "},
    {"transpose", "bank_conflicts", {{"TILE", "  __shared__ float tile[TILE][TILE];"}}, "budget bank_conflicts", "over the budget of 0", {"STORE"}, true},
    {"transpose", "uncoalesced_stores", {{"LOAD", "  if (by + ty < n && bx + tx < n) out[(bx + tx) * n + by + ty] = in[(by + ty) * n + bx + tx];"}, {"BARRIER", kNoBarrier}, {"STORE", "  //"}}, "budget global_store_sectors_per_request", "32 sectors per store request, over the budget of 4", {"LOAD"}, true},
    {"transpose", "missing_barrier", {{"BARRIER", kNoBarrier}}, "hazards", "read-after-write", {"LOAD", "STORE"}},
    {"warp_sum", "shared_atomics", {{"SHUFFLES", "  if (lane == 0) warp_sums[warp] = 0.0f;\n  __syncthreads();"}, {"SHUFFLE", "  atomicAdd(&warp_sums[warp], v);"}, {"PARTIAL", "  //"}, {"BARRIER", "  __syncthreads();"}}, "budget shared_accesses_per_output", "over the budget of 8", {}, true},
    {"warp_sum", "missing_barrier", {{"BARRIER", kNoBarrier}}, "hazards", "read-after-write", {"PARTIAL", "STORE"}},
    {"warp_sum", "one_shuffle_short", {{"SHUFFLES", "  for (int s = 16; s > 1; s /= 2)"}}, "output", ", expected "},
    // Mistakes of CUDA as courses write it: a warp barrier for a block one, a
    // barrier or a full-mask shuffle that only some threads reach.
    {"shared", "syncwarp_for_a_block", {{"BARRIER", "  __syncwarp();"}}, "hazards", "read-after-write hazard (RAW, racecheck error) on cache", {"LOAD", "STORE"}},
    {"shared", "barrier_in_an_if", {{"BARRIER", "  if (t < count) __syncthreads();"}}, "output", "barrier divergence"},
    {"prefix_sum", "barrier_in_an_if", {{"BARRIER2", "    if (t >= d) __syncthreads();"}}, "output", "barrier divergence"},
    {"warp_sum", "shuffle_in_an_if", {{"SHUFFLE", "    if (lane < s) v += __shfl_down_sync(0xffffffff, v, s);"}}, "output", "deadlock"},
    // Masks and widths as CUDA defines them (issue 32): a lane that reads a
    // lane outside the mask, a lane outside its own mask, a lane that has
    // exited, or a width of 16 (lane + 16 is past a lane's segment: each
    // lane adds its own value, then the sums stay within half warps).
    {"warp_sum", "half_warp_mask", {{"SHUFFLE", "    v += __shfl_down_sync(0x0000ffff, v, s);"}}, "output", ", which is not in the mask 0x0000ffff: its value is undefined in CUDA"},
    {"warp_sum", "width_16", {{"SHUFFLE", "    v += __shfl_down_sync(0xffffffff, v, s, 16);"}}, "output", ", expected "},
    {"warp_sum", "xor_mask_without_lane_31", {{"SHUFFLE", "    v += __shfl_xor_sync(0x7fffffff, v, s);"}}, "output", "lane 15 reads lane 31, which is not in the mask 0x7fffffff"},
    {"warp_sum", "exits_before_the_shuffles", {{"SHUFFLES", "  if (i >= length) return;\n  for (int s = 16; s > 0; s /= 2)"}}, "output", "which has exited: its value is undefined in CUDA"},
    {"shared", "syncwarp_of_one_lane", {{"BARRIER", "  __syncwarp(0x1);"}}, "output", "called __syncwarp with mask 0x00000001 at line "},
    {"matmul", "b_read_transposed", {{"LOADB", "    tileB[ty][tx] = b_row < n && col < n ? float(B[col * n + b_row]) : 0.0f;"}}, "output", "wrong output at n=5"},
    {"conv1d", "no_right_halo", {{"HALO", "    const int left = i - radius, right = i;"}}, "output", ", expected "},
    // An atomicAdd on a shared cell read back by another warp with no barrier:
    // atomics are writes for the grader's hazards (racecheck does not say).
    {"dot", "atomic_read_unsynced", {{"TREE", "  {"}, {"ADD", "    if (t > 0) atomicAdd(&cache[0], sum);"}, {"BARRIER2", kNoBarrier}}, "hazards", "hazard (RAW", {"ADD"}},
    // A __shared__ array a macro hides from the rewrite: used, never traced (issue 32).
    {"shared", "shared_array_behind_a_macro", {{"LOAD", "#define BLOCK_SHARED __shared__\n  BLOCK_SHARED float raw[64];"}, {"BARRIER", "  if (t < count) raw[t] = a[start + t];\n  __syncthreads();"}, {"STORE", "  if (t < count) out[start + t] = raw[count - 1 - t];"}}, "traced", "`raw` (256 bytes of __shared__, first named at line ", {"LOAD"}, true},
};
// clang-format on

struct WrongSolutionCu : PuzzleCheck, ::testing::WithParamInterface<Wrong> {};

TEST_P(WrongSolutionCu, FailsWithTheRightReason) {
  expect_fails(GetParam(), ".cu");
}
INSTANTIATE_TEST_SUITE_P(Puzzles, WrongSolutionCu, ::testing::ValuesIn(kWrongCu),
                         [](const auto& info) {
                           return std::string(info.param.puzzle) + "_" + info.param.name;
                         });

TEST(PuzzlesCu, TwoWrongSolutionsPerPuzzle) {
  for (const std::string& id : puzzle_ids()) {
    int n = 0;
    for (const Wrong& w : kWrongCu)
      n += id == w.puzzle;
    EXPECT_GE(n, 2) << id;
  }
}

// The reference of `puzzle` with `from` replaced by `to`, graded: the compiles
// rule's reason.
struct RefusedCu : PuzzleCheck {
  std::string compile_reason(const std::string& puzzle, const std::string& from,
                             const std::string& to) {
    std::string text = test::read_all(kSolutions + puzzle + ".cu");
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    const std::string path = dir / ("refused_" + puzzle + ".cu");
    test::write_text(path, text);
    int code = 0;
    const nlohmann::json g = check(puzzle, path, &code);
    EXPECT_EQ(code, 3) << g.dump(2);
    const nlohmann::json* r = rule(g, "compiles");
    if (!r) return g.dump(2);
    EXPECT_EQ(r->at("status"), "fail") << g.dump(2);
    EXPECT_EQ(rule(g, "output")->at("status"), "not checked");
    return r->at("reason");
  }
};

TEST_F(RefusedCu, AnotherSignatureSaysThePuzzles) {
  std::string why =
      compile_reason("zip", "const float* b, float* out, int length", "float* out, int length");
  EXPECT_NE(why.find("has 2 pointer parameters, puzzle zip has 3 arrays: puzzle zip's kernel is "
                     "`__global__ void zip_kernel(const float* a, const float* b, float* out, "
                     "int length)`"),
            std::string::npos)
      << why;
  why = compile_reason("map", "int length)", "int size)");
  EXPECT_NE(why.find("kernel parameter 'size' is not one of puzzle map's parameters (length)"),
            std::string::npos)
      << why;
  why = compile_reason("map", "const float* a,", "const int* a,");
  EXPECT_NE(why.find("parameter 'a' is 'const int*'; the puzzle's array a holds float"),
            std::string::npos)
      << why;
}

TEST_F(RefusedCu, TheLaunchAndTheSharedArraysAreThePuzzles) {
  std::string why = compile_reason("map", "puzzle map */", "puzzle map; grid 2; block 8 */");
  EXPECT_NE(why.find("with `puzzle`, the arrays, the launch and the sizes are the puzzle's: leave "
                     "out `grid`"),
            std::string::npos)
      << why;
  why = compile_reason("map", "puzzle map */", "puzzle mop */");
  EXPECT_NE(why.find("puzzle: no puzzle called 'mop'"), std::string::npos) << why;
  why = compile_reason("shared", "float cache[64];", "float buffer[64];");
  EXPECT_NE(why.find("__shared__ buffer is not puzzle shared's: its shared arrays are "
                     "__shared__ float cache[64];"),
            std::string::npos)
      << why;
  // A size from a macro: checked by the compiler, at the declaration's line.
  why = compile_reason("matmul", "#define TILE 8", "#define TILE 16");
  EXPECT_NE(why.find("puzzle matmul's shared array tileA is `__shared__ float tileA[8][8];`"),
            std::string::npos)
      << why;
  why = compile_reason("shared", "float cache[64];", "float cache[128];");
  EXPECT_NE(why.find("puzzle shared's shared array cache is `__shared__ float cache[64];`"),
            std::string::npos)
      << why;
}

// What reaches memory around the traced arrays (issue 32) is refused at its
// line with what to write instead: casts to a pointer type, memcpy, memory
// at file scope.
TEST_F(RefusedCu, EscapesFromTheTraceAreRefusedAtTheirLine) {
  const std::string load = "  if (t < count) cache[t] = a[start + t];";
  struct Case {
    const char* puzzle;
    std::string from, to;
    const char* reason;
  };
  const Case cases[] = {
      {"shared", load, "  float* p = (float*)cache;\n  if (t < count) p[t] = a[start + t];",
       ":17: a cast to a pointer type in shared_kernel(), `(float*)`, reaches memory around the "
       "trace: TileScope traces each access through the array as declared; index the array "
       "itself"},
      {"shared", load, "  if (t < count) ((float*)&cache[0])[t] = a[start + t];",
       ":17: a cast to a pointer type in shared_kernel(), `(float*)`"},
      {"shared", load, "  if (t < count) memcpy(&cache[t], &a[start + t], sizeof(float));",
       ":17: memcpy in shared_kernel() is not traced (TileScope sees memory only through the "
       "arrays as declared): copy element by element"},
      {"transpose", "  if (by + ty < n && bx + tx < n) tile[ty][tx]",
       "  reinterpret_cast<float4*>(&tile[ty][0])[tx / 4] = float4{};\n  if (by + ty < n && bx + "
       "tx < n) tile[ty][tx]",
       ":21: a cast to a pointer type in transpose_kernel(), `reinterpret_cast<float4*>`"},
      {"map", "  out[i] = a[i] + 10.0f;",
       "  const float4* a4 = reinterpret_cast<const float4*>(a);\n  out[i] = a[i] + 10.0f;",
       ":14: a cast to a pointer type in map_kernel(), `reinterpret_cast<const float4*>`"},
      {"shared", load, "  float* p;\n  p = cache;\n  if (t < count) p[t] = a[start + t];",
       ":17: pointer 'p' is declared without its value, so it is a plain pointer the trace does "
       "not see: declare it where you know what it points at, `float* p = &cache[i];`"},
      {"shared", "__global__ void", "__shared__ float raw[64];\n__global__ void",
       ":11: `__shared__ raw` at file scope is memory TileScope does not trace (puzzle shared's "
       "memory is its arrays): declare the __shared__ array inside the kernel"},
      {"shared", "__global__ void", "__device__ float scratch[1 << 16];\n__global__ void",
       ":11: `__device__ scratch` at file scope is memory TileScope does not trace"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    const std::string why = compile_reason(c.puzzle, c.from, c.to);
    EXPECT_NE(why.find(c.reason), std::string::npos) << why;
  }
}

// A __shared__ array the rewrite never sees (a struct's member function at
// file scope is compiled as written): the run finds it, by the address of
// its storage, and the traced rule names it; `__restrict__` parameters are
// traced as any other.
TEST_F(PuzzleCheck, SharedMemoryAroundTheTraceFailsTraced) {
  std::string text = test::read_all(kSolutions + "shared.cu");
  auto edit = [&](const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  edit("__global__ void",
       "struct Scratch {\n  __device__ static float* block() {\n"
       "    __shared__ float raw[64];\n    return raw;\n  }\n};\n\n"
       "__global__ void");
  edit("  if (t < count) cache[t] = a[start + t];",
       "  float* raw = Scratch::block();\n  if (t < count) raw[t] = a[start + t];");
  edit("out[start + t] = cache[count - 1 - t];", "out[start + t] = raw[count - 1 - t];");
  const std::string path = dir / "struct_shared.cu";
  test::write_text(path, text);
  int code = 0;
  nlohmann::json g = check("shared", path, &code);
  EXPECT_EQ(code, 3) << g.dump(2);
  const nlohmann::json* r = rule(g, "traced");
  ASSERT_NE(r, nullptr) << g.dump(2);
  EXPECT_EQ(r->at("status"), "fail") << g.dump(2);
  const std::string reason = r->at("reason");
  EXPECT_NE(reason.find("`raw` (256 bytes of __shared__, declared at line 13) is declared but "
                        "none of its accesses are in the trace"),
            std::string::npos)
      << reason;
  EXPECT_EQ(r->value("line", 0), 13) << r->dump(2);
  EXPECT_EQ(rule(g, "output")->at("status"), "pass") << "right, yet unseen";
  EXPECT_EQ(rule(g, "hazards")->at("status"), "pass") << "no race it could see";

  text = test::read_all(kSolutions + "zip.cu");
  edit("const float* a, const float* b",
       "const float* __restrict__ a, const float* __restrict__ b");
  test::write_text(path, text);
  g = check("zip", path, &code);
  EXPECT_EQ(code, 0) << g.dump(2);
  EXPECT_EQ(rule(g, "traced")->at("status"), "pass") << g.dump(2);
}

// Another puzzle's launch block: the setup rule says which line to keep.
TEST_F(PuzzleCheck, AnotherPuzzlesLaunchBlockIsRefused) {
  std::string text = test::read_all(kSolutions + "map.cu");
  text.replace(text.find("puzzle map */"), 13, "puzzle guards */");
  const std::string path = dir / "other_setup.cu";
  test::write_text(path, text);
  int code = 0;
  const nlohmann::json g = check("map", path, &code);
  EXPECT_EQ(code, 3);
  const nlohmann::json& s = *rule(g, "setup");
  EXPECT_EQ(s["status"], "fail") << g.dump(2);
  EXPECT_NE(s["reason"].get<std::string>().find("the launch is grid 1 x 1 x 1, block 32 x 1 x 1, "
                                                "the puzzle's is grid 1 x 1 x 1, block 1 x 1 x 1 "
                                                "(keep the launch block `/* tilescope: puzzle map "
                                                "*/`)"),
            std::string::npos)
      << s.dump(2);
}

// A barrier added or removed in a .cu changes the setup's barriers as a
// SYNCTHREADS(k) does in a lesson header: two barriers, two purposes.
TEST(PuzzlesCu, CuBarriersAreCountedFromTheFile) {
  const LessonSpec one = puzzles::setup("shared", (kSolutions + "shared.cu").c_str());
  EXPECT_EQ(one.barriers.size(), 1u);
  const LessonSpec two = puzzles::setup("dot", (kSolutions + "dot.cu").c_str());
  EXPECT_EQ(two.barriers.size(), 2u);
  const LessonSpec none = puzzles::setup("map", (kSolutions + "map.cu").c_str());
  EXPECT_EQ(none.barriers.size(), 0u);
}

TEST_F(PuzzleCheck, SkeletonIsPlainCudaAndTheHeaderOneStaysAtHand) {
  const PuzzleList all = load_puzzles(kPuzzles);
  const Puzzle& p = *find_puzzle(all, "matmul");
  testing::CliRun r = testing::run_cli("puzzles matmul --skeleton", false);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, test::read_all(kPuzzles + "/14_matmul/skeleton.cu"));
  EXPECT_NE(r.out.find("/* tilescope: puzzle matmul */"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("__global__ void matmul_kernel(const float* A, const float* B, float* C, "
                       "int n)"),
            std::string::npos)
      << r.out;
  r = testing::run_cli("puzzles matmul --skeleton-hpp", false);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, test::read_all(p.skeleton_hpp_path()));
  // The hints are CUDA: no lesson-header barrier, no A[row][col] on a pointer.
  for (const Puzzle& q : all.puzzles)
    for (const std::string& h : q.hints) {
      EXPECT_EQ(h.find("SYNCTHREADS"), std::string::npos) << q.id << ": " << h;
      EXPECT_EQ(h.find("SHFL_DOWN"), std::string::npos) << q.id << ": " << h;
      EXPECT_EQ(h.find("A[row]["), std::string::npos) << q.id << ": " << h;
    }
}

// A plug-in with its GPU half (nvcc's, as on a machine with a GPU) links
// the CUDA runtime, whose own thread-local storage is not the solution's
// __shared__ memory: the traced rule passes (it failed every puzzle on an
// H200, naming `libcudart_static_...`). TILESCOPE_PLUGIN_CUDA=1 builds the
// GPU half here without a GPU.
TEST_F(PuzzleCheck, TheCudaRuntimesOwnStorageIsNotTheSolutions) {
  if (!TS_HAVE_CUDA) GTEST_SKIP() << "TileScope built without CUDA: no GPU half to build";
  if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no nvcc";
  const std::string cache = dir / "gpu_half_cache";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  ::setenv("TILESCOPE_PLUGIN_CUDA", "1", 1);
  for (const char* id : {"map", "warp_sum"}) {
    int code = 0;
    const nlohmann::json g = check(id, kSolutions + id + ".cu", &code);
    EXPECT_EQ(code, 0) << g.dump(2);
    const nlohmann::json* traced = rule(g, "traced");
    ASSERT_NE(traced, nullptr) << g.dump(2);
    EXPECT_EQ(traced->at("status"), "pass") << g.dump(2);
  }
  ::unsetenv("TILESCOPE_PLUGIN_CUDA");
  // The GPU half was there: the plug-ins hold the runtime's symbols.
  int with_runtime = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cache))
    if (e.path().extension() == ".so")
      with_runtime += test::read_all(e.path()).find("libcudart_static") != std::string::npos;
  EXPECT_EQ(with_runtime, 2) << "the GPU half was not built (TileScope without CUDA?)";
}

// `check --backend cuda` where there is no GPU says so and grades nothing
// (an autograder must not take a simulator grade for a GPU one); `auto`
// grades on the simulator alone. With a GPU, tests/gpu_puzzles.cpp checks it.
TEST_F(PuzzleCheck, OnTheGpuWhereThereIsNoneSaysSo) {
  if (cuda_status().usable) GTEST_SKIP() << "a GPU is here: GpuPuzzles grades on it";
  const std::string solution = kSolutions + "map.cu";
  testing::CliRun r = testing::run_cli("check map " + solution + " --backend cuda --json", false);
  EXPECT_EQ(r.code, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["ok"], false);
  EXPECT_NE(j["error"].get<std::string>().find("the CUDA backend is not available: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(j["error"].get<std::string>().find("--backend sim"), std::string::npos) << r.out;
  int code = 0;
  const nlohmann::json g = check("map", solution + " --backend auto", &code);
  EXPECT_EQ(code, 0) << g.dump(2);
  EXPECT_EQ(rule(g, "gpu"), nullptr) << g.dump(2);
  r = testing::run_cli("check map " + solution + " --backend gpu", false);
  EXPECT_EQ(r.code, 2) << r.out;
}

#endif  // TS_CLI_PATH

}  // namespace
}  // namespace ts
