// Every numeric option of tilescope-cli, given what a typo or a hostile
// script gives (NaN, infinity, a negative, 0 where it means nothing, a number
// past any type): a usage error (exit 2) that names the option and the range
// it takes, never a run, and never a bound of hundreds of digits
// (issue 31, defect 11). The window's options: tests/app/test_window_numbers.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "tests/cli_process.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

#ifdef TS_CLI_PATH

struct NumericOption {
  std::string command;  // the command line before the option
  std::string option;
  std::string lo, hi;  // the range its message must give
  bool real = false;   // takes a decimal number
};

std::vector<NumericOption> cli_numeric_options() {
  const std::string run = "run " + std::string(picks::default_lesson().id) + " --backend sim";
  const std::string races = "races " + std::string(picks::default_lesson().id) + " --backend sim";
  const std::string sass = "sass " + std::string(picks::default_lesson().id);
  const std::string u64 = "18446744073709551615";
  return {
      {run, "--m", "1", "32768"},
      {run, "--k", "1", "32768"},
      {run, "--n", "1", "32768"},
      {run, "--tile", "1", "1024"},
      {run, "--length", "1", "268435456"},
      {run, "--radius", "0", "1024"},
      {run, "--block", "1", "1024"},
      {run, "--seed", "0", u64},
      {run, "--skew-steps", "0", "1048576"},
      {run, "--skew-ns", "0", "1000000"},
      {run, "--capacity", "1", u64},
      {run, "--input-seed", "0", u64},
      {races, "--runs", "1", "10000"},
      {races, "--detail-limit", "1", "100000"},
      {sass, "--n", "0", "1048576"},
      {sass, "--tile", "0", "1048576"},
      {"bench", "--sizes", "1", "32768"},
      {"bench", "--lengths", "1", "268435456"},
      {"bench", "--tiles", "1", "1024"},
      {"bench", "--reps", "1", "100000"},
      {"bench", "--warmup", "0", "10000"},
      {"bench", "--radius", "0", "1024"},
      {"bench", "--block", "0", "1024"},
      {"bench", "--max-seconds", "0.001", "3600", true},
      {"puzzles", "--hints", "0", "1000"},
  };
}

// The values no numeric option may take; 0 and -1 where the range says so.
std::vector<std::string> bad_values(const NumericOption& o) {
  std::vector<std::string> v = {"nan", "NaN", "inf", "-inf", "1e999", "99999999999999999999999"};
  if (o.lo == "0" || o.lo == "1") v.push_back("-1");
  if (o.lo != "0") v.push_back("0");
  if (!o.real) v.push_back("2.5");
  return v;
}

TEST(CliNumbers, EveryNumericOptionRefusesNanInfinityAndValuesOutOfRange) {
  const std::regex absurd("[0-9]{25,}");  // CLI11's "[0 - 1.79769e+308]" written out
  for (const NumericOption& o : cli_numeric_options())
    for (const std::string& value : bad_values(o)) {
      const std::string args = o.command + " " + o.option + " " + value;
      const testing::CliRun r = testing::run_cli(args, true);
      EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
      EXPECT_NE(r.out.find(o.option + ": "), std::string::npos) << args << "\n" << r.out;
      EXPECT_NE(r.out.find("from " + o.lo + " to " + o.hi), std::string::npos)
          << args << ": the range is not given\n"
          << r.out;
      std::string without_value = r.out;
      for (size_t at; (at = without_value.find(value)) != std::string::npos;)
        without_value.erase(at, value.size());
      EXPECT_FALSE(std::regex_search(without_value, absurd)) << args << "\n" << r.out;
    }
}

// The same options at their bounds are taken (bench stops later, without a GPU).
TEST(CliNumbers, TheBoundsThemselvesAreAccepted) {
  for (const NumericOption& o : cli_numeric_options()) {
    if (o.command != "bench") continue;
    for (const std::string& value : {o.lo, o.hi}) {
      const testing::CliRun r = testing::run_cli(
          o.command + " " + o.option + " " + value + " --kernels nothing.such", true);
      EXPECT_EQ(r.out.find(o.option + ": "), std::string::npos) << o.option << " " << value << "\n"
                                                                << r.out;
    }
  }
}

#endif

}  // namespace
}  // namespace ts
