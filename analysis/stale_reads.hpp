// What a race actually did in one run: loads that saw another value than the
// synchronised program would have seen, and output cells that came out wrong.
//
// The synchronised program is the same kernel, parameters and inputs on the
// simulator in lockstep with every barrier kept. Each load of the run is
// matched with the load at the same position in the same thread's program
// order (block, thread, n-th load) of that reference; the kernels' control
// flow does not depend on loaded values, so the positions line up.
//
//   Trace ref = reference_trace(run.trace, &err);           // simulator, lockstep, all barriers
//   StaleReadReport s = find_stale_reads(run.trace, ref);
//   OutputDamage d = output_damage(run.trace);              // against the CPU reference
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/reference.hpp"
#include "model/trace.hpp"

namespace ts {

struct StaleRead {
  uint64_t event = 0;            // index into the run's events
  uint64_t reference_event = 0;  // index into the reference's events
  uint32_t block = 0;
  uint16_t thread = 0, warp = 0, line = 0;
  ArraySlot buffer = kNoArray;
  uint32_t element = 0;
  float got = 0;       // what the load saw in this run
  float expected = 0;  // what it saw in the synchronised program
};

struct StaleLineCount {
  uint16_t line = 0;
  ArraySlot buffer = kNoArray;
  uint64_t count = 0;
};

struct StaleReadReport {
  bool compared = false;
  std::string error;            // why nothing was compared (truncated trace, other config, ...)
  uint64_t loads_compared = 0;  // loads matched by position
  uint64_t stale = 0;           // of those, loads that saw another value
  uint64_t stale_shared = 0, stale_global = 0;
  // Loads that touched another element than the reference's load at that
  // position, or had no counterpart (control flow differed): not compared.
  uint64_t unmatched = 0;
  std::vector<StaleRead> reads;         // the first `cap` stale reads, in event order
  std::vector<uint32_t> stale_events;   // every stale read (not capped): run event indices, sorted
  std::vector<StaleLineCount> by_line;  // per source line of the load, most first
};

// Compares two traces of the same configuration (lesson, parameters, inputs).
StaleReadReport find_stale_reads(const Trace& run, const Trace& reference, size_t cap = 4096);

// The synchronised reference of a run: the simulator, lockstep, all barriers,
// same lesson, parameters and input seed. nullopt (and *error) when it
// cannot be made, e.g. the trace would not fit.
std::optional<Trace> reference_trace(const Trace& run, InputKind inputs = InputKind::SmallIntegers,
                                     std::string* error = nullptr);

// Convenience: makes the reference, then compares. A run that is its own
// reference (simulator, lockstep, every barrier kept) is compared with itself
// without running it again.
StaleReadReport find_stale_reads(const Trace& run, InputKind inputs = InputKind::SmallIntegers,
                                 size_t cap = 4096);

// One output cell that came out wrong.
struct WrongCell {
  uint32_t index = 0;  // linear, row-major
  int row = 0, col = 0;
  float got = 0, want = 0;
  double abs_error = 0;
};

struct OutputDamage {
  bool checked = false;
  std::string error;
  uint64_t cells = 0;  // output cells
  double max_abs_error = 0;
  double tolerance = 0;
  std::vector<WrongCell> wrong;  // every wrong cell, largest error first
};

// The run's output against the CPU reference computed from the run's own inputs.
OutputDamage output_damage(const Trace& run);

}  // namespace ts
