// The Puzzles panel (app/quiz/view_puzzles.cpp) as a student meets it: a
// puzzle's file opened in the window is graded as it opens, and the progress
// (attempted, then solved, and solved stays) is saved beside imgui.ini, in the
// folder the window runs in.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/window_shot.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts::app_test {
namespace {

struct PuzzlesWindow : ::testing::Test {
  test::TempDir dir{"ts_puzzles_window_",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  std::filesystem::path was = std::filesystem::current_path();
  void SetUp() override {
    ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
    ::setenv("TILESCOPE_PUZZLES", (std::string(TS_SOURCE_DIR) + "/assets/puzzles").c_str(), 1);
    ::setenv("XDG_DATA_HOME", (dir / "data").c_str(), 1);  // where the progress goes
    std::filesystem::current_path(dir.path);               // the window's settings folder
  }
  void TearDown() override {
    std::filesystem::current_path(was);
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("TILESCOPE_PUZZLES");
    ::unsetenv("XDG_DATA_HOME");
  }
  // The progress, with the user's data; never in the working folder.
  nlohmann::json progress() const {
    EXPECT_FALSE(std::filesystem::exists(dir / "tilescope_puzzles.json"));
    std::ifstream in(dir / "data/tilescope/puzzles.json");
    return in ? nlohmann::json::parse(in, nullptr, false) : nlohmann::json();
  }
};

TEST_F(PuzzlesWindow, OpenedSolutionIsGradedAndProgressIsSaved) {
  const std::string solution =
      test::read_all(std::string(TS_SOURCE_DIR) + "/tests/puzzle_solutions/shared.hpp");
  test::write_text(dir / "my_shared.hpp",
                   test::with_line(solution, "@BARRIER", "  // (no barrier)  // @BARRIER"));
  const std::string args = " --tab Puzzles --size 1280x720 --backend sim";
  Shot s = take_shot("puzzles_racy", "--lesson-file " + (dir / "my_shared.hpp") + args);
  ASSERT_EQ(s.rc, 0) << s.log;
  EXPECT_EQ(progress(), nlohmann::json({{"shared", "attempted"}})) << s.log;

  test::write_text(dir / "my_shared.hpp", solution);
  s = take_shot("puzzles_solved", "--lesson-file " + (dir / "my_shared.hpp") + args);
  ASSERT_EQ(s.rc, 0) << s.log;
  EXPECT_EQ(progress(), nlohmann::json({{"shared", "solved"}}));

  // A later wrong attempt leaves it solved; another puzzle's attempt joins it.
  test::write_text(dir / "my_shared.hpp",
                   test::with_line(solution, "@BARRIER", "  // (no barrier)  // @BARRIER"));
  s = take_shot("puzzles_again", "--lesson-file " + (dir / "my_shared.hpp") + args);
  ASSERT_EQ(s.rc, 0) << s.log;
  const std::string map_skeleton =
      test::read_all(std::string(TS_SOURCE_DIR) + "/assets/puzzles/01_map/skeleton.hpp");
  test::write_text(dir / "my_map.hpp", map_skeleton);
  s = take_shot("puzzles_map", "--lesson-file " + (dir / "my_map.hpp") + args);
  ASSERT_EQ(s.rc, 0) << s.log;
  EXPECT_EQ(progress(), nlohmann::json({{"shared", "solved"}, {"map", "attempted"}}));
}

// A plain CUDA solution (`/* tilescope: puzzle shared */`) is followed and
// graded the same way.
TEST_F(PuzzlesWindow, OpenedCudaSolutionIsGraded) {
  const std::string solution =
      test::read_all(std::string(TS_SOURCE_DIR) + "/tests/puzzle_solutions/shared.cu");
  test::write_text(dir / "my_shared.cu",
                   test::with_line(solution, "@BARRIER", "  // (no barrier)  // @BARRIER"));
  const std::string args = " --tab Puzzles --size 1280x720 --backend sim";
  Shot s = take_shot("puzzles_cu_racy", "--lesson-file " + (dir / "my_shared.cu") + args);
  ASSERT_EQ(s.rc, 0) << s.log;
  EXPECT_EQ(progress(), nlohmann::json({{"shared", "attempted"}})) << s.log;
  test::write_text(dir / "my_shared.cu", solution);
  s = take_shot("puzzles_cu_solved", "--lesson-file " + (dir / "my_shared.cu") + args);
  ASSERT_EQ(s.rc, 0) << s.log;
  EXPECT_EQ(progress(), nlohmann::json({{"shared", "solved"}})) << s.log;
}

}  // namespace
}  // namespace ts::app_test
