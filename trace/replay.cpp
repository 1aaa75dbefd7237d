// The replay model (see trace/replay.hpp).
#include "trace/replay.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace ts {

const char* to_string(ReplayOrder o) {
  return o == ReplayOrder::Lockstep ? "lockstep" : "as recorded";
}

namespace {

// A warp instruction: consecutive events of one warp with the same kind and line.
bool same_instruction(const Event& a, const Event& b) {
  return a.block == b.block && a.warp == b.warp && a.kind == b.kind && a.line == b.line;
}

}  // namespace

Replay::Replay(std::shared_ptr<const Trace> trace) : trace_(std::move(trace)) {
  std::fill(std::begin(array_of_), std::end(array_of_), -1);
  build_arrays();
  build_orders();
  reset_cells(initial_);
  // Stale reads: replay the lockstep order once and compare what each shared
  // load saw with what the cell held at that point of the idealised program.
  {
    std::vector<CellState> cells = initial_;
    const auto& ev = trace_->events;
    stale_.assign(ev.size(), 0);
    uint32_t t = 0;
    for (uint32_t idx : order_[int(ReplayOrder::Lockstep)]) {
      const Event& e = ev[idx];
      if (e.kind == EventKind::SharedLoad) {
        const int32_t c = cell_index(e.buffer, e.block, e.element);
        if (c >= 0) {
          const CellState& cs = cells[size_t(c)];
          const bool written = (cs.flags & kCellWritten) != 0;
          if (!written || std::memcmp(&cs.value, &e.value, sizeof(float)) != 0) {
            stale_[idx] = 1;
            ++stale_count_;
          }
        }
      } else if (is_store(e.kind)) {
        apply(cells, idx, ++t);
      }
    }
  }
  build_checkpoints();
  cells_ = initial_;
  pos_ = 0;
}

void Replay::build_arrays() {
  const Trace& t = *trace_;
  // Extents seen in the events, for arrays the trace does not describe.
  uint32_t seen[kBufferCount] = {};
  uint32_t max_block = 0;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::Empty || is_barrier(e.kind)) {
      max_block = std::max(max_block, e.block);
      continue;
    }
    const int b = int(e.buffer);
    if (b > 0 && b < kBufferCount && !(e.flags & kFlagOutOfRange))
      seen[b] = std::max(seen[b], e.element + 1);
    max_block = std::max(max_block, e.block);
  }
  blocks_ = uint32_t(std::max<uint64_t>(t.config.geometry.grid.count(), max_block + 1));

  uint32_t offset = 0;
  auto add = [&](Buffer id, int rows, int cols, bool shared, bool out) {
    ReplayArray a;
    a.id = id;
    a.rows = rows;
    a.cols = cols;
    a.shared = shared;
    a.is_output = out;
    a.offset = offset;
    a.blocks = shared ? blocks_ : 1;
    array_of_[int(id)] = int32_t(arrays_.size());
    arrays_.push_back(a);
    offset += a.count() * a.blocks;
  };
  for (const BufferData& b : t.buffers) {
    if (b.id == Buffer::None || int(b.id) >= kBufferCount || array_of_[int(b.id)] >= 0) continue;
    if (is_shared_buffer(b.id) || b.rows <= 0 || b.cols <= 0) continue;
    add(b.id, b.rows, b.cols, false, b.is_output);
  }
  // Global arrays the events touch but the trace did not carry: one row.
  for (Buffer id : {Buffer::A, Buffer::B, Buffer::C, Buffer::In, Buffer::Out})
    if (array_of_[int(id)] < 0 && seen[int(id)] > 0)
      add(id, 1, int(seen[int(id)]), false, id == Buffer::C || id == Buffer::Out);

  // Shared arrays: as the catalogue shapes them, else square tiles of the tile
  // width or one row (a trace of a variant this build does not know).
  if (const Variant* v = find_variant(t.config.variant)) {
    for (const BufferShape& s : shared_shapes(*v, t.config.params))
      if (s.rows > 0 && s.cols > 0 && array_of_[int(s.id)] < 0 &&
          uint64_t(s.rows) * uint64_t(s.cols) >= seen[int(s.id)])
        add(s.id, s.rows, s.cols, true, false);
  }
  const int tile = t.config.params.tile;
  for (Buffer id : {Buffer::TileA, Buffer::TileB, Buffer::StencilShared}) {
    const uint32_t n = seen[int(id)];
    if (n == 0 || array_of_[int(id)] >= 0) continue;
    if (tile > 0 && n <= uint32_t(tile * tile) && n > uint32_t(tile))
      add(id, tile, tile, true, false);
    else
      add(id, 1, int(n), true, false);
  }
  cell_total_ = offset;
}

int32_t Replay::cell_index(Buffer id, uint32_t block, uint32_t element) const {
  const int b = int(id);
  if (b <= 0 || b >= kBufferCount || array_of_[b] < 0) return -1;
  const ReplayArray& a = arrays_[size_t(array_of_[b])];
  if (element >= a.count()) return -1;
  if (!a.shared) return int32_t(a.offset + element);
  if (block >= a.blocks) return -1;
  return int32_t(a.offset + block * a.count() + element);
}

const ReplayArray* Replay::array(Buffer id) const {
  const int b = int(id);
  if (b <= 0 || b >= kBufferCount || array_of_[b] < 0) return nullptr;
  return &arrays_[size_t(array_of_[b])];
}

const CellState* Replay::cell(Buffer id, uint32_t block, uint32_t element) const {
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
  // phase, and the event before (a shared store right after a global load
  // copies that element; one with nothing loaded before it stores padding).
  phase_.assign(n, 0);
  src_.assign(n, -1);
  padded_.assign(n, 0);
  std::vector<uint16_t> step(n, 0);
  struct ThreadPos {
    uint16_t phase = 0, step = 0;
    int32_t last = -1;
  };
  uint32_t threads = 1;
  for (const Event& e : ev)
    threads = std::max<uint32_t>(threads, uint32_t(e.thread) + 1);
  std::vector<ThreadPos> tp(size_t(blocks_) * threads);
  max_phase_ = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (e.block >= blocks_) continue;
    ThreadPos& p = tp[size_t(e.block) * threads + e.thread];
    if (e.kind == EventKind::BarrierLeave) {
      ++p.phase;
      p.step = 0;
    }
    phase_[i] = p.phase;
    step[i] = p.step < 0xFFFF ? p.step++ : p.step;
    max_phase_ = std::max<int>(max_phase_, p.phase);
    if (e.kind == EventKind::SharedStore) {
      if (p.last >= 0 && ev[size_t(p.last)].kind == EventKind::GlobalLoad)
        src_[i] = p.last;
      else if (e.value == 0.0f)
        padded_[i] = 1;
    }
    p.last = int32_t(i);
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

  for (int o = 0; o < 2; ++o) {
    rank_[o].resize(n);
    for (uint32_t p = 0; p < n; ++p)
      rank_[o][order_[o][p]] = p;
  }
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
  const int32_t ci = cell_index(e.buffer, e.block, e.element);
  if (ci < 0) return;
  CellState& c = cells[size_t(ci)];
  c.time = time;
  c.block = e.block;
  c.thread = e.thread;
  c.last_kind = e.kind;
  if (e.flags & kFlagOutOfRange) c.flags |= kCellOutOfRange;
  switch (e.kind) {
    case EventKind::GlobalLoad:
      ++c.reads;
      c.flags |= kCellLoaded;
      break;
    case EventKind::SharedLoad:
      if (!stale_.empty() && stale_[index]) c.flags |= kCellStale;
      break;
    case EventKind::GlobalStore:
      c.value = e.value;
      c.flags |= kCellWritten;
      break;
    case EventKind::SharedStore: {
      c.value = e.value;
      c.flags = uint8_t((c.flags | kCellWritten) & ~(kCellStale | kCellLoaded | kCellPadded));
      const int32_t s = src_[index];
      if (s >= 0) {
        c.src = int32_t(trace_->events[size_t(s)].element);
        c.src_buffer = trace_->events[size_t(s)].buffer;
        c.flags |= kCellLoaded;
      } else {
        c.src = -1;
        c.src_buffer = Buffer::None;
        if (padded_[index]) c.flags |= kCellPadded;
      }
      break;
    }
    default:
      break;
  }
}

void Replay::build_checkpoints() {
  const auto& ord = order_[int(order_kind_)];
  checkpoints_.clear();
  checkpoints_.reserve(ord.size() / kCheckpointEvery + 1);
  std::vector<CellState> cells = initial_;
  for (uint32_t p = 0; p < ord.size(); ++p) {
    if (p % kCheckpointEvery == 0) checkpoints_.push_back(cells);
    apply(cells, ord[p], p + 1);
  }
  if (ord.size() % kCheckpointEvery == 0) checkpoints_.push_back(cells);
}

void Replay::set_order(ReplayOrder o) {
  if (o == order_kind_) return;
  const bool had = pos_ > 0;
  const uint32_t last = had ? event_at(pos_) : 0;
  order_kind_ = o;
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
  if (position < pos_ || position - pos_ > kCheckpointEvery) {
    const uint64_t k = position / kCheckpointEvery;
    cells_ = checkpoints_[size_t(k)];
    from = k * kCheckpointEvery;
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
    const int32_t c = cell_index(e.buffer, e.block, e.element);
    if (c >= 0 && !is_barrier(e.kind)) {
      cells_[size_t(c)].flags |= kCellTouchedNow;
      touched_.push_back(uint32_t(c));
    }
    if (touched_.size() > 4096) break;
  }
}

uint32_t Replay::event_at(uint64_t position) const {
  const auto& ord = order_[int(order_kind_)];
  if (position == 0 || ord.empty()) return 0;
  return ord[size_t(std::min<uint64_t>(position, ord.size()) - 1)];
}

const Event* Replay::last_event() const {
  if (pos_ == 0) return nullptr;
  return &trace_->events[event_at(pos_)];
}

uint64_t Replay::position_after(uint32_t index) const {
  const auto& r = rank_[int(order_kind_)];
  if (index >= r.size()) return size();
  return uint64_t(r[index]) + 1;
}

uint64_t Replay::warp_step(uint64_t from, bool forward) const {
  const auto& ev = trace_->events;
  const uint64_t n = size();
  if (forward) {
    if (from >= n) return n;
    const Event& k = ev[event_at(from + 1)];
    uint64_t p = from + 1;
    while (p < n && same_instruction(ev[event_at(p + 1)], k))
      ++p;
    return p;
  }
  if (from == 0) return 0;
  from = std::min(from, n);
  const Event& k = ev[event_at(from)];
  uint64_t p = from;
  while (p > 0 && same_instruction(ev[event_at(p)], k))
    --p;
  return p;
}

namespace {
// Positions (1-based) where each phase q >= 1 of `block` begins in `ord`.
std::vector<uint64_t> phase_starts(const std::vector<uint32_t>& ord, const std::vector<Event>& ev,
                                   const std::vector<uint16_t>& phase, uint32_t block) {
  std::vector<uint64_t> starts;
  int cur = 0;
  for (uint64_t p = 0; p < ord.size(); ++p) {
    const uint32_t i = ord[p];
    if (ev[i].block != block) continue;
    if (phase[i] > cur) {
      cur = phase[i];
      starts.push_back(p + 1);
    }
  }
  return starts;
}
}  // namespace

namespace {
// The first stop after `from` (forward) or the last before it; `end` or 0
// when there is none.
uint64_t next_stop(const std::vector<uint64_t>& stops, uint64_t from, bool forward, uint64_t end) {
  if (forward) {
    for (uint64_t q : stops)
      if (q > from) return q;
    return end;
  }
  for (auto it = stops.rbegin(); it != stops.rend(); ++it)
    if (*it < from) return *it;
  return 0;
}
}  // namespace

uint64_t Replay::phase_step(uint64_t from, bool forward, uint32_t block) const {
  auto s = phase_starts(order_[int(order_kind_)], trace_->events, phase_, block);
  s.insert(s.begin(), 0);
  s.push_back(size());
  return next_stop(s, from, forward, size());
}

uint64_t Replay::barrier_step(uint64_t from, bool forward, uint32_t block) const {
  auto s = phase_starts(order_[int(order_kind_)], trace_->events, phase_, block);
  for (auto& q : s)
    q -= 1;  // everyone arrived, nobody left yet
  return next_stop(s, from, forward, size());
}

int Replay::current_phase(uint32_t block) const {
  const auto& ev = trace_->events;
  for (uint64_t p = pos_; p > 0; --p) {
    const uint32_t i = event_at(p);
    if (ev[i].block == block) return phase_[i];
  }
  return 0;
}

uint64_t Replay::lockstep_phase_start(int p) const {
  if (p <= 0 || lockstep_phase_start_.empty()) return 0;
  if (p >= int(lockstep_phase_start_.size())) return size();
  return lockstep_phase_start_[size_t(p)];
}

}  // namespace ts
