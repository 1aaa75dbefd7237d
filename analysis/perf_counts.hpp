// Access counts from a trace, from either backend: how many times the kernel
// went to global memory per output element, against what the textbook says.
// The part of the performance lesson that needs no GPU.
#pragma once

#include <cstdint>
#include <string>

#include "engine/catalogue.hpp"
#include "engine/perf.hpp"
#include "model/trace.hpp"

namespace ts {

struct AccessCounts {
  std::string kernel;
  Params params;
  uint64_t outputs = 0;  // elements of the output
  uint64_t global_loads = 0, global_stores = 0;
  uint64_t global_loads_per_buffer[kMaxArrays + 1] = {};  // by array slot
  uint64_t shared_loads = 0, shared_stores = 0;
  uint64_t barrier_arrivals = 0;
  uint64_t bytes_moved = 0;      // global loads and stores, 4 bytes each
  double compulsory_bytes = 0;   // every input once, every output once
  double flops = 0;              // of the whole run
  double loads_per_output = 0;   // global loads / output elements
  double theory_per_output = 0;  // 2N naive, 2 ceil(N/T) tiled, 2R+1 naive stencil, ...
  std::string theory_formula;    // "2*ceil(N/T) = 2*ceil(10/4) = 6"
  // flops / bytes_moved: where the run sits on the roofline (0 without flops or bytes).
  double issued_intensity() const { return bytes_moved ? flops / double(bytes_moved) : 0.0; }
  ExpectedCounts expected;  // the catalogue's closed form
  bool truncated = false;   // the trace lost events: counts are lower bounds
};
// Built on analysis/counters.hpp's count_accesses (the same counts the grid's
// heatmap uses), plus the textbook's formula.
AccessCounts perf_access_counts(const Trace& t);
// The global loads per output element the lesson makes, as a formula of its
// parameters with the numbers filled in ("2*ceil(N/T) = 2*ceil(10/4) = 6"):
// exact for every size, also where the tile does not divide it.
double theory_loads_per_output(const LessonInfo& v, const Params& p,
                               std::string* formula = nullptr);

}  // namespace ts
