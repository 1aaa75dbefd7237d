// Shared-memory hazards in a trace, in compute-sanitizer racecheck's model.
//
// Two accesses race when they touch the same element of the same shared array
// of one block, come from different threads, at least one writes, not both
// are atomics, and no barrier of that block lies between them. A barrier needs every thread of the
// block, so each thread's accesses fall into numbered barrier intervals (how
// many barriers it has left before the access); two accesses of different
// threads with the same interval number are unordered. Which of the pair is
// "first" (and so read-after-write or write-after-read) is the order in which
// they were recorded, as racecheck reports what it saw.
//
// A __syncwarp (barrier events flagged kFlagWarpScope) orders the threads of
// its own warp only: it does not end a block's barrier interval, but two
// threads of one warp that passed different numbers of barriers (of either
// scope) are ordered. Warp shuffles touch no memory and are not barriers here.
//
// Severity, as racecheck labels it: threads of different warps -> error; two
// threads of one warp -> warning (racecheck's WARNING: hazards of warp-level
// programming that assume the warp's threads run in step, which independent
// thread scheduling no longer promises).
//
//   HazardReport r = analyze_hazards(trace);
//   for (const HazardGroup& g : r.groups) ...   // racecheck's "analysis" mode
//   for (const Hazard& h : r.hazards) ...       // racecheck's "hazard" mode (capped)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace ts {

enum class HazardKind : uint8_t { ReadAfterWrite = 0, WriteAfterRead = 1, WriteAfterWrite = 2 };
inline constexpr int kHazardKindCount = 3;
enum class HazardSeverity : uint8_t { Warning = 0, Error = 1 };

const char* to_string(HazardKind k);      // "RAW", "WAR", "WAW"
const char* long_name(HazardKind k);      // "read-after-write"
const char* to_string(HazardSeverity s);  // "warning", "error"
// A few sentences, in our words, on what the hazard type means and why it bites.
const char* explanation(HazardKind k);

// One side of a hazard: one recorded access.
struct HazardAccess {
  uint64_t event = 0;  // index into Trace::events
  uint16_t thread = 0, warp = 0, line = 0;
  bool is_write = false;   // a store or an atomic
  bool is_atomic = false;  // an atomic read-modify-write (atomicAdd)
  float value = 0;         // the value stored (an atomic's: the new one), or the value the load saw
};

// One racing pair, as racecheck's hazard mode prints it.
struct Hazard {
  HazardKind kind = HazardKind::ReadAfterWrite;
  HazardSeverity severity = HazardSeverity::Error;
  uint32_t block = 0;
  ArraySlot buffer = kNoArray;
  uint32_t element = 0;
  uint32_t interval = 0;  // barrier interval both accesses lie in (0 = before the first barrier)
  HazardAccess first;     // recorded first (RAW: the write; WAR: the read)
  HazardAccess second;    // recorded second
};

// Racecheck's analysis mode: all hazards of one kind between two source lines.
struct HazardGroup {
  HazardKind kind = HazardKind::ReadAfterWrite;
  HazardSeverity severity = HazardSeverity::Error;
  ArraySlot buffer = kNoArray;
  uint16_t first_line = 0, second_line = 0;
  uint64_t count = 0;            // every hazard of the group, also those not kept as detail
  uint64_t elements = 0;         // distinct (block, element) pairs involved
  uint64_t blocks = 0;           // distinct blocks involved
  std::vector<uint32_t> detail;  // indices into HazardReport::hazards (at most detail_per_group)
};

struct HazardOptions {
  uint32_t detail_per_group = 256;  // hazards kept per group (all are counted)
  // Shared atomics. racecheck does not check them at all (measured on an
  // H100: histogram.shared_atomics without its barriers, where the zeroing
  // store and the merge's read race with the atomics and the bins come out
  // wrong, gets no report), so by default neither do we. true: an atomic
  // counts as a write against plain loads and stores of other threads (two
  // atomics still never race) -- the races racecheck misses.
  bool atomics = false;
};

struct HazardReport {
  std::vector<HazardGroup> groups;  // errors first, then by count
  std::vector<Hazard> hazards;      // detail, grouped as in `groups`
  uint64_t total = 0, errors = 0, warnings = 0;
  uint64_t by_kind[kHazardKindCount] = {};
  uint64_t shared_accesses = 0;  // shared loads, stores and atomics analysed
  bool trace_truncated = false;  // the trace lost events: hazards may be missing
  // With atomics off (racecheck's model) on a trace with shared atomics: the
  // verdict and count with atomics counted (HazardOptions::atomics), so that a
  // report can say which races racecheck would not show. Empty otherwise.
  std::string with_atomics_verdict;
  uint64_t with_atomics_total = 0;
  // Hazards racecheck's model leaves out: pairs of a plain access and an atomic.
  uint64_t missed_by_racecheck() const {
    return with_atomics_total > total ? with_atomics_total - total : 0;
  }
  bool has(HazardKind k) const { return by_kind[int(k)] > 0; }
  bool empty() const { return total == 0; }
  // "none", or e.g. "RAW WAR (errors)" / "RAW (warnings)": the compact verdict
  // the racecheck comparison uses.
  std::string verdict() const;
};

HazardReport analyze_hazards(const Trace& trace, const HazardOptions& opt = {});

}  // namespace ts
