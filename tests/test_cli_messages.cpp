// The right thread, line and size in every message (issue 31, defect 11, and
// defect 10's local array): lesson files written as a student might, run by
// the built tilescope-cli on the simulator. Each message names what a user
// must change: the thread that spins and its line, the launch limit, the
// array and the limit, the reference's size.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

#ifdef TS_CLI_PATH

using test::kReverseLesson;
using test::line_of;
using test::with_line;

// `text` with `from` (which must be there once) replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
    throw std::runtime_error("not once in the lesson: " + from);
  return text.replace(at, from.size(), to);
}

struct CliMessages : ::testing::Test {
  test::TempDir dir{"ts_cli_messages_",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  void SetUp() override { ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1); }
  void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }
  std::string file(const std::string& name, const std::string& text) {
    test::write_text(dir / name, text);
    return dir / name;
  }
  static testing::CliRun cli(const std::string& args) { return testing::run_cli(args, true); }
  static bool has(const testing::CliRun& r, const std::string& s) {
    return r.out.find(s) != std::string::npos;
  }
};

// The launch's geometry against CUDA's limits, the simulator's step budget,
// and a reference of the wrong size: one lesson file, a length for each.
TEST_F(CliMessages, LaunchLimitsStepsAndTheReferenceSize) {
  std::string text =
      replaced(kReverseLesson, "          g.static_shared_bytes = 64 * sizeof(float);\n",
               "          g.static_shared_bytes = 64 * sizeof(float);\n"
               "          if (p.length == 128) g.grid.y = 70000;\n"
               "          if (p.length == 192) g.grid.x = 2147483648u;\n"
               "          if (p.length == 256) g.grid.x = 1u << 24;\n");
  text =
      replaced(text, "return out;", "if (p.length == 320) out.resize(10);\n          return out;");
  const std::string path = file("limits.hpp", text);
  const std::string run = "run --backend sim --lesson-file " + path + " --length ";

  testing::CliRun r = cli(run + "128");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "a grid y of 70000, over CUDA's limit of 65535")) << r.out;

  r = cli(run + "192");  // was "looks stuck in an endless loop"
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "a grid x of 2147483648, over CUDA's limit of 2147483647")) << r.out;
  EXPECT_FALSE(has(r, "endless loop")) << r.out;

  r = cli(run + "256");  // 2^29 threads: within CUDA's limits, not the simulator's
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "too many steps for the simulator")) << r.out;
  EXPECT_TRUE(has(r, "536870912 threads")) << r.out;
  EXPECT_FALSE(has(r, "endless loop")) << r.out;

  r = cli(run + "320");  // was "0 of 0 cells wrong (max abs error inf)"
  EXPECT_TRUE(has(r, "the lesson's reference returned 10 values where the output has 320"))
      << r.out;
  EXPECT_FALSE(has(r, "0 of 0 cells")) << r.out;
}

// Which thread is stuck, and a local array of 128 KiB (legal in CUDA) then
// one past what a thread may have: one lesson file, a length for each.
TEST_F(CliMessages, TheStuckThreadItsLineAndLocalArrays) {
  std::string text = replaced(kReverseLesson, "template <class Rec>\nTS_DEVICE void reverse_block",
                              R"(#if TS_ON_DEVICE
TS_DEVICE float local_array(int) { return 0.0f; }
TS_DEVICE float too_large_array(int) { return 0.0f; }
#else
// 128 KiB of local memory: CUDA gives a thread up to 512 KiB. Returns 0.
[[gnu::noinline]] inline float local_array(int tid) {
  volatile float scratch[32 * 1024];
  for (int j = 32 * 1024 - 1; j >= 0; j -= 256) scratch[j] = float(tid);
  scratch[0] = float(tid);
  return scratch[0] - scratch[32 * 1024 - 1];
}
// 1 MiB: more than any thread may have.
[[gnu::noinline]] inline float too_large_array(int tid) {
  volatile float big[256 * 1024];
  for (int j = 256 * 1024 - 1; j >= 0; j -= 256) big[j] = float(tid);
  big[0] = float(tid);
  return big[0] - big[256 * 1024 - 1];
}
#endif

template <class Rec>
TS_DEVICE void reverse_block)");
  text = with_line(text, "LOAD",
                   "  float extra = 0.0f;\n"
                   "  if (args.length == 128 && tid == 5)\n"
                   "    for (int k = 0; k < 1; k += 0) tile[tid] = in[i];  // SPIN\n"
                   "  if (args.length == 192) extra = local_array(tid);\n"
                   "  if (args.length == 256) extra = too_large_array(tid);\n"
                   "  tile[tid] = in[i] + extra;  // LOAD");
  const std::string path = file("threads.hpp", text);
  const std::string run = "run --backend sim --lesson-file " + path + " --length ";

  // Thread 5 spins; the others wait for it at the barrier (it named thread 0 there).
  testing::CliRun r = cli(run + "128");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "endless loop")) << r.out;
  EXPECT_TRUE(has(r, "thread (5, 0, 0) of block (0, 0, 0) was at line " +
                         std::to_string(line_of(text, "SPIN"))))
      << r.out;
  EXPECT_FALSE(has(r, "thread (0, 0, 0) of block (0, 0, 0) was at line")) << r.out;

  r = cli(run + "192");  // was SIGSEGV (64 KiB stacks)
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "verdict:  correct")) << r.out;

#if !defined(TS_SANITIZED)  // sanitized, the stacks are 2 MiB and the overflow handler is off
  r = cli(run + "256");     // was SIGSEGV without a word
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "thread (0, 0, 0) of block (0, 0, 0) overflowed its stack")) << r.out;
  EXPECT_TRUE(has(r, "512 KiB of local memory")) << r.out;
#endif
}

// A __shared__ array of 1 GiB that the descriptor does not declare: refused
// with the array's size and the limit (it ran, reported as "256 B shared").
TEST_F(CliMessages, UndeclaredSharedArrayIsCountedAndRefused) {
  const std::string text = replaced(kReverseLesson, "__shared__ float tile_mem[64];",
                                    "__shared__ float tile_mem[1 << 28];");
  const testing::CliRun r = cli("run --backend sim --lesson-file " + file("big.hpp", text));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "tile_mem, 1073741824 bytes")) << r.out;
  EXPECT_TRUE(has(r, "over the 49152 bytes of shared memory per block")) << r.out;
  EXPECT_FALSE(has(r, "B shared")) << r.out;
}

// A 4 GiB file that is not a trace (sparse: no disk used): called junk after
// its first bytes, as the window now does too (tests/app/test_budget.cpp).
TEST_F(CliMessages, ALargeFileThatIsNotATraceIsCalledJunk) {
  const std::filesystem::path junk = dir / "junk.tstrace";
  { std::ofstream f(junk, std::ios::binary); }
  std::filesystem::resize_file(junk, uint64_t(4) << 30);
  const testing::CliRun r = cli("inspect " + junk.string());
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "not a TileScope trace")) << r.out;
  EXPECT_FALSE(has(r, "events")) << r.out;
}

#endif

}  // namespace
}  // namespace ts
