// The arguments every lesson kernel receives, on the GPU and in the
// simulator: the run's parameters and the lesson's global arrays by slot.
// Plain data, passed by value to the __global__ wrappers.
#pragma once

#include <cstdint>

#include "model/array.hpp"
#include "model/params.hpp"

namespace ts {

struct KernelArgs {
  // The run's parameters, as the lesson's descriptor resolved them (a square
  // multiply sets m and k to n).
  int m = 0, k = 0, n = 0, tile = 0, length = 0, radius = 0, block = 0;
  // Global arrays by slot (model/array.hpp): the backend's allocation and the
  // extent the accessors check indices against (an index beyond is flagged).
  void* data[kMaxArrays + 1] = {};
  int count[kMaxArrays + 1] = {};

  template <class T>
  T* ptr(ArraySlot slot) const {
    return static_cast<T*>(data[slot]);
  }
};

}  // namespace ts
