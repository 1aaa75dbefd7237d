// run(): picks the backend (the GPU when there is a usable one, else the CPU
// simulator, saying why in one line), prepares the request for it once
// (engine/prepare.hpp) and hands the prepared run to that backend.
#include "engine/backend.hpp"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <new>

#include "engine/lesson_child.hpp"
#include "engine/lesson_plugin_cuda.hpp"
#include "engine/prepare.hpp"
#include "engine/runtime_lessons.hpp"

namespace ts {
namespace {

RunResult refuse(std::string message) {
  RunResult r;
  r.error = std::move(message);
  return r;
}

// The machine that runs `req`, or why none can.
struct Choice {
  RunTarget target;
  std::string note;   // Auto fell back to the simulator: why
  std::string error;  // the backend asked for is not there
};

Choice choose_backend(const RunRequest& req) {
  // A simulator run never touches CUDA: probing the GPU creates its context.
  static const CudaStatus no_gpu;
  const CudaStatus& gpu = req.backend == BackendChoice::Sim ? no_gpu : cuda_status();
  Choice c;
  bool use_gpu = false;
  // A lesson file's plug-in holds the simulator's body, and the GPU's where
  // nvcc compiled it too (engine/lesson_plugin_cuda.hpp).
  const std::optional<size_t> index = lesson_index(req.lesson_id);
  const bool file = index && is_runtime_lesson(*index) && !runtime_cuda_ops(*index);
  switch (req.backend) {
    case BackendChoice::Cuda:
      if (file)
        c.error = req.lesson_id +
                  " is a lesson file compiled without nvcc: it runs on the simulator only; "
                  "choose the simulator (or auto), or compile it with nvcc where there is a GPU "
                  "(TILESCOPE_PLUGIN_CUDA=1)";
      else if (!gpu.usable)
        c.error =
            "the CUDA backend is not available: " + gpu.reason + "; choose the simulator (or auto)";
      use_gpu = true;
      break;
    case BackendChoice::Sim:
      break;  // the simulator's own note names its schedule
    case BackendChoice::Auto:
      use_gpu = gpu.usable && !file;
      if (file && gpu.usable)
        c.note = "CPU simulator: this lesson file was compiled without nvcc (simulator only)";
      else if (!use_gpu)
        c.note = "CPU simulator: " + gpu.reason;
      break;
  }
  c.target.backend = use_gpu ? BackendKind::Cuda : BackendKind::Simulator;
  c.target.limits = use_gpu ? gpu.limits() : simulator_model().limits();
  // The simulator records into this machine's memory, the GPU into its own.
  c.target.record_memory_bytes =
      use_gpu ? c.target.limits.global_memory_bytes : host_memory_bytes();
  return c;
}

RunResult run_checked(const RunRequest& req) {
  const Choice choice = choose_backend(req);
  if (!choice.error.empty()) return refuse(choice.error);
  PreparedRun run;
  if (auto e = prepare_run(req, choice.target, run)) return refuse(*e);
  const bool on_gpu = choice.target.backend == BackendKind::Cuda;
  RunResult r = on_gpu ? run_prepared_on_gpu(run) : run_prepared_on_simulator(run);
  if (!choice.note.empty())
    r.backend_note = choice.note;  // Auto fell back: say why
  else if (r.backend_note.empty())
    r.backend_note = on_gpu ? "GPU: " + cuda_status().device_name : std::string("CPU simulator");
  return r;
}

RunResult run_on(const RunRequest& req, BackendChoice backend) {
  RunRequest on = req;
  on.backend = backend;
  return run(on);
}

}  // namespace

uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page)
                               : DeviceLimits{}.global_memory_bytes;
}

std::optional<std::string> check_trace_capacity(uint64_t capacity, uint64_t memory_bytes) {
  // The recording buffer itself must fit: 40 bytes per event.
  const double mib = double(capacity) * sizeof(Event) / double(1 << 20);
  if (mib <= double(memory_bytes / 2) / double(1 << 20)) return std::nullopt;
  char text[160];
  std::snprintf(text, sizeof text,
                "a trace capacity of %llu events (%.0f MiB) is more than half of the %llu MiB of "
                "memory; ask for fewer events",
                (unsigned long long)capacity, mib, (unsigned long long)(memory_bytes >> 20));
  return std::string(text);
}

std::optional<std::string> check_run(const RunRequest& req) {
  const Choice choice = choose_backend(req);
  if (!choice.error.empty()) return choice.error;
  return check_request(req, choice.target);
}

RunResult run_cuda(const RunRequest& req) {
  return run_on(req, BackendChoice::Cuda);
}

RunResult run_simulator(const RunRequest& req) {
  return run_on(req, BackendChoice::Sim);
}

// The lesson file behind a lesson added at run time, "" for a built-in one.
static std::string lesson_file_of(const std::string& id) {
  const std::optional<size_t> at = lesson_index(id);
  if (!at || !is_runtime_lesson(*at)) return "";
  const char* path = all_lessons()[*at].source_file;
  return path ? path : "";
}

RunResult run(const RunRequest& req) {
  // A lesson file's code runs in the lesson child, never here (engine/lesson_child.hpp).
  if (!in_lesson_child())
    if (const std::string path = lesson_file_of(req.lesson_id); !path.empty()) {
      LessonChildResult child = run_lesson_file_in_child(path, {req}, {.compiled = true});
      RunResult r = std::move(child.runs.front());
      r.printed = std::move(child.output);
      return r;
    }
  try {
    return run_checked(req);
  } catch (const std::bad_alloc&) {
    return refuse("out of host memory while running " + req.lesson_id +
                  "; use smaller sizes or a smaller trace capacity");
  } catch (const std::exception& e) {
    return refuse(std::string("internal error while running ") + req.lesson_id + ": " + e.what());
  }
}

}  // namespace ts
