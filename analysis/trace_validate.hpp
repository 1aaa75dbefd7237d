// Does a trace describe a run this build could have recorded? The file loader
// checks the bytes (sizes, enums, checksum); this checks the meaning: a known
// lesson, parameters inside the catalogue's limits, the geometry and arrays
// those parameters give, and every event inside them. parse_trace and
// load_trace call it, so the CLI, the window and every analysis only ever see
// traces that pass: a hand-edited file or a buggy writer gets a message that
// names the field, its value and what is allowed, never a crash or a hang.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/trace.hpp"

namespace ts {

// What the consumers (replay, decode, the views) may be asked to hold: cells
// of every array, the shared ones once per block, and threads of the launch.
// Far beyond any lesson a window can show; the replay indexes cells in 32 bits.
inline constexpr uint64_t kMaxTraceCells = 1ull << 28;
inline constexpr uint64_t kMaxTraceThreads = 1ull << 28;

// nullopt when the trace is consistent; otherwise what is wrong, e.g.
// "event 17: element is 2147483647; allowed for tileA (shared, 8 x 8): 0 to 63".
std::optional<std::string> check_trace_semantics(const Trace& t);

}  // namespace ts
