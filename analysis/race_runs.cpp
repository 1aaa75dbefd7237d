#include "analysis/race_runs.hpp"

#include <algorithm>
#include <cstdio>

namespace ts {

namespace {

std::string percent(int part, int whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", whole ? 100.0 * part / whole : 0.0);
  return buf;
}

// The backend run() will pick for this request.
bool uses_gpu(const RunRequest& r) {
  switch (r.backend) {
    case BackendChoice::Cuda:
      return true;
    case BackendChoice::Sim:
      return false;
    case BackendChoice::Auto:
      return cuda_status().usable;
  }
  return false;
}

}  // namespace

std::string RaceRunsResult::state() const {
  const std::string n = std::to_string(runs_done);
  // A deterministic schedule ran once: "in its one run", not "in all 1 runs".
  const std::string all =
      deterministic && runs_done == 1 ? "in its one run" : "in all " + n + " runs";
  const std::string wrong_of = deterministic && runs_done == 1
                                   ? std::string("in its one run")
                                   : "in " + std::to_string(wrong_runs) + " of " + n + " runs (" +
                                         percent(wrong_runs, runs_done) + ")";
  std::string out;
  if (race_present()) {
    out = "race present (" + std::to_string(hazards.errors) + " errors, " +
          std::to_string(hazards.warnings) + " warnings in a traced run); ";
    if (runs_done == 0)
      out += "no run finished";
    else if (wrong_runs == 0)
      out += "output happened to be right " + all;
    else
      out += "it bit: output wrong " + wrong_of;
  } else if (hazards_checked) {
    if (wrong_runs == 0)
      out = "no race found; output right " + all;
    else
      out = "no shared-memory race found, yet output wrong " + wrong_of +
            " (another fault, e.g. an out-of-range access)";
  } else {
    if (wrong_runs == 0)
      out = "output right " + all;
    else
      out = "output wrong " + wrong_of;
    if (!hazards_note.empty()) out += " (hazards not checked: " + hazards_note + ")";
  }
  if (deterministic && runs_requested > 1)
    out += " (a deterministic schedule: " + std::to_string(runs_requested) +
           " runs would all give this result)";
  if (cancelled) out += " [cancelled after " + n + " of " + std::to_string(runs_requested) + "]";
  return out;
}

std::optional<std::string> validate_race_runs(const RaceRunsRequest& req) {
  if (req.runs < 1 || req.runs > kMaxRaceRuns)
    return "runs " + std::to_string(req.runs) + ": repeat a configuration 1 to " +
           std::to_string(kMaxRaceRuns) + " times";
  if (req.base.skew_ns < 0 || req.base.skew_ns > 1000000)
    return "skew " + std::to_string(req.base.skew_ns) +
           " ns: the delay of the skewed warps must be 0 to 1,000,000 ns (1 ms)";
  const LessonInfo* v = find_lesson(req.base.lesson_id);
  if (!v) return unknown_lesson(req.base.lesson_id);
  return std::nullopt;
}

RunHistogram make_histogram(const std::vector<uint32_t>& wrong, int bins) {
  RunHistogram h;
  bins = std::max(2, bins);
  // Bin 0: the runs that came out right; the others split the range of wrong
  // counts that occurred (lo..hi), so that runs all wrong by about as much
  // do not vanish into one bar at the far right of an empty axis.
  uint32_t lo = UINT32_MAX, hi = 0;
  for (uint32_t w : wrong)
    if (w > 0) {
      lo = std::min(lo, w);
      hi = std::max(hi, w);
    }
  h.counts.push_back(0);
  h.lower.push_back(0);
  h.upper.push_back(0);
  if (hi > 0) {
    const uint32_t span = hi - lo + 1;
    const uint32_t ranges = std::min<uint32_t>(uint32_t(bins - 1), span);
    const uint32_t width = (span + ranges - 1) / ranges;
    for (uint64_t b = lo; b <= hi; b += width) {
      h.counts.push_back(0);
      h.lower.push_back(uint32_t(b));
      h.upper.push_back(uint32_t(std::min<uint64_t>(hi, b + width - 1)));
    }
  }
  for (uint32_t w : wrong) {
    size_t bin = 0;
    while (bin + 1 < h.lower.size() && w >= h.lower[bin + 1])
      ++bin;
    ++h.counts[bin];
  }
  return h;
}

RaceRunsResult run_race_runs(const RaceRunsRequest& req, const RaceRunsProgress& progress,
                             const std::atomic<bool>* cancel) {
  RaceRunsResult res;
  res.runs_requested = req.runs;
  if (auto err = validate_race_runs(req)) {
    res.error = *err;
    return res;
  }
  const bool gpu = uses_gpu(req.base);
  res.backend = gpu ? BackendKind::Cuda : BackendKind::Simulator;

  if (req.check_hazards) {
    RunRequest traced = req.base;
    traced.traced = true;
    traced.skew_ns = 0;  // the hazards do not depend on timing; keep the traced run fast
    RunResult t = run(traced);
    if (!t.ok) {
      res.error = t.error;  // the configuration cannot run at all
      return res;
    }
    res.backend_note = t.backend_note;
    if (t.trace.truncated()) {
      res.hazards_note = "a traced run needs " + std::to_string(t.trace.events_needed()) +
                         " events, more than the trace capacity of " +
                         std::to_string(t.trace.capacity) + "; choose a smaller size";
    } else {
      res.hazards = analyze_hazards(t.trace);
      res.hazards_checked = true;
    }
  }

  // The simulator's lockstep and warp-skew schedules are deterministic: one
  // run is every run. The random schedule runs the request's seed and the
  // ones after it.
  const ScheduleKind kind = req.base.schedule.kind;
  res.deterministic = !gpu && kind != ScheduleKind::Random;
  const int runs = res.deterministic ? 1 : req.runs;
  if (gpu) {
    res.plan = "GPU: " + std::to_string(req.runs) + " untraced launches";
    if (req.base.skew_ns > 0) {
      char mask[16];
      std::snprintf(mask, sizeof mask, "0x%08X", req.base.skew_warps);
      res.plan +=
          ", warps " + std::string(mask) + " sleep " + std::to_string(req.base.skew_ns) + " ns";
    }
  } else if (res.deterministic) {
    res.plan = std::string("simulator, ") +
               (kind == ScheduleKind::WarpSkew ? "warp-skew" : "lockstep") +
               " schedule: deterministic, every run gives the same result, so it ran once";
    if (req.runs > 1)
      res.plan += " (not " + std::to_string(req.runs) + " times; the random schedule tries " +
                  std::to_string(req.runs) + " different interleavings)";
  } else {
    res.first_seed = req.base.schedule.seed;
    res.last_seed = req.base.schedule.seed + uint64_t(req.runs - 1);
    res.plan = "simulator, random schedule, " + (req.runs == 1
                                                     ? "seed " + std::to_string(res.first_seed)
                                                     : "seeds " + std::to_string(res.first_seed) +
                                                           " to " + std::to_string(res.last_seed));
  }

  for (int i = 0; i < runs; ++i) {
    if (cancel && cancel->load()) {
      res.cancelled = true;
      break;
    }
    RunRequest r = req.base;
    r.traced = false;
    if (!gpu && kind == ScheduleKind::Random)
      r.schedule.seed = req.base.schedule.seed + uint64_t(i);
    RunResult out = run(r);
    if (!out.ok) {
      if (res.run_errors.size() < 5)
        res.run_errors.push_back("run " + std::to_string(i + 1) + ": " + out.error);
      if (progress) progress(i + 1, runs);
      continue;
    }
    if (res.backend_note.empty()) res.backend_note = out.backend_note;
    const Verdict& v = out.verdict;
    const uint32_t wrong = v.checked ? uint32_t(v.wrong_cells.size()) : 0;
    if (const BufferData* o = [&]() -> const BufferData* {
          for (const auto& b : out.trace.buffers)
            if (b.is_output) return &b;
          return nullptr;
        }())
      res.output_cells = o->values.size();
    res.wrong_cells_per_run.push_back(wrong);
    if (wrong > 0 || (v.checked && !v.correct)) ++res.wrong_runs;
    res.max_abs_error = std::max(res.max_abs_error, v.max_abs_error);
    ++res.runs_done;
    if (progress) progress(i + 1, runs);
  }
  if (res.runs_done == 0 && !res.cancelled && !res.run_errors.empty()) {
    res.error = "every run failed; " + res.run_errors.front();
    return res;
  }
  res.histogram = make_histogram(res.wrong_cells_per_run);
  res.ok = true;
  return res;
}

}  // namespace ts
