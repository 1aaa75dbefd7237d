// The memory budget before a run or a trace file: beyond it the window starts
// nothing, says what it would need and offers a size that fits (scripted: the
// message on stderr, exit 1, at once). Runs tilescope on a private Xvfb.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include "analysis/memory_estimate.hpp"
#include "engine/backend.hpp"
#include "io/trace_file.hpp"

#include "tests/app/private_x_server.hpp"

namespace {

namespace fs = std::filesystem;

using ts::app_test::out_dir;
using ts::app_test::x_display;

int run_app(const std::string& env, const std::string& args, const fs::path& log) {
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb (" << TS_XVFB << ") did not start";
    return -1;
  }
  const std::string cmd = env + " DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " " + args +
                          " > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(AppBudget, RunBeyondTheBudgetIsRefusedAtOnceWithASizeThatFits) {
  const fs::path d = out_dir();
  const std::string budget = "TILESCOPE_MEMORY_BUDGET=200MB";
  const ts::Variant& v = *ts::find_variant("matmul.tiled_square");
  ts::Params p = v.defaults;
  p.n = 256;
  p.tile = 16;
  const ts::RunRequest defaults;
  const uint64_t need = ts::estimate_run(v, p, defaults.trace_capacity).bytes;
  const auto fits = ts::largest_size_that_fits(v, p, defaults.trace_capacity, 200ull << 20);
  ASSERT_TRUE(fits.has_value());
  ASSERT_LT(fits->n, 256);

  x_display();  // the X server's start is not the app's time
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = run_app(budget,
                         "--lesson matmul.tiled_square --n 256 --tile 16 --backend sim "
                         "--size 1280x720 --screenshot " +
                             (d / "refused.png").string() + " --exit",
                         d / "refused.log");
  const double sec = seconds_since(t0);
  const std::string text = read(d / "refused.log");
  EXPECT_EQ(rc, 1) << text;
  EXPECT_LT(sec, 5.0) << "refused only after running";
  // What it would need, the budget, and the largest n that fits.
  EXPECT_NE(text.find("Not run"), std::string::npos) << text;
  EXPECT_NE(text.find("would need " + ts::format_bytes(need)), std::string::npos) << text;
  EXPECT_NE(text.find("budget of 200 MB"), std::string::npos) << text;
  EXPECT_NE(text.find("n = " + std::to_string(fits->n)), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(d / "refused.png")) << "the screenshot shows the dialog";

  // The size the message offers runs, within the same budget.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex("run it with --n ([0-9]+)"))) << text;
  const int n = std::stoi(m[1]);
  EXPECT_EQ(n, fits->n);
  const int rc2 = run_app(budget,
                          "--lesson matmul.tiled_square --n " + std::to_string(n) +
                              " --tile 16 --backend sim --size 1280x720 --screenshot " +
                              (d / "fits.png").string() + " --exit",
                          d / "fits.log");
  EXPECT_EQ(rc2, 0) << read(d / "fits.log");
  EXPECT_EQ(read(d / "fits.log").find("Not run"), std::string::npos);
}

TEST(AppBudget, TraceFileBeyondTheBudgetIsNotOpened) {
  const fs::path d = out_dir();
  ts::RunRequest req;
  req.variant = "matmul.tiled_square";
  req.params = ts::find_variant(req.variant)->defaults;
  req.backend = ts::BackendChoice::Sim;
  const ts::RunResult run = ts::run_simulator(req);
  ASSERT_TRUE(run.ok) << run.error;
  const fs::path file = d / "small.tstrace";
  std::string err;
  ASSERT_TRUE(ts::save_trace(run.trace, file.string(), &err)) << err;
  const uint64_t need = ts::window_bytes(ts::file_events_estimate(fs::file_size(file)), 0);

  // A budget a little below what the window would need: refused, before reading it.
  const std::string tight = "TILESCOPE_MEMORY_BUDGET=" + std::to_string(need - 1);
  const int rc =
      run_app(tight, file.string() + " --screenshot " + (d / "file.png").string() + " --exit",
              d / "file.log");
  const std::string text = read(d / "file.log");
  EXPECT_EQ(rc, 1) << text;
  EXPECT_NE(text.find("Not opened"), std::string::npos) << text;
  EXPECT_NE(text.find(ts::format_bytes(need)), std::string::npos) << text;
  // Just enough: opened and shown.
  const std::string enough = "TILESCOPE_MEMORY_BUDGET=" + std::to_string(need);
  const int rc2 =
      run_app(enough, file.string() + " --screenshot " + (d / "file_ok.png").string() + " --exit",
              d / "file_ok.log");
  EXPECT_EQ(rc2, 0) << read(d / "file_ok.log");
}

}  // namespace
