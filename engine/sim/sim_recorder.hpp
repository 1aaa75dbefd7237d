// The simulator's recorder (the `Rec` of lessons/access.hpp): every load and
// store is checked against its array's extent, performed, appended to the
// trace and then ends the thread's step, so that the scheduler decides which
// warp moves next. Barriers wait for the whole block (engine/sim/fiber_block.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/sim/fiber_block.hpp"
#include "lessons/access.hpp"
#include "model/barrier_set.hpp"
#include "model/event.hpp"

namespace ts::sim {

// What all threads of one simulated launch write to: the events, the
// out-of-range faults, and the run's barrier mask.
struct SimSink {
  static constexpr size_t kMaxFaultMessages = 100;

  bool traced = true;
  uint64_t capacity = 0;        // events that fit; beyond, only events_dropped grows
  uint32_t barrier_mask = ~0u;  // bit (id - 1) set = barrier id is kept
  uint32_t block_linear = 0;    // the block that runs now
  std::vector<Event> events;
  uint64_t events_dropped = 0;
  const ArrayTable* arrays = nullptr;  // names for the fault messages
  std::vector<std::string> faults;     // the first kMaxFaultMessages, then a summary line
  uint64_t fault_count = 0;

  void fault(const char* what, Space space, ArraySlot buf, int index, int count, int line,
             const ThreadBuiltins& who);
};

class SimRec {
 public:
  SimRec(FiberBlock& fiber, SimSink& sink, int thread)
      : fiber_(fiber), sink_(sink), thread_(uint16_t(thread)) {}

  template <class T>
  T load(Space space, const T* base, int index, int count, ArraySlot buf, uint16_t line) {
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
    const bool out = index < 0 || index >= count;
    if (out)
      sink_.fault("store", space, buf, index, count, line, fiber_.builtins(thread_));
    else
      base[index] = value;
    record(space == Space::Global ? EventKind::GlobalStore : EventKind::SharedStore, buf, index,
           as_float(value), line, out, 0);
    fiber_.step();
  }

  void syncthreads(int barrier_id, int line) {
    if (!BarrierSet(sink_.barrier_mask).keeps(barrier_id)) return;
    record(EventKind::BarrierArrive, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id));
    fiber_.barrier_wait();
    record(EventKind::BarrierLeave, kNoArray, 0, 0.0f, uint16_t(line), false, uint8_t(barrier_id));
    fiber_.step();
  }

  // On the simulator the schedule (WarpSkew, Random) makes races bite.
  void delay_point(bool) {}

 private:
  template <class T>
  static float as_float(const T& v) {
    if constexpr (std::is_arithmetic_v<T>)
      return float(v);
    else
      return 0.0f;
  }

  void record(EventKind kind, ArraySlot buf, int index, float value, uint16_t line, bool out,
              uint8_t barrier) {
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
    e.flags = out ? uint8_t(kFlagOutOfRange) : uint8_t(0);
    e.barrier = barrier;
    sink_.events.push_back(e);
  }

  FiberBlock& fiber_;
  SimSink& sink_;
  uint16_t thread_;
  uint16_t instr_ = 0;  // this thread's events so far (Event::instr)
};

}  // namespace ts::sim
