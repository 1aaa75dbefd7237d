// The grader on the GPU (label gpu): `tilescope-cli check --backend cuda`
// grades on the simulator as always and runs every hidden size on the GPU
// too (rule "gpu": the GPU's output right and, thread by thread, the
// simulator's accesses). Without a usable CUDA device every test is skipped.
//
//   build/headless/tests/ts_gpu_tests --gtest_filter='GpuPuzzles*'
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/puzzle.hpp"
#include "engine/lesson_child.hpp"
#include "tests/gpu_require.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = TS_SOURCE_DIR;

struct GpuPuzzles : ::testing::Test {
  void SetUp() override {
    const fs::path cache =
        fs::temp_directory_path() / ("ts_gpu_puzzles_" + std::to_string(::getuid()));
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    ::setenv("TILESCOPE_PUZZLES", (kSource / "assets/puzzles").c_str(), 1);
  }
  static const RuleResult* rule(const PuzzleGrade& g, const std::string& name) {
    for (const RuleResult& r : g.rules)
      if (r.rule == name) return &r;
    return nullptr;
  }
};

// Every reference solution in plain CUDA passes on the GPU as on the
// simulator, and the grade names the GPU it ran on.
TEST_F(GpuPuzzles, EveryReferenceSolutionPassesOnTheGpu) {
  REQUIRE_GPU();
  const PuzzleList all = load_puzzles();
  ASSERT_GE(all.puzzles.size(), 16u);
  auto solution = [](const Puzzle& p) {
    return kSource / "tests/puzzle_solutions" / (p.id + ".cu");
  };
  std::vector<std::string> files;  // one nvcc per core first, then the grades load them cached
  for (const Puzzle& p : all.puzzles)
    files.push_back(solution(p).string());
  compile_side_by_side(files);
  for (const Puzzle& p : all.puzzles) {
    SCOPED_TRACE(p.id);
    const PuzzleGrade g = grade_puzzle(p, solution(p).string(), {.gpu = true});
    const RuleResult* gpu = rule(g, "gpu");
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->status, RuleStatus::Pass) << gpu->reason;
    EXPECT_NE(gpu->reason.find(cuda_status().device_name), std::string::npos) << gpu->reason;
    EXPECT_TRUE(g.passed) << (g.first_failure() ? g.first_failure()->reason : "");
  }
}

// A wrong solution fails the simulator's output rule; the GPU's rule is not
// checked then, and says why.
TEST_F(GpuPuzzles, AWrongSolutionFailsOnTheSimulatorFirst) {
  REQUIRE_GPU();
  const PuzzleList all = load_puzzles();
  const Puzzle* p = find_puzzle(all, "map");
  ASSERT_NE(p, nullptr);
  const std::string skeleton = (fs::path(p->folder) / "skeleton.cu").string();
  const PuzzleGrade g = grade_puzzle(*p, skeleton, {.gpu = true});
  EXPECT_FALSE(g.passed);
  const RuleResult* out = rule(g, "output");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->status, RuleStatus::Fail) << out->reason;
  const RuleResult* gpu = rule(g, "gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->status, RuleStatus::NotChecked) << gpu->reason;
  EXPECT_NE(gpu->reason.find("output is right"), std::string::npos) << gpu->reason;
}

}  // namespace
}  // namespace ts
