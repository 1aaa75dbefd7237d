// The replay model (see analysis/replay.hpp).
#include "analysis/replay.hpp"
#include "analysis/replay_detail.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <queue>

namespace ts {

const char* to_string(ReplayOrder o) {
  return o == ReplayOrder::Lockstep ? "lockstep" : "as recorded";
}

namespace {

// Stores and atomics write their cell: each makes a new version of it (an
// atomic also reads the version before, which the store order already fixes).
bool writes(EventKind k) {
  return is_store(k) || is_atomic(k);
}

using replay_detail::same_instruction;

// An arrival at a __syncthreads (a __syncwarp's is flagged warp-scope).
bool is_block_arrive(const Event& e) {
  return e.kind == EventKind::BarrierArrive && !(e.flags & kFlagWarpScope);
}

}  // namespace

Replay::Replay(std::shared_ptr<const Trace> trace, std::shared_ptr<const StaleReadReport> stale)
    : trace_(std::move(trace)) {
  std::fill(std::begin(array_of_), std::end(array_of_), -1);
  build_arrays();
  build_orders();
  honour_trace();
  build_phase_index();
  reset_cells(initial_);
  // Snapshots of all cells cost at most kCheckpointBytesPerEvent per event.
  const uint64_t per_snapshot = uint64_t(cell_total_) * sizeof(CellState);
  interval_ =
      std::max<uint64_t>(kMinCheckpointInterval,
                         (per_snapshot + kCheckpointBytesPerEvent - 1) / kCheckpointBytesPerEvent);
  if (stale)
    set_stale_reads(std::move(stale));  // builds the checkpoints
  else
    build_checkpoints();
  cells_ = initial_;
  pos_ = 0;
}

void Replay::set_stale_reads(std::shared_ptr<const StaleReadReport> report) {
  stale_report_ = std::move(report);
  for (uint8_t& b : bits_)
    b = uint8_t(b & ~kBitStale);
  if (stale_report_)
    for (uint32_t i : stale_report_->stale_events)
      if (i < bits_.size()) bits_[i] |= kBitStale;
  // The stale flags are part of every snapshot.
  const uint64_t at = pos_;
  build_checkpoints();
  cells_ = initial_;
  touched_.clear();
  pos_ = 0;
  seek(at);
}

uint64_t Replay::first_stale_position() const {
  for (uint64_t p = 1; p <= size(); ++p)
    if (is_stale_read(event_at(p))) return p;
  return 0;
}

uint64_t Replay::memory_bytes() const {
  auto bytes = [](const auto& v) { return uint64_t(v.capacity()) * sizeof(v[0]); };
  return bytes(order_[0]) + bytes(order_[1]) + bytes(rank_) + bytes(phase_) + bytes(bits_) +
         bytes(sources_) + bytes(initial_) + bytes(checkpoints_) + bytes(last_store_) +
         bytes(phase_start_key_) + bytes(phase_start_phase_) + bytes(cells_) + bytes(touched_);
}

void Replay::build_arrays() {
  const Trace& t = *trace_;
  uint32_t max_block = 0;
  for (const Event& e : t.events)
    max_block = std::max(max_block, e.block);
  blocks_ = uint32_t(std::max<uint64_t>(t.config.geometry.grid.count(), max_block + 1));

  // Every array of the trace's table: the global ones once, the shared ones
  // once per block.
  uint32_t offset = 0;
  for (size_t i = 0; i < t.config.arrays.size() && i < size_t(kMaxArrays); ++i) {
    const ArrayInfo& info = t.config.arrays[i];
    if (info.rows <= 0 || info.cols <= 0) continue;
    ReplayArray a;
    a.id = ArraySlot(i + 1);
    a.rows = info.rows;
    a.cols = info.cols;
    a.shared = info.shared();
    a.is_output = info.output() && !info.shared();
    a.offset = offset;
    a.blocks = a.shared ? blocks_ : 1;
    array_of_[a.id] = int32_t(arrays_.size());
    arrays_.push_back(a);
    offset += a.count() * a.blocks;
  }
  cell_total_ = offset;
}

int32_t Replay::cell_index(ArraySlot id, uint32_t block, uint32_t element) const {
  const int b = int(id);
  if (b <= 0 || b > kMaxArrays || array_of_[b] < 0) return -1;
  const ReplayArray& a = arrays_[size_t(array_of_[b])];
  if (element >= a.count()) return -1;
  if (!a.shared) return int32_t(a.offset + element);
  if (block >= a.blocks) return -1;
  return int32_t(a.offset + block * a.count() + element);
}

int32_t Replay::event_cell(const Event& e) const {
  if (e.kind == EventKind::Empty || is_barrier(e.kind)) return -1;
  // An access outside its array's extent touched nothing (the simulator
  // performs none; on the GPU it landed elsewhere).
  if (e.flags & kFlagOutOfRange) return -1;
  return cell_index(e.array, e.block, e.element);
}

int32_t Replay::source_of(uint32_t index) const {
  auto it = std::lower_bound(sources_.begin(), sources_.end(), std::make_pair(index, 0u));
  return it != sources_.end() && it->first == index ? int32_t(it->second) : -1;
}

bool Replay::output_final(ArraySlot id, uint32_t element) const {
  const ReplayArray* a = array(id);
  if (!a || !a->is_output) return false;
  const int32_t c = cell_index(id, 0, element);
  if (c < 0) return false;
  const uint32_t last = last_store_.empty() ? 0 : last_store_[size_t(c)];
  return last == 0 ? pos_ >= size() : pos_ >= last;
}

const ReplayArray* Replay::array(ArraySlot id) const {
  const int b = int(id);
  if (b <= 0 || b > kMaxArrays || array_of_[b] < 0) return nullptr;
  return &arrays_[size_t(array_of_[b])];
}

const CellState* Replay::cell(ArraySlot id, uint32_t block, uint32_t element) const {
  const int32_t c = cell_index(id, block, element);
  return c < 0 ? nullptr : &cells_[size_t(c)];
}

void Replay::reset_cells(std::vector<CellState>& cells) const {
  cells.assign(cell_total_, CellState{});
  for (const ReplayArray& a : arrays_) {
    if (a.shared || a.is_output) continue;
    const BufferData* data = trace_->buffer(a.id);
    if (!data) continue;
    const uint32_t n = std::min<uint32_t>(a.count(), uint32_t(data->values.size()));
    for (uint32_t i = 0; i < n; ++i)
      cells[a.offset + i].value = data->values[i];
  }
}

void Replay::build_orders() {
  const auto& ev = trace_->events;
  const uint32_t n = uint32_t(ev.size());

  // Per-thread program order: phase (barriers left so far), step within the
  // phase, and where a shared store's value came from. A store copies the
  // oldest global load of this thread in this phase that loaded its value
  // and no store has copied yet: right after the load (the textbook tile), or
  // later, from registers (the SGEMM ladder loads the next tiles, computes,
  // then stores them, As transposed element by element). Failing that, a
  // store right after a global load copies it (`tile = f(A[i])`), and a zero
  // with nothing loaded for it is padding.
  phase_.assign(n, 0);
  bits_.assign(n, 0);
  sources_.clear();
  std::vector<uint16_t> step(n, 0);
  // Loads kept per thread: a thread of the SGEMM ladder's last step issues 32
  // elements of its next tiles (8 16-byte loads) before it stores any.
  constexpr size_t kKept = 32;
  struct ThreadPos {
    uint16_t phase = 0, step = 0;
    int32_t last = -1;
    // Global loads of this phase no store has copied yet (the latest kKept).
    std::array<uint32_t, kKept> pending{};
    uint8_t pending_count = 0;
    // The elements of a 16-byte shared store seen so far (it is decided whole).
    std::array<uint32_t, 4> vstore{};
    uint8_t vstore_count = 0;
    // The loads of the phase before that no store copied by its barrier: a
    // kernel that issues its loads a barrier ahead of their stores (the
    // SGEMM ladder's last step) copies from these.
    std::array<uint32_t, kKept> carried{};
    uint8_t carried_count = 0;
  };
  std::vector<std::pair<uint32_t, uint32_t>> across;  // (store, load of the phase before)
  uint32_t threads = 1;
  for (const Event& e : ev)
    threads = std::max<uint32_t>(threads, uint32_t(e.thread) + 1);
  std::vector<ThreadPos> tp(size_t(blocks_) * threads);
  auto is_constant = [this](ArraySlot slot) {
    const ArrayInfo* a = trace_->array(slot);
    return a && a->space == Space::Constant;
  };
  auto take = [](ThreadPos& p, int k) {
    std::copy(p.pending.begin() + k + 1, p.pending.begin() + p.pending_count,
              p.pending.begin() + k);
    --p.pending_count;
  };
  // One scalar store: the oldest pending load of its value, else the load
  // right before it, else a zero with nothing loaded for it is padding.
  auto scalar_store = [&](ThreadPos& p, uint32_t i) {
    const Event& e = ev[i];
    int copied = -1;
    for (int k = 0; k < p.pending_count && copied < 0; ++k)
      if (ev[p.pending[k]].value == e.value) copied = k;
    if (copied >= 0) {
      sources_.emplace_back(i, p.pending[size_t(copied)]);
      take(p, copied);
    } else if (p.last >= 0 && ev[size_t(p.last)].kind == EventKind::GlobalLoad) {
      sources_.emplace_back(i, uint32_t(p.last));
    } else {
      for (int k = 0; k < p.carried_count && copied < 0; ++k)
        if (ev[p.carried[k]].value == e.value) copied = k;
      if (copied >= 0) {  // kept where the store's line copies in its own phase too (below)
        across.emplace_back(i, p.carried[size_t(copied)]);
        std::copy(p.carried.begin() + copied + 1, p.carried.begin() + p.carried_count,
                  p.carried.begin() + copied);
        --p.carried_count;
      } else if (e.value == 0.0f) {
        bits_[i] |= kBitPadded;
      }
    }
  };
  // A 16-byte store, once its four elements are in: the oldest pending
  // 16-byte load with the same four values is what it copies. Element by
  // element, a tile of zeros stored where the image ends (no load) would take
  // a real quad's zero loaded for a later store (the double-buffered
  // convolution fetches every quad of its next tile before storing any).
  // The first 16-byte load group in `loads` with the store's four values.
  auto vector_group = [&](const ThreadPos& p, const std::array<uint32_t, kKept>& loads, int count) {
    for (int k = 0; k + 3 < count; ++k) {
      bool same = true;
      for (int j = 0; j < 4 && same; ++j) {
        const Event& l = ev[loads[size_t(k + j)]];
        same = is_vector_element(l) && l.element % 4 == uint32_t(j) &&
               l.value == ev[p.vstore[size_t(j)]].value;
      }
      if (same) return k;
    }
    return -1;
  };
  auto vector_store = [&](ThreadPos& p) {
    if (const int k = vector_group(p, p.pending, p.pending_count); k >= 0) {
      for (int j = 0; j < 4; ++j)
        sources_.emplace_back(p.vstore[size_t(j)], p.pending[size_t(k + j)]);
      for (int j = 0; j < 4; ++j)
        take(p, k);
      return;
    }
    if (const int k = vector_group(p, p.carried, p.carried_count); k >= 0) {
      for (int j = 0; j < 4; ++j)  // as a scalar copy across a barrier (below)
        across.emplace_back(p.vstore[size_t(j)], p.carried[size_t(k + j)]);
      std::copy(p.carried.begin() + k + 4, p.carried.begin() + p.carried_count,
                p.carried.begin() + k);
      p.carried_count = uint8_t(p.carried_count - 4);
      return;
    }
    // No such load: element by element, but a zero only from a scalar load
    // at its place in the quad (an edge quad loaded a word at a time), never
    // from a later quad's load.
    for (int j = 0; j < 4; ++j) {
      const uint32_t i = p.vstore[size_t(j)];
      if (ev[i].value != 0.0f) {
        scalar_store(p, i);
        continue;
      }
      int copied = -1;
      for (int k = 0; k < p.pending_count && copied < 0; ++k) {
        const Event& l = ev[p.pending[k]];
        if (!is_vector_element(l) && l.value == 0.0f) copied = k;
      }
      if (copied >= 0) {
        sources_.emplace_back(i, p.pending[size_t(copied)]);
        take(p, copied);
      } else {
        bits_[i] |= kBitPadded;
      }
    }
  };
  max_phase_ = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (e.block >= blocks_) continue;
    ThreadPos& p = tp[size_t(e.block) * threads + e.thread];
    // A __syncwarp orders one warp: not a phase boundary of the block.
    if (e.kind == EventKind::BarrierLeave && !(e.flags & kFlagWarpScope)) {
      ++p.phase;
      p.step = 0;
      p.carried = p.pending;
      p.carried_count = p.pending_count;
      p.pending_count = 0;
    }
    phase_[i] = p.phase;
    step[i] = p.step < 0xFFFF ? p.step++ : p.step;
    max_phase_ = std::max<int>(max_phase_, p.phase);
    if (e.kind == EventKind::SharedStore && is_vector_element(e)) {
      if (e.element % 4 == 0) p.vstore_count = 0;
      if (p.vstore_count < 4) p.vstore[p.vstore_count++] = i;
      if (e.element % 4 == 3 && p.vstore_count == 4) vector_store(p);
    } else if (e.kind == EventKind::SharedStore) {
      scalar_store(p, i);
    } else if (e.kind == EventKind::GlobalLoad && !is_constant(e.array)) {
      // A __constant__ mask's reads are never a tile's copy: kept out, they
      // would push the loads a store copies out of the kKept kept (the
      // double-buffered convolution reads its mask between fetching the next
      // tile and storing it, and its input's zeros were drawn as padding).
      if (p.pending_count == p.pending.size()) {  // the oldest goes
        std::copy(p.pending.begin() + 1, p.pending.end(), p.pending.begin());
        --p.pending_count;
      }
      p.pending[p.pending_count++] = i;
    }
    p.last = int32_t(i);
  }
  // A 16-byte store is decided with its last element: its pairs come late.
  std::sort(sources_.begin(), sources_.end());
  // Padding is a zero a tile load stores instead of an element outside the
  // matrix: only at a store (array and line) that copies global elements
  // elsewhere in the run. A zero computed from shared values (a partial sum)
  // or an initialisation (histogram bins) is a value, not padding.
  {
    std::vector<uint64_t> copying;  // array << 16 | line
    for (const auto& [store, load] : sources_)
      copying.push_back((uint64_t(ev[store].array) << 16) | ev[store].line);
    std::sort(copying.begin(), copying.end());
    // A store that copies a load of the phase before: where its line copies
    // in its own phase too (else a zero it stored is padding, as before).
    const size_t own = sources_.size();
    for (const auto& [store, load] : across) {
      const uint64_t key = (uint64_t(ev[store].array) << 16) | ev[store].line;
      if (std::binary_search(copying.begin(), copying.end(), key))
        sources_.emplace_back(store, load);
      else if (ev[store].value == 0.0f)
        bits_[store] |= kBitPadded;
    }
    if (sources_.size() > own) std::sort(sources_.begin(), sources_.end());
    for (uint32_t i = 0; i < n; ++i)
      if ((bits_[i] & kBitPadded) &&
          !std::binary_search(copying.begin(), copying.end(),
                              (uint64_t(ev[i].array) << 16) | ev[i].line))
        bits_[i] = uint8_t(bits_[i] & ~kBitPadded);
  }

  // As recorded.
  auto& rec = order_[int(ReplayOrder::AsRecorded)];
  rec.resize(n);
  std::iota(rec.begin(), rec.end(), 0u);
  if (trace_->config.backend == BackendKind::Cuda) {
    // %globaltimer orders across SMs (32 ns ticks); clock64 breaks ties within
    // an SM and keeps each thread's program order.
    std::stable_sort(rec.begin(), rec.end(), [&](uint32_t a, uint32_t b) {
      const Event& x = ev[a];
      const Event& y = ev[b];
      if (x.globaltimer != y.globaltimer) return x.globaltimer < y.globaltimer;
      if (x.sm != y.sm) return x.sm < y.sm;
      return x.clock < y.clock;
    });
  }

  // Lockstep: phase, then step, then block, then thread (warps in order).
  std::vector<uint64_t> key(n);
  for (uint32_t i = 0; i < n; ++i) {
    const Event& e = ev[i];
    key[i] = (uint64_t(phase_[i]) << 48) | (uint64_t(step[i]) << 32) |
             (uint64_t(std::min<uint32_t>(e.block, 0xFFFFF)) << 12) | (e.thread & 0xFFFu);
  }
  auto& lock = order_[int(ReplayOrder::Lockstep)];
  lock.resize(n);
  std::iota(lock.begin(), lock.end(), 0u);
  std::stable_sort(lock.begin(), lock.end(),
                   [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
}

// Per cell, the recorded order fixes the order of its stores and which store
// each load saw: version v of a cell is its v-th store (0: unwritten). An order
// honours the trace when every store comes in its cell's store order and every
// load comes while its cell holds the version it saw. The recorded order does
// by construction; lockstep on a racy run may not. Then lockstep is rebuilt as
// the topological order of those constraints (plus program order and barriers)
// that stays closest to lockstep: at each step the waiting event lockstep
// would draw first. Without conflicts that is lockstep itself.
// Over 150 lines: one pass whose versions, queues and barrier counts every step shares.
void Replay::honour_trace() {
  const auto& ev = trace_->events;
  const uint32_t n = uint32_t(ev.size());
  auto& lock = order_[int(ReplayOrder::Lockstep)];
  lockstep_conflicts_ = 0;
  lockstep_unavailable_ = false;
  lockstep_note_.clear();

  // Versions, from the recorded order. readers[store] / initial_readers[cell]:
  // how many loads saw that version.
  std::vector<uint32_t> version(n, 0);
  std::vector<uint32_t> stores(cell_total_, 0);
  for (uint32_t idx : order_[int(ReplayOrder::AsRecorded)]) {
    const int32_t c = event_cell(ev[idx]);
    if (c < 0) continue;
    if (writes(ev[idx].kind))
      version[idx] = ++stores[size_t(c)];
    else
      version[idx] = stores[size_t(c)];
  }

  // Does lockstep honour them? Count the loads it would draw at the wrong version.
  std::vector<uint32_t> current(cell_total_, 0);
  bool stores_in_order = true;
  for (uint32_t idx : lock) {
    const int32_t c = event_cell(ev[idx]);
    if (c < 0) continue;
    if (writes(ev[idx].kind)) {
      stores_in_order &= version[idx] == current[size_t(c)] + 1;
      current[size_t(c)] = version[idx];
    } else if (version[idx] != current[size_t(c)]) {
      ++lockstep_conflicts_;
    }
  }
  if (lockstep_conflicts_ == 0 && stores_in_order) {
    lockstep_phases();
    return;
  }
  if (lockstep_conflicts_ == 0) lockstep_conflicts_ = 1;  // only racing stores swapped

  std::vector<uint32_t> readers(n, 0), initial_readers(cell_total_, 0);
  {
    std::vector<uint32_t> last_store(cell_total_, UINT32_MAX);
    for (uint32_t idx : order_[int(ReplayOrder::AsRecorded)]) {
      const int32_t c = event_cell(ev[idx]);
      if (c < 0) continue;
      if (writes(ev[idx].kind))
        last_store[size_t(c)] = idx;
      else if (last_store[size_t(c)] == UINT32_MAX)
        ++initial_readers[size_t(c)];
      else
        ++readers[last_store[size_t(c)]];
    }
  }

  // Each thread's events in program order (trace order keeps it).
  uint32_t threads = 1;
  for (const Event& e : ev)
    threads = std::max<uint32_t>(threads, uint32_t(e.thread) + 1);
  const uint64_t slots = uint64_t(blocks_) * threads;
  std::vector<uint32_t> start(slots + 1, 0), list(n);
  for (const Event& e : ev)
    if (e.block < blocks_) ++start[size_t(e.block) * threads + e.thread + 1];
  for (uint64_t q = 0; q < slots; ++q)
    start[q + 1] += start[q];
  std::vector<uint32_t> head(start.begin(), start.end() - 1);
  for (uint32_t i = 0; i < n; ++i)
    if (ev[i].block < blocks_) list[head[size_t(ev[i].block) * threads + ev[i].thread]++] = i;
  std::copy(start.begin(), start.end() - 1, head.begin());

  // Barrier instance (block, phase p): how many threads arrive, how many have.
  const uint64_t phases = uint64_t(max_phase_) + 1;
  std::vector<uint32_t> arrive_total(blocks_ * phases, 0), arrived(blocks_ * phases, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (is_block_arrive(ev[i]) && ev[i].block < blocks_)
      ++arrive_total[ev[i].block * phases + phase_[i]];

  std::vector<uint32_t> lock_rank(n);
  for (uint32_t p = 0; p < n; ++p)
    lock_rank[lock[p]] = p;
  std::fill(current.begin(), current.end(), 0u);
  std::vector<uint32_t> pending(initial_readers);

  // A blocked thread waits on one resource: a cell, or a barrier instance.
  const uint64_t resources = uint64_t(cell_total_) + blocks_ * phases;
  std::vector<uint32_t> wait_head(resources, UINT32_MAX), wait_next(slots, UINT32_MAX);
  auto blocker = [&](uint32_t i) -> uint64_t {  // UINT64_MAX: ready
    const Event& e = ev[i];
    // A warp barrier's leave waits for nothing here: the cells' versions
    // already order what its lanes exchanged.
    if (e.kind == EventKind::BarrierLeave && !(e.flags & kFlagWarpScope)) {
      const uint64_t b = e.block * phases + (phase_[i] > 0 ? phase_[i] - 1u : 0u);
      return arrived[b] < arrive_total[b] ? cell_total_ + b : UINT64_MAX;
    }
    const int32_t c = event_cell(e);
    if (c < 0) return UINT64_MAX;
    if (writes(e.kind))
      return version[i] == current[size_t(c)] + 1 && pending[size_t(c)] == 0 ? UINT64_MAX
                                                                             : uint64_t(c);
    return version[i] == current[size_t(c)] ? UINT64_MAX : uint64_t(c);
  };
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;  // lockstep ranks
  auto offer = [&](uint64_t slot) {
    if (head[slot] == start[slot + 1]) return;
    const uint32_t i = list[head[slot]];
    const uint64_t r = blocker(i);
    if (r == UINT64_MAX) {
      ready.push(lock_rank[i]);
    } else {
      wait_next[slot] = wait_head[r];
      wait_head[r] = uint32_t(slot);
    }
  };
  auto wake = [&](uint64_t r) {
    uint32_t slot = wait_head[r];
    wait_head[r] = UINT32_MAX;
    while (slot != UINT32_MAX) {
      const uint32_t next = wait_next[slot];
      wait_next[slot] = UINT32_MAX;
      offer(slot);
      slot = next;
    }
  };
  for (uint64_t q = 0; q < slots; ++q)
    offer(q);
  std::vector<uint32_t> out;
  out.reserve(n);
  while (!ready.empty()) {
    const uint32_t i = lock[ready.top()];
    ready.pop();
    out.push_back(i);
    const Event& e = ev[i];
    const uint64_t slot = uint64_t(e.block) * threads + e.thread;
    ++head[slot];
    if (is_block_arrive(e)) {
      const uint64_t b = e.block * phases + phase_[i];
      if (++arrived[b] == arrive_total[b]) wake(cell_total_ + b);
    } else if (const int32_t c = event_cell(e); c >= 0) {
      if (writes(e.kind)) {
        current[size_t(c)] = version[i];
        pending[size_t(c)] = readers[i];
        wake(uint64_t(c));
      } else if (--pending[size_t(c)] == 0) {
        wake(uint64_t(c));
      }
    }
    offer(slot);
  }
  if (out.size() == n) {
    lock = std::move(out);
    lockstep_note_ = std::to_string(lockstep_conflicts_) +
                     " loads saw another store than lockstep would draw before them: "
                     "the threads that fell behind are drawn late, as they ran";
  } else {
    // Events outside every block, or constraints in a cycle: show the recorded order.
    lock = order_[int(ReplayOrder::AsRecorded)];
    lockstep_unavailable_ = true;
    lockstep_note_ =
        "lockstep cannot show this run without contradicting what its loads saw; "
        "showing the recorded order";
  }
  lockstep_phases();
}

void Replay::lockstep_phases() {
  const auto& lock = order_[int(ReplayOrder::Lockstep)];
  const uint32_t n = uint32_t(lock.size());
  lockstep_phase_start_.assign(size_t(max_phase_) + 1, 0);
  int cur = -1;
  for (uint32_t p = 0; p < n; ++p) {
    const int ph = phase_[lock[p]];
    while (cur < ph)
      lockstep_phase_start_[size_t(++cur)] = p;
  }
  while (cur < max_phase_)
    lockstep_phase_start_[size_t(++cur)] = n;
}

void Replay::apply(std::vector<CellState>& cells, uint32_t index, uint32_t time) const {
  const Event& e = trace_->events[index];
  if (e.kind == EventKind::Empty || is_barrier(e.kind)) return;
  const int32_t ci = cell_index(e.array, e.block, e.element);
  if (ci < 0) return;
  CellState& c = cells[size_t(ci)];
  c.time = time;
  c.block = e.block;
  c.thread = e.thread;
  c.last_kind = e.kind;
  if (e.flags & kFlagOutOfRange) {
    c.flags |= kCellOutOfRange;  // marked where it was clamped; the value is untouched
    return;
  }
  switch (e.kind) {
    case EventKind::GlobalLoad:
    case EventKind::SharedLoad:
      // The cell shows what the load recorded: the picture never contradicts
      // the trace, even for a read of memory nothing wrote (its value is the
      // load's, not the replay's initial 0).
      if (e.kind == EventKind::GlobalLoad) {
        ++c.reads;
        c.flags |= kCellLoaded;
      }
      c.value = e.value;
      if (!(c.flags & kCellWritten)) c.flags |= kCellReadUnwritten;
      if (bits_[index] & kBitStale) c.flags |= kCellStale;
      break;
    case EventKind::GlobalStore:
      c.value = e.value;
      c.flags |= kCellWritten;
      break;
    case EventKind::GlobalAtomic:  // read and written: the heatmap counts the read too
      ++c.reads;
      c.value = e.value;
      c.flags |= kCellWritten;
      break;
    case EventKind::SharedAtomic:  // a count, not a copy of a global element
      c.value = e.value;
      c.flags = uint8_t((c.flags | kCellWritten) & ~(kCellStale | kCellLoaded | kCellPadded));
      c.src = -1;
      c.src_buffer = kNoArray;
      break;
    case EventKind::SharedStore: {
      c.value = e.value;
      c.flags = uint8_t((c.flags | kCellWritten) & ~(kCellStale | kCellLoaded | kCellPadded));
      const int32_t s = source_of(index);
      if (s >= 0) {
        c.src = int32_t(trace_->events[size_t(s)].element);
        c.src_buffer = trace_->events[size_t(s)].array;
        c.flags |= kCellLoaded;
      } else {
        c.src = -1;
        c.src_buffer = kNoArray;
        if (bits_[index] & kBitPadded) c.flags |= kCellPadded;
      }
      break;
    }
    default:
      break;
  }
}

void Replay::build_checkpoints() {
  const auto& ord = order_[int(order_kind_)];
  const uint64_t n = ord.size();
  rank_.resize(n);
  for (uint32_t p = 0; p < n; ++p)
    rank_[ord[p]] = p;
  last_store_.assign(cell_total_, 0);
  const uint64_t snapshots = n / interval_ + 1;
  checkpoints_.clear();
  checkpoints_.shrink_to_fit();
  checkpoints_.reserve(size_t(snapshots) * cell_total_);
  std::vector<CellState> cells = initial_;
  for (uint32_t p = 0; p < n; ++p) {
    if (p % interval_ == 0) checkpoints_.insert(checkpoints_.end(), cells.begin(), cells.end());
    const Event& e = trace_->events[ord[p]];
    if (writes(e.kind))
      if (const int32_t c = event_cell(e); c >= 0) last_store_[size_t(c)] = p + 1;
    apply(cells, ord[p], p + 1);
  }
  if (n % interval_ == 0) checkpoints_.insert(checkpoints_.end(), cells.begin(), cells.end());
}

void Replay::set_order(ReplayOrder o) {
  if (o == order_kind_) return;
  const bool had = pos_ > 0;
  const uint32_t last = had ? event_at(pos_) : 0;
  order_kind_ = o;
  build_phase_index();
  build_checkpoints();
  cells_ = initial_;
  touched_.clear();
  const uint64_t target = had ? position_after(last) : 0;
  pos_ = 0;
  seek(target);
}

void Replay::seek(uint64_t position) {
  const auto& ord = order_[int(order_kind_)];
  position = std::min<uint64_t>(position, ord.size());
  for (uint32_t c : touched_)
    cells_[c].flags = uint8_t(cells_[c].flags & ~kCellTouchedNow);
  touched_.clear();
  uint64_t from = pos_;
  if (position < pos_ || position - pos_ > interval_) {
    const uint64_t k = position / interval_;
    const auto first = checkpoints_.begin() + ptrdiff_t(k * cell_total_);
    std::copy(first, first + cell_total_, cells_.begin());
    from = k * interval_;
  }
  for (uint64_t p = from; p < position; ++p)
    apply(cells_, ord[size_t(p)], uint32_t(p + 1));
  pos_ = position;
  mark_touched();
}

void Replay::mark_touched() {
  if (pos_ == 0) return;
  const auto& ev = trace_->events;
  const Event& last = ev[event_at(pos_)];
  for (uint64_t p = pos_; p > 0; --p) {
    const Event& e = ev[event_at(p)];
    if (!same_instruction(e, last)) break;
    const int32_t c = cell_index(e.array, e.block, e.element);
    if (c >= 0 && !is_barrier(e.kind)) {
      cells_[size_t(c)].flags |= kCellTouchedNow;
      touched_.push_back(uint32_t(c));
    }
    if (touched_.size() > 4096) break;
  }
}

}  // namespace ts
