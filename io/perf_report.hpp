// Performance reports as files and pictures: JSON save/load (the window opens
// them), CSV, a terminal table, two runs compared, and the data the panel
// plots (kept here so that it is tested without a window).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/perf.hpp"

namespace ts {

// Files: a JSON document {"format": "tilescope-perf", "version": 1, ...}.
inline constexpr const char* kPerfReportExtension = ".json";
// A report of every lesson at every size is well under a megabyte.
inline constexpr uint64_t kMaxPerfReportBytes = 64ull << 20;
// A path the window opens as a performance report rather than a trace.
bool is_perf_report_path(const std::string& path);
std::string to_json(const PerfReport& r, int indent = 2);
// nullopt and `error` set when the text is not a report we can read (wrong
// format, newer version, malformed).
std::optional<PerfReport> report_from_json(std::string_view text, std::string* error);
bool save_report(const PerfReport& r, const std::string& path, std::string* error);
// Through the input layer (io/input_file.hpp): a folder, a FIFO, a device or
// a file over kMaxPerfReportBytes is refused before it is read.
std::optional<PerfReport> load_report(const std::string& path, std::string* error);
// One line per result, a header first; numbers in plain decimal.
std::string to_csv(const PerfReport& r);
bool write_text_file(const std::string& path, const std::string& text, std::string* error);

// A fixed-width table for terminals (the CLI and the check script).
std::string format_table(const PerfReport& r);

// An earlier run against this one, matched by (kernel, tile, size).
struct PerfComparison {
  std::string kernel;
  int tile = 0, size = 0;
  double ms_before = 0, ms_now = 0;  // 0 when missing or not counted in that run
  double gflops_before = 0, gflops_now = 0;
  double speedup = 0;  // ms_before / ms_now when both counted
};
std::vector<PerfComparison> compare_reports(const PerfReport& before, const PerfReport& now);

// ---- What the panel plots (kept here so that it is tested without a window) ----
// One line of the throughput plot: a kernel (and tile) across sizes.
struct PlotSeries {
  std::string label;                              // "matmul.tiled_square T16", "cublas.sgemm"
  bool reference = false;                         // cuBLAS or the copy
  std::vector<std::pair<double, double>> points;  // (size, GFLOP/s) or (length, GB/s), by size
};
// Counted results only: matmul -> GFLOP/s against n (with cuBLAS), stencil ->
// GB/s against length (with the copy's bandwidth as a flat reference line).
std::vector<PlotSeries> throughput_series(const PerfReport& r, PerfMetric f);
// One family's lessons ("stencil"), on its metric, with that metric's reference.
std::vector<PlotSeries> throughput_series(const PerfReport& r, const std::string& family);
// One point per kernel (and tile) on the roofline: its largest counted size.
// Two intensities: the compulsory one (every input read once; the same for all
// multiplies of one n) and the one the kernel has (flop per byte it loads and
// stores: ~0.25 naive, T times more tiled), which shows why tiling helps.
struct RooflinePoint {
  std::string label;
  int size = 0;
  double intensity = 0;         // flop per compulsory byte
  double issued_intensity = 0;  // flop per byte loaded and stored; 0: unknown (cuBLAS)
  double gflops = 0;
  bool reference = false;
};
std::vector<RooflinePoint> roofline_points(const PerfReport& r);
// The same, of one family's lessons (with cuBLAS when the family is timed in
// GFLOP/s): the panel's family choice filters both plots.
std::vector<RooflinePoint> roofline_points(const PerfReport& r, const std::string& family);
// The catalogue's families that have counted results in the report, in catalogue order.
std::vector<std::string> report_families(const PerfReport& r);
// The attainable GFLOP/s at an intensity under the measured ceilings.
double roofline_ceiling(const PerfDevice& d, double intensity);

}  // namespace ts
