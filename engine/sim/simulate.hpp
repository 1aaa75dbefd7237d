// Simulates one kernel launch on the CPU: every block of the grid, one after
// another in row-major order (x fastest), each with its threads as fibers.
//
//   SimResult r = sim::simulate<lessons::matmul_tiled_square::Body<16>>(geometry, args, options);
//
// The launch runs on a fresh OS thread, so that the kernel's `__shared__`
// arrays (`static thread_local` on the host) start zeroed on every run: the
// same options give the same trace byte for byte, whatever ran before.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "engine/sim/sim_recorder.hpp"
#include "engine/sim/static_shared.hpp"
#include "lessons/kernel_args.hpp"
#include "model/trace.hpp"

namespace ts::sim {

struct SimOptions {
  Schedule schedule;
  BarrierSet barrier_mask;       // the barriers kept
  bool traced = true;            // false: run the kernel, store no events
  uint64_t capacity = 8u << 20;  // events
  uint64_t max_steps = 0;        // thread steps before the run is stopped as stuck (0: no limit)
  // Seconds a simulated thread may run without a recorded access before it is
  // stopped as stuck in a loop that touches no array (0: never).
  double stall_seconds = 5;
  uint64_t reserve = 0;  // events to reserve up front (an estimate; capped by capacity)
  const ArrayTable* arrays = nullptr;  // the run's arrays, to name them in fault messages
  // After the launch, find the kernel's shared memory no traced access
  // reached (a lesson file's: the grader's "traced" rule).
  bool find_untraced_shared = false;
};

struct SimResult {
  std::string error;  // empty when every block ran to the end
  std::vector<Event> events;
  uint64_t events_dropped = 0;
  std::vector<std::string> faults;
  uint64_t fault_count = 0;
  uint64_t steps = 0;                           // warp steps taken (the final clock)
  std::vector<UntracedShared> untraced_shared;  // with find_untraced_shared
};

// Runs one simulated thread of a kernel.
using ThreadFn = void (*)(SimRec& rec, const KernelArgs& args);

SimResult simulate_launch(const LaunchGeometry& geometry, const KernelArgs& args,
                          const SimOptions& options, ThreadFn thread_fn);

template <class Body>
void run_body(SimRec& rec, const KernelArgs& args) {
  Body::run(rec, args);
}

template <class Body>
SimResult simulate(const LaunchGeometry& geometry, const KernelArgs& args,
                   const SimOptions& options) {
  return simulate_launch(geometry, args, options, &run_body<Body>);
}

}  // namespace ts::sim
