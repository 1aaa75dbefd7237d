#include "app/core/jobs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <mutex>
#include <set>

#include "analysis/stale_reads.hpp"
#include "analysis/verdict.hpp"
#include "engine/reference.hpp"
#include "engine/runtime_lessons.hpp"
#include "io/perf_report.hpp"
#include "io/trace_file.hpp"

namespace ts::app {

namespace {

constexpr size_t kStaleReadDetail = 512;  // stale reads the race panel lists (all are counted)

}  // namespace

std::unique_ptr<JobOutput> run_job(RunRequest req, std::string lesson_file) {
  auto out = std::make_unique<JobOutput>();
  out->source = "run";
  try {
    if (!lesson_file.empty()) {
      // The file's code runs in the lesson child (engine/lesson_child.hpp): a
      // kernel that exits, faults or never returns ends the child, not the window.
      const LessonChildResult c = run_lesson_file_in_child(lesson_file, {req});
      if (!c.failure.empty() || !c.file.ok) {
        const LessonCheck check = lesson_check_of(lesson_file, c);
        out->error = check.file.error;
        out->lesson_file_failure = check.file;
        return out;
      }
      out->result = c.runs.front();
    } else {
      out->result = ts::run(req);
    }
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
  // A lesson file's kernel runs in a child process first (a crash there leaves the window).
  const std::optional<size_t> index = lesson_index(v->id);
  const std::string file = index && is_runtime_lesson(*index) ? std::string(v->source_file) : "";
  s.job.future = std::async(std::launch::async, run_job, s.request, file);
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
  LessonFileWatch& w = s.lesson_watch;
  const bool rerun = w.awaiting_run && out && out->source == "run";
  if (rerun) {
    w.awaiting_run = false;
    ++w.reloads;
    w.last_reload_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - w.saved).count();
  }
  if (!out || !out->ok) {
    // The last good result stays on screen.
    if (out && out->lesson_file_failure) {  // the Source panel shows where it crashed
      show_lesson_file_failure(s, *out->lesson_file_failure);
      return;
    }
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
  if (rerun) restore_position(s);  // the selected block's phase, on the new trace
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
  if (rerun && s.banner.text.empty()) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", w.last_reload_seconds);
    s.banner.show(Banner::Info, "Reloaded " + std::filesystem::path(w.path).filename().string() +
                                    ": compiled and run again, " + secs + " s after the save");
  }
  // A trace from a file: the lesson panel follows it.
  if (out->source != "run" && find_lesson(t.config.lesson_id)) {
    s.request.lesson_id = t.config.lesson_id;
    s.request.params = t.config.params;
    s.request.barrier_mask = t.config.barrier_mask;
  }
}

void show_lesson_file_failure(AppState& s, const LessonFile& f) {
  s.lesson_file_failure = f;
  s.select_tab = "Source";
  if (s.present.focus_auto) s.present.focus_grid = false;  // the app hid the panels: show them
  // The Source panel gets most of its column: the file's lines and the messages under them.
  s.layout.right_top = std::min(s.layout.right_top, 0.3f);
  s.banner.show(Banner::Error, lesson_file_banner(f));
}

std::string lesson_file_error(const LessonFile& f) {
  std::string error = f.error;
  const std::string name = std::filesystem::path(f.path).filename().string();
  if (!name.empty() && f.path.find('/') != std::string::npos)
    for (size_t at; (at = error.find(f.path)) != std::string::npos;)
      error.replace(at, f.path.size(), name);
  return error;
}

std::string lesson_file_banner(const LessonFile& f) {
  const std::string error = lesson_file_error(f);
  if (!f.compiler_output.empty())
    return "Your lesson file did not compile (the Source panel shows it at its line): " + error;
  return "Your lesson file did not load or run (the Source panel shows it): " + error;
}

// ---- lesson files: watched, compiled again, rerun -----------------------------

namespace {

// The file's modification time (ns) and size; false when it cannot be read.
bool file_stamp(const std::string& path, int64_t* stamp, uint64_t* size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *stamp = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  *size = uint64_t(st.st_size);
  return true;
}

// The start of `phase` (0: the first) for `block`: as the transport's phase step.
uint64_t phase_start(const Replay& r, int phase, uint32_t block) {
  uint64_t pos = 0;
  for (int i = 0; i < phase; ++i) {
    const uint64_t next = r.phase_step(pos, true, block);
    if (next <= pos) return pos;
    pos = next;
  }
  return pos;
}

// Where the window is, to come back to after the rerun (the same lesson only).
void keep_position(AppState& s, const std::string& lesson_id) {
  LessonFileWatch& w = s.lesson_watch;
  w.keep_phase = -1;
  if (!s.replay || s.trace().config.lesson_id != lesson_id) return;
  const Replay& r = *s.replay;
  w.keep_end = r.position() >= r.size();
  w.keep_phase = std::max(0, r.current_phase(s.selection.block));
  const uint64_t start = phase_start(r, w.keep_phase, s.selection.block);
  w.keep_offset = r.position() > start ? r.position() - start : 0;
}

void lesson_watch_failed(AppState& s, const LessonFile& f) {
  LessonFileWatch& w = s.lesson_watch;
  show_lesson_file_failure(s, f);
  ++w.reloads;
  w.last_reload_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - w.saved).count();
}

// The child compiled it (or said why not): load the plug-in it left in the
// cache, make the lesson the window's, and ask for the rerun.
void finish_check(AppState& s, const LessonCheck& c) {
  LessonFileWatch& w = s.lesson_watch;
  if (c.crashed || !c.file.ok) return lesson_watch_failed(s, c.file);
  const LessonInfo* before = find_lesson(s.request.lesson_id);
  const int old_barriers = before ? int(before->barriers.size()) : 0;
  const LessonFile f = load_lesson_file(w.path, true);  // milliseconds: from the cache
  if (f.not_cached) {  // saved again while it compiled: compile again
    w.seen_stamp = -1;
    return;
  }
  if (!f.ok) return lesson_watch_failed(s, f);
  if (s.lesson_file_failure) {
    if (s.banner.text == lesson_file_banner(*s.lesson_file_failure)) s.banner.clear();
    s.lesson_file_failure.reset();
  }
  const LessonInfo* v = find_lesson(f.lesson_id);
  if (!v) return lesson_watch_failed(s, f);
  // The same lesson keeps its parameters and barriers where they still fit.
  const DeviceLimits lim = s.request.backend != BackendChoice::Sim && cuda_status().usable
                               ? cuda_status().limits()
                               : simulator_model().limits();
  if (s.request.lesson_id != f.lesson_id || validate(*v, s.request.params, lim)) {
    s.request.lesson_id = f.lesson_id;
    s.request.params = v->defaults;
    s.request.barrier_mask = all_barriers(*v);
  } else {
    // A barrier the student added in the editor is on; one removed is gone;
    // those that stayed keep their toggle.
    const uint32_t added = all_barriers(*v) & ~BarrierSet::first(old_barriers).mask();
    s.request.barrier_mask = (s.request.barrier_mask.mask() | added) & all_barriers(*v);
  }
  s.param_error.clear();
  keep_position(s, f.lesson_id);
  w.rerun_pending = true;
}

}  // namespace

void restore_position(AppState& s) {
  LessonFileWatch& w = s.lesson_watch;
  if (w.keep_phase < 0 || !s.replay) return;
  Replay& r = *s.replay;
  if (w.keep_end) {
    r.seek(r.size());
  } else {
    // The same phase and as many events into it where the new trace has
    // them; else as far as it goes (the phase's end, the trace's end).
    const uint64_t start = phase_start(r, w.keep_phase, s.selection.block);
    const uint64_t next = r.phase_step(start, true, s.selection.block);
    const uint64_t end = next > start ? next : r.size();
    r.seek(std::min(start + w.keep_offset, end));
  }
  w.keep_phase = -1;
}

bool is_lesson_file_path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".hpp" || ext == ".h" || ext == ".cuh" || ext == ".cu";  // .cu: plain CUDA
}

void open_lesson_file(AppState& s, const std::string& path) {
  s.lesson_watch.open_request = path;
}

void watch_lesson_file(AppState& s, const std::string& path) {
  LessonFileWatch& w = s.lesson_watch;
  std::error_code ec;
  w.path = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (!file_stamp(w.path, &w.seen_stamp, &w.seen_size)) w.seen_stamp = -1;
  remember_lesson_file(s, w.path);
}

void remember_lesson_file(AppState& s, const std::string& path) {
  std::vector<std::string>& r = s.lesson_watch.recent;
  r.erase(std::remove(r.begin(), r.end(), path), r.end());
  r.insert(r.begin(), path);
  if (r.size() > kRecentLessonFiles) r.resize(kRecentLessonFiles);
}

void update_lesson_watch(AppState& s, BudgetDialog& budget, bool scripted, double now) {
  LessonFileWatch& w = s.lesson_watch;
  if (!w.open_request.empty() && !w.compiling() && !w.rerun_pending && !w.awaiting_run) {
    std::error_code ec;
    w.path = std::filesystem::absolute(w.open_request, ec).lexically_normal().string();
    w.open_request.clear();
    remember_lesson_file(s, w.path);
    w.seen_stamp = -1;  // compile it now
    w.changed_stamp = -1;
    w.saved = std::chrono::steady_clock::now();
    w.polled_at = -1;
  }
  if (w.path.empty()) return;
  // The registry changes only between runs (engine/runtime_lessons.hpp).
  if (w.compiling() && !s.job.active() &&
      w.check.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    const LessonCheck c = w.check.get();
    finish_check(s, c);
  }
  if (w.rerun_pending && !s.job.active()) {
    w.rerun_pending = false;
    start_run(s, budget, scripted);
    if (s.job.active())
      w.awaiting_run = true;
    else
      ++w.reloads;  // refused (the banner says why)
  }
  if (w.compiling() || w.rerun_pending) return;
  // A save: the file's time or size changes. It is compiled once it has been
  // still for a moment (editors write in steps), four looks a second.
  if (now - w.polled_at >= 0.25 || w.polled_at < 0) {
    w.polled_at = now;
    int64_t stamp = -1;
    uint64_t size = 0;
    if (file_stamp(w.path, &stamp, &size) && (stamp != w.seen_stamp || size != w.seen_size) &&
        stamp != w.changed_stamp) {
      if (w.seen_stamp >= 0) w.saved = std::chrono::steady_clock::now();
      w.changed_stamp = stamp;
      w.changed_at = now;
    }
  }
  if (w.changed_stamp >= 0 && now - w.changed_at >= 0.1) {
    if (!file_stamp(w.path, &w.seen_stamp, &w.seen_size)) return;
    w.changed_stamp = -1;
    w.check = std::async(std::launch::async,
                         [path = w.path] { return check_lesson_file_in_child(path, nullptr); });
  }
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
