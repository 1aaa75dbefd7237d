// Repeated runs of one configuration: how often, and how badly, a race bites.
//
// On the GPU every run is an untraced launch (optionally with skew: the warps
// in skew_warps sleep skew_ns at the kernel's DELAY_POINT). On the simulator
// the request's schedule is honoured: random runs seeds S..S+N-1 (S = the
// request's seed); lockstep and warp skew are deterministic, so every run
// would give the same output and it runs once (`plan` says which it did).
// One traced run of the same configuration tells whether
// a race is present at all, so that "no wrong output" can be told apart from
// "no race": a race that did not bite this time is still a race.
//
//   RaceRunsRequest r;  r.base = run_request;  r.runs = 20;
//   RaceRunsResult res = run_race_runs(r, [](int done, int total) {...}, &cancel_flag);
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hazards.hpp"
#include "engine/backend.hpp"

namespace ts {

inline constexpr int kMaxRaceRuns = 10000;

struct RaceRunsRequest {
  RunRequest base;            // lesson, parameters, barriers, backend, skew (traced is ignored)
  int runs = 20;              // 1 .. kMaxRaceRuns
  bool check_hazards = true;  // also one traced run for the hazard analysis
};

// Wrong cells per run, binned for a histogram: bin 0 holds the runs with no
// wrong cell, the others equal ranges of 1 .. max wrong cells.
struct RunHistogram {
  std::vector<uint32_t> counts;  // runs per bin
  std::vector<uint32_t> lower;   // first wrong-cell count of each bin
  std::vector<uint32_t> upper;   // last wrong-cell count of each bin (inclusive)
};

struct RaceRunsResult {
  bool ok = false;
  std::string error;         // why it could not run at all (bad parameters, N out of range, ...)
  std::string backend_note;  // which backend ran, one line
  BackendKind backend = BackendKind::Simulator;
  int runs_requested = 0;
  int runs_done = 0;
  // What ran, one line: "simulator, random schedule, seeds 5 to 24", ...
  std::string plan;
  bool deterministic = false;  // simulator, lockstep or warp skew: one run stands for all
  uint64_t first_seed = 0, last_seed = 0;  // simulator, random schedule
  bool cancelled = false;
  std::vector<std::string> run_errors;  // runs that failed (first few), e.g. a CUDA error

  int wrong_runs = 0;                         // runs with at least one wrong cell
  std::vector<uint32_t> wrong_cells_per_run;  // one entry per run done
  uint64_t output_cells = 0;
  double max_abs_error = 0;  // over all runs
  RunHistogram histogram;

  bool hazards_checked = false;
  std::string hazards_note;  // why not checked (trace would not fit, ...)
  HazardReport hazards;      // from one traced run of the same configuration

  double rate() const { return runs_done ? double(wrong_runs) / runs_done : 0.0; }
  bool race_present() const { return hazards_checked && !hazards.empty(); }
  // One sentence: "race present (...); output happened to be right in all 20 runs", ...
  std::string state() const;
};

// nullopt when the request can run; otherwise what is wrong and what is allowed.
std::optional<std::string> validate_race_runs(const RaceRunsRequest& req);

using RaceRunsProgress = std::function<void(int done, int total)>;

// Never throws. `cancel` (if given) is polled between runs; a cancelled batch
// returns what was done so far with cancelled = true.
RaceRunsResult run_race_runs(const RaceRunsRequest& req, const RaceRunsProgress& progress = {},
                             const std::atomic<bool>* cancel = nullptr);

// The histogram of a list of wrong-cell counts (at most `bins` bins, >= 2).
RunHistogram make_histogram(const std::vector<uint32_t>& wrong_cells_per_run, int bins = 10);

}  // namespace ts
