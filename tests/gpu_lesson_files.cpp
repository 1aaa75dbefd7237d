// Lesson files on the GPU (label gpu): the GPU half of a plug-in, compiled by
// nvcc with the CUDA backend's recorders, runs as the built-in lessons do.
// Each test compiles lesson files from tests/lesson_files/ and copies of
// built-in lessons in this process (as the window does), runs them on both
// backends, and compares what a user would: the verdict and, per thread, the
// events. Without a usable CUDA device every test is skipped, never passed.
//
//   build/headless/tests/ts_gpu_tests --gtest_filter='GpuLessonFiles*'
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/trace_compare.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_child.hpp"
#include "engine/lesson_file.hpp"
#include "tests/gpu_require.hpp"
#include "tests/lesson_picks.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = TS_SOURCE_DIR;

// A built-in lesson copied as a user would (engine/lesson_file.hpp): the
// header renamed, its namespace with it.
fs::path copy_of_lesson(const std::string& file_stem, const fs::path& dir) {
  std::string text = test::read_all(kSource / "lessons" / (file_stem + ".hpp"));
  const std::string from = "namespace ts::lessons::" + file_stem, to = from + "_copy";
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  const fs::path out = dir / (file_stem + "_copy.hpp");
  std::ofstream(out, std::ios::binary) << text;
  return out;
}

fs::path scratch_dir() {
  const fs::path d =
      fs::temp_directory_path() / ("ts_gpu_lesson_files_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// The files compiled side by side first (engine/lesson_child.hpp): one nvcc
// per core, then the test's loads find them cached.
void compile_first(const std::vector<fs::path>& files) {
  std::vector<std::string> paths;
  for (const fs::path& f : files)
    paths.push_back(f.string());
  compile_side_by_side(paths);
}

LessonFile loaded(const fs::path& path) {
  LessonFile f = load_lesson_file(path.string());
  EXPECT_TRUE(f.ok) << path << ": " << f.error;
  EXPECT_TRUE(f.gpu) << path << ": no GPU half (nvcc did not compile it)";
  return f;
}

RunResult run_file(const std::string& id, BackendChoice backend, const Params* p = nullptr) {
  RunRequest req;
  req.lesson_id = id;
  const LessonInfo* lesson = find_lesson(id);
  if (lesson) req.params = lesson->defaults;
  if (p) req.params = *p;
  req.backend = backend;
  return run(req);
}

// Each thread's events in program order, without what differs by backend
// (the clocks, the SM).
using ThreadKey = std::tuple<uint32_t, uint32_t>;
std::map<ThreadKey, std::vector<std::string>> per_thread(const Trace& t) {
  std::map<ThreadKey, std::vector<std::string>> m;
  for (const Event& e : t.events) {
    std::ostringstream s;
    uint32_t value_bits = 0;
    std::memcpy(&value_bits, &e.value, sizeof value_bits);
    s << int(e.kind) << ' ' << int(e.array) << ' ' << e.element << ' ' << e.line << ' '
      << value_bits << ' ' << int(e.barrier);
    m[{e.block, e.thread}].push_back(s.str());
  }
  return m;
}

// The lesson file on the GPU gives the simulator's verdict and, per thread,
// its events.
void expect_same_on_both(const std::string& id, const Params* p = nullptr) {
  const RunResult gpu = run_file(id, BackendChoice::Cuda, p);
  const RunResult sim = run_file(id, BackendChoice::Sim, p);
  ASSERT_TRUE(gpu.ok) << id << ": " << gpu.error;
  ASSERT_TRUE(sim.ok) << id << ": " << sim.error;
  EXPECT_NE(gpu.backend_note.find("GPU"), std::string::npos) << gpu.backend_note;
  EXPECT_TRUE(gpu.verdict.correct) << id << ": " << gpu.verdict.summary();
  EXPECT_EQ(gpu.verdict.correct, sim.verdict.correct) << id;
  EXPECT_EQ(gpu.trace.events.size(), sim.trace.events.size()) << id;
  EXPECT_TRUE(per_thread(gpu.trace) == per_thread(sim.trace)) << id << ": events differ per thread";
}

TEST(GpuLessonFiles, ReferencePuzzleSolutionsRunOnTheGpuAsOnTheSimulator) {
  REQUIRE_GPU();
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kSource / "tests/puzzle_solutions"))
    if (e.path().extension() == ".hpp" || e.path().extension() == ".cu") files.push_back(e.path());
  compile_first(files);
  int n = 0;
  for (const fs::path& path : files) {
    const LessonFile f = loaded(path);
    if (!f.ok) continue;
    SCOPED_TRACE(path.filename().string());
    expect_same_on_both(f.lesson_id);
    ++n;
  }
  EXPECT_GE(n, 16);
}

// Plain CUDA files (engine/plain_cuda.hpp): the tutorials' kernels as they
// print them, traced on the GPU as on the simulator, thread by thread. A
// kernel the simulator finds reaching out of its arrays is left out (on the
// GPU that is undefined behaviour).
TEST(GpuLessonFiles, PlainCudaKernelsRunOnTheGpuAsOnTheSimulator) {
  REQUIRE_GPU();
  int n = 0;
  std::vector<fs::path> files;
  // The tutorials' kernels; warp/: shuffles of width 16 and partial masks
  // (tests/test_plain_cuda_warp.cpp has their values by hand); groups/ and
  // constant/ and forms/: cooperative groups, __constant__ arrays, static
  // __shared__, __ldg, vector values (test_plain_cuda_forms.cpp).
  for (const char* dir : {"tests/plain_cuda", "tests/plain_cuda/warp", "tests/plain_cuda/groups",
                          "tests/plain_cuda/constant", "tests/plain_cuda/forms"})
    for (const auto& e : fs::directory_iterator(kSource / dir))
      if (e.path().extension() == ".cu") files.push_back(e.path());
  compile_first(files);
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    const LessonFile f = loaded(path);
    if (!f.ok) continue;
    const RunResult sim = run_file(f.lesson_id, BackendChoice::Sim);
    ASSERT_TRUE(sim.ok) << sim.error;
    if (!sim.faults.empty()) continue;
    const RunResult gpu = run_file(f.lesson_id, BackendChoice::Cuda);
    ASSERT_TRUE(gpu.ok) << gpu.error;
    EXPECT_NE(gpu.backend_note.find("GPU"), std::string::npos) << gpu.backend_note;
    EXPECT_EQ(gpu.verdict.checked, sim.verdict.checked);
    EXPECT_EQ(gpu.verdict.correct, sim.verdict.correct) << gpu.verdict.summary();
    EXPECT_EQ(gpu.trace.events.size(), sim.trace.events.size());
    EXPECT_EQ(first_thread_difference(gpu.trace, sim.trace, "the GPU", "the simulator"),
              std::nullopt);
    ++n;
  }
  EXPECT_GE(n, 10);
}

TEST(GpuLessonFiles, CopiesOfLessonsWithConstantAndDynamicSharedMemory) {
  REQUIRE_GPU();
  const fs::path dir = scratch_dir();
  // __constant__ arrays (each plug-in holds its own symbols), extern
  // __shared__, static tiles.
  for (const char* stem : {"conv2d_naive", "stencil_shared_dynamic", "matmul_tiled_square"}) {
    const LessonFile f = loaded(copy_of_lesson(stem, dir));
    if (f.ok) expect_same_on_both(f.lesson_id);
  }
  fs::remove_all(dir);
}

TEST(GpuLessonFiles, MoreThan48KiBOfDynamicSharedMemory) {
  REQUIRE_GPU();
  const LessonFile f = loaded(kSource / "tests/lesson_files/big_shared.hpp");
  ASSERT_TRUE(f.ok);
  // 1024 threads x 16 floats: 64 KiB, which the simulator's device model
  // refuses: the GPU's run is checked against the reference and the counts.
  const RunResult gpu = run_file(f.lesson_id, BackendChoice::Cuda);
  ASSERT_TRUE(gpu.ok) << gpu.error;
  EXPECT_TRUE(gpu.verdict.correct) << gpu.verdict.summary();
  size_t shared_stores = 0;
  for (const Event& e : gpu.trace.events)
    shared_stores += e.kind == EventKind::SharedStore;
  EXPECT_EQ(shared_stores, 16u * 2048u);
  // At 512 threads (32 KiB) the simulator runs it too.
  const Params half{.length = 2048, .block = 512};
  expect_same_on_both(f.lesson_id, &half);
}

TEST(GpuLessonFiles, AFaultIsReportedAndLaterRunsWork) {
  REQUIRE_GPU();
  const LessonFile bad = loaded(kSource / "tests/lesson_files/raw_fault.hpp");
  const LessonFile good = loaded(kSource / "tests/lesson_files/big_shared.hpp");
  ASSERT_TRUE(bad.ok && good.ok);
  for (int round = 0; round < 2; ++round) {
    const RunResult r = run_file(bad.lesson_id, BackendChoice::Cuda);
    EXPECT_FALSE(r.ok) << "a store far outside every allocation must fail";
    EXPECT_NE(r.error.find("touched memory it must not"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("reset"), std::string::npos) << r.error;
    const Params half{.length = 2048, .block = 512};
    expect_same_on_both(good.lesson_id, &half);  // the GPU works again after the reset
    const RunResult builtin = run_file(picks::default_lesson().id, BackendChoice::Cuda);
    EXPECT_TRUE(builtin.ok && builtin.verdict.correct) << builtin.error;
  }
}

TEST(GpuLessonFiles, RemovedBarrierAndSkewOnTheGpu) {
  REQUIRE_GPU();
  const fs::path dir = scratch_dir();
  const LessonFile f = loaded(copy_of_lesson("matmul_tiled_square", dir));
  ASSERT_TRUE(f.ok);
  // Without its second barrier and with the odd warps delayed, the copy goes
  // wrong on the GPU as the built-in lesson does (docs/measurements.md).
  RunRequest req;
  req.lesson_id = f.lesson_id;
  req.params = Params{.n = 32, .tile = 16};
  req.backend = BackendChoice::Cuda;
  BarrierSet without_second = BarrierSet::all();
  without_second.remove(2);
  req.barrier_mask = without_second;
  req.traced = false;
  req.skew_ns = 1000;
  int wrong = 0;
  for (int i = 0; i < 10; ++i) {
    const RunResult r = run(req);
    ASSERT_TRUE(r.ok) << r.error;
    wrong += !r.verdict.correct;
  }
  EXPECT_GT(wrong, 0) << "the skewed warps never overwrote a tile still being read";
  req.barrier_mask = BarrierSet::all();
  const RunResult kept = run(req);
  EXPECT_TRUE(kept.ok && kept.verdict.correct) << kept.error;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ts
