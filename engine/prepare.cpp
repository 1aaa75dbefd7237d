// The preparation both backends share (engine/prepare.hpp).
#include "engine/prepare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ts {

std::optional<std::string> check_request(const RunRequest& req, const RunTarget& target,
                                         size_t* index) {
  const std::optional<size_t> at = lesson_index(req.lesson_id);
  if (!at) return unknown_lesson(req.lesson_id);
  const LessonInfo& v = all_lessons()[*at];
  if (auto e = validate_barrier_mask(v, req.barrier_mask)) return e;
  if (req.skew_ns < 0 || req.skew_ns > 1'000'000)
    return "skew " + std::to_string(req.skew_ns) +
           " ns: the warp stall must be from 0 to 1000000 ns (1 ms)";
  const bool simulator = target.backend == BackendKind::Simulator;
  if (simulator && req.schedule.kind == ScheduleKind::WarpSkew && req.schedule.skew_steps < 0)
    return "warp skew of " + std::to_string(req.schedule.skew_steps) +
           " steps: the skew must be 0 or more steps";
  // Parameters against the limits of the machine that will run them.
  if (auto e = validate(v, req.params, target.limits)) return e;
  if (simulator) {
    if (auto e = check_simulator_steps(v, req.params)) return e;
    if (auto e = check_simulator_shared(*at, req.params, target.limits)) return e;
  }
  if (req.traced)
    if (auto e = check_trace_capacity(req.trace_capacity, target.record_memory_bytes)) return e;
  if (index) *index = *at;
  return std::nullopt;
}

std::optional<std::string> prepare_run(const RunRequest& req, const RunTarget& target,
                                       PreparedRun& run) {
  run = PreparedRun{};
  if (auto e = check_request(req, target, &run.index)) return e;
  const LessonInfo* v = &all_lessons()[run.index];
  const Params& p = req.params;

  run.request = req;
  run.target = target;
  run.lesson = v;
  run.params = p;
  run.geometry = geometry(*v, p);
  // What the simulator allocates for a lesson file's __shared__ arrays, where
  // its descriptor says less (reported with the run, checked above).
  if (target.backend == BackendKind::Simulator)
    run.geometry.static_shared_bytes = uint32_t(std::max<uint64_t>(
        run.geometry.static_shared_bytes, simulator_static_shared(run.index, p)));
  run.arrays = arrays(*v, p);
  run.args = kernel_args(*v, p);
  run.expected_events = expected_counts(*v, p).total();
  const std::vector<BufferData> inputs = make_inputs(*v, p, req.inputs, req.input_seed);
  for (size_t i = 0; i < run.arrays.size(); ++i) {
    const ArrayInfo& a = run.arrays[i];
    if (a.shared()) continue;
    BufferData d;
    d.slot = ArraySlot(i + 1);
    d.rows = a.rows;
    d.cols = a.cols;
    d.is_output = a.output();
    for (const BufferData& in : inputs)
      if (in.slot == d.slot) d.values = in.values;
    d.values.resize(a.count(), 0.0f);
    run.allocation.push_back(
        std::max<uint64_t>(a.count(), allocation_elements(*v, p, run.arrays, d.slot)));
    run.globals.push_back(std::move(d));
  }
  return std::nullopt;
}

RunConfig run_config(const PreparedRun& run, const std::string& device_name) {
  RunConfig c;
  c.lesson_id = run.lesson->id;
  c.params = run.params;
  c.barrier_mask = run.request.barrier_mask;
  c.geometry = run.geometry;
  c.backend = run.target.backend;
  c.device_name = device_name;
  c.input_seed = run.request.input_seed;
  c.arrays = run.arrays;
  return c;
}

Verdict run_verdict(const PreparedRun& run) {
  std::vector<BufferData> inputs;
  const BufferData* output = nullptr;
  for (const BufferData& b : run.globals)
    if (b.is_output) {
      if (!output) output = &b;
    } else {
      inputs.push_back(b);
    }
  if (!output) return {};
  return check_output(*run.lesson, run.params, *output,
                      reference_output(*run.lesson, run.params, inputs));
}

void values_to_element_bits(ElemType type, float* values, size_t count) {
  if (type == ElemType::F32) return;
  if (type == ElemType::U8) {
    // Packed at the front: byte i lies in values[i / 4], read before (i >= 1) or as it is written.
    auto* bytes = reinterpret_cast<unsigned char*>(values);
    for (size_t i = 0; i < count; ++i) {
      const float v = std::isfinite(values[i]) ? values[i] : 0.0f;
      bytes[i] = v <= 0.0f ? 0 : v >= 255.0f ? 255 : static_cast<unsigned char>(v);
    }
    std::memset(bytes + count, 0, count * 3);  // what the kernel may read past them is 0
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const float v = std::isfinite(values[i]) ? values[i] : 0.0f;
    uint32_t bits = 0;
    if (type == ElemType::U32)
      bits = v <= 0.0f ? 0u : v >= 4294967040.0f ? UINT32_MAX : uint32_t(v);
    else
      bits = uint32_t(v <= -2147483648.0f  ? INT32_MIN
                      : v >= 2147483520.0f ? INT32_MAX
                                           : int32_t(v));
    std::memcpy(&values[i], &bits, 4);
  }
}

void element_bits_to_values(ElemType type, float* values, size_t count) {
  if (type == ElemType::F32) return;
  if (type == ElemType::U8) {
    // Backwards: values[i] covers bytes 4i .. 4i + 3, all past byte i when i >= 1.
    const auto* bytes = reinterpret_cast<const unsigned char*>(values);
    for (size_t i = count; i-- > 0;)
      values[i] = float(bytes[i]);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], 4);
    values[i] = type == ElemType::U32 ? float(bits) : float(int32_t(bits));
  }
}

}  // namespace ts
