// What the window needs to hold one trace, estimated before it runs or opens
// one, so that a size that would swap a laptop to death is refused up front.
//
//   const uint64_t need = window_bytes(expected_events(v, p, capacity), replay_cells(v, p));
//   if (need > default_memory_budget()) ... say so, offer a smaller size
//
// The constants are measured (bench/bench_replay_memory.cpp for the replay,
// /usr/bin/time -v on the window for the whole): see each one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"

namespace ts {

// Held for as long as the trace is shown, per event: the event itself (40 B)
// and the replay model (measured by bench_replay_memory: 24-26 B at 659 K and
// 10 M events: two orders, rank, phase, flags, snapshots <= 8 B).
inline constexpr uint64_t kHeldBytesPerEvent = 40 + 27;
// The window's peak, per event: the held bytes plus what building them needs
// at once (the simulator's event buffer, the synchronised reference run for
// stale reads, the lockstep sort, the race analysis). Measured: the window's
// max RSS grows by ~110 B per event from n = 64 to 128 and 256 (tile 16); the
// rest is room for the race analysis, which runs after the snapshot is taken.
// The warp index's second level (the compiled one, analysis/compiled_access.hpp:
// each access's place, 12 bytes, while both levels are built) added up to 12
// B per event: matmul.tiled_square tile 8 under random, max RSS 172 -> 178 MB
// at n = 48, 220 -> 229 MB at n = 64 (tests/app/test_budget.cpp's cases).
inline constexpr uint64_t kWindowPeakBytesPerEvent = 172;
// The same under every schedule: under warp skew and random the stale-read
// analysis runs the synchronised reference (a second trace of the same run)
// before the replay is built, and that stays below the later peak (measured:
// the same max RSS for lockstep, skew and random, e.g. 507 MB for
// sgemm.blocktile_1d n = 128, 882 MB for matmul.tiled_square n = 128). A
// truncated run has no reference (it is never compared), so its peak is
// lockstep's too.
// What the window keeps per event while it shows a trace, once every view is
// built (the trace, the replay, the warp index, the race analysis): measured
// 624 MB steady for 6.3 M events (matmul.tiled_square n = 128), 79 B each.
// A second trace beside it (compare mode's B, the race panel's traced run)
// must fit in the budget with it. The compiled level of the warp index keeps
// its own lanes and instructions: 8 more (4 bytes a lane, ~3 an event for
// its instructions, fewer where loads merge).
inline constexpr uint64_t kWindowHeldBytesPerEvent = 88;
// Per replay cell: the live state, the initial state and the output's last store.
inline constexpr uint64_t kBytesPerCell = 64;
// The window with a tiny trace: fonts, GL, ImGui, the program's code and
// tables (measured: ~125 MB RSS with 33 lessons; 137 MB with 43 lessons and
// the symbols a lesson-file plug-in links against, matmul.tiled_square n = 4).
inline constexpr uint64_t kWindowBaseBytes = 140ull << 20;

// Peak bytes the window needs for a trace of `events` events and `cells` cells.
uint64_t window_bytes(uint64_t events, uint64_t cells);
// Bytes a shown trace keeps beyond the window's base (what another run must fit beside).
uint64_t window_held_bytes(uint64_t events, uint64_t cells);

// Events a run records: the catalogue's closed form, capped by the capacity.
uint64_t expected_events(const LessonInfo& v, const Params& p, uint64_t capacity);
// Cells the replay shows: the global arrays once, the shared ones per block.
uint64_t replay_cells(const LessonInfo& v, const Params& p);

// A quarter of physical memory (the default budget of the window).
uint64_t physical_memory_bytes();
uint64_t default_memory_budget();

// The budget the window keeps to: TILESCOPE_MEMORY_BUDGET when set (bytes,
// or with a unit: "300MB", "2GB"), else default_memory_budget(). `origin`
// says which, for messages.
uint64_t memory_budget(std::string* origin = nullptr);
// "300MB", "300 M", "2GB", "1048576" (bytes); units are powers of 1024.
std::optional<uint64_t> parse_bytes(const std::string& text);

// "1.4 GB", "312 MB".
std::string format_bytes(uint64_t bytes);

// What a traced run of the lesson would need, before it runs.
struct RunEstimate {
  uint64_t events_needed = 0;    // every event of the run (all barriers kept)
  uint64_t events_recorded = 0;  // what the trace capacity keeps of them
  uint64_t bytes = 0;            // the window's peak with the recorded events
  // A plain CUDA file has no closed form: events_needed is its bound (the
  // launch block's `events` per thread), and the run may well fit.
  bool bound_only = false;
  bool truncated() const { return events_recorded < events_needed; }
};
RunEstimate estimate_run(const LessonInfo& v, const Params& p, uint64_t capacity);

// The parameters that set a lesson's size: n (m, k and n for the rectangular
// multiply) or the stencil's length. The others (tile, block, radius) shape
// the lesson and are kept when a smaller size is offered.
std::vector<NamedParam> size_params(const LessonInfo& v, const Params& p);

// The largest size of the lesson, at most `p`'s, whose run records every
// event within `capacity` and whose window needs at most `budget`: its sizes
// scaled down together, the other parameters kept. `p` itself when it fits;
// nullopt when not even the smallest size does.
// `held`: bytes another trace already keeps in the window (counted against the budget).
std::optional<Params> largest_size_that_fits(const LessonInfo& v, const Params& p,
                                             uint64_t capacity, uint64_t budget, uint64_t held = 0);

// A trace file's events, before it is read: its size over the bytes of one
// event (the header and the arrays make it a slight overestimate).
uint64_t file_events_estimate(uint64_t file_bytes);

}  // namespace ts
