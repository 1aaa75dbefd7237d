// CUDA's atomic read-modify-writes beyond atomicAdd (atomicSub, Max, Min,
// Exch, And, Or, Xor, CAS), for plain CUDA files (lessons/plain_cuda.hpp)
// and the simulator's recorder (engine/sim/sim_recorder.hpp: atomic_op).
// Apart from lessons/access.hpp, whose text the compiled-code table hashes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "lessons/cuda_compat.hpp"

namespace ts {

enum class AtomicOp : uint8_t { Add, Sub, Max, Min, Exch, And, Or, Xor, Cas };

// What an atomic leaves in the element that held `old` (Cas: `value` where
// old == compare).
template <class T>
TS_HD T apply_atomic(AtomicOp op, T old, T value, T compare) {
  switch (op) {
    case AtomicOp::Add:
      return T(old + value);
    case AtomicOp::Sub:
      return T(old - value);
    case AtomicOp::Max:
      return old < value ? value : old;
    case AtomicOp::Min:
      return value < old ? value : old;
    case AtomicOp::Exch:
      return value;
    case AtomicOp::Cas:
      return old == compare ? value : old;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (op == AtomicOp::And) return T(old & value);
    if (op == AtomicOp::Or) return T(old | value);
    if (op == AtomicOp::Xor) return T(old ^ value);
  }
  return old;
}

#if defined(__CUDACC__)
// The same on the GPU: one atomic instruction where CUDA has one, a
// compare-and-swap loop where it has none (float max, min and CAS).
template <class T>
__device__ __forceinline__ T cuda_atomic(AtomicOp op, T* p, T value, T compare) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case AtomicOp::Add:
        return atomicAdd(p, value);
      case AtomicOp::Sub:
        return atomicSub(p, value);
      case AtomicOp::Max:
        return atomicMax(p, value);
      case AtomicOp::Min:
        return atomicMin(p, value);
      case AtomicOp::Exch:
        return atomicExch(p, value);
      case AtomicOp::And:
        return atomicAnd(p, value);
      case AtomicOp::Or:
        return atomicOr(p, value);
      case AtomicOp::Xor:
        return atomicXor(p, value);
      case AtomicOp::Cas:
        return atomicCAS(p, compare, value);
    }
    return *p;
  } else {
    if (op == AtomicOp::Add) return atomicAdd(p, value);
    if (op == AtomicOp::Exch) return atomicExch(p, value);
    static_assert(sizeof(T) == 4, "atomics on 4-byte floats");
    int* bits = reinterpret_cast<int*>(p);
    int old = *bits, assumed;
    do {
      assumed = old;
      const T now = apply_atomic(op, __int_as_float(assumed), value, compare);
      old = atomicCAS(bits, assumed, __float_as_int(now));
    } while (old != assumed);
    return __int_as_float(old);
  }
}
#endif

}  // namespace ts
