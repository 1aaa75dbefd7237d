// `run_prepared_on_simulator`: a prepared run (engine/prepare.hpp) on the CPU
// simulator, from the same kernel source the GPU runs, into the same Trace the
// GPU backend produces.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_dispatch.hpp"
#include "engine/lesson_plugin.hpp"
#include "engine/prepare.hpp"
#include "engine/reference.hpp"
#include "engine/sim/simulate.hpp"
#include "engine/sim/static_shared.hpp"

namespace ts {
namespace {

// The simulator takes one fiber switch per recorded access (50-100 ns of CPU;
// 256 x 256 tiled, 42 M steps, took 2 s of CPU):
// beyond this many steps a run would take minutes, so it is refused.
constexpr uint64_t kMaxSimSteps = 256ull << 20;

RunResult simulate_prepared(PreparedRun& run) {
  RunResult res;
  const RunRequest& req = run.request;
  const LessonInfo& v = *run.lesson;

  // Allocated like the GPU backend does (room past the end for the kernels
  // that overrun by design); the recorder still reports any index beyond
  // the array's extent and does not perform the access.
  std::vector<std::vector<float>> storage;  // the allocations the kernel sees
  for (size_t i = 0; i < run.globals.size(); ++i) {
    std::vector<float> mem(run.allocation[i], 0.0f);
    std::copy(run.globals[i].values.begin(), run.globals[i].values.end(), mem.begin());
    values_to_element_bits(run.arrays[run.globals[i].slot - 1].type, mem.data(),
                           run.globals[i].values.size());
    run.args.data[run.globals[i].slot] = mem.data();
    storage.push_back(std::move(mem));
  }

  sim::SimOptions opt;
  opt.schedule = req.schedule;
  opt.barrier_mask = req.barrier_mask;
  opt.traced = req.traced;
  opt.capacity = req.trace_capacity;
  opt.reserve = run.expected_events;
  opt.arrays = &run.arrays;
  // The closed form counts every step with all barriers; a kernel that takes
  // far more is stuck (spinning on memory no one writes), not slow.
  // Every thread is resumed once to start, accesses or not.
  opt.max_steps =
      4 * run.expected_events + run.geometry.grid.count() * run.geometry.block.count() + (1u << 20);
  sim::SimResult sr;
  bool found = visit_lesson(run.index, run.params, [&](auto body) {
    sr = sim::simulate<decltype(body)>(run.geometry, run.args, opt);
  });
  // A lesson file's body was instantiated in its plug-in (engine/lesson_plugin.hpp).
  if (const sim::ThreadFn fn = found ? nullptr : runtime_sim_body(run.index, run.params)) {
    opt.find_untraced_shared = true;
    sr = sim::simulate_launch(run.geometry, run.args, opt, fn);
    found = true;
  }
  if (!found) {
    res.error =
        std::string("no kernel body for ") + v.id + " at tile " + std::to_string(run.params.tile);
    return res;
  }

  for (size_t i = 0; i < run.globals.size(); ++i)
    if (run.globals[i].is_output) {
      std::copy_n(storage[i].begin(), run.globals[i].values.size(), run.globals[i].values.begin());
      element_bits_to_values(run.arrays[run.globals[i].slot - 1].type, run.globals[i].values.data(),
                             run.globals[i].values.size());
    }

  Trace& t = res.trace;
  t.config = run_config(run, "CPU simulator");
  t.config.schedule = req.schedule;
  t.events = std::move(sr.events);
  t.capacity = req.trace_capacity;
  t.events_dropped = sr.events_dropped;
  t.buffers = run.globals;
  res.faults = std::move(sr.faults);
  res.untraced_shared = std::move(sr.untraced_shared);
  res.backend_note = std::string("CPU simulator (") + to_string(req.schedule.kind) + " schedule)";
  if (!sr.error.empty()) {
    res.error = "simulator: " + sr.error;
    return res;
  }
  res.verdict = run_verdict(run);
  res.ok = true;
  return res;
}

using BodyPicker = sim::ThreadFn (*)(const Params&);
struct RuntimeBodies {
  std::mutex mutex;
  std::map<size_t, BodyPicker> by_index;
};
RuntimeBodies& runtime_bodies() {
  static RuntimeBodies bodies;
  return bodies;
}

}  // namespace

void set_runtime_sim_body(size_t lesson_index, BodyPicker body) {
  RuntimeBodies& b = runtime_bodies();
  const std::lock_guard<std::mutex> lock(b.mutex);
  b.by_index[lesson_index] = body;
}

sim::ThreadFn runtime_sim_body(size_t lesson_index, const Params& p) {
  RuntimeBodies& b = runtime_bodies();
  BodyPicker pick = nullptr;
  {
    const std::lock_guard<std::mutex> lock(b.mutex);
    const auto it = b.by_index.find(lesson_index);
    if (it != b.by_index.end()) pick = it->second;
  }
  return pick ? pick(p) : nullptr;
}

std::optional<std::string> check_simulator_steps(const LessonInfo& v, const Params& p) {
  // A step per access, and one per thread to start it (a grid of 2^31 blocks
  // that makes no access is still 2^31 steps).
  const uint64_t events = expected_counts(v, p).total();
  const LaunchGeometry g = geometry(v, p);
  uint64_t threads = 0, steps = 0;
  if (__builtin_mul_overflow(g.grid.count(), g.block.count(), &threads) ||
      __builtin_add_overflow(events, threads, &steps))
    threads = steps = UINT64_MAX;
  if (steps <= kMaxSimSteps) return std::nullopt;
  return "the simulator would take " + std::to_string(steps) + " steps for " + describe(v, p) +
         " (" + std::to_string(threads) + " threads, " + std::to_string(events) +
         " accesses and barriers): too many steps for the simulator, which allows at most " +
         std::to_string(kMaxSimSteps) + " (half a minute or more): use smaller sizes, or a GPU";
}

uint64_t simulator_static_shared(size_t lesson_index, const Params& p) {
  const sim::ThreadFn fn = runtime_sim_body(lesson_index, p);
  if (!fn) return 0;
  const sim::StaticShared s = sim::static_shared_of(reinterpret_cast<const void*>(fn));
  return s.known ? s.bytes : 0;
}

std::optional<std::string> check_simulator_shared(size_t lesson_index, const Params& p,
                                                  const DeviceLimits& lim) {
  const sim::ThreadFn fn = runtime_sim_body(lesson_index, p);
  if (!fn) return std::nullopt;
  const sim::StaticShared s = sim::static_shared_of(reinterpret_cast<const void*>(fn));
  const LessonInfo& v = all_lessons()[lesson_index];
  const LaunchGeometry g = geometry(v, p);
  const uint64_t total =
      std::max<uint64_t>(s.bytes, g.static_shared_bytes) + g.dynamic_shared_bytes;
  if (!s.known || total <= uint64_t(lim.max_shared_per_block)) return std::nullopt;
  return std::string(v.id) + "'s __shared__ arrays take " + std::to_string(s.bytes) +
         " bytes per block (the largest, " + s.largest + ", " + std::to_string(s.largest_bytes) +
         " bytes)" +
         (g.dynamic_shared_bytes
              ? " and its dynamic shared memory " + std::to_string(g.dynamic_shared_bytes)
              : std::string()) +
         ", over the " + std::to_string(lim.max_shared_per_block) +
         " bytes of shared memory per block this device allows (its opt-in limit); its "
         "descriptor declares " +
         std::to_string(g.static_shared_bytes) + " bytes: make the arrays smaller";
}

RunResult run_prepared_on_simulator(PreparedRun& run) {
  try {
    return simulate_prepared(run);
  } catch (const std::bad_alloc&) {
    RunResult res;
    res.error = std::string("the simulator ran out of memory for ") + run.lesson->id +
                ": use smaller sizes";
    return res;
  } catch (const std::exception& e) {
    RunResult res;
    res.error = std::string("the simulator failed: ") + e.what();
    return res;
  }
}

}  // namespace ts
