// The progress file (analysis/puzzle_progress.cpp) cannot be lost (issue 31,
// item 8): a corrupt file is named and kept, concurrent records all count, a
// write that fails is an error, a FIFO never blocks.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "analysis/puzzle.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

// Threads each open the folder's lock on their own, as processes do.
TEST(PuzzleProgress, ConcurrentRecordsAllCount) {
  test::TempDir dir{"ts_progress_", "concurrent"};
  const std::string file = dir / "tilescope_puzzles.json";
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        PuzzleGrade g;
        g.puzzle = "p" + std::to_string(t) + "_" + std::to_string(i);
        g.passed = i % 2;
        EXPECT_EQ(record_puzzle_progress(g, file).value_or("recorded"), "recorded");
      }
    });
  for (std::thread& t : threads)
    t.join();
  std::string problem;
  EXPECT_EQ(read_puzzle_progress(file, &problem).size(), 80u) << problem;
  for (const auto& e : fs::directory_iterator(dir.path))
    EXPECT_EQ(e.path().filename(), "tilescope_puzzles.json") << "a temporary file left";
}

#ifdef TS_CLI_PATH

const std::string kSolutions = std::string(TS_SOURCE_DIR) + "/tests/puzzle_solutions/";

struct PuzzleProgressCli : ::testing::Test {
  test::TempDir dir{"ts_progress_",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  fs::path was = fs::current_path();
  void SetUp() override {
    ::setenv(
        "XDG_CACHE_HOME",
        (fs::temp_directory_path() / ("ts_puzzle_cache_" + std::to_string(::getuid()))).c_str(), 1);
    ::setenv("TILESCOPE_PUZZLES", (std::string(TS_SOURCE_DIR) + "/assets/puzzles").c_str(), 1);
    ::setenv("TILESCOPE_PROGRESS", "tilescope_puzzles.json", 1);  // in the test's folder
    fs::current_path(dir.path);
  }
  void TearDown() override {
    fs::current_path(was);
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("TILESCOPE_PUZZLES");
    ::unsetenv("TILESCOPE_PROGRESS");
  }
  // `check map <solution> --record` in the test's folder, stopped after 60 s
  // (a FIFO made the old program wait for ever).
  static testing::CliRun record() {
    testing::CliRun r;
    const std::string cmd = "timeout 60 '" + testing::cli_path() + "' check map " + kSolutions +
                            "map.hpp --record 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::array<char, 4096> buf;
    for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;)
      r.out.append(buf.data(), n);
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }
};

// Without TILESCOPE_PROGRESS the progress goes with the user's data, never
// into the working folder (scripted window runs and `check --record` in a
// course's folder wrote it there).
TEST_F(PuzzleProgressCli, ProgressGoesToTheUsersDataNotTheWorkingFolder) {
  ::unsetenv("TILESCOPE_PROGRESS");
  const char* home = std::getenv("HOME");
  const std::string old_home = home ? home : "";
  ::setenv("HOME", (dir / "home").c_str(), 1);
  ::unsetenv("XDG_DATA_HOME");
  const testing::CliRun r = record();
  if (old_home.empty())
    ::unsetenv("HOME");
  else
    ::setenv("HOME", old_home.c_str(), 1);
  EXPECT_EQ(r.code, 0) << r.out;
  const fs::path file = dir.path / "home/.local/share/tilescope/puzzles.json";
  EXPECT_EQ(test::read_all(file.string()), "{\n  \"map\": \"solved\"\n}\n");
  EXPECT_FALSE(fs::exists(dir.path / "tilescope_puzzles.json")) << "nothing in the working folder";
  struct stat st {};
  ASSERT_EQ(::stat(file.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "the data folder it made is the user's alone";
}

TEST_F(PuzzleProgressCli, CorruptFileIsNamedAndKept) {
  const std::string text =
      "{\"shared\": \"solved\", \"dot\": \"solved\", \"zip\": \"solved\",}\n";  // one comma
  test::write_text("tilescope_puzzles.json", text);
  const testing::CliRun r = record();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("tilescope_puzzles.json is not valid JSON: it is kept"), std::string::npos)
      << r.out;
  EXPECT_EQ(test::read_all("tilescope_puzzles.json"), text) << "never written over";
  const testing::CliRun list = testing::run_cli("puzzles", true);
  EXPECT_NE(list.out.find("is not valid JSON"), std::string::npos) << list.out;
}

TEST_F(PuzzleProgressCli, WriteFailureIsAnError) {
  fs::create_symlink("/dev/full", "tilescope_puzzles.json");
  const testing::CliRun r = record();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("the grade was not recorded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_symlink("tilescope_puzzles.json")) << "the link stays a link";
}

TEST_F(PuzzleProgressCli, FifoIsRefusedWithoutWaiting) {
  ASSERT_EQ(::mkfifo("tilescope_puzzles.json", 0600), 0);
  const testing::CliRun r = record();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("is not a regular file (a FIFO)"), std::string::npos) << r.out;
}

TEST_F(PuzzleProgressCli, RecordKeepsWhatWasThere) {
  test::write_text("tilescope_puzzles.json", "{\"shared\": \"solved\"}\n");
  ::chmod("tilescope_puzzles.json", 0600);
  const testing::CliRun r = record();
  EXPECT_EQ(r.code, 0) << r.out;
  std::string problem;
  EXPECT_EQ(read_puzzle_progress("tilescope_puzzles.json", &problem),
            (PuzzleProgress{{"map", "solved"}, {"shared", "solved"}}))
      << problem;
  struct stat st {};
  ASSERT_EQ(::stat("tilescope_puzzles.json", &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "the file's mode kept";
}

#endif

}  // namespace
}  // namespace ts
