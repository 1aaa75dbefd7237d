// The one preparation step both backends share: find the lesson, validate the
// parameters and barriers once, make the inputs, lay out the global arrays
// (with the room allocation_elements asks for) and the kernel's extents; and,
// after the run, the trace's configuration and the verdict.
//
//   PreparedRun run;
//   if (auto err = prepare_run(req, limits, run)) { ... *err ... }
//   for (size_t i = 0; i < run.globals.size(); ++i) allocate run.allocation[i] elements,
//     copy run.globals[i].values in, run.args.data[run.globals[i].slot] = pointer;
//   ... launch ...;  run.globals[o].values = the output read back
//   trace.config = run_config(req, run, BackendKind::..., device);
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

struct PreparedRun {
  const Variant* lesson = nullptr;
  Params params;
  LaunchGeometry geometry;
  ArrayTable arrays;                 // every array, by slot
  std::vector<BufferData> globals;   // the global arrays in slot order: inputs, outputs zeroed
  std::vector<uint64_t> allocation;  // elements to allocate for each of `globals`
  KernelArgs args;                   // parameters and extents; the backend sets the pointers
  uint64_t expected_events = 0;      // closed form with every barrier kept
};

// nullopt when the run can go ahead on a device with these limits; else why not.
std::optional<std::string> prepare_run(const RunRequest& req, const DeviceLimits& limits,
                                       PreparedRun& run);
// What ran, for the trace (the backend fills device name, events and buffers).
RunConfig run_config(const RunRequest& req, const PreparedRun& run, BackendKind backend,
                     const std::string& device_name);
// The output in `run.globals` against the CPU reference of the inputs there.
Verdict run_verdict(const PreparedRun& run);

// BufferData holds every array as floats; the kernel sees its elements in
// their own type (a histogram's bins are unsigned). In place, 4-byte types:
// the values as the element type's bits before they are copied in, and the
// bits copied back as values.
void values_to_element_bits(ElemType type, float* values, size_t count);
void element_bits_to_values(ElemType type, float* values, size_t count);

}  // namespace ts
