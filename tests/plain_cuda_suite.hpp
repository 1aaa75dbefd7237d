// What the plain CUDA tests share (tests/test_plain_cuda*.cpp): a folder and
// a plug-in cache of each suite's own, files compiled in this process (as the
// window does), runs on the simulator at a file's defaults, an array's values
// and the line of a file that holds a text.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts::test {

// The tutorials' kernels and the tests' own (tests/plain_cuda/).
inline const std::filesystem::path kPlainCudaFiles =
    std::filesystem::path(TS_SOURCE_DIR) / "tests" / "plain_cuda";

// The 1-based line of the file at `path` that holds `text` (the first; 0: none).
inline int line_holding(const std::string& path, const std::string& text) {
  std::istringstream in(read_all(path));
  int n = 0;
  for (std::string l; std::getline(in, l);)
    if (++n, l.find(text) != std::string::npos) return n;
  return 0;
}

struct PlainCudaSuite : ::testing::Test {
  static inline TempDir* dir = nullptr;  // the suite's files; its plug-in cache in dir/cache
  static void SetUpTestSuite() {
    dir = new TempDir("ts_plain_cuda_",
                      ::testing::UnitTest::GetInstance()->current_test_suite()->name());
    ::setenv("XDG_CACHE_HOME", (*dir / "cache").c_str(), 1);
  }
  static void TearDownTestSuite() {
    ::unsetenv("XDG_CACHE_HOME");
    delete dir;
    dir = nullptr;
  }
  // The file's lesson id (a relative path is one of tests/plain_cuda/). An
  // unchanged file this process loaded already is taken as it is.
  static std::string load(const std::string& path) {
    const std::filesystem::path p(path);
    const std::string full = (p.is_absolute() ? p : kPlainCudaFiles / p).string();
    const LessonFile f = load_lesson_file(full);
    EXPECT_TRUE(f.ok) << full << ": " << describe_failure(f);
    return f.lesson_id;
  }
  // `text` written as the suite's file `name`, then loaded.
  static std::string load_text(const std::string& name, const std::string& text) {
    write_text(*dir / name, text);
    return load(*dir / name);
  }
  // A run on the simulator at the file's defaults (or `p`), with the barriers `kept`.
  static RunResult run_on_sim(const std::string& id, const Params* p = nullptr,
                              BarrierSet kept = BarrierSet::all()) {
    RunRequest req;
    req.lesson_id = id;
    if (const LessonInfo* v = find_lesson(id)) req.params = v->defaults;
    if (p) req.params = *p;
    req.backend = BackendChoice::Sim;
    req.barrier_mask = kept;
    return run(req);
  }
  // The values the run left in array `name` (empty when it has none).
  static std::vector<float> values(const RunResult& r, const std::string& name) {
    const ArraySlot slot = slot_named(r.trace.config.arrays, name);
    for (const BufferData& b : r.trace.buffers)
      if (b.slot == slot) return b.values;
    return {};
  }
};

}  // namespace ts::test
