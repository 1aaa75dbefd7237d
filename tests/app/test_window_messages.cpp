// The window names the right thread, line and size as tilescope-cli does
// (tests/test_cli_messages.cpp), for lesson files a student might write: a
// __shared__ array the descriptor does not declare, a grid beyond CUDA's
// limits, one thread that spins while the others wait for it (issue 31,
// defect 11). Scripted: the message on stderr and a failing exit.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "tests/app/private_x_server.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts::app_test {
namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("not in the lesson: " + from);
  return text.replace(at, from.size(), to);
}

struct WindowMessages : ::testing::Test {
  test::TempDir dir{"ts_window_messages_",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  void SetUp() override { ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1); }
  void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }

  struct Exit {
    int rc = -1;
    std::string out;
  };
  // `tilescope --lesson-file FILE --screenshot X --exit` on the test's X server.
  Exit open(const std::string& name, const std::string& text) {
    test::write_text(dir / name, text);
    const std::string log = (dir / (name + ".log"));
    const std::string cmd = "DISPLAY=" + x_display() + " " + TS_TILESCOPE_EXE + " --lesson-file " +
                            (dir / name) + " --backend sim --size 800x600 --screenshot " +
                            (dir / (name + ".png")) + " --exit > " + log + " 2>&1";
    const int st = std::system(cmd.c_str());
    Exit e;
    e.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    std::ifstream f(log);
    e.out.assign((std::istreambuf_iterator<char>(f)), {});
    return e;
  }
};

TEST_F(WindowMessages, AnUndeclaredSharedArrayIsCountedAndRefused) {
  ASSERT_FALSE(x_display().empty());
  const Exit e = open("big.hpp", replaced(test::kReverseLesson, "__shared__ float tile_mem[64];",
                                          "__shared__ float tile_mem[1 << 28];"));
  EXPECT_NE(e.rc, 0) << e.out;
  EXPECT_NE(e.out.find("tile_mem, 1073741824 bytes"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("over the 49152 bytes of shared memory per block"), std::string::npos)
      << e.out;
}

TEST_F(WindowMessages, AGridBeyondCudasLimitsIsRefused) {
  ASSERT_FALSE(x_display().empty());
  const Exit e =
      open("grid.hpp",
           replaced(test::kReverseLesson, "          g.static_shared_bytes = 64 * sizeof(float);\n",
                    "          g.static_shared_bytes = 64 * sizeof(float);\n"
                    "          g.grid.y = 70000;\n"));
  EXPECT_EQ(e.rc, 2) << e.out;
  EXPECT_NE(e.out.find("a grid y of 70000, over CUDA's limit of 65535"), std::string::npos)
      << e.out;
}

TEST_F(WindowMessages, TheThreadThatSpinsIsNamedWithItsLine) {
  ASSERT_FALSE(x_display().empty());
  const std::string text =
      test::with_line(test::kReverseLesson, "LOAD",
                      "  if (tid == 5)\n"
                      "    for (int k = 0; k < 1; k += 0) tile[tid] = in[i];  // SPIN\n"
                      "  tile[tid] = in[i];  // LOAD");
  const Exit e = open("spin.hpp", text);
  EXPECT_NE(e.rc, 0) << e.out;
  EXPECT_NE(e.out.find("thread (5, 0, 0) of block (0, 0, 0) was at line " +
                       std::to_string(test::line_of(text, "SPIN"))),
            std::string::npos)
      << e.out;
}

}  // namespace
}  // namespace ts::app_test
