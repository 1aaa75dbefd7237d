// Export a trace as Chrome trace JSON (the "Trace Event Format"), which
// Perfetto (ui.perfetto.dev) and chrome://tracing open.
//
// Layout: one process per block; one thread (track) per warp, or per thread
// when blocks are small; on each track the tile phases as slices (the time
// between two barriers) and every access and barrier arrival/leaving as an
// instant event with its buffer, element, value and source line; the block's
// barrier instances as async slices from the first arrival to the last leaving.
// Time: %globaltimer on the GPU (ns, shown in us), the step counter on the
// simulator (one step shown as 1 us).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "model/trace.hpp"

namespace ts {

struct ChromeExportOptions {
  enum class Lanes : uint8_t { Auto, Warps, Threads };
  Lanes lanes = Lanes::Auto;  // Auto: threads when a block has at most 64, else warps
  bool accesses = true;       // false: only phases and barriers (a much smaller file)
};

struct ChromeExportStats {
  uint64_t instants = 0;        // one per trace event written
  uint64_t phase_slices = 0;    // complete ("X") events
  uint64_t barrier_slices = 0;  // async begin/end pairs
  uint64_t metadata = 0;        // process and thread names
  uint64_t total() const { return instants + phase_slices + 2 * barrier_slices + metadata; }
};

// Writes the JSON document; returns false when the stream failed.
bool write_chrome_trace(const Trace& t, std::ostream& out, const ChromeExportOptions& opt = {},
                        ChromeExportStats* stats = nullptr);
bool export_chrome_trace(const Trace& t, const std::string& path, std::string* error,
                         const ChromeExportOptions& opt = {}, ChromeExportStats* stats = nullptr);

}  // namespace ts
