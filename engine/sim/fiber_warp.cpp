// The warp-level meetings of FiberBlock (engine/sim/fiber_block.hpp): warp
// barriers, shuffles, votes and the reconvergence at a removed barrier, with
// the masks of a plain CUDA file's intrinsics. The rules are CUDA's
// (programming guide, "Warp Shuffle Functions", "Warp Vote Functions",
// "__syncwarp"): each calling lane is in its mask; every lane of the mask that
// has not exited calls the same intrinsic with the same mask; a shuffle reads
// a lane that takes part, or its value is undefined.
#include <algorithm>
#include <cstdio>

#include "engine/sim/fiber_block.hpp"

namespace ts::sim {

namespace {

std::string hex(uint32_t mask) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", mask);
  return text;
}

}  // namespace

void FiberBlock::fail(const std::string& what) const {
  throw KernelError(who(current_) + " " + what);
}

void FiberBlock::wait_at_warp(uint32_t mask, const char* op) {
  Fiber& f = fibers_[current_];
  const int lane = current_ % kWarpSize;
  if (!(mask >> lane & 1u))
    fail("called " + std::string(op) + " with mask " + hex(mask) + " at line " +
         std::to_string(f.line) + ", which leaves its own lane " + std::to_string(lane) +
         " out: undefined in CUDA (every lane that calls it must be in its mask)");
  f.warp_mask = mask;
  f.warp_op = op;
  f.state = State::AtWarpBarrier;
  ++at_warp_barrier_[current_ / kWarpSize];
  --runnable_in_warp_[current_ / kWarpSize];
  switch_to_scheduler(false);  // resumed after the meeting opens (end of a step_warp)
}

void FiberBlock::warp_barrier_wait() {
  wait_at_warp(~0u, nullptr);
}

uint64_t FiberBlock::warp_exchange(uint64_t bits, int src_lane) {
  const int self = current_;
  exchange_[self] = bits;
  warp_barrier_wait();
  const int src = self / kWarpSize * kWarpSize + src_lane;
  return src_lane >= 0 && src_lane < kWarpSize && src < threads_ ? exchange_[src] : bits;
}

uint64_t FiberBlock::warp_shuffle(uint64_t bits, int src_lane, uint32_t mask, const char* op) {
  const int self = current_, lane = self % kWarpSize, src = self - lane + src_lane;
  const std::string reads = "called " + std::string(op) + " at line " +
                            std::to_string(fibers_[self].line) + ": lane " + std::to_string(lane) +
                            " reads lane " + std::to_string(src_lane) + ", which ";
  const std::string undefined = ": its value is undefined in CUDA";
  if ((mask >> lane & 1u) && !(mask >> src_lane & 1u))
    fail(reads + "is not in the mask " + hex(mask) + undefined);
  exchange_[self] = bits;
  wait_at_warp(mask, op);
  // Read in the warp step that opened the meeting: every lane of the mask
  // that met here is still live (each ends its step right after this read).
  if (src >= threads_)
    fail(reads + "its block of " + std::to_string(threads_) + " threads does not have" + undefined);
  if (fibers_[src].state == State::Exited) fail(reads + "has exited" + undefined);
  return exchange_[src];
}

uint32_t FiberBlock::warp_ballot(bool pred, uint32_t mask, const char* op) {
  const int self = current_, first = self / kWarpSize * kWarpSize;
  exchange_[self] = pred;
  wait_at_warp(mask, op);
  const int last = std::min(first + kWarpSize, threads_);
  uint32_t votes = 0;
  for (int t = first; t < last; ++t)
    if ((mask >> (t - first) & 1u) && fibers_[t].state != State::Exited && exchange_[t] != 0)
      votes |= 1u << (t - first);
  return votes;
}

void FiberBlock::warp_sync(uint32_t mask) {
  wait_at_warp(mask, "__syncwarp");
}

uint32_t FiberBlock::warp_match_any(uint64_t bits) {
  const int self = current_;
  exchange_[self] = bits;
  warp_barrier_wait();
  // Read in the warp step that released the warp: every lane that met here is
  // still live (each ends its step right after this read, before it can exit).
  const int first = self / kWarpSize * kWarpSize, last = std::min(first + kWarpSize, threads_);
  uint32_t peers = 0;
  for (int t = first; t < last; ++t)
    if (fibers_[t].state != State::Exited && exchange_[t] == bits) peers |= 1u << (t - first);
  return peers;
}

void FiberBlock::warp_converge() {
  Fiber& f = fibers_[current_];
  f.state = State::Converging;
  ++converging_[current_ / kWarpSize];
  --runnable_in_warp_[current_ / kWarpSize];
  switch_to_scheduler(false);  // resumed once no lane of the warp can run (end of a step_warp)
}

void FiberBlock::release_converging(int warp) {
  const int first = warp * kWarpSize, last = std::min(first + kWarpSize, threads_);
  for (int t = first; t < last; ++t) {
    if (fibers_[t].state != State::Converging) continue;
    fibers_[t].state = State::Runnable;
    ++runnable_in_warp_[warp];
  }
  converging_[warp] = 0;
}

void FiberBlock::release_warp_barrier(int warp) {
  const int first = warp * kWarpSize, last = std::min(first + kWarpSize, threads_);
  uint32_t live = 0, waiting = 0;
  for (int t = first; t < last; ++t) {
    live |= uint32_t(fibers_[t].state != State::Exited) << (t - first);
    waiting |= uint32_t(fibers_[t].state == State::AtWarpBarrier) << (t - first);
  }
  // A meeting opens when its mask's live lanes all wait with that mask; the
  // others go on waiting (lanes that will meet with another mask first).
  for (int t = first; t < last; ++t) {
    if (!(waiting >> (t - first) & 1u)) continue;
    const uint32_t mask = fibers_[t].warp_mask, group = mask & live;
    uint32_t same = 0;  // the lanes of this meeting that are there
    for (int u = first; u < last; ++u)
      if ((group & waiting) >> (u - first) & 1u && fibers_[u].warp_mask == mask)
        same |= 1u << (u - first);
    waiting &= ~same;  // judged together
    if (same != group) continue;
    for (int u = first; u < last; ++u) {
      if (!(group >> (u - first) & 1u)) continue;
      fibers_[u].state = State::Runnable;
      ++runnable_in_warp_[warp];
      --at_warp_barrier_[warp];
    }
  }
}

std::string FiberBlock::warp_wait_text(int thread) const {
  const Fiber& f = fibers_[size_t(thread)];
  if (!f.warp_op) return "the warp barrier on line " + std::to_string(f.line);
  return "the " + std::string(f.warp_op) + " on line " + std::to_string(f.line) + " with mask " +
         hex(f.warp_mask);
}

std::string FiberBlock::warp_wait_reason(int thread) const {
  const Fiber& f = fibers_[size_t(thread)];
  const int first = thread / kWarpSize * kWarpSize, last = std::min(first + kWarpSize, threads_);
  for (int u = first; u < last; ++u) {
    const Fiber& g = fibers_[size_t(u)];
    if (!(f.warp_mask >> (u - first) & 1u) || g.state == State::Exited ||
        (g.state == State::AtWarpBarrier && g.warp_mask == f.warp_mask))
      continue;
    const std::string where = g.state == State::AtWarpBarrier ? "waits at " + warp_wait_text(u)
                              : g.state == State::AtBarrier
                                  ? "waits at the __syncthreads() on line " + std::to_string(g.line)
                                  : "cannot go on (line " + std::to_string(g.line) + ")";
    return "; " + who(thread) + " waits at " + warp_wait_text(thread) + " for lane " +
           std::to_string(u - first) + ", which " + where +
           ": every lane of a mask that has not exited must call the same intrinsic with the "
           "same mask (CUDA)";
  }
  return "";
}

}  // namespace ts::sim
