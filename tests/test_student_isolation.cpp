// A student's file is hostile input (engine/lesson_child.hpp): its code runs in
// a child process and the grade is computed here from what the child
// recorded, never from its exit status or its printed text. Each case is the
// reference solution of puzzle "shared" with one hostile line added, graded
// by the built tilescope-cli as an autograder runs it: `check` exits 3 with
// the reason, within the time limit, and the program lives on.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_process.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

#ifdef TS_CLI_PATH

const std::string kReference = std::string(TS_SOURCE_DIR) + "/tests/puzzle_solutions/shared.hpp";

// The reference with `line` added after the kernel's first statement that
// names `count` (inside the kernel, every thread runs it), and `tail` at the end.
std::string hostile_solution(const std::string& line, const std::string& tail = "") {
  std::string text = test::read_all(kReference);
  const size_t at = text.find('\n', text.find("const int count ="));
  if (at == std::string::npos) return "";
  return text.insert(at + 1, line + "\n") + tail;
}

struct HostileCase {
  const char* name;
  std::string kernel_line;  // added to the kernel
  std::string tail;         // added after the lesson (host code: a static constructor)
  const char* reason;       // what the output rule's reason says
  int line_offset;          // the reason's line: the added line's (0: none asked)
};

const HostileCase kCases[] = {
    {"exit0", "  if (t == 3 && blockIdx.x == 1) exit(0);", "",
     "the lesson's code called exit(0) in the kernel: thread (3, 0, 0) of block (1, 0, 0)", 0},
    {"exit_code_7", "  if (t == 2) exit(7);", "", "called exit(7) in the kernel", 0},
    {"quick_exit", "  if (t == 2) _exit(0);", "",
     "ended the process (exit code 0) before it finished", 0},
    {"null_store", "  if (t == 5 && blockIdx.x == 1) { int* volatile p = nullptr; *p = 1; }", "",
     "faulted: a segmentation fault (SIGSEGV", 0},
    {"abort", "  if (t == 5) abort();", "", "aborted (SIGABRT", 0},
    {"throws", "  if (t == 9) throw 42;", "", "simulated thread failed with an unknown exception",
     0},
    {"forged_pass", "",
     "#include <cstdio>\n#include <unistd.h>\nnamespace { struct Forge { Forge() {\n"
     "  std::printf(\"{\\\"passed\\\": true}\\npuzzle 8 shared (Shared memory): PASS\\n\");\n"
     "  std::fflush(stdout); _exit(0); } } forge_; }\n",
     "ended the process (exit code 0) before it finished", 0},
    {"forged_pass_exit_hook", "",
     "#include <cstdio>\n#include <cstdlib>\nnamespace { struct Forge { Forge() {\n"
     "  std::printf(\"PASS\\n\"); std::exit(0); } } forge_; }\n",
     "called exit(0) while loading the plug-in", 0},
};

struct Hostile : ::testing::TestWithParam<HostileCase> {
  test::TempDir dir{"ts_hostile_", GetParam().name};
  static std::string cache() {
    return (std::filesystem::temp_directory_path() /
            ("ts_hostile_cache_" + std::to_string(::getuid())))
        .string();
  }
  void SetUp() override { ::setenv("XDG_CACHE_HOME", cache().c_str(), 1); }
  void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }
};

TEST_P(Hostile, CheckFailsWithTheReasonAndExitThree) {
  const HostileCase& c = GetParam();
  const std::string path = dir / (std::string(c.name) + ".hpp");
  std::ofstream(path) << hostile_solution(c.kernel_line, c.tail);
  const testing::CliRun r = testing::run_cli("check shared " + path + " --json", false);
  EXPECT_EQ(r.code, 3) << r.out;
  const nlohmann::json g = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(g.is_discarded()) << "check --json printed more than its grade: " << r.out;
  EXPECT_EQ(g["passed"], false);
  std::string reasons;
  for (const auto& rule : g["rules"])
    reasons += rule["rule"].get<std::string>() + ": " + rule["reason"].get<std::string>() + "\n";
  EXPECT_NE(reasons.find(c.reason), std::string::npos) << reasons;
  // The text grade: no forged line gets through to the autograder's log.
  const testing::CliRun text = testing::run_cli("check shared " + path, false);
  EXPECT_EQ(text.code, 3);
  EXPECT_EQ(text.out.find("(Shared memory): PASS"), std::string::npos) << text.out;
}

INSTANTIATE_TEST_SUITE_P(StudentCode, Hostile, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// Host code that never returns (a static constructor spinning), where no
// simulator rule can see it: stopped at TILESCOPE_RUN_SECONDS, with its group.
TEST(StudentCode, EndlessHostLoopStopsAtTheTimeLimit) {
  test::TempDir dir{"ts_hostile_", "loop"};
  ::setenv("XDG_CACHE_HOME", Hostile::cache().c_str(), 1);
  const std::string path = dir / "loop.hpp";
  std::ofstream(path) << hostile_solution("",
                                          "namespace { struct Spin { Spin() { for (volatile "
                                          "unsigned i = 0;; i = i + 1u) {} } } spin_; }\n");
  ::setenv("TILESCOPE_RUN_SECONDS", "4", 1);
  const auto start = std::chrono::steady_clock::now();
  const testing::CliRun r = testing::run_cli("check shared " + path + " --json", false);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::unsetenv("TILESCOPE_RUN_SECONDS");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("did not finish within 4 s"), std::string::npos) << r.out;
  EXPECT_LT(seconds, 30) << "the compile, then 4 s of running";
}

// `run --lesson-file` of a kernel that faults: a message and exit 1, not a
// crash of the CLI.
TEST(StudentCode, RunOfAFaultingLessonFileSaysWhereAndExitsOne) {
  test::TempDir dir{"ts_hostile_", "run_fault"};
  ::setenv("XDG_CACHE_HOME", Hostile::cache().c_str(), 1);
  const std::string path = dir / "fault.hpp";
  std::ofstream(path) << hostile_solution(
      "  if (t == 5 && blockIdx.x == 1) { int* volatile p = nullptr; *p = 1; }");
  const testing::CliRun r = testing::run_cli("run --lesson-file " + path + " --length 100", true);
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("faulted: a segmentation fault"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thread (5, 0, 0) of block (1, 0, 0)"), std::string::npos) << r.out;
}

#endif

}  // namespace
}  // namespace ts
