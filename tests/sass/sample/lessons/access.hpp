// A two-level accessor, as lessons/access.hpp has: the load sits in the
// recorder, inlined into the element reference's conversion, inlined into
// the lesson's statement. Every access shares the conversion's source line.
#pragma once
namespace ts {
enum class Space { Global = 0, Shared = 1, Constant = 2 };
struct PlainRec {
  template <class T>
  __device__ __forceinline__ T load(Space, const T* base, int index) {
    return base[index];
  }
};
template <class T, Space S>
struct ElemRef {
  PlainRec& rec;
  const T* base;
  int index;
  __device__ __forceinline__ operator T() const { return rec.load(S, base, index); }
};
}  // namespace ts
