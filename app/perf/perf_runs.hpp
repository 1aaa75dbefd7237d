// What the Performance panel runs besides drawing: the timing sweep's
// choices turned into a PerfConfig (engine/perf.hpp's BackgroundSweep runs
// it on its own thread), and the access counts of every kernel traced at a
// small size, which need no GPU.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/perf_counts.hpp"
#include "engine/backend.hpp"
#include "io/perf_report.hpp"

namespace ts::app {

// The kernels, sizes, tiles and repetitions ticked in the panel.
struct SweepChoices {
  std::vector<bool> kernel_on;  // per all_lessons() entry
  std::vector<std::pair<int, bool>> sizes, lengths, tiles;
  int reps = 10;
  bool flush = true;

  // Every kernel but the lesson-only naive one-block one, n 128..4096, lengths
  // 2^16..2^26, tiles of 8 and more.
  static SweepChoices defaults();
  // The sweep they ask for, or nullopt with *message saying what to choose.
  std::optional<PerfConfig> config(std::string* message) const;
};

// One row of the access-count table: a lesson run traced at a small size.
struct CountRow {
  std::string kernel, params, backend, error;
  AccessCounts counts;
  bool correct = false;
};

// Every catalogue kernel at a small size, on the GPU where there is one (slow: run it on a thread).
std::vector<CountRow> compute_counts();

// A report measured on a GPU machine and shipped with TileScope (docs/perf_*.json),
// found in the source tree (TS_SOURCE_DIR), in
// share/tilescope next to the program or in the working folder, or in docs/.
struct ShippedReport {
  std::string path;
  std::string gpu;      // "NVIDIA H200"
  std::string date;     // "2026-11-26"
  std::string what;     // its families and sizes: "matmul, sgemm at n = 4096"
  bool ladder = false;  // charts an optimisation ladder
  PerfReport report;    // as loaded, metrics derived
  std::string title() const { return gpu + ", " + date + ": " + what; }
};
// Every one that loads, newest first, a ladder first within a day.
std::vector<ShippedReport> shipped_reports();

}  // namespace ts::app
