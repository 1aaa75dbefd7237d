// The replay model: the state of every cell (A, B, C or In, Out, and the
// shared arrays of every block) after the first k events of a trace, in one
// of two orders. GUI-free: the app draws it, the tests check it.
//
//   Replay r(trace);                      // builds both orders and checkpoints
//   r.set_order(ReplayOrder::Lockstep);   // keeps the last applied event
//   r.seek(1234);                         // state after 1234 events
//   const CellState& c = r.cell(slot, block, 17);  // slot: in the trace's array table
//
// Jumping is fast at any size: a snapshot of all cells is kept every
// checkpoint_interval() events and a seek replays forward from the nearest one,
// so stepping backwards gives exactly the state that stepping forwards to the
// same position gives. The interval grows with the number of cells, so that
// snapshots cost at most kCheckpointBytesPerEvent per event: memory stays
// linear in events at any size.
//
// No order draws what the trace contradicts: when a load is applied, the cell
// it read holds the value that load recorded (or is still unwritten when the
// load read uninitialised shared memory). The recorded order gives, per cell,
// the order of its stores and which store each load saw; an order that breaks
// that (lockstep on a racy run) is repaired by drawing the threads that fell
// behind late: a store another thread's load missed is drawn after that load,
// a load that saw a later store after that store.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "analysis/stale_reads.hpp"
#include "model/trace.hpp"

namespace ts {

enum class ReplayOrder : uint8_t {
  AsRecorded,  // GPU: by %globaltimer, then clock64 within an SM; simulator: trace order
  Lockstep,    // idealised: phase by phase, step by step, blocks and warps in order
};
const char* to_string(ReplayOrder o);

enum CellFlags : uint8_t {
  kCellLoaded = 1u << 0,   // global: read at least once; shared: holds a value loaded from global
  kCellPadded = 1u << 1,   // shared: a zero stored for an element outside the matrix
  kCellWritten = 1u << 2,  // stored to at least once
  kCellStale = 1u << 3,    // a thread read a value here that the synchronised program would not
  kCellOutOfRange = 1u << 4,  // an access outside the array's extent landed here (clamped)
  kCellTouchedNow = 1u << 5,  // accessed by the last applied event's warp instruction
  // A load read this cell before any store to it (uninitialised shared memory,
  // a stale read): `value` is what that load recorded, so the grid prints it.
  kCellReadUnwritten = 1u << 6,
};

struct CellState {
  float value = 0;
  uint32_t time = 0;    // position (1-based) of the last access; 0 = never accessed
  uint32_t block = 0;   // block of the last accessing thread
  uint32_t reads = 0;   // global loads of this element so far (the heatmap)
  int32_t src = -1;     // shared cells: the global element their value came from (-1: none)
  uint16_t thread = 0;  // thread (in its block) of the last access
  uint8_t flags = 0;    // CellFlags
  EventKind last_kind = EventKind::Empty;
  ArraySlot src_buffer = kNoArray;  // shared cells: which global array `src` indexes
};

// One array as the replay shows it: the global arrays once, the shared arrays
// once per block.
struct ReplayArray {
  ArraySlot id = kNoArray;
  int rows = 0, cols = 0;
  bool shared = false;
  bool is_output = false;
  uint32_t offset = 0;  // first cell in the flat cell vector (shared: of block 0)
  uint32_t blocks = 1;  // shared: one copy per block
  uint32_t count() const { return uint32_t(rows) * uint32_t(cols); }
};

class Replay {
 public:
  static constexpr uint32_t kMinCheckpointInterval = 4096;
  static constexpr uint32_t kCheckpointBytesPerEvent = 8;  // snapshots, amortised

  // The trace is shared, not copied; it must outlive nothing else. The stale
  // reads may come now or later (set_stale_reads).
  explicit Replay(std::shared_ptr<const Trace> trace,
                  std::shared_ptr<const StaleReadReport> stale = nullptr);

  const Trace& trace() const { return *trace_; }
  std::shared_ptr<const Trace> trace_ptr() const { return trace_; }
  uint64_t size() const { return order_[0].size(); }  // number of events

  // --- order and position ---------------------------------------------------
  ReplayOrder order() const { return order_kind_; }
  // Switching keeps the last applied event applied (so the same phase shows).
  void set_order(ReplayOrder o);
  uint64_t position() const { return pos_; }  // events applied, 0..size()
  void seek(uint64_t position);               // clamps to size()

  // The event applied at step `position` (1-based) in the current order, as an
  // index into trace().events; the last applied one is event_at(position()).
  uint32_t event_at(uint64_t position) const;
  const Event* last_event() const;
  // The position right after trace event `index` is applied, in the current order.
  uint64_t position_after(uint32_t index) const;
  uint64_t checkpoint_interval() const { return interval_; }

  // Lockstep on a racy run: some threads fell behind, so the idealised order
  // would draw a store before a load that missed it. Reordered: those stores
  // (and what follows them in their thread) are drawn late. Unavailable: the
  // trace's constraints admit no such order (a GPU trace whose timestamps
  // disagree with its values); the lockstep order is then the recorded one.
  bool lockstep_reordered() const { return lockstep_conflicts_ > 0 && !lockstep_unavailable_; }
  bool lockstep_unavailable() const { return lockstep_unavailable_; }
  // Loads that plain lockstep would draw next to another store than they saw.
  uint64_t lockstep_conflicts() const { return lockstep_conflicts_; }
  const std::string& lockstep_note() const { return lockstep_note_; }  // empty when exact

  // --- stepping: each returns the new target position (seek() it yourself) ---
  // Phase and barrier steps, like current_phase(), search a small index of
  // where each block's phases begin (O(log) per call: the timeline asks every
  // frame).
  // One warp instruction: the run of consecutive events of one warp with the
  // same kind and line.
  uint64_t warp_step(uint64_t from, bool forward) const;
  // The start of the next (or previous) barrier phase of `block`.
  uint64_t phase_step(uint64_t from, bool forward, uint32_t block) const;
  // Just before the first thread of `block` leaves its next (previous) barrier:
  // every thread has arrived and waits.
  uint64_t barrier_step(uint64_t from, bool forward, uint32_t block) const;

  // --- phases ----------------------------------------------------------------
  // The phase (barriers left so far by its thread) of trace event `index`.
  uint16_t phase_of(uint32_t index) const { return phase_[index]; }
  // The phase `block` is in at the current position (its furthest thread's).
  int current_phase(uint32_t block) const;
  int phase_count() const { return max_phase_ + 1; }
  // Position where phase p of the lockstep order begins (the ruler of the timeline).
  uint64_t lockstep_phase_start(int p) const;

  // --- cells -----------------------------------------------------------------
  std::span<const ReplayArray> arrays() const { return arrays_; }
  const ReplayArray* array(ArraySlot id) const;
  uint32_t block_count() const { return blocks_; }
  // block is ignored for global arrays. nullptr when out of range.
  const CellState* cell(ArraySlot id, uint32_t block, uint32_t element) const;
  std::span<const CellState> cells() const { return cells_; }
  // Output cells: true once the cell's last store of the trace has
  // been applied, in the current order (a never-stored cell: at the end). Only
  // then can the grid call its value wrong. False for other arrays.
  bool output_final(ArraySlot id, uint32_t element) const;

  // Stale reads, one definition everywhere (analysis/stale_reads.hpp): loads that
  // saw another value than the synchronised program. The app computes them
  // once and hands them over; until then nothing is stale.
  void set_stale_reads(std::shared_ptr<const StaleReadReport> report);
  const std::shared_ptr<const StaleReadReport>& stale_report() const { return stale_report_; }
  bool is_stale_read(uint32_t index) const {
    return index < bits_.size() && (bits_[index] & kBitStale) != 0;
  }
  uint64_t stale_read_count() const { return stale_report_ ? stale_report_->stale : 0; }
  // Position of the first stale read in the current order; 0 when there is none.
  uint64_t first_stale_position() const;

  // Bytes this replay holds beyond the trace itself (analysis/memory_estimate.hpp).
  uint64_t memory_bytes() const;

 private:
  enum : uint8_t { kBitStale = 1u << 0, kBitPadded = 1u << 1 };

  void build_arrays();
  void build_orders();
  void honour_trace();
  void lockstep_phases();
  void build_checkpoints();
  void build_phase_index();
  void reset_cells(std::vector<CellState>& cells) const;
  void apply(std::vector<CellState>& cells, uint32_t index, uint32_t time) const;
  void mark_touched();
  int32_t cell_index(ArraySlot id, uint32_t block, uint32_t element) const;
  int32_t event_cell(const Event& e) const;  // -1: no cell (barrier, out of range)
  int32_t source_of(uint32_t index) const;   // event a shared store copies, -1: none

  std::shared_ptr<const Trace> trace_;
  ReplayOrder order_kind_ = ReplayOrder::AsRecorded;
  std::vector<uint32_t> order_[2];  // position-1 -> trace event index
  std::vector<uint32_t> rank_;      // trace event index -> position-1, current order
  std::vector<uint16_t> phase_;     // per trace event
  std::vector<uint8_t> bits_;       // per trace event: kBitStale, kBitPadded
  // Shared stores that copy a global load: (store event, load event), by store.
  std::vector<std::pair<uint32_t, uint32_t>> sources_;
  std::shared_ptr<const StaleReadReport> stale_report_;
  int max_phase_ = 0;
  std::vector<uint64_t> lockstep_phase_start_;
  uint64_t lockstep_conflicts_ = 0;
  bool lockstep_unavailable_ = false;
  std::string lockstep_note_;

  std::vector<ReplayArray> arrays_;
  int32_t array_of_[kMaxArrays + 1];  // slot -> index into arrays_, -1: none
  uint32_t blocks_ = 1;
  uint32_t cell_total_ = 0;
  std::vector<CellState> initial_;
  uint64_t interval_ = kMinCheckpointInterval;
  std::vector<CellState> checkpoints_;  // of the current order only, cell_total_ each
  std::vector<uint32_t> last_store_;    // per output cell: position of its last store (0: none)
  // Where each block's phases begin in the current order (its events' running
  // maximum of phase): key block << 32 | position (1-based), sorted, and the
  // phase begun there. One entry per block and phase, nothing per event.
  std::vector<uint64_t> phase_start_key_;
  std::vector<uint16_t> phase_start_phase_;
  std::vector<CellState> cells_;
  uint64_t pos_ = 0;
  std::vector<uint32_t> touched_;
};

}  // namespace ts
