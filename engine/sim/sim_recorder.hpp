// The simulator's recorder (the `Rec` of lessons/access.hpp): every load,
// store and atomic is checked against its array's extent, performed, appended to the
// trace and then ends the thread's step, so that the scheduler decides which
// warp moves next. Barriers wait for the whole block, warp barriers and
// shuffles for the warp (engine/sim/fiber_block.hpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/sim/fiber_block.hpp"
#include "lessons/access.hpp"
#include "lessons/atomic_op.hpp"
#include "lessons/warp_mask.hpp"
#include "model/barrier_set.hpp"
#include "model/event.hpp"

namespace ts::sim {

// What all threads of one simulated launch write to: the events, the
// out-of-range faults, and the run's barrier mask.
struct SimSink {
  static constexpr size_t kMaxFaultMessages = 100;

  bool traced = true;
  uint64_t capacity = 0;      // events that fit; beyond, only events_dropped grows
  BarrierSet barrier_mask;    // the barriers kept
  uint32_t block_linear = 0;  // the block that runs now
  std::vector<Event> events;
  uint64_t events_dropped = 0;
  const ArrayTable* arrays = nullptr;  // names for the fault messages
  std::vector<std::string> faults;     // the first kMaxFaultMessages, then a summary line
  uint64_t fault_count = 0;
  // The shared memory traced accesses went through (base, bytes): what is
  // not among them was used around the trace (engine/sim/static_shared.hpp).
  std::vector<std::pair<const void*, size_t>> shared_seen;
  void saw_shared(const void* base, size_t bytes) {
    for (const auto& s : shared_seen)
      if (s.first == base && s.second == bytes) return;
    shared_seen.push_back({base, bytes});
  }

  // An out-of-range access, or (misaligned) a 16-byte one off its 16-byte boundary.
  void fault(const char* what, Space space, ArraySlot buf, int index, int count, int line,
             const ThreadBuiltins& who, bool misaligned = false);
};

class SimRec {
 public:
  SimRec(FiberBlock& fiber, SimSink& sink, int thread)
      : fiber_(fiber), sink_(sink), thread_(uint16_t(thread)) {}

  template <class T>
  T load(Space space, const T* base, int index, int count, ArraySlot buf, uint16_t line) {
    fiber_.at_line(line);
    seen(space, base, count);
    const bool out = index < 0 || index >= count;
    T v{};  // an out-of-range read touches nothing and returns 0
    if (out)
      sink_.fault("load", space, buf, index, count, line, fiber_.builtins(thread_));
    else
      v = base[index];
    // A constant-memory read is a GlobalLoad; the array table says Space::Constant.
    record(space == Space::Shared ? EventKind::SharedLoad : EventKind::GlobalLoad, buf, index,
           as_float(v), line, out, 0);
    fiber_.step();
    return v;
  }

  template <class T>
  void store(Space space, T* base, int index, int count, ArraySlot buf, T value, uint16_t line) {
    fiber_.at_line(line);
    seen(space, base, count);
    const bool out = index < 0 || index >= count;
    if (out)
      sink_.fault("store", space, buf, index, count, line, fiber_.builtins(thread_));
    else
      base[index] = value;
    record(space == Space::Global ? EventKind::GlobalStore : EventKind::SharedStore, buf, index,
           as_float(value), line, out, 0);
    fiber_.step();
  }

  // atomicAdd: the read, the add and the write in one step, so no other
  // simulated thread comes between them; the event's value is the new one.
  template <class T>
  T atomic_add(Space space, T* base, int index, int count, ArraySlot buf, T value, uint16_t line) {
    fiber_.at_line(line);
    seen(space, base, count);
    const bool out = index < 0 || index >= count;
    T old{};
    if (out) {
      sink_.fault("atomic update", space, buf, index, count, line, fiber_.builtins(thread_));
    } else {
      old = base[index];
      base[index] = T(old + value);
    }
    record(space == Space::Global ? EventKind::GlobalAtomic : EventKind::SharedAtomic, buf, index,
           as_float(T(old + value)), line, out, 0);
    fiber_.step();
    return old;
  }

  // atomicMax, atomicCAS and the rest (lessons/atomic_op.hpp): one
  // step as atomic_add; the event's value is what the element holds after it.
  template <class T>
  T atomic_op(AtomicOp op, Space space, T* base, int index, int count, ArraySlot buf, T value,
              T compare, uint16_t line) {
    fiber_.at_line(line);
    seen(space, base, count);
    const bool out = index < 0 || index >= count;
    T old{}, now{};
    if (out) {
      sink_.fault("atomic update", space, buf, index, count, line, fiber_.builtins(thread_));
    } else {
      old = base[index];
      now = apply_atomic(op, old, value, compare);
      base[index] = now;
    }
    record(space == Space::Global ? EventKind::GlobalAtomic : EventKind::SharedAtomic, buf, index,
           as_float(now), line, out, 0);
    fiber_.step();
    return old;
  }

  // A 16-byte access: the four elements in one step (one instruction on the
  // GPU), four events flagged 16 bytes wide. Misaligned or partly outside
  // the array, it touches nothing and is reported, as the GPU would fault.
  float4 load4(Space space, const float* base, int index, int count, ArraySlot buf, uint16_t line) {
    fiber_.at_line(line);
    seen(space, base, count);
    float4 v{0, 0, 0, 0};
    const bool ok = check4("16-byte load", space, base, index, count, buf, line);
    if (ok) v = float4{base[index], base[index + 1], base[index + 2], base[index + 3]};
    record4(space == Space::Shared ? EventKind::SharedLoad : EventKind::GlobalLoad, buf, index,
            count, v, line);
    fiber_.step();
    return v;
  }
  void store4(Space space, float* base, int index, int count, ArraySlot buf, float4 v,
              uint16_t line) {
    fiber_.at_line(line);
    seen(space, base, count);
    if (check4("16-byte store", space, base, index, count, buf, line)) {
      base[index] = v.x, base[index + 1] = v.y, base[index + 2] = v.z, base[index + 3] = v.w;
    }
    record4(space == Space::Global ? EventKind::GlobalStore : EventKind::SharedStore, buf, index,
            count, v, line);
    fiber_.step();
  }

  // A removed barrier still marks where the warp has reconverged
  // (engine/sim/fiber_block.hpp, "Reconvergence").
  void syncthreads(int barrier_id, int line) {
    fiber_.at_line(line);
    if (!sink_.barrier_mask.keeps(barrier_id)) return fiber_.warp_converge();
    record(EventKind::BarrierArrive, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id));
    fiber_.barrier_wait();
    record(EventKind::BarrierLeave, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id));
    fiber_.step();
  }

  // __syncwarp: the same events, flagged warp-scope; waits for this warp only.
  void syncwarp(int barrier_id, int line) {
    fiber_.at_line(line);
    if (!sink_.barrier_mask.keeps(barrier_id)) return fiber_.warp_converge();
    record(EventKind::BarrierArrive, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id),
           kFlagWarpScope);
    fiber_.warp_barrier_wait();
    record(EventKind::BarrierLeave, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id),
           kFlagWarpScope);
    fiber_.step();
  }

  // __shfl_down_sync with a full mask: the lanes meet, then each takes lane
  // + delta's value (its own past the warp's end). One event, no memory.
  template <class T>
  T shfl_down(T value, int delta, int line) {
    const int lane = thread_ % FiberBlock::kWarpSize;
    return shuffle(value, lane + delta < FiberBlock::kWarpSize && delta >= 0 ? lane + delta : lane,
                   line);
  }

  // The lanes meet, then each takes lane `src`'s value. One event, no memory.
  template <class T>
  T shuffle(T value, int src, int line) {
    fiber_.at_line(line);
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(uint64_t));
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    bits = fiber_.warp_exchange(bits, src);
    T got;
    std::memcpy(&got, &bits, sizeof(T));
    record(EventKind::WarpShuffle, kNoArray, src, as_float(got), uint16_t(line), false, 0);
    fiber_.step();
    return got;
  }

  // __shfl_up_sync, full mask: lane - delta's value (its own below delta).
  template <class T>
  T shfl_up(T value, int delta, int line) {
    const int lane = thread_ % FiberBlock::kWarpSize;
    return shuffle(value, lane - delta >= 0 && delta >= 0 ? lane - delta : lane, line);
  }
  // __shfl_sync, full mask: every lane takes lane `src`'s value.
  template <class T>
  T shfl_idx(T value, int src, int line) {
    return shuffle(value, src & (FiberBlock::kWarpSize - 1), line);
  }

  // A plain CUDA file's __shfl_*_sync(mask, value, b, width)
  // (lessons/plain_cuda.hpp): the lanes of the mask meet, then each takes the
  // lane lessons/warp_mask.hpp names (its own outside its segment). One event,
  // as shuffle's. A misuse CUDA leaves undefined ends the run (fiber_block.hpp).
  template <class T>
  T shfl_sync(ShflMode mode, unsigned mask, T value, int b, int width, int line) {
    fiber_.at_line(line);
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(uint64_t));
    if (!shfl_width_ok(width))
      fiber_.fail("called " + std::string(shfl_name(mode)) + " with width " +
                  std::to_string(width) + " at line " + std::to_string(line) +
                  ": CUDA's width is a power of two from 1 to 32");
    const int src = shfl_source(mode, thread_ % FiberBlock::kWarpSize, b, width);
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    bits = fiber_.warp_shuffle(bits, src, mask, shfl_name(mode));
    T got;
    std::memcpy(&got, &bits, sizeof(T));
    record(EventKind::WarpShuffle, kNoArray, src, as_float(got), uint16_t(line), false, 0);
    fiber_.step();
    return got;
  }
  // __ballot_sync(mask, pred) (op: or __any_sync, __all_sync, for messages):
  // the lanes of the mask that have not exited and whose predicate holds. A
  // vote is not recorded (as match_any); it ends the step.
  unsigned vote_sync(unsigned mask, bool pred, int line, const char* op) {
    fiber_.at_line(line);
    const uint32_t votes = fiber_.warp_ballot(pred, mask, op);
    fiber_.step();
    return votes;
  }
  // __syncwarp(mask): syncwarp's events; waits for the mask's lanes only.
  void syncwarp_mask(int barrier_id, int line, unsigned mask) {
    fiber_.at_line(line);
    if (!sink_.barrier_mask.keeps(barrier_id)) return fiber_.warp_converge();
    record(EventKind::BarrierArrive, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id),
           kFlagWarpScope);
    fiber_.warp_sync(mask);
    record(EventKind::BarrierLeave, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id),
           kFlagWarpScope);
    fiber_.step();
  }

  // A spin-wait on a flag (lessons/access.hpp: wait_at_least): while the
  // element is below `need`, this thread gives its step away, so that the
  // thread that sets it (of this block: the simulator runs the blocks one
  // after another, so an earlier block has set its flags long before) can
  // run; a flag nobody sets ends the run at the step limit as stuck. One
  // event: the load that saw the flag set, as on the GPU.
  template <class T>
  T wait_at_least(Space space, const T* base, int index, int count, ArraySlot buf, T need,
                  uint16_t line) {
    fiber_.at_line(line);
    seen(space, base, count);
    const bool out = index < 0 || index >= count;
    T v{};
    if (out) {
      sink_.fault("load", space, buf, index, count, line, fiber_.builtins(thread_));
    } else {
      while ((v = base[index]) < need)
        fiber_.step();
    }
    record(EventKind::GlobalLoad, buf, index, as_float(v), line, out, 0);
    fiber_.step();
    return v;
  }
  // __ldcg: a load (the simulator has no caches).
  template <class T>
  T load_cg(Space space, const T* base, int index, int count, ArraySlot buf, uint16_t line) {
    return load(space, base, index, count, buf, line);
  }
  // __threadfence: every access is performed when it is recorded, so the
  // simulator's memory is already in program order for every other thread.
  void threadfence(int) {}

  // __match_any_sync over the warp's lanes: they meet, then each gets the
  // mask of the lanes whose value equals its own. A vote touches no memory
  // and is not recorded (as an add in registers is not); it ends the step.
  template <class T>
  unsigned match_any(T value, int) {
    static_assert(std::is_integral_v<T> && sizeof(T) <= sizeof(uint64_t));
    const uint32_t peers = fiber_.warp_match_any(uint64_t(value));
    fiber_.step();
    return peers;
  }

  // On the simulator the schedule (WarpSkew, Random) makes races bite.
  void delay_point(bool) {}

 private:
  template <class T>
  void seen(Space space, const T* base, int count) {
    if (space == Space::Shared)  // by address only: volatile or not
      sink_.saw_shared(const_cast<const std::remove_cv_t<T>*>(base),
                       sizeof(T) * size_t(count > 0 ? count : 0));
  }
  template <class T>
  static float as_float(const T& v) {
    if constexpr (std::is_arithmetic_v<T>)
      return float(v);
    else
      return 0.0f;
  }

  bool check4(const char* what, Space space, const float* base, int index, int count, ArraySlot buf,
              uint16_t line) {
    const bool out = index < 0 || index > count - 4;
    const bool misaligned = index % 4 != 0 || reinterpret_cast<uintptr_t>(base) % 16 != 0;
    if (out)
      sink_.fault(what, space, buf, index, count, line, fiber_.builtins(thread_));
    else if (misaligned)
      sink_.fault(what, space, buf, index, count, line, fiber_.builtins(thread_), true);
    return !out && !misaligned;
  }
  void record4(EventKind kind, ArraySlot buf, int index, int count, float4 v, uint16_t line) {
    const float values[4] = {v.x, v.y, v.z, v.w};
    for (int j = 0; j < 4; ++j) {
      const bool out = index + j < 0 || index + j >= count;
      record(kind, buf, index + j, values[j], line, out, 0, width_flags(16));
    }
  }

  void record(EventKind kind, ArraySlot buf, int index, float value, uint16_t line, bool out,
              uint8_t barrier, uint8_t flags = 0) {
    if (!sink_.traced) return;
    if (sink_.events.size() >= sink_.capacity) {
      ++sink_.events_dropped;
      return;
    }
    Event e;
    e.clock = fiber_.clock();
    e.globaltimer = e.clock;
    e.block = sink_.block_linear;
    e.element = uint32_t(index);
    e.value = value;
    e.thread = thread_;
    e.line = line;
    e.instr = instr_++;
    e.sm = 0;
    e.kind = kind;
    e.array = buf;
    e.flags = uint8_t((out ? kFlagOutOfRange : 0) | flags);
    e.barrier = barrier;
    sink_.events.push_back(e);
  }

  FiberBlock& fiber_;
  SimSink& sink_;
  uint16_t thread_;
  uint16_t instr_ = 0;  // this thread's events so far (Event::instr)
};

}  // namespace ts::sim
