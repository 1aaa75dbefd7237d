#include "app/core/jobs.hpp"

#include <algorithm>
#include <chrono>
#include <future>

#include "analysis/stale_reads.hpp"
#include "analysis/verdict.hpp"
#include "engine/reference.hpp"
#include "io/perf_report.hpp"
#include "io/trace_file.hpp"

namespace ts::app {

namespace {

constexpr size_t kStaleReadDetail = 512;  // stale reads the race panel lists (all are counted)

}  // namespace

std::unique_ptr<JobOutput> run_job(RunRequest req) {
  auto out = std::make_unique<JobOutput>();
  try {
    out->result = ts::run(req);
    out->ok = out->result.ok;
    out->error = out->result.error;
    out->source = "run";
    if (out->ok) {
      out->trace = std::make_shared<const Trace>(std::move(out->result.trace));
      out->result.trace = Trace{};
      // One definition of a stale read for the grid, --position stale and the race panel.
      out->replay = std::make_unique<Replay>(
          out->trace, std::make_shared<const StaleReadReport>(
                          find_stale_reads(*out->trace, req.inputs, kStaleReadDetail)));
      out->warp = build_warp_index(*out->trace);
    }
  } catch (const std::exception& e) {
    out->ok = false;
    out->error = std::string("the run failed: ") + e.what();
  }
  return out;
}

std::unique_ptr<JobOutput> load_job(std::string path) {
  auto out = std::make_unique<JobOutput>();
  out->source = path;
  try {
    std::string err;
    auto t = load_trace(path, &err);
    if (!t) {
      // The loader's message may name the file already ("a.tstrace: ..."): once is enough.
      out->error = "Cannot open " + (err.rfind(path + ": ", 0) == 0 ? err : path + ": " + err);
      return out;
    }
    out->result.verdict = verdict_of(*t).value_or(Verdict{});
    out->result.backend_note =
        std::string("trace file recorded on ") +
        (t->config.device_name.empty() ? to_string(t->config.backend) : t->config.device_name);
    out->trace = std::make_shared<const Trace>(std::move(*t));
    out->replay = std::make_unique<Replay>(
        out->trace, std::make_shared<const StaleReadReport>(
                        find_stale_reads(*out->trace, InputKind::SmallIntegers, kStaleReadDetail)));
    out->warp = build_warp_index(*out->trace);
    out->ok = true;
  } catch (const std::exception& e) {
    out->error = "Cannot open " + path + ": " + e.what();
  }
  return out;
}

void start_run(AppState& s, BudgetDialog& budget, bool scripted, uint64_t held) {
  s.run_requested = false;
  const LessonInfo* v = find_lesson(s.request.lesson_id);
  if (!v) {
    s.banner.show(Banner::Error, "Unknown lesson '" + s.request.lesson_id + "'");
    return;
  }
  const CudaStatus& gpu = cuda_status();
  const bool use_gpu = s.request.backend != BackendChoice::Sim && gpu.usable;
  const DeviceLimits lim = use_gpu ? gpu.limits() : simulator_model().limits();
  if (auto err = validate(*v, s.request.params, lim)) {
    s.param_error = *err;
    s.banner.show(Banner::Error, "Not run: " + *err);
    return;
  }
  if (s.job.active()) {
    s.banner.show(Banner::Info, "A run is still in progress; wait for it to finish.");
    return;
  }
  if (!budget.admit_run(s, scripted, held)) return;
  s.job.what = std::string(v->id);
  s.job.started = std::chrono::steady_clock::now();
  s.job.future = std::async(std::launch::async, run_job, s.request);
}

void start_load(AppState& s, BudgetDialog& budget, const std::string& path, bool scripted) {
  if (is_perf_report_path(path)) {  // from File > Open or a drop: the Performance panel reads it
    s.open_perf_report_request = path;
    return;
  }
  if (s.job.active()) {
    s.banner.show(Banner::Info, "Busy: wait for the current run to finish, then open the file.");
    return;
  }
  if (!budget.admit_file(s, path, scripted)) return;
  s.job.what = "loading " + path;
  s.job.started = std::chrono::steady_clock::now();
  s.job.future = std::async(std::launch::async, load_job, path);
}

void poll_job(AppState& s, bool wait) {
  if (!s.job.active()) return;
  if (!wait && s.job.future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  install(s, s.job.future.get());
}

void install(AppState& s, std::unique_ptr<JobOutput> out) {
  if (!out || !out->ok) {
    // The last good result stays on screen.
    s.banner.show(Banner::Error, out ? out->error : std::string("the run failed"));
    return;
  }
  s.result.trace = out->trace;
  s.result.verdict = out->result.verdict;
  std::sort(s.result.verdict.wrong_cells.begin(), s.result.verdict.wrong_cells.end());
  s.result.backend_note = out->result.backend_note;
  s.result.faults = out->result.faults;
  s.result.source = out->source;
  s.result.warp = out->warp ? out->warp : build_warp_index(*out->trace);
  ++s.result.generation;
  s.replay = std::move(out->replay);
  s.replay->set_order(s.replay_ui.order_request);
  s.replay->seek(0);
  s.replay_ui.playing = false;
  s.replay_ui.carry = 0;
  s.replay_ui.speed = std::max(20.0, double(s.replay->size()) / 60.0);
  if (s.selection.block >= s.replay->block_count()) s.selection.block = 0;
  s.selection.thread = -1;
  const Trace& t = *s.result.trace;
  if (t.truncated())
    s.banner.show(Banner::Warning,
                  "The trace was truncated: " + std::to_string(t.events_dropped) +
                      " events did not fit (needs " + std::to_string(t.events_needed()) +
                      "). The replay shows what was recorded; use smaller sizes to see all.");
  else if (out->source != "run")
    s.banner.show(Banner::Info, "Opened " + out->source + " (" + std::to_string(t.events.size()) +
                                    " events, " + t.config.lesson_id + ")");
  else if (!s.result.faults.empty())
    s.banner.show(Banner::Warning, s.result.faults.front());
  else if (s.lesson_file_failure)  // not dismissed yet: still the news
    s.banner.show(Banner::Error, lesson_file_banner(*s.lesson_file_failure));
  else
    s.banner.clear();
  // A trace from a file: the lesson panel follows it.
  if (out->source != "run" && find_lesson(t.config.lesson_id)) {
    s.request.lesson_id = t.config.lesson_id;
    s.request.params = t.config.params;
    s.request.barrier_mask = t.config.barrier_mask;
  }
}

std::string lesson_file_banner(const LessonFile& f) {
  return "Your lesson file did not compile or load (the Source panel shows it): " + f.error;
}

std::string suggested_trace_name(const Trace& t) {
  std::string name = t.config.lesson_id.empty() ? "trace" : t.config.lesson_id;
  if (const LessonInfo* v = find_lesson(t.config.lesson_id)) {
    for (const NamedParam& p : used_params(v->uses, t.config.params))
      name.append("_").append(p.name).append(std::to_string(p.value));
    std::string removed;
    for (const BarrierInfo& b : v->barriers)
      if (!t.config.barriers().keeps(b.id))
        removed.append(removed.empty() ? "" : "-").append(std::to_string(b.id));
    if (!removed.empty()) name.append("_without-barrier-").append(removed);
  }
  if (t.config.backend == BackendKind::Cuda) name += "_gpu";
  return name + kTraceFileExtension;
}

}  // namespace ts::app
