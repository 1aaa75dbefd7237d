// Access counters of a trace: totals per kind and buffer, bytes moved, and
// per element of each input the number of global loads (the heatmap that
// shows why tiling pays: tiled multiply reads each element N/T times, the
// naive one N times).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "model/trace.hpp"

namespace ts {

// How many times each element of one array was accessed, row-major.
struct ElementCounts {
  ArraySlot buffer = kNoArray;
  int rows = 0, cols = 0;
  std::vector<uint32_t> count;  // rows * cols
  uint32_t min = 0, max = 0;
  double mean = 0;
};

struct Counters {
  std::array<uint64_t, kEventKindCount> per_kind{};  // indexed by EventKind
  std::array<uint64_t, kMaxArrays + 1> loads{};      // per array slot (global or shared)
  std::array<uint64_t, kMaxArrays + 1> stores{};
  std::array<uint64_t, kMaxArrays + 1> atomics{};  // read-modify-writes (atomicAdd) per slot
  uint64_t out_of_range = 0;                       // accesses flagged outside their array
  // Reads of constant-memory arrays (GlobalLoad events on a Space::Constant
  // array): in per_kind and loads[], not in global_loads() or the global bytes.
  uint64_t constant_loads = 0;
  uint64_t constant_bytes_read = 0;
  // Bytes by each access's width (4 for every lesson so far); an atomic both
  // reads and writes its element.
  uint64_t global_bytes_read = 0, global_bytes_written = 0;
  uint64_t shared_bytes_read = 0, shared_bytes_written = 0;
  // Global loads of each element of the inputs present in the trace (constant
  // arrays too: reads of each mask element).
  std::vector<ElementCounts> global_loads_per_element;
  // Global stores and atomics of each element of the outputs: 1 store each
  // in a correct run of a lesson that stores them (a histogram's bins count
  // the atomics they received).
  std::vector<ElementCounts> global_stores_per_element;
  uint64_t output_elements = 0;
  double global_loads_per_output = 0;  // global loads / output elements

  // Loads from global memory: the GlobalLoad events less the constant-memory reads.
  uint64_t global_loads() const { return per_kind[int(EventKind::GlobalLoad)] - constant_loads; }
  uint64_t global_stores() const { return per_kind[int(EventKind::GlobalStore)]; }
  uint64_t shared_loads() const { return per_kind[int(EventKind::SharedLoad)]; }
  uint64_t shared_stores() const { return per_kind[int(EventKind::SharedStore)]; }
  uint64_t barrier_arrivals() const { return per_kind[int(EventKind::BarrierArrive)]; }
  uint64_t shared_atomics() const { return per_kind[int(EventKind::SharedAtomic)]; }
  uint64_t global_atomics() const { return per_kind[int(EventKind::GlobalAtomic)]; }
  const ElementCounts* loads_of(ArraySlot slot) const;
};

Counters count_accesses(const Trace& t);

// What the catalogue's closed forms say the run should have recorded (all
// barriers on, nothing dropped), or nullopt when the lesson is unknown.
struct Expectation {
  ExpectedCounts counts;
  double global_loads_per_output = 0;
};
std::optional<Expectation> expected_for(const Trace& t);

}  // namespace ts
