// Contention on atomically updated arrays (a histogram's bins): per element,
// how many atomics it received, and the most lanes of one warp instruction
// that hit it at once. Lanes of a warp that update the same address are
// served one after another (Nsight's documentation: each read-modify-write
// of that location occurs, serialized), so `most_lanes` is how deep the
// worst queue on the element was, and `queued` the lanes that had to wait
// (over every warp instruction: the lanes on the element minus one).
//
// A shared array has one copy per block: its elements are counted over all
// blocks by index (bin 5 of every block's private histogram is one row).
// Warp instructions are grouped as analysis/warp_access.hpp groups them.
//
//   AtomicContention c = atomic_contention(trace);
//   for (const ElementContention& e : c.hottest(8)) ...   // the most contended bins
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace.hpp"

namespace ts {

struct ElementContention {
  ArraySlot array = kNoArray;
  uint32_t element = 0;
  uint64_t atomics = 0;     // atomics the element received, over all blocks
  uint32_t most_lanes = 0;  // most lanes of one warp instruction on it at once
  uint64_t queued = 0;      // lanes that waited for another lane of their warp instruction
};

struct ArrayContention {
  ArraySlot array = kNoArray;
  Space space = Space::Global;
  uint64_t atomics = 0;                     // atomics on the array
  uint64_t warp_instructions = 0;           // warp instructions that made them
  uint32_t most_lanes = 0;                  // the worst queue on one element
  std::vector<ElementContention> elements;  // every element of the array, by index
};

struct AtomicContention {
  std::vector<ArrayContention> arrays;  // arrays that received atomics, by slot
  bool partial = false;                 // the trace is truncated: the counts cover what it holds
  bool empty() const { return arrays.empty(); }
  // The `n` most contended elements of all arrays: most atomics first, then
  // the deepest queue, then slot and index. Elements without atomics are left out.
  std::vector<ElementContention> hottest(size_t n) const;
};

AtomicContention atomic_contention(const Trace& t);

}  // namespace ts
