// run(): checks the request, picks the backend (the GPU when there is a usable
// one, else the CPU simulator, saying why in one line) and runs it.
#include "engine/backend.hpp"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <new>

namespace ts {
namespace {

RunResult refuse(std::string message) {
  RunResult r;
  r.error = std::move(message);
  return r;
}

RunResult run_checked(const RunRequest& req) {
  const Variant* v = find_variant(req.variant);
  if (!v)
    return refuse("unknown variant '" + req.variant + "'; the catalogue has: " + variant_ids());
  if (auto e = validate_barrier_mask(*v, req.barrier_mask)) return refuse(*e);
  if (req.skew_ns < 0 || req.skew_ns > 1'000'000)
    return refuse("skew " + std::to_string(req.skew_ns) +
                  " ns: the warp stall must be from 0 to 1000000 ns (1 ms)");

  const CudaStatus& gpu = cuda_status();
  bool use_gpu = false;
  std::string note;
  switch (req.backend) {
    case BackendChoice::Cuda:
      if (!gpu.usable)
        return refuse("the CUDA backend is not available: " + gpu.reason +
                      "; choose the simulator (or auto)");
      use_gpu = true;
      break;
    case BackendChoice::Sim:
      break;  // the simulator's own note names its schedule
    case BackendChoice::Auto:
      use_gpu = gpu.usable;
      if (!use_gpu) note = "CPU simulator: " + gpu.reason;
      break;
  }

  // Parameters against the limits of the machine that will run them.
  const DeviceLimits lim = use_gpu ? gpu.limits() : simulator_model().limits();
  if (auto e = validate(*v, req.params, lim)) return refuse(*e);
  if (req.traced)  // the simulator records into this machine's memory, the GPU into its own
    if (auto e = check_trace_capacity(req.trace_capacity,
                                      use_gpu ? lim.global_memory_bytes : host_memory_bytes()))
      return refuse(*e);

  RunResult r = use_gpu ? run_cuda(req) : run_simulator(req);
  if (!note.empty())
    r.backend_note = note;  // Auto fell back: say why
  else if (r.backend_note.empty())
    r.backend_note = use_gpu ? "GPU: " + gpu.device_name : std::string("CPU simulator");
  return r;
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

RunResult run(const RunRequest& req) {
  try {
    return run_checked(req);
  } catch (const std::bad_alloc&) {
    return refuse("out of host memory while running " + req.variant +
                  "; use smaller sizes or a smaller trace capacity");
  } catch (const std::exception& e) {
    return refuse(std::string("internal error while running ") + req.variant + ": " + e.what());
  }
}

}  // namespace ts
