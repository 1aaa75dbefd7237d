// The puzzles (assets/puzzles/, analysis/puzzle.hpp) through the built
// tilescope-cli, as a course's autograder runs them: every reference solution
// (tests/puzzle_solutions/<id>.hpp) passes `check`; three wrong solutions per
// puzzle, each a few lines of its reference changed, fail with the reason a
// student needs (the first wrong cell, the racing pair's lines, the budget
// exceeded); every skeleton compiles and fails with "wrong output".
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "analysis/puzzle.hpp"
#include "engine/puzzles.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/puzzle_check.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

// ---- The puzzles' files, without a compiler ----

TEST(Puzzles, EveryFolderLoadsAndEverySetupHasOne) {
  const PuzzleList all = load_puzzles(kPuzzles);
  EXPECT_TRUE(all.problems.empty()) << all.problems.front();
  ASSERT_GE(all.puzzles.size(), 14u);
  ASSERT_EQ(all.puzzles.size(), puzzles::all_setups().size());
  for (size_t i = 0; i < all.puzzles.size(); ++i) {
    const Puzzle& p = all.puzzles[i];
    EXPECT_EQ(p.id, puzzles::all_setups()[i].id) << "the folders in the setups' order";
    EXPECT_EQ(p.number, int(i) + 1) << p.folder;
    EXPECT_FALSE(p.title.empty());
    EXPECT_GE(p.hints.size(), 2u) << p.id << ": hints unfold one at a time";
    EXPECT_TRUE(std::filesystem::is_regular_file(p.skeleton_path()));
    EXPECT_TRUE(std::filesystem::is_regular_file(p.skeleton_hpp_path()));
    EXPECT_TRUE(std::filesystem::is_regular_file(kSolutions + p.id + ".hpp"))
        << "the reference solution of " << p.id;
  }
  EXPECT_EQ(find_puzzle(all, "shared"), find_puzzle(all, "08_shared"));
  EXPECT_EQ(find_puzzle(all, "8"), find_puzzle(all, "shared"));
  EXPECT_EQ(find_puzzle(all, "nothing"), nullptr);
}

// The grader's sizes: odd ones among them (the guards), inside the declared
// ranges; the budgets' sizes too.
TEST(Puzzles, HiddenSizesIncludeOddOnesInsideTheRanges) {
  const PuzzleList all = load_puzzles(kPuzzles);
  for (const puzzles::PuzzleSetup& s : puzzles::all_setups()) {
    const LessonSpec spec = s.spec();
    ASSERT_GE(s.hidden.size(), 4u) << s.id;
    bool odd = false;
    auto in_range = [&](const Params& p) {
      for (const ParamDecl& d : spec.params)
        for (const ParamField& f : kParamFields)
          if (std::string_view(f.name) == d.name && p.*f.field &&
              (p.*f.field < d.min || p.*f.field > d.max))
            return false;
      return true;
    };
    for (const Params& p : s.hidden) {
      EXPECT_TRUE(in_range(p)) << s.id;
      odd |= (p.length | p.n | p.m) & 1;
    }
    EXPECT_TRUE(odd) << s.id << ": no odd size";
    if (const Puzzle* pz = find_puzzle(all, s.id)) {
      for (const PuzzleBudget& b : pz->budgets)
        EXPECT_TRUE(in_range(b.at)) << s.id << " " << b.metric;
    }
  }
}

TEST(Puzzles, ProgressKeepsASolvedPuzzleSolved) {
  test::TempDir dir{"ts_puzzles_", "progress"};
  const std::string file = dir / "progress.json";
  EXPECT_TRUE(read_puzzle_progress(file).empty()) << "no file: no progress";
  PuzzleProgress p;
  PuzzleGrade g;
  g.puzzle = "shared";
  record_grade(p, g);
  EXPECT_EQ(p.at("shared"), "attempted");
  g.passed = true;
  record_grade(p, g);
  EXPECT_EQ(p.at("shared"), "solved");
  g.passed = false;
  record_grade(p, g);
  EXPECT_EQ(p.at("shared"), "solved") << "a later wrong attempt";
  g.puzzle = "map";
  ASSERT_EQ(record_puzzle_progress(g, file).value_or("recorded"), "recorded");
  g.passed = true;
  g.puzzle = "shared";
  ASSERT_EQ(record_puzzle_progress(g, file).value_or("recorded"), "recorded");
  EXPECT_EQ(read_puzzle_progress(file),
            (PuzzleProgress{{"map", "attempted"}, {"shared", "solved"}}));
  // Read strictly: a value TileScope never writes makes the file a problem.
  test::write_text(file, R"({"map": "solved", "zip": "bogus", "dot": 3})");
  std::string problem;
  EXPECT_TRUE(read_puzzle_progress(file, &problem).empty());
  EXPECT_NE(problem.find("puzzle 'dot' is 3"), std::string::npos) << problem;
}

TEST(Puzzles, ABrokenFolderIsAProblemNotACrash) {
  test::TempDir dir{"ts_puzzles_", "broken"};
  std::filesystem::create_directories(dir.path / "01_map");
  test::write_text(dir / "01_map/puzzle.json", "{\"id\": \"map\", \"title\": \"Map\"");
  std::filesystem::create_directories(dir.path / "02_zap");
  test::write_text(dir / "02_zap/puzzle.json", R"({"id": "zap", "title": "t", "statement": "s"})");
  const PuzzleList all = load_puzzles(dir.path.string());
  EXPECT_TRUE(all.puzzles.empty());
  ASSERT_EQ(all.problems.size(), 2u);
  EXPECT_NE(all.problems[0].find("not a JSON object"), std::string::npos) << all.problems[0];
  EXPECT_NE(all.problems[1].find("id 'zap' has no setup"), std::string::npos) << all.problems[1];
}

#ifdef TS_CLI_PATH

// ---- Every reference solution passes ----

struct ReferenceSolution : PuzzleCheck, ::testing::WithParamInterface<std::string> {};

TEST_P(ReferenceSolution, PassesEveryRule) {
  int code = 0;
  const nlohmann::json g = check(GetParam(), kSolutions + GetParam() + ".hpp", &code);
  EXPECT_EQ(code, 0) << g.dump(2);
  EXPECT_EQ(g["passed"], true) << g.dump(2);
  ASSERT_TRUE(g.contains("rules")) << g.dump(2);
  EXPECT_GE(g["rules"].size(), 4u);
  for (const auto& r : g["rules"])
    EXPECT_EQ(r["status"], "pass") << r.dump(2);
  // The hidden sizes are named in the output rule's reason.
  EXPECT_NE(rule(g, "output")->at("reason").get<std::string>().find("right at"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Puzzles, ReferenceSolution, ::testing::ValuesIn(puzzle_ids()),
                         [](const auto& info) { return info.param; });

// ---- Every skeleton compiles and fails with "wrong output" ----

struct Skeleton : PuzzleCheck, ::testing::WithParamInterface<std::string> {};

TEST_P(Skeleton, CompilesAndFailsWithWrongOutput) {
  const PuzzleList all = load_puzzles(kPuzzles);
  const Puzzle* p = find_puzzle(all, GetParam());
  ASSERT_NE(p, nullptr);
  // The plain CUDA one (docs/plain_cuda.md) and the lesson-header one.
  for (const std::string& path : {p->skeleton_path(), p->skeleton_hpp_path()}) {
    SCOPED_TRACE(path);
    const std::string text = test::read_all(path);
    EXPECT_NE(text.find("// TODO: your code"), std::string::npos);
    int code = 0;
    const nlohmann::json g = check(GetParam(), path, &code);
    EXPECT_EQ(code, 3) << g.dump(2);
    EXPECT_EQ(g["passed"], false);
    EXPECT_EQ(rule(g, "compiles")->at("status"), "pass") << g.dump(2);
    EXPECT_EQ(rule(g, "setup")->at("status"), "pass") << g.dump(2);
    const nlohmann::json& out = *rule(g, "output");
    EXPECT_EQ(out["status"], "fail");
    const std::string reason = out["reason"];
    EXPECT_EQ(reason.rfind("wrong output at ", 0), 0u) << reason;
    EXPECT_NE(reason.find("was never written, expected"), std::string::npos) << reason;
    EXPECT_TRUE(out["never_written"].get<bool>());
  }
}
INSTANTIATE_TEST_SUITE_P(Puzzles, Skeleton, ::testing::ValuesIn(puzzle_ids()),
                         [](const auto& info) { return info.param; });

// ---- Three wrong solutions per puzzle ----

const char* kNoBarrier = "  // (no barrier here)";

// clang-format off
const std::vector<Wrong> kWrong = {
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
    // An atomicAdd on a shared cell read back by another warp with no barrier:
    // atomics are writes for the grader's hazards (racecheck does not say).
    {"dot", "atomic_read_unsynced", {{"TREE", "  {"}, {"ADD", "    if (t > 0) atomic_add(cache[0], sum);"}, {"BARRIER2", kNoBarrier}}, "hazards", "hazard (RAW", {"ADD"}},
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
    {"transpose", "bank_conflicts", {{"TILE_MEM", "  __shared__ float tile_mem[TILE][TILE];"}, {"TILE", "  SharedTile<float, TILE, TILE, Rec> tile(rec, tile_mem, kTile);"}}, "budget bank_conflicts", "over the budget of 0", {"STORE"}, true},
    {"transpose", "uncoalesced_stores", {{"LOAD", "  if (by + ty < n && bx + tx < n) out[(bx + tx) * n + by + ty] = in[(by + ty) * n + bx + tx];"}, {"BARRIER", kNoBarrier}, {"STORE", "  //"}}, "budget global_store_sectors_per_request", "32 sectors per store request, over the budget of 4", {"LOAD"}, true},
    {"transpose", "missing_barrier", {{"BARRIER", kNoBarrier}}, "hazards", "read-after-write", {"LOAD", "STORE"}},
    {"warp_sum", "shared_atomics", {{"SHUFFLES", "  if (lane == 0) warp_sums[warp] = 0.0f;\n  SYNCTHREADS(1);"}, {"SHUFFLE", "  atomic_add(warp_sums[warp], v);"}, {"PARTIAL", "  //"}, {"BARRIER", "  SYNCTHREADS(2);"}}, "budget shared_accesses_per_output", "over the budget of 8", {}, true},
    {"warp_sum", "missing_barrier", {{"BARRIER", kNoBarrier}}, "hazards", "read-after-write", {"PARTIAL", "STORE"}},
    {"warp_sum", "one_shuffle_short", {{"SHUFFLES", "  for (int s = 16; s > 1; s /= 2)"}}, "output", ", expected "},
    // Shared memory used as a plain array, around the trace: its races, barriers
    // and bank conflicts unseen, so every other rule would pass (issue 32).
    {"transpose", "raw_tile_syncwarp", {{"TILE_MEM", "  __shared__ float raw[TILE][TILE + 1];"}, {"TILE", "  //"}, {"LOAD", "  if (by + ty < n && bx + tx < n) raw[ty][tx] = in[(by + ty) * n + bx + tx];"}, {"BARRIER", "  SYNCWARP(1);"}, {"STORE", "  if (bx + ty < n && by + tx < n) out[(bx + ty) * n + by + tx] = raw[tx][ty];"}}, "traced", "`raw` (4224 bytes of __shared__, declared at line ", {"TILE_MEM"}},
    {"transpose", "raw_tile_bank_conflicts", {{"TILE_MEM", "  __shared__ float raw[TILE][TILE];"}, {"TILE", "  //"}, {"LOAD", "  if (by + ty < n && bx + tx < n) raw[ty][tx] = in[(by + ty) * n + bx + tx];"}, {"STORE", "  if (bx + ty < n && by + tx < n) out[(bx + ty) * n + by + tx] = raw[tx][ty];"}}, "traced", "`raw` (4096 bytes of __shared__, declared at line ", {"TILE_MEM"}, true},
    {"matmul", "raw_tiles_syncwarp", {{"LOADA", "    __shared__ float raw[2][TILE][TILE];"}, {"LOADB", "    raw[0][ty][tx] = row < n && a_col < n ? float(A[row * n + a_col]) : 0.0f;\n    raw[1][ty][tx] = b_row < n && col < n ? float(B[b_row * n + col]) : 0.0f;"}, {"BARRIER1", "    SYNCWARP(1);"}, {"FMA", "      sum += raw[0][ty][k] * raw[1][k][tx];"}}, "traced", "`raw` (512 bytes of __shared__, declared at line ", {"LOADA"}},
    {"warp_sum", "raw_shared_tree", {{"SHUFFLES", "  __shared__ float raw[128];"}, {"SHUFFLE", "  raw[t] = v;\n  SYNCWARP(1);\n  for (int s = 16; s > 0; s /= 2) {\n    const float o = lane + s < 32 ? raw[t + s] : 0.0f;\n    SYNCWARP(2);\n    raw[t] = v += o;\n    SYNCWARP(3);\n  }"}, {"BARRIER", "  SYNCTHREADS(4);"}}, "traced", "`raw` (512 bytes of __shared__, declared at line ", {"SHUFFLES"}, true},
    // The inputs read through KernelArgs' raw pointers: right, and no traced load.
    {"map", "raw_global_reads", {{"STORE", "  out[i] = args.ptr<const float>(kA)[i] + 10.0f;"}}, "traced", "no traced load ever read a[0]", {}, true},
};
// clang-format on

struct WrongSolution : PuzzleCheck, ::testing::WithParamInterface<Wrong> {};

TEST_P(WrongSolution, FailsWithTheRightReason) {
  expect_fails(GetParam(), ".hpp");
}
INSTANTIATE_TEST_SUITE_P(Puzzles, WrongSolution, ::testing::ValuesIn(kWrong), [](const auto& info) {
  return std::string(info.param.puzzle) + "_" + info.param.name;
});

// Every puzzle has at least three wrong solutions.
TEST(Puzzles, ThreeWrongSolutionsPerPuzzle) {
  for (const puzzles::PuzzleSetup& s : puzzles::all_setups()) {
    const auto n = std::count_if(kWrong.begin(), kWrong.end(),
                                 [&](const Wrong& w) { return std::string(w.puzzle) == s.id; });
    EXPECT_GE(n, 3) << s.id;
  }
}

// ---- The command line around the grade ----

TEST_F(PuzzleCheck, TextGradeAndExitCodes) {
  const std::string ref = kSolutions + "shared.hpp";
  testing::CliRun r = testing::run_cli("check shared " + ref, true);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("puzzle 8 shared (Shared memory): PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pass  hazards"), std::string::npos) << r.out;

  r = testing::run_cli("check nothing " + ref, true);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no puzzle 'nothing': the puzzles are map, zip,"), std::string::npos)
      << r.out;

  // A solution that is not there fails the first rule (an autograder's "no file").
  int code = 0;
  nlohmann::json g = check("shared", dir / "missing.hpp", &code);
  EXPECT_EQ(code, 3);
  EXPECT_EQ(rule(g, "compiles")->at("status"), "fail");
  EXPECT_NE(rule(g, "compiles")->at("reason").get<std::string>().find("no such lesson file"),
            std::string::npos);
  EXPECT_EQ(rule(g, "output")->at("status"), "not checked");
}

TEST_F(PuzzleCheck, CompilerErrorIsRuleOneWithItsLine) {
  std::string text = test::read_all(kSolutions + "shared.hpp");
  text = test::with_line(text, "@LOAD", "  if (t < count) cache[t] = a[start + t]  // @LOAD");
  const std::string path = dir / "broken.hpp";
  test::write_text(path, text);
  int code = 0;
  const nlohmann::json g = check("shared", path, &code);
  EXPECT_EQ(code, 3);
  const nlohmann::json& c = *rule(g, "compiles");
  EXPECT_EQ(c["status"], "fail");
  EXPECT_EQ(c["line"].get<int>(), test::line_of(text, "@LOAD")) << c.dump(2);
  EXPECT_NE(
      c["reason"].get<std::string>().find(
          "the first at line " + std::to_string(test::line_of(text, "@LOAD")) + ": expected ';'"),
      std::string::npos)
      << c.dump(2);
}

// A solution may not bring its own arrays, launch or reference: the setup is
// the puzzle's, and its output is checked against the grader's reference.
TEST_F(PuzzleCheck, AnotherPuzzlesSetupIsRefused) {
  std::string text = test::read_all(kSolutions + "map.hpp");
  const std::string mine = "setup(\"map\"";
  text.replace(text.find(mine), mine.size(), "setup(\"guards\"");
  const std::string path = dir / "other_setup.hpp";
  test::write_text(path, text);
  int code = 0;
  const nlohmann::json g = check("map", path, &code);
  EXPECT_EQ(code, 3);
  const nlohmann::json& s = *rule(g, "setup");
  EXPECT_EQ(s["status"], "fail") << g.dump(2);
  EXPECT_NE(s["reason"].get<std::string>().find("the launch is grid 1 x 1 x 1, block 32 x 1 x 1, "
                                                "the puzzle's is grid 1 x 1 x 1, block 1 x 1 x 1"),
            std::string::npos)
      << s.dump(2);
  EXPECT_EQ(rule(g, "output")->at("status"), "not checked");
}

// `check --record` keeps the progress the window's panel keeps, and the list shows it.
TEST_F(PuzzleCheck, RecordedProgressShowsInTheList) {
  const std::filesystem::path was = std::filesystem::current_path();
  std::filesystem::current_path(dir.path);
  testing::CliRun r = testing::run_cli("check map " + kSolutions + "map.hpp --record", true);
  EXPECT_EQ(r.code, 0) << r.out;
  r = testing::run_cli("check shared " + std::string(TS_SOURCE_DIR) +
                           "/assets/puzzles/08_shared/skeleton.hpp --record",
                       true);
  EXPECT_EQ(r.code, 3) << r.out;
  const PuzzleProgress p = read_puzzle_progress(puzzle_progress_path());
  r = testing::run_cli("puzzles", true);
  std::filesystem::current_path(was);
  EXPECT_EQ(p, (PuzzleProgress{{"map", "solved"}, {"shared", "attempted"}}));
  EXPECT_NE(r.out.find(" 1  map         Map                                solved\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" 8  shared      Shared memory                      attempted\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" 2  zip         Zip\n"), std::string::npos) << r.out;
}

TEST_F(PuzzleCheck, PuzzlesListsShowsHintsOneAtATimeAndPrintsTheSkeleton) {
  testing::CliRun r = testing::run_cli("puzzles", true);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(" 1  map"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16  warp_sum"), std::string::npos) << r.out;

  const PuzzleList all = load_puzzles(kPuzzles);
  const Puzzle& p = *find_puzzle(all, "shared");
  r = testing::run_cli("puzzles shared --hints 1", true);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("Puzzle 8: Shared memory"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Hint 1: " + p.hints[0]), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(p.hints[1]), std::string::npos) << "hint 2 is not shown yet\n" << r.out;
  EXPECT_NE(r.out.find("--hints 2 for the next"), std::string::npos) << r.out;

  r = testing::run_cli("puzzles 8 --skeleton", false);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, test::read_all(p.skeleton_path()));
}

#endif  // TS_CLI_PATH

}  // namespace
}  // namespace ts
