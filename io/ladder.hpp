// An optimisation ladder in a performance report: "the road to cuBLAS". The
// catalogue's lessons with the same LessonInfo::ladder are its steps, in
// ladder_step order; for each step and size the best counted result (over the
// tiles the sweep ran), its share of cuBLAS at that size, and the step's
// traffic from the catalogue's closed-form counts: flops per byte it moves in
// global memory (what tiling raises) and shared-memory bytes per flop (what
// register blocking lowers). A bandwidth family is a ladder too (its lessons
// in catalogue order): GB/s per step against the copy and the library
// routine timed beside it in the same run. Plain data for the panel's chart
// and table and for `tilescope-cli bench --ladder`; no lesson id appears here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/perf.hpp"

namespace ts {

// The sizes the ladder is charted at.
inline constexpr int kLadderSizes[] = {1024, 2048, 4096};
// A bandwidth family's ladder: elements moved, as the sweep's --lengths.
inline constexpr int kFamilyLadderLengths[] = {1 << 24, 1 << 26};

// The ladders of the catalogue ("sgemm"), each once, in catalogue order.
std::vector<std::string> ladders();
// A ladder's lessons: those that declare it, by ladder_step; for a family
// that no lesson declares as a ladder, the family's lessons in catalogue
// order (a new lesson of the family is a new step, with no edit here).
std::vector<const LessonInfo*> ladder_lessons(const std::string& ladder);
// What `bench --ladder NAME` accepts: a declared ladder, then every family.
std::vector<std::string> ladder_names();

// The sweep of `tilescope-cli bench --ladder NAME`: the ladder's lessons (and
// its library lines) at `sizes` (n, for a multiply ladder) or `lengths`
// (elements, for a bandwidth one), each defaulting to the ladder's own.
// Fills c.kernels and the sizes, and `chart_sizes` with what the table shows;
// an error when NAME is no ladder, the sizes are of the other kind, or
// c.bandwidth_input (--input) is not the lessons' own and none of the
// ladder's library lines is timed on it (only the histogram's are).
std::optional<std::string> ladder_config(const std::string& name, const std::vector<int>& sizes,
                                         const std::vector<int>& lengths, PerfConfig& c,
                                         std::vector<int>& chart_sizes);

struct LadderPoint {
  int size = 0;
  bool counted = false;  // a correct, timed result at this size
  int tile = 0;          // the tile (or block side) of the best result; 0: none
  double gflops = 0;
  // A bandwidth ladder's: GB/s of compulsory bytes, its share of the copy and
  // of the family's (first) library line at this size; 0 when not measured.
  double gbps = 0, pct_copy = 0, pct_library = 0;
  double pct_cublas = 0;  // of cuBLAS at this size; 0 when cuBLAS was not timed
  double pct_peak = 0;    // of the FP32 peak
  // From the closed-form counts at this size and tile (0 when not countable).
  double global_intensity = 0;       // flop per byte loaded and stored in global memory
  double shared_bytes_per_flop = 0;  // shared loads and stores, 4 bytes an element
};

struct LadderStep {
  const LessonInfo* lesson = nullptr;
  int step = 0;                     // ladder_step
  std::string short_title;          // the id without its family: "tiled_square"
  std::vector<LadderPoint> points;  // one per LadderChart::sizes
  // Why the step helps, from its counts against the step before ("4x fewer
  // global bytes per flop ..."), then the lesson's summary.
  std::string why;
};

// A library routine timed beside a bandwidth family (engine/perf.hpp: kLibraryAnchors).
struct LibraryLine {
  const LibraryAnchor* anchor = nullptr;
  std::vector<double> gbps;        // per size; 0 when not measured (or wrong)
  std::vector<PerfStatus> status;  // per size; Skipped where the report has none
  std::vector<std::string> why;    // per size: the result's message where not counted
};

struct LadderChart {
  std::string ladder;
  PerfMetric metric = PerfMetric::Flops;  // GFLOP/s against cuBLAS, or GB/s against the copy
  double copy_gbps = 0;                   // the copy measured in the same run
  LibraryInput input = LibraryInput::SmallIntegers;  // what the bandwidth steps were timed on
  std::vector<LibraryLine> library;                  // a bandwidth family's library lines
  std::vector<int> sizes;                            // kLadderSizes
  std::vector<LadderStep> steps;      // every step of the catalogue's ladder, by ladder_step
  std::vector<double> cublas_gflops;  // per size; 0 when not timed
  double fp32_peak_gflops = 0;
  int table_size = 0;  // the size the table's "% of cuBLAS" is at: the largest
  bool any_counted() const;
  // The point of step i at `size` (nullptr when the size is not charted).
  const LadderPoint* at(size_t step, int size) const;
};

// The chart of `ladder` in a report (metrics derived here, so a report as
// loaded will do).
LadderChart ladder_chart(const PerfReport& r, const std::string& ladder);
// The same at explicit sizes.
LadderChart ladder_chart(const PerfReport& r, const std::string& ladder,
                         const std::vector<int>& sizes);

// A fixed-width table for terminals. A multiply ladder: step, lesson, GFLOP/s
// per size, % of cuBLAS at the largest, flop per global byte and shared bytes
// per flop. A bandwidth one: step, lesson, GB/s per size, % of the copy and of
// the library at the largest, then the library's and the copy's lines.
std::string format_ladder_table(const LadderChart& c);

// What the chart's baseline note says: the kind of arithmetic timed.
inline constexpr const char* kLadderMathNote =
    "Pure FP32 FMA: no tensor cores, no TF32; cuBLAS with CUBLAS_DEFAULT_MATH.";

}  // namespace ts
