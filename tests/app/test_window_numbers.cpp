// Every numeric option of the window, given NaN, infinity, a negative, 0
// where it means nothing, or a number past any type: exit 2 before any window,
// with a message that names the option and its range (issue 31, defect 11:
// --duration NaN and --speed NaN were taken, --quiz -1 too, and --speed 0
// printed a bound of 309 digits). tilescope-cli's: tests/test_cli_numbers.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/app/private_x_server.hpp"

namespace {

namespace fs = std::filesystem;

struct NumericOption {
  std::string option;
  std::string lo, hi;  // the range its message must give (hi empty: the launch's)
  bool real = false;
};

// The window's own numeric options, and the lesson options it shares with the CLI.
const std::vector<NumericOption>& window_numeric_options() {
  static const std::vector<NumericOption> options = {
      // Their last number is the launch's: the message after parsing gives it.
      {"--select-block", "0", ""},
      {"--select-thread", "0", ""},
      {"--frames", "0", "1000000"},
      {"--font-size", "10", "40", true},
      {"--wait-reloads", "1", "1000"},
      {"--hazard", "0", "2147483647"},
      {"--step", "1", "2147483647"},
      {"--quiz", "0", "9223372036854775807"},
      {"--fps", "1", "60"},
      {"--duration", "0.1", "3600", true},
      {"--speed", "0.001", "1000000000", true},
      {"--n", "1", "32768"},
      {"--block", "1", "1024"},
      {"--skew-steps", "0", "1048576"},
      {"--capacity", "1", "18446744073709551615"},
  };
  return options;
}

std::vector<std::string> bad_values(const NumericOption& o) {
  std::vector<std::string> v = {"nan", "NaN", "inf", "1e999", "99999999999999999999999"};
  // --quiz's value is optional: "-inf" is read as another option (-i), not as its value.
  if (o.option != "--quiz") v.push_back("-inf");
  v.push_back("-1");
  if (o.lo != "0") v.push_back("0");
  if (!o.real) v.push_back("2.5");
  return v;
}

struct Exit {
  int rc = -1;
  std::string out;
};

// `tilescope <args> --screenshot X --exit` on the test's X server: a value
// that is wrongly taken opens the window and writes the screenshot.
Exit run_window(const std::string& args, const fs::path& log) {
  const std::string cmd = "DISPLAY=" + ts::app_test::x_display() + " " + TS_TILESCOPE_EXE + " " +
                          args + " --size 800x600 --screenshot " +
                          (log.parent_path() / "shot.png").string() + " --force --exit > " +
                          log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  Exit e;
  e.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream f(log);
  e.out.assign((std::istreambuf_iterator<char>(f)), {});
  return e;
}

TEST(WindowNumbers, EveryNumericOptionRefusesNanInfinityAndValuesOutOfRange) {
  ASSERT_FALSE(ts::app_test::x_display().empty()) << "Xvfb did not start";
  const fs::path log = ts::app_test::out_dir() / "numbers.log";
  const std::regex absurd("[0-9]{25,}");
  for (const NumericOption& o : window_numeric_options())
    for (const std::string& value : bad_values(o)) {
      const std::string args = o.option + " " + value;
      const Exit e = run_window(args, log);
      EXPECT_EQ(e.rc, 2) << args << "\n" << e.out;
      EXPECT_NE(e.out.find(o.option), std::string::npos) << args << "\n" << e.out;
      EXPECT_NE(e.out.find("from " + o.lo + " to " + o.hi), std::string::npos)
          << args << ": the range is not given\n"
          << e.out;
      std::string without_value = e.out;
      for (size_t at; (at = without_value.find(value)) != std::string::npos;)
        without_value.erase(at, value.size());
      EXPECT_FALSE(std::regex_search(without_value, absurd)) << args << "\n" << e.out;
    }
}

}  // namespace
