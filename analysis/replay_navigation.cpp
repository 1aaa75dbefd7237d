// The replay model's stepping (see analysis/replay.hpp): from a position to
// the event there, the next warp instruction, phase or barrier; apart from
// analysis/replay.cpp, which builds the orders and the cells.
#include <algorithm>
#include <cstdint>

#include "analysis/replay.hpp"
#include "analysis/replay_detail.hpp"

namespace ts {

using replay_detail::same_instruction;

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
  if (index >= rank_.size()) return size();
  return uint64_t(rank_[index]) + 1;
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

void Replay::build_phase_index() {
  const auto& ord = order_[int(order_kind_)];
  const auto& ev = trace_->events;
  std::vector<uint16_t> furthest(blocks_, 0);
  std::vector<std::pair<uint64_t, uint16_t>> starts;
  for (uint64_t p = 0; p < ord.size(); ++p) {
    const uint32_t i = ord[p];
    const uint32_t b = ev[i].block;
    if (b >= blocks_ || phase_[i] <= furthest[b]) continue;
    furthest[b] = phase_[i];
    starts.emplace_back((uint64_t(b) << 32) | (p + 1), phase_[i]);
  }
  std::sort(starts.begin(), starts.end());
  phase_start_key_.resize(starts.size());
  phase_start_phase_.resize(starts.size());
  for (size_t k = 0; k < starts.size(); ++k) {
    phase_start_key_[k] = starts[k].first;
    phase_start_phase_[k] = starts[k].second;
  }
}

namespace {
uint64_t phase_key(uint32_t block, uint64_t position) {
  return (uint64_t(block) << 32) | position;
}
}  // namespace

// The stops of a block are the positions where its phases begin (from the
// index); phase steps add the start and the end, barrier steps stop one
// event earlier (everyone arrived, nobody left yet).
uint64_t Replay::phase_step(uint64_t from, bool forward, uint32_t block) const {
  const uint64_t n = size();
  if (forward ? from >= n : from > n) return n;
  const auto& keys = phase_start_key_;
  if (forward) {
    const auto it = std::upper_bound(keys.begin(), keys.end(), phase_key(block, from));
    return it != keys.end() && (*it >> 32) == block ? (*it & 0xFFFFFFFFu) : n;
  }
  const auto it = std::lower_bound(keys.begin(), keys.end(), phase_key(block, from));
  return it != keys.begin() && (*(it - 1) >> 32) == block ? (*(it - 1) & 0xFFFFFFFFu) : 0;
}

uint64_t Replay::barrier_step(uint64_t from, bool forward, uint32_t block) const {
  const uint64_t n = size();
  const auto& keys = phase_start_key_;
  if (forward) {
    // The first start after from + 1.
    if (from + 1 >= n) return n;
    const auto it = std::upper_bound(keys.begin(), keys.end(), phase_key(block, from + 1));
    return it != keys.end() && (*it >> 32) == block ? (*it & 0xFFFFFFFFu) - 1 : n;
  }
  // The last start at or before from.
  const auto it = std::upper_bound(keys.begin(), keys.end(), phase_key(block, std::min(from, n)));
  return it != keys.begin() && (*(it - 1) >> 32) == block ? (*(it - 1) & 0xFFFFFFFFu) - 1 : 0;
}

int Replay::current_phase(uint32_t block) const {
  const auto& keys = phase_start_key_;
  const auto it = std::upper_bound(keys.begin(), keys.end(), phase_key(block, pos_));
  if (it == keys.begin() || (*(it - 1) >> 32) != block) return 0;
  return phase_start_phase_[size_t(it - 1 - keys.begin())];
}

uint64_t Replay::lockstep_phase_start(int p) const {
  if (p <= 0 || lockstep_phase_start_.empty()) return 0;
  if (p >= int(lockstep_phase_start_.size())) return size();
  return lockstep_phase_start_[size_t(p)];
}

}  // namespace ts
