// The one preparation step of a run: find the lesson (once, through the
// catalogue's index), check the request once (parameters, barriers, skew,
// schedule, the trace's memory, the simulator's step limit) against the
// machine that will run it, make the inputs, lay out the global arrays (with
// the room allocation_elements asks for) and the kernel's extents; and, after
// the run, the trace's configuration and the verdict. The backends take only
// a prepared run: they neither look the lesson up nor check it again.
//
//   PreparedRun run;
//   if (auto err = prepare_run(req, target, run)) { ... *err ... }
//   for (size_t i = 0; i < run.globals.size(); ++i) allocate run.allocation[i] elements,
//     copy run.globals[i].values in, run.args.data[run.globals[i].slot] = pointer;
//   ... visit_lesson(run.index, ...) launch ...;  run.globals[o].values = the output read back
//   trace.config = run_config(run, BackendKind::..., device);
//   verdict = run_verdict(run);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/reference.hpp"
#include "model/trace.hpp"

namespace ts {

// The machine a request is checked and prepared for.
struct RunTarget {
  BackendKind backend = BackendKind::Simulator;
  DeviceLimits limits;
  // Where a traced run records: this machine's memory (simulator) or the GPU's.
  uint64_t record_memory_bytes = 0;
};

struct PreparedRun {
  RunRequest request;  // as asked, checked
  RunTarget target;
  size_t index = 0;  // the lesson's place in all_lessons() and in the dispatch table
  const LessonInfo* lesson = nullptr;
  Params params;
  LaunchGeometry geometry;
  ArrayTable arrays;                 // every array, by slot
  std::vector<BufferData> globals;   // the global arrays in slot order: inputs, outputs zeroed
  std::vector<uint64_t> allocation;  // elements to allocate for each of `globals`
  KernelArgs args;                   // parameters and extents; the backend sets the pointers
  uint64_t expected_events = 0;      // closed form with every barrier kept
};

// Every check of a request, in one place: nullopt when it can run on `target`,
// else why not, in words the user can act on. `index` is the lesson's catalogue
// index when it is known.
std::optional<std::string> check_request(const RunRequest& req, const RunTarget& target,
                                         size_t* index = nullptr);
// check_request, then the inputs, arrays and kernel arguments: nullopt and
// `run` filled when the run can go ahead; else why not.
std::optional<std::string> prepare_run(const RunRequest& req, const RunTarget& target,
                                       PreparedRun& run);
// What ran, for the trace (the backend fills device name, events and buffers).
RunConfig run_config(const PreparedRun& run, const std::string& device_name);
// The two backends: run a prepared run (engine/sim/sim_backend.cpp,
// engine/cuda/cuda_backend.cu or its stub).
RunResult run_prepared_on_simulator(PreparedRun& run);
RunResult run_prepared_on_gpu(PreparedRun& run);

// The output in `run.globals` against the CPU reference of the inputs there.
Verdict run_verdict(const PreparedRun& run);

// BufferData holds every array as floats; the kernel sees its elements in
// their own type (a histogram's bins are unsigned). In place: the values as
// the element type's bits before they are copied in, and the bits copied back
// as values. A byte array (U8) is packed: its `count` bytes at the front of
// the buffer, each value clamped to 0..255.
void values_to_element_bits(ElemType type, float* values, size_t count);
void element_bits_to_values(ElemType type, float* values, size_t count);

}  // namespace ts
