// Lesson files (engine/lesson_file.hpp) through the built tilescope-cli, as a
// student runs them: a header written into a temporary folder, compiled by
// `run --lesson-file`, run on the simulator; and each way it can go wrong
// gets its message, never a crash.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/lesson_picks.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

using test::kReverseLesson;
using test::line_of;
using test::with_line;
using test::write_text;

// The compiler's diagnostics as GCC and Clang print them (no compiler needed).
TEST(LessonFile, ParsesCompilerDiagnostics) {
  const std::string out =
      "In file included from /c/glue.cpp:3:\n"
      "/home/s/my_scan.hpp: In function 'void f()':\n"
      "/home/s/my_scan.hpp:12:5: error: expected ';' before '}' token\n"
      "   12 |   x = 1\n"
      "/home/s/my_scan.hpp:30:7:   required from here\n"
      "/home/s/my_scan.hpp:9: warning: unused variable 'y'\n"
      "/usr/include/x.h:4:1: note: declared here\n";
  const std::vector<CompilerDiagnostic> d = parse_compiler_output(out);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].file, "/home/s/my_scan.hpp");
  EXPECT_EQ(d[0].line, 12);
  EXPECT_EQ(d[0].column, 5);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "expected ';' before '}' token");
  EXPECT_EQ(d[1].severity, "note");  // context
  EXPECT_EQ(d[1].line, 30);
  EXPECT_EQ(d[2].severity, "warning");
  EXPECT_EQ(d[2].column, 0);
  EXPECT_EQ(d[3].file, "/usr/include/x.h");
  EXPECT_EQ(diagnostic_line(d[0]),
            "/home/s/my_scan.hpp:12:5: error: expected ';' before '}' token");
}

// nvcc's front end (EDG) says where differently: "file(line): error: message".
TEST(LessonFile, ParsesNvccDiagnostics) {
  const std::string out =
      "/home/s/my_scan.hpp(14): error: identifier \"tiles\" is undefined\n"
      "/home/s/my_scan.hpp(20): warning #177-D: variable \"k\" was declared but never "
      "referenced\n"
      "/home/s/my_scan.hpp(3): catastrophic error: cannot open source file \"nope.hpp\"\n";
  const std::vector<CompilerDiagnostic> d = parse_compiler_output(out);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].file, "/home/s/my_scan.hpp");
  EXPECT_EQ(d[0].line, 14);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].message, "identifier \"tiles\" is undefined");
  EXPECT_EQ(d[1].severity, "warning");
  EXPECT_EQ(d[1].line, 20);
  EXPECT_EQ(d[2].severity, "fatal error");
}

#ifdef TS_CLI_PATH

// A folder of the test's own, and the plug-in cache inside it: every test
// compiles afresh, and nothing lands in the user's cache.
struct LessonFileTest : ::testing::Test {
  test::TempDir dir{"ts_lesson_file_",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  void SetUp() override { ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1); }
  void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }
  std::string file(const std::string& name, const std::string& text) {
    write_text(dir / name, text);
    return dir / name;
  }
  static testing::CliRun cli(const std::string& args) { return testing::run_cli(args, true); }
};

// What `run` prints from the backend line on, the lesson's id made `id`;
// `compiled`: the lines of the compiled-code table (built-in kernels only).
std::string run_text(const std::string& out, const std::string& file_id, const std::string& id,
                     std::string* compiled = nullptr) {
  std::string text = out.substr(out.find("backend:"));  // after the compile note (stderr)
  for (size_t at; (at = text.find(file_id)) != std::string::npos;)
    text.replace(at, file_id.size(), id);
  const size_t table = text.find("as the GPU executes it");
  if (compiled && table != std::string::npos) *compiled = text.substr(table);
  return text.substr(0, table);
}

// A copy of a built-in lesson, renamed, prints what the built-in prints: the
// same kernel, the same trace, counters, accesses and verdict, with every
// barrier and with one removed. Only the compiled-code table (the SASS of
// the built-in kernels, read at build time) has no entry for it.
TEST_F(LessonFileTest, CopyOfABuiltInLessonRunsAsTheBuiltIn) {
  const LessonInfo& v = picks::first_with(
      "a lesson with a template Body and a barrier",
      [](const LessonInfo& l) { return !l.barriers.empty() && l.uses & kUsesTile; });
  const std::string path = file("my_copy.hpp", std::string(lesson_source(v.source_file)));
  for (const std::string options : {" --backend sim", " --backend sim --no-barrier 1"}) {
    const testing::CliRun mine = cli("run --lesson-file " + path + options);
    const testing::CliRun theirs = cli(std::string("run ") + v.id + options);
    ASSERT_EQ(mine.code, 0) << mine.out;
    ASSERT_EQ(theirs.code, 0) << theirs.out;
    std::string compiled;
    EXPECT_EQ(run_text(mine.out, "file.my_copy", v.id, &compiled),
              run_text(theirs.out, "file.my_copy", v.id))
        << options;
    EXPECT_NE(compiled.find("a lesson file has no compiled-code table"), std::string::npos)
        << compiled;
  }
}

TEST_F(LessonFileTest, OwnLessonRunsRightAndComesFromTheCacheTheSecondTime) {
  const std::string path = file("reverse.hpp", kReverseLesson);
  const testing::CliRun first = cli("run --lesson-file " + path + " --json");
  ASSERT_EQ(first.code, 0) << first.out;
  const auto j = nlohmann::json::parse(first.out.substr(first.out.find('{')));
  EXPECT_EQ(j["variant"], "file.reverse");
  EXPECT_EQ(j["verdict"]["correct"], true) << first.out;
  EXPECT_FALSE(j["lesson_file"]["cached"].get<bool>());
  const testing::CliRun again = cli("run --lesson-file " + path + " --json");
  ASSERT_EQ(again.code, 0) << again.out;
  const auto k = nlohmann::json::parse(again.out.substr(again.out.find('{')));
  EXPECT_TRUE(k["lesson_file"]["cached"].get<bool>());
  EXPECT_LT(k["lesson_file"]["seconds"].get<double>(), 0.5);
  // Two warps without the barrier: the skewed warp reads cells not yet written,
  // and `races` finds the read-after-write pairs between the warps.
  const std::string two_warps = " --length 128 --block 64 --no-barrier 1";
  const testing::CliRun racy = cli("run --lesson-file " + path + two_warps + " --schedule skew");
  ASSERT_EQ(racy.code, 0) << racy.out;
  EXPECT_NE(racy.out.find("verdict:  WRONG"), std::string::npos) << racy.out;
  const testing::CliRun races = cli("races --lesson-file " + path + two_warps + " --runs 2");
  ASSERT_EQ(races.code, 0) << races.out;
  EXPECT_NE(races.out.find("RAW"), std::string::npos) << races.out;
}

TEST_F(LessonFileTest, SyntaxErrorIsReportedAtItsLine) {
  const std::string text = with_line(kReverseLesson, "LOAD", "  tile[tid] = in[i] + * ;  // LOAD");
  const std::string path = file("broken.hpp", text);
  const testing::CliRun r = cli("run --lesson-file " + path);
  EXPECT_EQ(r.code, 1) << r.out;
  const std::string at = path + ":" + std::to_string(line_of(text, "LOAD")) + ":";
  EXPECT_NE(r.out.find(at), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tile[tid] = in[i] + * ;"), std::string::npos) << "the line under it\n"
                                                                      << r.out;
  const testing::CliRun j = testing::run_cli("run --lesson-file " + path + " --json", false);
  const auto d = nlohmann::json::parse(j.out);
  EXPECT_EQ(d["ok"], false);
  ASSERT_FALSE(d["diagnostics"].empty());
  EXPECT_EQ(d["diagnostics"][0]["line"], line_of(text, "LOAD"));
}

TEST_F(LessonFileTest, OutOfRangeWriteNamesThreadLineAndArray) {
  const std::string text =
      with_line(kReverseLesson, "STORE", "  out[i + 1000] = tile[blockDim.x - 1 - tid];  // STORE");
  const testing::CliRun r = cli("run --lesson-file " + file("overrun.hpp", text));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("out-of-range global store of out[1000]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thread (0, 0, 0) of block (0, 0, 0), line " +
                       std::to_string(line_of(text, "STORE"))),
            std::string::npos)
      << r.out;
}

TEST_F(LessonFileTest, EndlessLoopStopsAtTheStepLimitNamingThreadAndLine) {
  const std::string text = with_line(
      kReverseLesson, "LOAD", "  for (int k = 0; k < 1; k += 0) tile[tid] = in[i];  // LOAD");
  const testing::CliRun r = cli("run --lesson-file " + file("endless.hpp", text));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("endless loop"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thread (0, 0, 0) of block (0, 0, 0) was at line " +
                       std::to_string(line_of(text, "LOAD"))),
            std::string::npos)
      << r.out;
}

TEST_F(LessonFileTest, LoopThatTouchesNoArrayIsStopped) {
  const std::string text = with_line(kReverseLesson, "LOAD",
                                     "  tile[tid] = in[i];\n"
                                     "  for (volatile int spin = 1; spin;) {\n  }  // LOAD");
  const testing::CliRun r = cli("run --lesson-file " + file("spin.hpp", text));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("without reaching a recorded access or barrier, last at line " +
                       std::to_string(line_of(text, "LOAD") - 2)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("thread (0, 0, 0) of block (0, 0, 0)"), std::string::npos) << r.out;
}

// A __syncthreads() that half the block skips: said with both threads and
// lines; the run goes on as the hardware would (exited threads do not hold it).
TEST_F(LessonFileTest, BarrierInADivergentBranchIsReported) {
  const std::string text =
      with_line(kReverseLesson, "BARRIER", "  if (tid < 16)\n    SYNCTHREADS(1);  // BARRIER");
  const testing::CliRun r = cli("run --lesson-file " + file("diverged.hpp", text));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("barrier divergence: thread (0, 0, 0) of block (0, 0, 0) waits at the "
                       "__syncthreads() on line " +
                       std::to_string(line_of(text, "BARRIER"))),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("thread (16, 0, 0) of block (0, 0, 0) has exited after 0 barriers"),
            std::string::npos)
      << r.out;
}

// A __syncwarp() that the warp's other lanes never reach, waiting at a
// __syncthreads() instead: nobody can move, and the message says who waits where.
TEST_F(LessonFileTest, DeadlockNamesWhoWaitsWhere) {
  std::string text =
      with_line(kReverseLesson, "BARRIER",
                "  if (tid < 16)\n    SYNCWARP(1);  // BARRIER\n  SYNCTHREADS(2);  // SECOND");
  text.replace(text.find("kGuardsRaw}},"), 13,
               "kGuardsRaw}, {\"the warp again\", kGuardsNothing}},");
  const testing::CliRun r = cli("run --lesson-file " + file("deadlock.hpp", text));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("deadlock in block (0, 0, 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("thread (0, 0, 0) of block (0, 0, 0) waits at the warp barrier on line " +
                       std::to_string(line_of(text, "BARRIER"))),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("thread (16, 0, 0) of block (0, 0, 0) waits at the __syncthreads() on "
                       "line " +
                       std::to_string(line_of(text, "SECOND"))),
            std::string::npos)
      << r.out;
}

TEST_F(LessonFileTest, EachMistakeBeforeTheCompilerHasItsMessage) {
  testing::CliRun r = cli("run --lesson-file " + (dir / "nowhere.hpp"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("no such lesson file"), std::string::npos) << r.out;

  r = cli("run --lesson-file " + dir.path.string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("is a folder"), std::string::npos) << r.out;

  const std::string pipe = dir / "pipe.hpp";  // read, it would never end
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  r = cli("run --lesson-file " + pipe);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("is not a regular file"), std::string::npos) << r.out;

  std::string no_lesson = kReverseLesson;
  no_lesson.replace(no_lesson.find("struct Lesson"), 13, "struct Lessons");
  r = cli("run --lesson-file " + file("no_lesson.hpp", no_lesson));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("has no `struct Lesson`"), std::string::npos) << r.out;

  r = cli("run --lesson-file " + file("plain.hpp", "int x = 1;\n"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("has no `namespace ts::lessons::<name> {`"), std::string::npos) << r.out;

  ::setenv("TILESCOPE_CXX", "/nonexistent/c++", 1);
  r = cli("run --lesson-file " + file("reverse.hpp", kReverseLesson));
  ::unsetenv("TILESCOPE_CXX");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("the C++ compiler named by TILESCOPE_CXX (/nonexistent/c++) is not there"),
            std::string::npos)
      << r.out;

  r = cli("run " + std::string(picks::default_lesson().id) + " --lesson-file " + (dir / "x.hpp"));
  EXPECT_EQ(r.code, 2) << "a lesson id and a file: a usage error\n" << r.out;
}

#if TS_HAVE_CUDA
// The GPU half of a plug-in: nvcc compiles the lesson file with the CUDA
// backend's recorders (engine/cuda/lesson_plugin.cuh) where a GPU can run it;
// TILESCOPE_PLUGIN_CUDA=1 asks for it here, without one. The plug-in exports
// the GPU entry point, the simulator still runs it by default, and the CUDA
// backend takes it (on a GPU it runs; without one it says so, not "simulator only").
TEST_F(LessonFileTest, GpuHalfIsCompiledWithNvccAndTheSimulatorStaysTheDefault) {
  const std::string path = file("reverse.hpp", kReverseLesson);
  if (!cuda_status().usable) {  // no GPU: no GPU half unless asked
    const testing::CliRun plain = cli("run --lesson-file " + path + " --backend cuda");
    EXPECT_NE(plain.code, 0) << plain.out;
    EXPECT_NE(plain.out.find("compiled without nvcc"), std::string::npos) << plain.out;
  }

  ::setenv("TILESCOPE_PLUGIN_CUDA", "1", 1);
  const testing::CliRun sim = cli("run --lesson-file " + path + " --json");
  testing::CliRun gpu = cli("run --lesson-file " + path + " --backend cuda");
  ::unsetenv("TILESCOPE_PLUGIN_CUDA");
  ASSERT_EQ(sim.code, 0) << sim.out;
  const auto j = nlohmann::json::parse(sim.out.substr(sim.out.find('{')));
  EXPECT_EQ(j["verdict"]["correct"], true) << sim.out;
  if (!cuda_status().usable) {
    EXPECT_NE(j["backend_note"].get<std::string>().find("CPU simulator"), std::string::npos)
        << sim.out;
    EXPECT_NE(gpu.code, 0) << gpu.out;
    EXPECT_NE(gpu.out.find("the CUDA backend is not available"), std::string::npos) << gpu.out;
  } else {
    EXPECT_EQ(gpu.code, 0) << gpu.out;
    EXPECT_NE(gpu.out.find("verdict:  correct"), std::string::npos) << gpu.out;
  }
  EXPECT_EQ(j["lesson_file"]["gpu"], true) << "the plug-in has its GPU half";
  const testing::CliRun again = cli("run --lesson-file " + path + " --json");
  const auto k = nlohmann::json::parse(again.out.substr(again.out.find('{')));
  EXPECT_EQ(k["lesson_file"]["gpu"], cuda_status().usable)
      << "without the variable: where a GPU is";
}
#endif  // TS_HAVE_CUDA

#endif  // TS_CLI_PATH

}  // namespace
}  // namespace ts
