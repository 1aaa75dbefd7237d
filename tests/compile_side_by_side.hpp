// Lesson files compiled side by side before a test loads them one at a time.
// With its GPU half a plug-in takes nvcc about 10 s on a fresh machine, and a
// test that loads 32 of them in turn waited 333 s for one core while fifteen
// idled. Each file here is compiled in a lesson child of its own (one per
// core, engine/lesson_child.hpp), which leaves the plug-in in the cache; the
// test's own loads then find it there (the same program, the same key).
// Best effort: a file that fails here fails again, with its message, where
// the test loads it.
#pragma once

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "engine/lesson_child.hpp"

namespace ts::test {

inline void compile_side_by_side(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) return;
  const size_t workers =
      std::clamp<size_t>(std::thread::hardware_concurrency(), size_t(1), files.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t i = next++; i < files.size(); i = next++)
        run_lesson_file_in_child(files[i].string(), {});
    });
  for (std::thread& t : pool)
    t.join();
}

}  // namespace ts::test
