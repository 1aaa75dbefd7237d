// The window with a lesson file (engine/lesson_file.hpp), as a student opens
// one: a file that compiles runs and replays as a built-in lesson does; one
// with a syntax error opens the window all the same, on the default lesson,
// with the error in the banner and in the Source panel at its line.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <string>

#include "tests/app/window_shot.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts::app_test {
namespace {

struct LessonFileWindow : ::testing::Test {
  test::TempDir dir{"ts_lesson_file_window_",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  void SetUp() override { ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1); }
  void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }
};

TEST_F(LessonFileWindow, RunsAndReplaysALessonFile) {
  test::write_text(dir / "reverse.hpp", test::kReverseLesson);
  const Shot s = take_shot("lesson_file", "--lesson-file " + (dir / "reverse.hpp") +
                                              " --size 1280x720 --backend sim --position end");
  ASSERT_EQ(s.rc, 0) << s.log;
  EXPECT_EQ(s.cells["variant"], "file.reverse");
  EXPECT_NE(s.cells["banner"]["kind"], "error") << s.cells["banner"];
  EXPECT_NE(s.log.find("compiled into a plug-in"), std::string::npos) << s.log;
}

TEST_F(LessonFileWindow, CompileErrorIsShownAtItsLine) {
  const std::string text =
      test::with_line(test::kReverseLesson, "LOAD", "  tile[tid] = in[i] + * ;  // LOAD");
  test::write_text(dir / "broken.hpp", text);
  const Shot s =
      take_shot("lesson_file_error", "--lesson-file " + (dir / "broken.hpp") + " --size 1280x720");
  ASSERT_EQ(s.rc, 0) << "the window keeps running\n" << s.log;
  EXPECT_EQ(s.cells["banner"]["kind"], "error");
  const std::string banner = s.cells["banner"]["text"];
  EXPECT_NE(banner.find("the first at line " + std::to_string(test::line_of(text, "LOAD"))),
            std::string::npos)
      << banner;
  EXPECT_NE(s.log.find((dir / "broken.hpp") + ":" + std::to_string(test::line_of(text, "LOAD"))),
            std::string::npos)
      << s.log;
}

}  // namespace
}  // namespace ts::app_test
