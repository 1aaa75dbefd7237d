// Two runs side by side, GUI-free: where each run's barrier phases begin, how a
// position of run A maps to run B (aligned by phase), and which cells differ.
// The window's compare mode (app/compare/compare_mode.hpp) uses it every frame; the
// tests check it on real runs.
//
//   PhaseTable ta = phase_table(a), tb = phase_table(b);   // in each replay's order
//   Alignment al = align_runs(ta, tb);
//   b.seek(aligned_position(al, a.position()));
//   DiffSummary d = diff_cells(a, b);                       // at the current positions
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/replay.hpp"

namespace ts::app {

// Where a run's barrier phases begin in its replay's current order.
struct PhaseTable {
  uint64_t size = 0;  // events
  std::vector<uint64_t>
      start;                 // start[k]: events applied before phase k's first one (start[0] = 0)
  std::vector<int> barrier;  // barrier[k], k >= 1: the barrier id that ends phase k - 1
  int phases() const { return int(start.size()); }
  // The phase shown at `pos` (0-based): the last one whose first event is applied.
  int phase_at(uint64_t pos) const;
};
PhaseTable phase_table(const Replay& r);

// How positions of A map to B. The runs are cut at matching phase boundaries
// (anchors); inside a piece, the same fraction of its events. Equal phase
// counts: phase k with phase k. Otherwise the barriers both runs keep are the
// anchors (B without barrier 2: A's two phases per tile with B's one), and
// without such, the whole run is one piece.
struct Alignment {
  std::vector<uint64_t> a, b;  // piece boundaries in positions: 0, ..., size (same count)
  std::string how;             // said above the two grids
};
Alignment align_runs(const PhaseTable& a, const PhaseTable& b);
uint64_t aligned_position(const Alignment& al, uint64_t pos_a);

// A cell of an array both runs have (same name, same shape) whose shown value
// differs (a stored value against another or none), or, for the input arrays,
// whose global load count differs (the heatmap).
struct CellDiff {
  ArraySlot a = kNoArray, b = kNoArray;  // the array's slot in each trace
  uint32_t block = 0;                    // shared arrays: the block
  uint32_t element = 0;
  bool value = false, loads = false;
};
struct DiffSummary {
  uint64_t value = 0, loads = 0;     // cells that differ in value, in load count
  uint64_t compared = 0;             // cells compared
  std::vector<std::string> skipped;  // arrays not compared: "tileA: 16 x 17 against 16 x 16"
  std::vector<CellDiff> cells;       // the differing cells, up to the limit asked
};
DiffSummary diff_cells(const Replay& a, const Replay& b, size_t keep = 1u << 20);

}  // namespace ts::app
