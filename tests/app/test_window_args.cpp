// The window's command line: the same lesson options as tilescope-cli, the
// same checks, the same messages, exit 2 for usage errors. Most cases exit
// before a window opens; the ones that run are checked against the CLI's run
// of the same options. Runs tilescope on a private Xvfb (as
// test_screenshot.cpp does) so that a case that wrongly opens a window
// behaves as it would for a user.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "io/perf_report.hpp"
#include "tests/cli_process.hpp"

#include "tests/app/private_x_server.hpp"

namespace {

namespace fs = std::filesystem;

using ts::app_test::out_dir;
using ts::app_test::x_display;

struct WindowRun {
  int rc = -1;
  std::string out;  // stdout and stderr
};

// `tilescope <args> --screenshot X --exit`: what a scripted user runs.
WindowRun window(const std::string& args, const std::string& name, const std::string& extra = "") {
  WindowRun r;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb (" << TS_XVFB << ") did not start";
    return r;
  }
  const fs::path d = out_dir();
  const fs::path log = d / (name + ".log");
  const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " " + args +
                          " --size 800x600 --screenshot " + (d / (name + ".png")).string() + " " +
                          extra + " --exit > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream f(log);
  r.out.assign((std::istreambuf_iterator<char>(f)), {});
  return r;
}

#ifdef TS_CLI_PATH
// The first line of tilescope-cli's message for the same mistake, without
// its "tilescope-cli run: error: " prefix.
std::string cli_message(const std::string& args) {
  const auto r = ts::testing::run_cli(args, true);
  EXPECT_EQ(r.code, 2) << args << ": " << r.out;
  std::string line = r.out.substr(0, r.out.find('\n'));
  const std::string prefix = "tilescope-cli run: error: ";
  if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
  return line;
}
#define REQUIRE_CLI()
#else
std::string cli_message(const std::string&) {
  return {};
}
#define REQUIRE_CLI() GTEST_SKIP() << "tilescope-cli is not built"
#endif

// Each window argument list and the CLI's `run` with the same lesson options.
struct Case {
  const char* window;
  const char* cli;
};

TEST(WindowArgs, LessonMistakesExit2WithTheCommandLinesMessage) {
  REQUIRE_CLI();
  const Case cases[] = {
      {"--lesson nope", "run nope"},
      {"--lesson matmul.tiled_square --n 0", "run matmul.tiled_square --n 0"},
      {"--lesson matmul.tiled_square --n 2147483648", "run matmul.tiled_square --n 2147483648"},
      {"--lesson matmul.tiled_square --barriers 3", "run matmul.tiled_square --barriers 3"},
      {"--lesson matmul.tiled_square --barriers 10", "run matmul.tiled_square --barriers 10"},
      {"--lesson matmul.tiled_square --barriers ''", "run matmul.tiled_square --barriers ''"},
      {"--lesson matmul.tiled_square --seed -1", "run matmul.tiled_square --seed -1"},
      {"--lesson matmul.tiled_square --tile 64", "run matmul.tiled_square --tile 64"},
      {"--lesson matmul.tiled_square --backend quantum",
       "run matmul.tiled_square --backend quantum"},
      // Without --lesson: the default lesson's barriers.
      {"--barriers 3", "run matmul.tiled_square --barriers 3"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string want = cli_message(c.cli);
    ASSERT_FALSE(want.empty()) << c.cli;
    const WindowRun r = window(c.window, "mistake" + std::to_string(i++));
    EXPECT_EQ(r.rc, 2) << c.window << ": " << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos)
        << c.window << "\nwindow said: " << r.out << "\ncli said: " << want;
    EXPECT_EQ(r.out.find("wrote "), std::string::npos) << c.window << ": no screenshot expected";
  }
  // The words themselves, not only "the same as the CLI".
  const WindowRun lesson = window("--lesson nope", "nope");
  EXPECT_NE(lesson.out.find("tilescope: error: unknown variant 'nope'"), std::string::npos)
      << lesson.out;
  const WindowRun big = window("--n 2147483648", "big");
  EXPECT_NE(big.out.find("--n: 2147483648 is out of range: give a whole number from 1 to 32768"),
            std::string::npos)
      << big.out;
}

// The lesson the window runs is the one the CLI runs for the same options:
// the same number of recorded events.
TEST(WindowArgs, BarrierSubsetsRunWhatTheCommandLineRuns) {
  REQUIRE_CLI();
#ifdef TS_CLI_PATH
  const std::string lesson = "--lesson matmul.tiled_square --n 12 --tile 4 --backend sim";
  for (const char* barriers :
       {"--barriers all", "--barriers 2", "--no-barrier 2", "--barriers none"}) {
    const fs::path json = out_dir() / "subset.json";
    fs::remove(json);
    const WindowRun r = window(lesson + " " + barriers, "subset", "--cells-json " + json.string());
    ASSERT_EQ(r.rc, 0) << barriers << ": " << r.out;
    std::ifstream f(json);
    const auto cells = nlohmann::json::parse(f);
    const auto c = ts::testing::run_cli(
        "run matmul.tiled_square --n 12 --tile 4 --backend sim --json " + std::string(barriers),
        false);
    ASSERT_EQ(c.code, 0) << c.out;
    const auto doc = nlohmann::json::parse(c.out);
    EXPECT_EQ(cells["events"], doc["events"]["recorded"]) << barriers;
  }
#endif
}

TEST(WindowArgs, SkewNanosecondsOnTheSimulatorGetTheNote) {
  const WindowRun r =
      window("--lesson matmul.tiled_square --n 8 --backend sim --skew-ns 300", "skewns");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("tilescope: note: --skew-ns applies to the GPU only"), std::string::npos)
      << r.out;
}

TEST(WindowArgs, PerfReportIsAnOptionAndAMissingFileIsAUsageError) {
  // A report as `tilescope-cli bench --json` writes it (no timings: no GPU here).
  const fs::path report = out_dir() / "perf.json";
  std::string err;
  ASSERT_TRUE(ts::save_report(ts::PerfReport{}, report.string(), &err)) << err;
  const WindowRun ok = window(
      "--lesson matmul.tiled_square --n 8 --backend sim --perf-report " + report.string(), "perf");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  const WindowRun missing =
      window("--perf-report " + (out_dir() / "nope.json").string(), "perfmissing");
  EXPECT_EQ(missing.rc, 2) << missing.out;
  EXPECT_NE(missing.out.find("--perf-report"), std::string::npos) << missing.out;
}

}  // namespace

namespace {

// The lines of `text`.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// --help reads on an 80-column terminal: each lesson's meaning of --n and
// --tile on a line of its own, no line run on past 80 characters.
void expect_readable_help(const std::string& help, const std::string& who) {
  const std::vector<std::string> lines = lines_of(help);
  ASSERT_GT(lines.size(), 20u) << who << ":\n" << help;
  for (const std::string& l : lines)
    EXPECT_LE(l.size(), 80u) << who << ": a line runs on:\n" << l;
  // Every meaning the lessons give --n and --tile, each on a line of its own.
  for (const char* name : {"n", "tile"}) {
    int meanings = 0;
    for (const ts::Variant& v : ts::catalogue())
      for (const ts::ParamText& t : v.param_text) {
        if (std::string(t.name) != name) continue;
        // "- label: hint", or "- hint" where the hint starts with the label.
        const std::string hint = std::string(t.hint).substr(0, 20);
        const auto it = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
          const size_t at = l.find_first_not_of(' ');
          if (at == std::string::npos || l.compare(at, 2, "- ") != 0) return false;
          const std::string item = l.substr(at + 2);
          return item.rfind(std::string(t.label) + ": ", 0) == 0 || item.rfind(hint, 0) == 0;
        });
        EXPECT_NE(it, lines.end())
            << who << ": no line of its own for --" << name << " '" << t.label << "': " << t.hint;
        ++meanings;
      }
    EXPECT_GT(meanings, 1) << name;
  }
}

}  // namespace

TEST(WindowArgs, HelpPutsEachLessonsMeaningOnALineOfItsOwn) {
  const fs::path log = out_dir() / "help.log";
  const int st =
      std::system((std::string(TS_TILESCOPE_EXE) + " --help > " + log.string() + " 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  std::ifstream f(log);
  const std::string help((std::istreambuf_iterator<char>(f)), {});
  expect_readable_help(help, "tilescope --help");
  REQUIRE_CLI();
  // The command line's run shares the lesson options: the same help.
  const auto cli = ts::testing::run_cli("run --help", true);
  EXPECT_EQ(cli.code, 0);
  expect_readable_help(cli.out, "tilescope-cli run --help");
}
