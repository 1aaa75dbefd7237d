// A lesson file is hostile input (issue 31): what it makes the compiler do
// must end in a message within the limits. A line of 200,000 characters, an
// #include of a FIFO, a compiler that never returns, megabytes of
// diagnostics: each ends with its message, in time, and nothing is left
// running or lying in the cache.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "engine/lesson_file.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

using test::kReverseLesson;
using test::line_of;
using test::with_line;
using test::write_text;

const std::string kLongName(200000, 'a');

// std::regex recursed once per character and overflowed the stack here.
TEST(LessonFile, ParsesLinesOfAnyLength) {
  const std::string out =
      "/c/glue.cpp:3:10: note: in file included from here\n"
      "/home/s/long.hpp:12:5: error: '" +
      kLongName + "' was not declared in this scope\n" + std::string(1000000, ' ') + "(\n" +
      std::string(300000, ':') + "\n" + "/home/s/long.hpp(" + std::string(40, '9') +
      "): error: " + kLongName + "\n";
  const std::vector<CompilerDiagnostic> d = parse_compiler_output(out);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[1].file, "/home/s/long.hpp");
  EXPECT_EQ(d[1].line, 12);
  EXPECT_EQ(d[1].column, 5);
  EXPECT_EQ(d[1].severity, "error");
  EXPECT_GT(d[1].message.size(), kLongName.size());
  EXPECT_EQ(d[2].severity, "error");
  EXPECT_GT(d[2].line, 0);  // 40 nines: saturated, not overflowed
  const std::string brief = shortened(d[1].message, 300);
  EXPECT_LT(brief.size(), 400u);
  EXPECT_NE(brief.find("characters left out)"), std::string::npos) << brief;
  EXPECT_NE(brief.find("' was not declared in this scope"), std::string::npos) << brief;
}

#ifdef TS_CLI_PATH

struct LessonFileHostile : ::testing::Test {
  test::TempDir dir{"ts_hostile_", ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  void SetUp() override { ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1); }
  void TearDown() override {
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("TILESCOPE_COMPILE_SECONDS");
    ::unsetenv("TILESCOPE_CXX");
    ::unsetenv("TILESCOPE_PUZZLES");
  }
  std::string file(const std::string& name, const std::string& text) {
    write_text(dir / name, text);
    return dir / name;
  }
  // A shell script standing in for the compiler.
  std::string compiler(const std::string& body) {
    const std::string path = file("cxx.sh", "#!/bin/sh\n" + body);
    ::chmod(path.c_str(), 0755);
    return path;
  }
  // `tilescope-cli <args>`, stderr merged, and how long it took.
  static testing::CliRun cli(const std::string& args, double* seconds) {
    const auto start = std::chrono::steady_clock::now();
    testing::CliRun r = testing::run_cli(args, true);
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }
  // The temporary files a compile may leave in the cache (none, ever).
  std::string leftovers() const {
    std::string names;
    std::error_code ec;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "cache", ec)) {
      const std::string n = e.path().filename().string();
      if (n.find(".tmp") != std::string::npos || n.find(".log") != std::string::npos ||
          n.find(".o") != std::string::npos)
        names += n + " ";
    }
    return names;
  }
};

// Processes still running (not zombies) whose process group is `pgid`, or
// whose command line holds `text`.
std::string live_processes(pid_t pgid, const std::string& text) {
  std::string found;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = test::read_all("/proc/" + pid + "/stat");
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (std::sscanf(stat.c_str() + paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) continue;
    if (state == 'Z' || state == 'X') continue;
    std::string cmd = test::read_all("/proc/" + pid + "/cmdline");
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    if ((pgid > 0 && pgrp == pgid) || (!text.empty() && cmd.find(text) != std::string::npos))
      found += pid + ": " + cmd + "\n";
  }
  return found;
}

TEST_F(LessonFileHostile, LongIdentifierGivesAMessageAndJson) {
  const std::string text =
      with_line(kReverseLesson, "LOAD", "  tile[tid] = in[i] + " + kLongName + ";  // LOAD");
  const std::string path = file("long.hpp", text);
  double s = 0;
  const testing::CliRun r = cli("run --lesson-file " + path, &s);
  EXPECT_EQ(r.code, 1) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("the first at line " + std::to_string(line_of(text, "LOAD"))),
            std::string::npos)
      << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("characters left out)"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_LT(r.out.size(), 20000u) << "a message a person can read";

  ::setenv("TILESCOPE_PUZZLES", (std::string(TS_SOURCE_DIR) + "/assets/puzzles").c_str(), 1);
  std::string solution =
      test::read_all(std::string(TS_SOURCE_DIR) + "/tests/puzzle_solutions/shared.hpp");
  solution =
      with_line(solution, "@LOAD", "  if (t < count) cache[t] = " + kLongName + ";  // @LOAD");
  const std::string sol = file("long_solution.hpp", solution);
  const testing::CliRun j = testing::run_cli("check shared " + sol + " --json", false);
  EXPECT_EQ(j.code, 3) << j.out.substr(0, 2000);
  const auto g = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_FALSE(g.is_discarded()) << j.out.substr(0, 2000);
  EXPECT_EQ(g["passed"], false);
}

TEST_F(LessonFileHostile, IncludeOfAFifoStopsAtTheTimeLimit) {
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text =
      with_line(kReverseLesson, "LOAD", "#include \"" + fifo + "\"\n  tile[tid] = in[i];  // LOAD");
  const std::string path = file("fifo.hpp", text);
  ::setenv("TILESCOPE_COMPILE_SECONDS", "2", 1);
  double s = 0;
  const testing::CliRun r = cli("run --lesson-file " + path, &s);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("did not finish within 2 s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("TILESCOPE_COMPILE_SECONDS"), std::string::npos) << r.out;
  EXPECT_LT(s, 10) << r.out;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // cc1plus names the cache's files on its command line: none is left.
  EXPECT_EQ(live_processes(0, dir / "cache"), "");
  EXPECT_EQ(leftovers(), "");
}

TEST_F(LessonFileHostile, CompilerThatNeverReturnsIsKilledWithItsGroup) {
  const std::string pid_file = dir / "pid";
  ::setenv("TILESCOPE_CXX",
           compiler("echo $$ > " + pid_file + "\nsleep 1000 &\nsleep 1000\n").c_str(), 1);
  ::setenv("TILESCOPE_COMPILE_SECONDS", "1.5", 1);
  double s = 0;
  const testing::CliRun r = cli("run --lesson-file " + file("r.hpp", kReverseLesson), &s);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("(cxx.sh) did not finish within 1.5 s"), std::string::npos) << r.out;
  EXPECT_LT(s, 10) << r.out;
  const pid_t group = std::atoi(test::read_all(pid_file).c_str());
  ASSERT_GT(group, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(live_processes(group, ""), "") << "the script and its sleeps";
  EXPECT_EQ(leftovers(), "");
}

TEST_F(LessonFileHostile, FloodOfOutputIsCappedAndItsFirstLinesShown) {
  ::setenv("TILESCOPE_CXX",
           compiler("yes 'cc1plus: out of memory allocating 65536 bytes' | head -c 8000000 >&2\n"
                    "exit 1\n")
               .c_str(),
           1);
  double s = 0;
  const testing::CliRun r = cli("run --lesson-file " + file("r.hpp", kReverseLesson), &s);
  EXPECT_EQ(r.code, 1) << r.out.substr(0, 2000);
  EXPECT_LT(r.out.size(), 20000u);
  EXPECT_NE(r.out.find("it said: cc1plus: out of memory allocating 65536 bytes"), std::string::npos)
      << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("bytes more than the 1024 KiB kept"), std::string::npos)
      << r.out.substr(0, 2000);
  const testing::CliRun j =
      testing::run_cli("run --lesson-file " + file("r.hpp", kReverseLesson) + " --json", false);
  const auto d = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_FALSE(d.is_discarded()) << j.out.substr(0, 2000);
  EXPECT_NE(d["error"].get<std::string>().find("cc1plus: out of memory"), std::string::npos);
  EXPECT_EQ(leftovers(), "");
}

TEST_F(LessonFileHostile, MalformedTimeLimitIsRefused) {
  ::setenv("TILESCOPE_COMPILE_SECONDS", "nan", 1);
  double s = 0;
  const testing::CliRun r = cli("run --lesson-file " + file("r.hpp", kReverseLesson), &s);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("TILESCOPE_COMPILE_SECONDS=nan is not a number"), std::string::npos)
      << r.out;
}

#endif

}  // namespace
}  // namespace ts
