// `run_simulator`: a catalogue variant on the CPU simulator, from the same
// kernel source the GPU runs, into the same Trace the GPU backend produces.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/catalogue.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/reference.hpp"
#include "sim/simulate.hpp"

namespace ts {
namespace {

// The simulator takes one fiber switch per recorded access (50-100 ns of CPU;
// 256 x 256 tiled, 42 M steps, took 2 s of CPU):
// beyond this many steps a run would take minutes, so it is refused.
constexpr uint64_t kMaxSimSteps = 256ull << 20;

RunResult simulate_variant(const RunRequest& req) {
  RunResult res;
  const Variant* v = find_variant(req.variant);
  if (!v) {
    res.error = "unknown variant '" + req.variant + "'; known variants: " + variant_ids();
    return res;
  }
  const Params& p = req.params;
  const DeviceLimits limits = simulator_model().limits();
  if (auto err = validate(*v, p, limits)) {
    res.error = *err;
    return res;
  }
  if (auto err = validate_barrier_mask(*v, req.barrier_mask)) {
    res.error = *err;
    return res;
  }
  if (req.schedule.kind == ScheduleKind::WarpSkew && req.schedule.skew_steps < 0) {
    res.error = "warp skew of " + std::to_string(req.schedule.skew_steps) +
                " steps: the skew must be 0 or more steps";
    return res;
  }
  const LaunchGeometry geo = geometry(*v, p);
  const uint64_t steps = expected_counts(*v, p).total();
  if (auto err = check_simulator_steps(*v, p)) {
    res.error = *err;
    return res;
  }

  // Inputs as the reference sees them; outputs start zeroed.
  const std::vector<BufferData> inputs = make_inputs(*v, p, req.inputs, req.input_seed);
  KernelArgs args = kernel_args(*v, p);
  std::vector<BufferData> buffers;
  std::vector<std::vector<float>> storage;  // the allocations the kernel sees
  for (const BufferShape& s : buffer_shapes(*v, p)) {
    BufferData d;
    d.id = s.id;
    d.rows = s.rows;
    d.cols = s.cols;
    d.is_output = s.is_output;
    const size_t count = size_t(s.rows) * size_t(s.cols);
    if (!s.is_output) {
      for (const BufferData& in : inputs)
        if (in.id == s.id) d.values = in.values;
      d.values.resize(count, 0.0f);
    }
    // Allocated like the GPU backend does (room past the end for the kernels
    // that overrun by design); the recorder still reports any index beyond
    // the array's extent and does not perform the access.
    std::vector<float> mem(std::max<uint64_t>(count, allocation_elements(*v, p, s.id)), 0.0f);
    std::copy(d.values.begin(), d.values.end(), mem.begin());
    storage.push_back(std::move(mem));
    buffers.push_back(std::move(d));
  }
  // kernel_args gives the extents; point the kernel at our allocations.
  for (size_t i = 0; i < buffers.size(); ++i)
    args.point_at(buffers[i].id, storage[i].data());

  sim::SimOptions opt;
  opt.schedule = req.schedule;
  opt.barrier_mask = req.barrier_mask;
  opt.traced = req.traced;
  opt.capacity = req.trace_capacity;
  opt.reserve = steps;
  // The closed form counts every step with all barriers; a kernel that takes
  // far more is stuck (spinning on memory no one writes), not slow.
  opt.max_steps = 4 * steps + (1u << 20);
  sim::SimResult sr;
  const bool found = visit_kernel(
      v->id, p.tile, [&](auto body) { sr = sim::simulate<decltype(body)>(geo, args, opt); });
  if (!found) {
    res.error = std::string("no kernel body for ") + v->id + " at tile " + std::to_string(p.tile);
    return res;
  }

  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].is_output) {
      const size_t count = size_t(buffers[i].rows) * size_t(buffers[i].cols);
      buffers[i].values.assign(storage[i].begin(), storage[i].begin() + count);
    }

  Trace& t = res.trace;
  t.config.variant = v->id;
  t.config.params = p;
  t.config.barrier_mask = req.barrier_mask;
  t.config.geometry = geo;
  t.config.backend = BackendKind::Simulator;
  t.config.device_name = "CPU simulator";
  t.config.schedule = req.schedule;
  t.config.skew_ns = 0;
  t.config.skew_warps = 0;
  t.config.input_seed = req.input_seed;
  t.events = std::move(sr.events);
  t.capacity = req.trace_capacity;
  t.events_dropped = sr.events_dropped;
  t.buffers = std::move(buffers);
  res.faults = std::move(sr.faults);
  res.backend_note = std::string("CPU simulator (") + to_string(req.schedule.kind) + " schedule)";
  if (!sr.error.empty()) {
    res.error = "simulator: " + sr.error;
    return res;
  }
  for (const BufferData& b : t.buffers)
    if (b.is_output) {
      res.verdict = check_output(*v, p, b, reference_output(*v, p, inputs));
      break;
    }
  res.ok = true;
  return res;
}

}  // namespace

std::optional<std::string> check_simulator_steps(const Variant& v, const Params& p) {
  const uint64_t steps = expected_counts(v, p).total();
  if (steps <= kMaxSimSteps) return std::nullopt;
  return "the simulator would take " + std::to_string(steps) + " steps for " + describe(v, p) +
         "; it allows at most " + std::to_string(kMaxSimSteps) +
         " (half a minute or more): use smaller sizes, or a GPU";
}

RunResult run_simulator(const RunRequest& req) {
  try {
    return simulate_variant(req);
  } catch (const std::bad_alloc&) {
    RunResult res;
    res.error = "the simulator ran out of memory for " + req.variant + ": use smaller sizes";
    return res;
  } catch (const std::exception& e) {
    RunResult res;
    res.error = std::string("the simulator failed: ") + e.what();
    return res;
  }
}

}  // namespace ts
