// Accessor types that let a kernel read like the textbook version
//
//     tileA[ty][tx] = A[row * n + col];
//     SYNCTHREADS(1);
//
// while every global and shared access goes through a recorder `Rec`. The
// recorder decides what an access costs:
//   - PlainRec (engine/cuda/recorders.cuh): a plain load or store, nothing else;
//     this is the instantiation the performance panel times.
//   - DeviceTraceRec (engine/cuda/recorders.cuh): also appends an Event to the
//     device trace buffer.
//   - sim::SimRec (engine/sim/sim_recorder.hpp): records, and yields to the
//     simulator's scheduler so that warps advance in lockstep between accesses.
//
// A recorder provides:
//   template <class T> T load(Space, const T* base, int index, int count, ArraySlot, uint16_t
//   line); template <class T> void store(Space, T* base, int index, int count, ArraySlot, T value,
//                                 uint16_t line);
//   template <class T> T atomic_add(Space, T* base, int index, int count, ArraySlot, T value,
//                                   uint16_t line);  // atomicAdd: returns the old value
//   float4 load4(Space, const float* base, int index, int count, ArraySlot, uint16_t line);
//   void store4(Space, float* base, int index, int count, ArraySlot, float4 v, uint16_t line);
//                    // one 16-byte access of elements index .. index + 3 (index % 4 == 0):
//                    // LDG.128 / LDS.128 / STS.128 on the GPU; traced as 4 events, one
//                    // per element, each flagged 16 bytes wide (model/event.hpp)
//   void syncthreads(int barrier_id, int line);  // honours the run's barrier mask
//   void syncwarp(int barrier_id, int line);     // __syncwarp(): the same mask and numbering
//   template <class T> T shfl_down(T value, int delta, int line);  // __shfl_down_sync, full mask
//   template <class T> T shfl_up(T value, int delta, int line);    // __shfl_up_sync, full mask
//   template <class T> T shfl_idx(T value, int lane, int line);    // __shfl_sync, full mask
//   template <class T> T wait_at_least(Space, const T* base, int index, int count, ArraySlot,
//                                      T need, uint16_t line);
//                    // spin until the element is >= need (another block sets it): volatile
//                    // loads on the GPU, traced as ONE load, the one that ended the wait
//   template <class T> T load_cg(Space, const T* base, int index, int count, ArraySlot,
//                                uint16_t line);  // __ldcg: from L2, past this SM's L1
//   void threadfence(int line);                  // __threadfence() (not recorded: no access)
//   template <class T> unsigned match_any(T value, int line);      // __match_any_sync, whole warp
//                    // (not recorded: a vote touches no memory)
//   void delay_point(bool here);                 // race lab: stall chosen warps here
// `count` is the array's extent, so that an index outside it is reported
// (simulator) or flagged (device trace) instead of silently read.
#pragma once

#include <cstdint>
#include <type_traits>

#include "lessons/cuda_compat.hpp"
#include "lessons/kernel_args.hpp"
#include "model/array.hpp"
#include "model/event.hpp"

namespace ts {

// An index that remembers the source line where it was written, so that the
// trace can point at the statement. `__builtin_LINE()` in a default argument
// takes the line of the call site, on the host compiler and nvcc alike.
struct Idx {
  int i;
  uint16_t line;
  TS_HD Idx(int index, int src_line = __builtin_LINE()) : i(index), line(uint16_t(src_line)) {}
};

// Where one element access goes: the recorder, the array's base, the
// element's index, the array's extent and slot, the line the access is on.
template <class T, class Rec>
class ElementPlace {
 public:
  TS_HD ElementPlace(Rec& rec, T* base, int index, int count, ArraySlot buf, uint16_t line)
      : rec_(rec), base_(base), index_(index), count_(count), buf_(buf), line_(line) {}

 protected:
  Rec& rec_;
  T* base_;
  int index_;
  int count_;
  ArraySlot buf_;
  uint16_t line_;
};

// A reference to one element: reading it is a load, assigning to it a store,
// atomic_add an atomicAdd (one read-modify-write no other thread can split).
template <class T, class Rec, Space S>
class ElemRef : ElementPlace<T, Rec> {
  using Place = ElementPlace<T, Rec>;
  using Place::rec_, Place::base_, Place::index_, Place::count_, Place::buf_, Place::line_;

 public:
  using value_type = T;
  using Place::Place;

  TS_HD operator T() const { return rec_.load(S, base_, index_, count_, buf_, line_); }
  TS_HD ElemRef& operator=(T v) {
    rec_.template store<T>(S, base_, index_, count_, buf_, v, line_);
    return *this;
  }
  TS_HD ElemRef& operator=(const ElemRef& other) { return *this = T(other); }
  TS_HD ElemRef& operator+=(T v) { return *this = T(*this) + v; }
  // a[i] += b[j]: the order of the two loads is the compiler's. In the
  // lessons' SASS (sm_90) nvcc loads the element itself first in 7 of the 8
  // such lines (the reductions, scan.single_buffer; scan.blelloch's up-sweep
  // the other way round, where no third thread touches the cell), and racecheck
  // sees that order (analysis/hazards.hpp, "Compiled order"), so the trace
  // records it; through a volatile pointer the compiled order is the
  // program's, the right side first (reduction.warp_volatile).
  template <class U, Space S2>
  TS_HD ElemRef& operator+=(const ElemRef<U, Rec, S2>& other) {
    if constexpr (std::is_volatile_v<T>) {
      const T v = U(other);
      return *this = T(*this) + v;
    } else {
      const T mine = T(*this);
      return *this = mine + T(U(other));
    }
  }
  // atomicAdd(&element, v): returns what the element held before.
  TS_HD T atomic_add(T v) { return rec_.atomic_add(S, base_, index_, count_, buf_, v, line_); }
  // `while (element < need) {}` through a volatile pointer: waits for a flag
  // that another block sets. Returns the value that ended the wait. How often
  // the GPU polled is timing, not program: the trace holds the one load that
  // saw the flag set, on the GPU and in the simulator alike.
  // (A template, so that an ElemRef of a volatile T declares no volatile parameter.)
  template <class U>
  TS_HD T wait_at_least(U need) const {
    return rec_.wait_at_least(S, base_, index_, count_, buf_, T(need), line_);
  }
  // __ldcg(&element): read from L2, never from this SM's L1, which may hold
  // a line fetched before another block wrote the element.
  TS_HD T load_cg() const { return rec_.load_cg(S, base_, index_, count_, buf_, line_); }
};

// Four consecutive floats moved by one 16-byte instruction, as the textbook's
// `reinterpret_cast<float4*>(&A[i])[0]`: reading it is one 128-bit load,
// assigning a float4 one 128-bit store. The first element's index must be a
// multiple of 4 and the array 16-byte aligned (`alignas(16) __shared__`); the
// simulator reports a misaligned access as the GPU would fault on it.
template <class T, class Rec, Space S>
class Vec4Ref : ElementPlace<T, Rec> {
  static_assert(sizeof(T) == 4, "vec4 moves four 4-byte elements");
  using Place = ElementPlace<T, Rec>;
  using Place::rec_, Place::base_, Place::index_, Place::count_, Place::buf_, Place::line_;

 public:
  using Place::Place;

  TS_HD operator float4() const { return rec_.load4(S, base_, index_, count_, buf_, line_); }
  TS_HD Vec4Ref& operator=(float4 v) {
    rec_.store4(S, base_, index_, count_, buf_, v, line_);
    return *this;
  }
};

// `atomic_add(bins[b], 1u)` reads as the textbook's `atomicAdd(&bins[b], 1u)`.
// The value's type is the element's (not deduced), so that `1` works for unsigned bins.
template <class T, class Rec, Space S>
TS_HD T atomic_add(ElemRef<T, Rec, S> ref, typename ElemRef<T, Rec, S>::value_type v) {
  return ref.atomic_add(v);
}
// `wait_at_least(ready[q], n)` reads as the textbook's spin loop
// `while (((volatile int*)ready)[q] < n) {}`, `ldcg(sums[q])` as `__ldcg(&sums[q])`.
template <class T, class Rec, Space S>
TS_HD T wait_at_least(ElemRef<T, Rec, S> ref, typename ElemRef<T, Rec, S>::value_type need) {
  return ref.wait_at_least(need);
}
template <class T, class Rec, Space S>
TS_HD T ldcg(ElemRef<T, Rec, S> ref) {
  return ref.load_cg();
}

// An array of `count` elements in memory space S, indexed 1D: global arrays
// (row-major matrices are indexed `row * width + col`, as in the textbook)
// and shared ones (a row of A, the stencil's block).
template <class T, class Rec, Space S>
class Array {
 public:
  TS_HD Array(Rec& rec, T* data, int count, ArraySlot buf)
      : rec_(rec), data_(data), count_(count), buf_(buf) {}
  // A global array of the lesson, as the backend allocated it for `slot`.
  TS_HD Array(Rec& rec, const KernelArgs& args, ArraySlot slot)
      : rec_(rec), data_(static_cast<T*>(args.data[slot])), count_(args.count[slot]), buf_(slot) {}
  TS_HD ElemRef<T, Rec, S> operator[](Idx i) const {
    return {rec_, data_, i.i, count_, buf_, i.line};
  }
  // Elements i .. i + 3 as one 16-byte access: `float4 a = A.vec4(i);`.
  TS_HD Vec4Ref<T, Rec, S> vec4(Idx i) const { return {rec_, data_, i.i, count_, buf_, i.line}; }

 private:
  Rec& rec_;
  T* data_;
  int count_;
  ArraySlot buf_;
};

// An array in constant memory, read-only: `__constant__ T symbol[capacity]`
// (declared with TS_CONSTANT), read as mask[i]. On the GPU the reads go to
// the symbol, through the constant cache; the simulator reads the run's copy
// of the array (args.data[slot]). The recorders log a read as a GlobalLoad on
// `slot`, whose table entry says Space::Constant. Writing does not compile.
template <class T, class Rec>
class ConstantArray {
 public:
  TS_HD ConstantArray(Rec& rec, const T* symbol, const KernelArgs& args, ArraySlot slot)
      : rec_(rec),
        data_(TS_ON_DEVICE ? symbol : static_cast<const T*>(args.data[slot])),
        count_(args.count[slot]),
        buf_(slot) {}
  TS_HD ElemRef<const T, Rec, Space::Constant> operator[](Idx i) const {
    return {rec_, data_, i.i, count_, buf_, i.line};
  }

 private:
  Rec& rec_;
  const T* data_;
  int count_;
  ArraySlot buf_;
};

// What a backend fills before a launch: the constant-memory symbol of the
// array in `slot` (its host-side address, as cudaMemcpyToSymbol takes it) and
// its capacity in bytes. A lesson that reads constant memory defines, next to
// its Body, `static inline std::array<ConstantSymbol, N> constant_symbols(Body)`:
// `static`, so that each .cu names its own copy of the symbol.
struct ConstantSymbol {
  ArraySlot slot;
  const void* symbol;
  unsigned long capacity_bytes;
};

// The names kernels use.
template <class T, class Rec>
using GlobalArray = Array<T, Rec, Space::Global>;
template <class T, class Rec>
using SharedArray = Array<T, Rec, Space::Shared>;

// A shared ROWS x COLS tile, indexed tile[row][col] like `__shared__ float t[ROWS][COLS]`.
template <class T, int ROWS, int COLS, class Rec>
class SharedTile {
 public:
  class Row {
   public:
    TS_HD Row(const SharedTile& t, int row) : t_(t), row_(row) {}
    TS_HD ElemRef<T, Rec, Space::Shared> operator[](Idx col) const {
      return {t_.rec_, t_.data_, row_ * COLS + col.i, ROWS * COLS, t_.buf_, col.line};
    }
    // Columns col .. col + 3 of this row as one 16-byte access.
    TS_HD Vec4Ref<T, Rec, Space::Shared> vec4(Idx col) const {
      return {t_.rec_, t_.data_, row_ * COLS + col.i, ROWS * COLS, t_.buf_, col.line};
    }

   private:
    const SharedTile& t_;
    int row_;
  };

  TS_HD SharedTile(Rec& rec, T (*data)[COLS], ArraySlot buf)
      : rec_(rec), data_(&data[0][0]), buf_(buf) {}
  TS_HD Row operator[](int row) const { return Row(*this, row); }

 private:
  Rec& rec_;
  T* data_;
  ArraySlot buf_;
};

}  // namespace ts

// A block-wide barrier that the lesson can switch off: barrier `id` (1-based,
// in order of appearance in the kernel) runs only if the run's mask keeps it.
#define SYNCTHREADS(id) rec.syncthreads((id), __LINE__)
// A warp-wide barrier (__syncwarp(), full mask) that the lesson can switch off:
// numbered with the SYNCTHREADS of the same kernel, in order of appearance.
// It orders the threads of one warp only.
#define SYNCWARP(id) rec.syncwarp((id), __LINE__)
// __shfl_down_sync(0xffffffff, value, delta): lane l gets lane l + delta's
// value (its own where l + delta is past the warp). Every lane of the warp
// must reach it; recorded as a WarpShuffle event.
#define SHFL_DOWN(value, delta) rec.shfl_down((value), (delta), __LINE__)
// __shfl_up_sync(0xffffffff, value, delta): lane l gets lane l - delta's
// value (its own where l < delta). Recorded as a WarpShuffle event.
#define SHFL_UP(value, delta) rec.shfl_up((value), (delta), __LINE__)
// __shfl_sync(0xffffffff, value, lane): every lane gets lane `lane`'s value.
#define SHFL_IDX(value, lane) rec.shfl_idx((value), (lane), __LINE__)
// __threadfence(): this thread's earlier writes to global memory are seen by
// every other block before its later ones (a flag after the data it announces).
// The simulator performs every access when it is recorded: nothing to do there.
#define THREADFENCE() rec.threadfence(__LINE__)
// __match_any_sync(mask, value), mask = every lane the warp has (all 32,
// fewer in a block's partial last warp): the mask of the lanes whose value
// equals this lane's (its own bit always set). Every lane of the warp must
// reach it. A vote, not an access: the trace has no event for it.
#define MATCH_ANY(value) rec.match_any((value), __LINE__)
// Where the race lab may stall chosen warps (a no-op in every other run).
#define DELAY_POINT(cond) rec.delay_point(cond)
