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
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// The default lesson (square tiles, two barriers).
static std::string default_id() {
  return picks::default_lesson().id;
}

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
  std::string window;
  std::string cli;
};

TEST(WindowArgs, LessonMistakesExit2WithTheCommandLinesMessage) {
  REQUIRE_CLI();
  const Case cases[] = {
      {"--lesson nope", "run nope"},
      {"--lesson " + default_id() + " --n 0", "run " + default_id() + " --n 0"},
      {"--lesson " + default_id() + " --n 2147483648", "run " + default_id() + " --n 2147483648"},
      {"--lesson " + default_id() + " --barriers 3", "run " + default_id() + " --barriers 3"},
      {"--lesson " + default_id() + " --barriers 10", "run " + default_id() + " --barriers 10"},
      {"--lesson " + default_id() + " --barriers ''", "run " + default_id() + " --barriers ''"},
      {"--lesson " + default_id() + " --seed -1", "run " + default_id() + " --seed -1"},
      {"--lesson " + default_id() + " --tile 64", "run " + default_id() + " --tile 64"},
      {"--lesson " + default_id() + " --backend quantum",
       "run " + default_id() + " --backend quantum"},
      // Without --lesson: the default lesson's barriers.
      {"--barriers 3", "run " + default_id() + " --barriers 3"},
      // Issue 20: an empty item between commas (both programs ran with mask 3).
      {"--lesson " + default_id() + " --barriers 1,,2", "run " + default_id() + " --barriers 1,,2"},
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
  EXPECT_NE(lesson.out.find("tilescope: error: unknown lesson 'nope'"), std::string::npos)
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
  const std::string lesson = "--lesson " + default_id() + " --n 12 --tile 4 --backend sim";
  for (const char* barriers :
       {"--barriers all", "--barriers 2", "--no-barrier 2", "--barriers none"}) {
    const fs::path json = out_dir() / "subset.json";
    fs::remove(json);
    // --force: each run replaces the last one's screenshot (subset.png).
    const WindowRun r =
        window(lesson + " " + barriers, "subset", "--force --cells-json " + json.string());
    ASSERT_EQ(r.rc, 0) << barriers << ": " << r.out;
    std::ifstream f(json);
    const auto cells = nlohmann::json::parse(f);
    const auto c = ts::testing::run_cli(
        "run " + default_id() + " --n 12 --tile 4 --backend sim --json " + std::string(barriers),
        false);
    ASSERT_EQ(c.code, 0) << c.out;
    const auto doc = nlohmann::json::parse(c.out);
    EXPECT_EQ(cells["events"], doc["events"]["recorded"]) << barriers;
  }
#endif
}

TEST(WindowArgs, SkewNanosecondsOnTheSimulatorGetTheNote) {
  const WindowRun r =
      window("--lesson " + default_id() + " --n 8 --backend sim --skew-ns 300", "skewns");
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
      "--lesson " + default_id() + " --n 8 --backend sim --perf-report " + report.string(), "perf");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  const WindowRun missing =
      window("--perf-report " + (out_dir() / "nope.json").string(), "perfmissing");
  EXPECT_EQ(missing.rc, 2) << missing.out;
  EXPECT_NE(missing.out.find("--perf-report"), std::string::npos) << missing.out;
}

// Issue 20: the window's own options, each checked as the CLI checks its
// options: exit 2 and a message naming the option, the value and what is
// allowed; no screenshot. (Each used to exit 0 or 1, or run clamped.)
TEST(WindowArgs, EveryWindowOptionIsCheckedWithExit2AndAMessage) {
  const std::string lesson = "--lesson " + default_id() + " --n 12 --tile 4 --backend sim ";
  const struct {
    std::string args, want;
  } cases[] = {
      {"--quiz --quiz-answer garbage",
       "tilescope: error: --quiz-answer 'garbage': use truth, truth-1, truth+1, none, choice:N, "
       "cells such as 3,17,20 or rectangles such as rect:A:0,0-3,7 (joined by ;)"},
      {"--quiz --quiz-answer truth+99999", "--quiz-answer 'truth+99999': use truth"},
      {"--quiz-answer truth", "--quiz-answer 'truth': give --quiz too"},
      {"--position bogus",
       "--position 'bogus': use an event index, start, end, phase:N, barrier:N, access:N or stale"},
      {"--position -1", "--position '-1': use an event index"},
      {"--from phase:x --record " + (out_dir() / "never.gif").string(), "--from 'phase:x'"},
      {"--layout bogus", "--layout 'bogus': " + default_id() + " has no other layouts"},
      {"--font-size 0", "--font-size: 0 is out of range: give a size in points from 10 to 40"},
      {"--font-size -5", "--font-size: -5 is out of range"},
      {"--font-size nan", "--font-size"},
      {"--font-size inf", "--font-size"},
      {"--select-block -1",
       "--select-block: -1 is out of range: give a whole number from 0 to 8 (" + default_id() +
           " with n=12 tile=4 launches 9 blocks)"},
      {"--select-block 9", "--select-block: 9 is out of range"},
      {"--select-thread 99999",
       "--select-thread: 99999 is out of range: give a whole number from 0 to 15 (a block of " +
           default_id() + " with n=12 tile=4 has 16 threads)"},
      {"--frames -1", "--frames: -1 is out of range: give a whole number from 0 to 1000000"},
      {"--tab nosuchtab", "--tab 'nosuchtab': the panels are "},
      {"--barriers none --hazard 999999",
       "--hazard: 999999 is out of range: give a whole number "
       "from 0 to "},
      {"--hazard -1", "--hazard: -1 is out of range"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const WindowRun r = window(lesson + c.args, "option" + std::to_string(i++));
    EXPECT_EQ(r.rc, 2) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.want), std::string::npos) << c.args << "\nwindow said: " << r.out;
    EXPECT_EQ(r.out.find("wrote "), std::string::npos) << c.args << ": no screenshot expected";
  }
}

// --size is the whole of WIDTHxHEIGHT (200x150junk ran at 200x150).
TEST(WindowArgs, SizeWithTrailingTextIsRefused) {
  const std::string& display = x_display();
  ASSERT_FALSE(display.empty());
  const fs::path log = out_dir() / "size.log";
  for (const char* size : {"200x150junk", "800x600x2", " 800x600", "+800x600"}) {
    const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " --size '" + size +
                            "' --exit > " + log.string() + " 2>&1";
    const int st = std::system(cmd.c_str());
    std::ifstream f(log);
    const std::string out((std::istreambuf_iterator<char>(f)), {});
    EXPECT_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 2) << size << ": " << out;
    EXPECT_NE(out.find("use WIDTHxHEIGHT between 200x150 and 8192x8192"), std::string::npos)
        << size << ": " << out;
  }
}

// A trace that does not load is named once: "Cannot open X: X: ..." said the path twice.
TEST(WindowArgs, ATraceThatDoesNotOpenIsNamedOnce) {
  const fs::path bad = out_dir() / "not_a_trace.tstrace";
  {
    std::ofstream f(bad);
    f << "not a trace at all, but long enough to have a header and more bytes after it\n";
  }
  const WindowRun r = window(bad.string(), "badtrace");
  EXPECT_NE(r.rc, 0) << r.out;
  const std::string path = bad.string();
  const size_t first = r.out.find(path);
  ASSERT_NE(first, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(path, first + path.size()), std::string::npos) << r.out;
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
    for (const ts::LessonInfo& v : ts::all_lessons())
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
