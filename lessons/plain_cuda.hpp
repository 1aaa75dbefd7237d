// Plain CUDA, traced as written (docs/plain_cuda.md). engine/plain_cuda.cpp
// rewrites a student's .cu on the same lines into calls of the types below:
//
//   __global__ void k(const float* A, float* C, int n)      (as written)
//   template <class Rec> __device__ void k(Rec& ts_rec, const ts::KernelArgs& ts_args,
//       ::ts::pc::PtrArg<const float, Rec> A, ::ts::pc::PtrArg<float, Rec> C, int n)
//
// A Ptr is a traced pointer (A[i], A + i, ++A, &A[i], comparisons); A[i] is a
// Ref, a traced element (reading it is a load, assigning a store, `+=` both,
// `&` gives a Ptr back). `__shared__ float t[16][16]` becomes its storage and
// an Arr over it; every access reaches the recorder of lessons/access.hpp with
// the line where it is written, so the simulator (sim::SimRec) and the GPU
// (engine/cuda/recorders.cuh) trace the file as the built-in lessons are traced.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <utility>

#include "lessons/access.hpp"
#include "lessons/atomic_op.hpp"
#include "lessons/kernel_args.hpp"
#include "lessons/warp_mask.hpp"

#if !defined(__CUDACC__)
// What nvcc knows and g++ does not: the qualifiers mean nothing on the host.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __constant__
inline constexpr int warpSize = 32;
// CUDA's small vector types, as values in a kernel (a float2 pair), laid out
// and aligned as on the GPU; memory is still reached through the traced arrays.
#define TS_PC_VECTOR_TYPES(T, N)           \
  struct alignas(2 * sizeof(T)) N##2 {     \
    T x, y;                                \
  };                                       \
  struct N##3 {                            \
    T x, y, z;                             \
  };                                       \
  inline N##2 make_##N##2(T x, T y) {      \
    return {x, y};                         \
  }                                        \
  inline N##3 make_##N##3(T x, T y, T z) { \
    return {x, y, z};                      \
  }
TS_PC_VECTOR_TYPES(float, float)
TS_PC_VECTOR_TYPES(int, int)
TS_PC_VECTOR_TYPES(unsigned, uint)
#undef TS_PC_VECTOR_TYPES
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline int4 make_int4(int x, int y, int z, int w) {
  return {x, y, z, w};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}
#endif

namespace ts::pc {

template <class T, class Rec>
class Ptr;

// An index that keeps the line it was written on (ts::Idx), from any integer
// or traced element (`A[idx[i]]`: one user conversion, not two).
struct Index {
  int i;
  uint16_t line;
  template <class I>
  TS_HD Index(const I& index, int src_line = __builtin_LINE())
      : i(static_cast<int>(index)), line(uint16_t(src_line)) {}
};

// One traced element: where it is (recorder, base, index, extent, slot,
// space) and the line of the expression that named it.
template <class T, class Rec>
class Ref {
 public:
  using value_type = std::remove_cv_t<T>;
  TS_HD Ref(Rec* rec, T* base, int index, int count, ArraySlot slot, Space space, uint16_t line)
      : rec_(rec),
        base_(base),
        index_(index),
        count_(count),
        slot_(slot),
        space_(space),
        line_(line) {}
  Ref(const Ref&) = default;

  TS_HD operator value_type() const {
    return rec_->load(space_, base_, index_, count_, slot_, line_);
  }
  TS_HD value_type get() const { return value_type(*this); }
  TS_HD const Ref& operator=(value_type v) const {
    static_assert(!std::is_const_v<T>, "a store through a pointer to const");
    rec_->template store<T>(space_, base_, index_, count_, slot_, v, line_);
    return *this;
  }
  TS_HD const Ref& operator=(const Ref& other) const { return *this = other.get(); }
  template <class U, class R2>
  TS_HD const Ref& operator=(const Ref<U, R2>& other) const {
    return *this = value_type(other.get());
  }
  // `a[i] += b[j]`: the element itself is loaded first, as nvcc compiles it
  // (lessons/access.hpp, ElemRef::operator+=).
#define TS_PC_COMPOUND(op)                            \
  template <class U>                                  \
  TS_HD const Ref& operator op##=(const U& v) const { \
    const value_type mine = get();                    \
    return *this = value_type(mine op value_of(v));   \
  }
  TS_PC_COMPOUND(+)
  TS_PC_COMPOUND(-)
  TS_PC_COMPOUND(*)
  TS_PC_COMPOUND(/)
  TS_PC_COMPOUND(%)
  TS_PC_COMPOUND(&)
  TS_PC_COMPOUND(|)
  TS_PC_COMPOUND(^)
  TS_PC_COMPOUND(<<)
  TS_PC_COMPOUND(>>)
#undef TS_PC_COMPOUND
  TS_HD const Ref& operator++() const {
    return *this = value_type(get() + 1);
  }
  TS_HD const Ref& operator--() const {
    return *this = value_type(get() - 1);
  }
  TS_HD value_type operator++(int) const {
    const value_type old = get();
    *this = value_type(old + 1);
    return old;
  }
  TS_HD value_type operator--(int) const {
    const value_type old = get();
    *this = value_type(old - 1);
    return old;
  }
  // &A[i]: a traced pointer to this element (atomicAdd(&s[0], v), &s[i] passed on).
  TS_HD Ptr<T, Rec> operator&() const {
    return Ptr<T, Rec>(rec_, base_, index_, count_, slot_, space_);
  }

  TS_HD Rec* rec() const {
    return rec_;
  }
  TS_HD T* base() const {
    return base_;
  }
  TS_HD int index() const {
    return index_;
  }
  TS_HD int count() const {
    return count_;
  }
  TS_HD ArraySlot slot() const {
    return slot_;
  }
  TS_HD Space space() const {
    return space_;
  }
  TS_HD uint16_t line() const {
    return line_;
  }

 private:
  template <class U>
  static TS_HD auto value_of(const U& v) {
    if constexpr (requires {
                    typename U::value_type;
                    v.get();
                  })
      return v.get();
    else
      return v;
  }
  Rec* rec_;
  T* base_;
  int index_;
  int count_;
  ArraySlot slot_;
  Space space_;
  uint16_t line_;
};

template <class T>
struct IsRef : std::false_type {};
template <class T, class Rec>
struct IsRef<Ref<T, Rec>> : std::true_type {};

// The value of an expression: a traced element is loaded, anything else kept.
// `auto v = buf[i];` is rewritten `auto v = ::ts::pc::val(buf[i]);`: a value, as in CUDA.
template <class T>
TS_HD auto val(const T& x) {
  if constexpr (IsRef<T>::value)
    return x.get();
  else
    return x;
}
template <class T>
using value_t = decltype(val(std::declval<T>()));

// A traced pointer: an element of an array (base + offset) that knows its
// array's extent, slot and space, so that p[i], *p and p + i stay traced.
template <class T, class Rec>
class Ptr {
 public:
  using element_type = T;
  Ptr() = default;
  TS_HD Ptr(decltype(nullptr)) {}
  TS_HD Ptr(Rec* rec, T* base, int offset, int count, ArraySlot slot, Space space)
      : rec_(rec), base_(base), off_(offset), count_(count), slot_(slot), space_(space) {}
  // float* -> const float*, as C++ converts.
  template <class U>
  requires(!std::is_same_v<U, T> && std::is_convertible_v<U*, T*>) TS_HD Ptr(const Ptr<U, Rec>& p)
      : rec_(p.rec()),
        base_(p.base()),
        off_(p.offset()),
        count_(p.count()),
        slot_(p.slot()),
        space_(p.space()) {}

  TS_HD Ref<T, Rec> operator[](Index i) const {
    return {rec_, base_, off_ + i.i, count_, slot_, space_, i.line};
  }
  // `*p` is rewritten `(p)[0]`, which keeps its line; this is what is left
  // (a cast in front of it): the line is unknown.
  TS_HD Ref<T, Rec> operator*() const { return {rec_, base_, off_, count_, slot_, space_, 0}; }

  TS_HD Ptr operator+(int d) const { return {rec_, base_, off_ + d, count_, slot_, space_}; }
  TS_HD Ptr operator-(int d) const { return {rec_, base_, off_ - d, count_, slot_, space_}; }
  friend TS_HD Ptr operator+(int d, const Ptr& p) { return p + d; }
  TS_HD long long operator-(const Ptr& o) const {
    return (long long)(base_ + off_ - (o.base_ + o.off_));
  }
  TS_HD Ptr& operator+=(int d) { return off_ += d, *this; }
  TS_HD Ptr& operator-=(int d) { return off_ -= d, *this; }
  TS_HD Ptr& operator++() { return ++off_, *this; }
  TS_HD Ptr& operator--() { return --off_, *this; }
  TS_HD Ptr operator++(int) {
    Ptr old = *this;
    ++off_;
    return old;
  }
  TS_HD Ptr operator--(int) {
    Ptr old = *this;
    --off_;
    return old;
  }
  TS_HD const T* address() const { return base_ ? base_ + off_ : nullptr; }
  TS_HD bool operator==(const Ptr& o) const { return address() == o.address(); }
  TS_HD bool operator!=(const Ptr& o) const { return address() != o.address(); }
  TS_HD bool operator<(const Ptr& o) const { return address() < o.address(); }
  TS_HD bool operator<=(const Ptr& o) const { return address() <= o.address(); }
  TS_HD bool operator>(const Ptr& o) const { return address() > o.address(); }
  TS_HD bool operator>=(const Ptr& o) const { return address() >= o.address(); }
  TS_HD explicit operator bool() const { return base_ != nullptr; }

  TS_HD Rec* rec() const { return rec_; }
  TS_HD T* base() const { return base_; }
  TS_HD int offset() const { return off_; }
  TS_HD int count() const { return count_; }
  TS_HD ArraySlot slot() const { return slot_; }
  TS_HD Space space() const { return space_; }

 private:
  Rec* rec_ = nullptr;
  T* base_ = nullptr;
  int off_ = 0;
  int count_ = 0;
  ArraySlot slot_ = kNoArray;
  Space space_ = Space::Global;
};

// A pointer parameter of a kernel or helper: its recorder is not deduced from
// it (only from ts_rec), so that a float* passes where a const float* is taken.
template <class T, class Rec>
using PtrArg = Ptr<T, std::type_identity_t<Rec>>;

// A __shared__ array of any rank, A = float[16][16]: t[r] is the row (an Arr
// of float[16]), t[r][c] the traced element at the flat index r * 16 + c.
template <class A, class Rec>
class Arr {
  using Elem = std::remove_extent_t<A>;
  using Scalar = std::remove_all_extents_t<A>;
  static constexpr int kStride = int(sizeof(Elem) / sizeof(Scalar));

 public:
  TS_HD Arr(Rec* rec, Scalar* base, int offset, int count, ArraySlot slot, Space space)
      : rec_(rec), base_(base), off_(offset), count_(count), slot_(slot), space_(space) {}
  TS_HD auto operator[](Index i) const {
    if constexpr (std::is_array_v<Elem>)
      return Arr<Elem, Rec>(rec_, base_, off_ + i.i * kStride, count_, slot_, space_);
    else
      return Ref<Scalar, Rec>(rec_, base_, off_ + i.i, count_, slot_, space_, i.line);
  }
  // An array is its first element's address: a row passed to a helper, s + i.
  TS_HD operator Ptr<Scalar, Rec>() const { return {rec_, base_, off_, count_, slot_, space_}; }
  template <class U>
  requires std::is_convertible_v<Scalar*, U*> TS_HD operator Ptr<U, Rec>() const {
    return {rec_, base_, off_, count_, slot_, space_};
  }
  TS_HD Ptr<Scalar, Rec> operator+(int d) const { return Ptr<Scalar, Rec>(*this) + d; }

 private:
  Rec* rec_;
  Scalar* base_;
  int off_;
  int count_;
  ArraySlot slot_;
  Space space_;
};

// `__shared__ float t[16][16];` -> its storage, then `auto t = shared(ts_rec, storage, slot);`.
template <class A, class Rec>
TS_HD Arr<A, Rec> shared(Rec& rec, A& storage, ArraySlot slot) {
  using Scalar = std::remove_all_extents_t<A>;
  return Arr<A, Rec>(&rec, &reinterpret_cast<Scalar&>(storage), 0, int(sizeof(A) / sizeof(Scalar)),
                     slot, Space::Shared);
}
// A file-scope `__constant__ float F[5][5];` that the launch block names
// (`array F in 5, 5`): each use in a kernel or helper is rewritten
// `::ts::pc::constant(ts_rec, F, slot)`. On the GPU it reads the symbol, which
// the backend fills from the run's array before the launch, as main's
// cudaMemcpyToSymbol did; the simulator reads the run's array, which the
// generated kernel entry names for its OS thread (constant_args).
#if !defined(__CUDACC__)
inline thread_local const KernelArgs* constant_args = nullptr;
#endif
template <class A, class Rec>
TS_HD Arr<const A, Rec> constant(Rec& rec, const A& symbol, ArraySlot slot) {
  using Scalar = std::remove_all_extents_t<const A>;
#if defined(__CUDACC__)
  Scalar* base = &reinterpret_cast<Scalar&>(symbol);
#else
  (void)symbol;
  Scalar* base = static_cast<Scalar*>(constant_args->data[slot]);
#endif
  return Arr<const A, Rec>(&rec, base, 0, int(sizeof(A) / sizeof(Scalar)), slot, Space::Constant);
}
// `extern __shared__ float s[];`: as many elements as the launch gave bytes
// (the generated Body puts the count in ts_args.count[slot]).
template <class T, class Rec>
TS_HD Ptr<T, Rec> extern_shared(Rec& rec, T* storage, const KernelArgs& args, ArraySlot slot) {
  return Ptr<T, Rec>(&rec, storage, 0, args.count[slot], slot, Space::Shared);
}
// A global array of the run, converted to the kernel parameter's pointer type.
template <class Rec>
struct GlobalArg {
  Rec& rec;
  const KernelArgs& args;
  ArraySlot slot;
  template <class T>
  TS_HD operator Ptr<T, Rec>() const {
    return Ptr<T, Rec>(&rec, static_cast<T*>(args.data[slot]), 0, args.count[slot], slot,
                       Space::Global);
  }
};

// `float* p = &s[i];` is rewritten `auto p = as_ptr<float>(&s[i]);`: a traced
// pointer stays one (an array decays to one), a plain pointer stays plain.
template <class T, class U, class Rec>
TS_HD Ptr<T, Rec> as_ptr(const Ptr<U, Rec>& p) {
  return p;
}
template <class T, class A, class Rec>
TS_HD Ptr<T, Rec> as_ptr(const Arr<A, Rec>& a) {
  return a;
}
template <class T, class U>
TS_HD T* as_ptr(U* p) {
  return p;
}

// ---- Atomics: atomicAdd(&x[i], v) and friends, on a traced element ----
template <class T, class Rec, class V>
TS_DEVICE std::remove_cv_t<T> atomic_apply(AtomicOp op, const Ptr<T, Rec>& p, const V& v,
                                           const V& compare, int line) {
  using U = std::remove_cv_t<T>;
  Rec& rec = *p.rec();
  // The operand read once, as CUDA does (`atomicAdd(&bins[t], local[t])`
  // loads local[t] once); `compare` is a second operand for atomicCAS only
  // (the others pass `v` twice).
  const U value = U(val(v));
  const U cmp = op == AtomicOp::Cas ? U(val(compare)) : value;
  if constexpr (requires {
                  rec.atomic_op(op, p.space(), p.base(), 0, 0, p.slot(), U(), U(), uint16_t(0));
                }) {
    return rec.atomic_op(op, p.space(), p.base(), p.offset(), p.count(), p.slot(), value, cmp,
                         uint16_t(line));
  } else {
    // The GPU's recorders know atomicAdd only (engine/cuda/recorders.cuh,
    // whose text the compiled-code table hashes): the operation itself, then
    // an add of 0, which records the event with what the element holds now.
    if (op == AtomicOp::Add)
      return rec.atomic_add(p.space(), p.base(), p.offset(), p.count(), p.slot(), value,
                            uint16_t(line));
#if defined(__CUDA_ARCH__)
    const U old = cuda_atomic(op, p.base() + p.offset(), value, cmp);
#else
    const U old = p.base()[p.offset()];
    p.base()[p.offset()] = apply_atomic(op, old, value, cmp);
#endif
    rec.atomic_add(p.space(), p.base(), p.offset(), p.count(), p.slot(), U(0), uint16_t(line));
    return old;
  }
}
// __ldg(&a[i]): a load through the read-only data cache, traced as the load it
// is, at the caller's line (the GPU's recorder loads it as any load).
template <class T, class Rec>
TS_DEVICE std::remove_cv_t<T> __ldg(const Ptr<T, Rec>& p, int line = __builtin_LINE()) {
  return p[Index(0, line)];
}
template <class T>
TS_DEVICE T __ldg(const T* p) {
  return *p;
}
// An atomic on memory the trace does not see (a local): performed, not recorded.
// (On the GPU a real atomic: a `__device__` variable is seen by every thread.)
template <class T, class V>
TS_DEVICE T atomic_plain(AtomicOp op, T* p, const V& v, const V& compare) {
#if defined(__CUDA_ARCH__)
  return cuda_atomic(op, p, T(val(v)), T(val(compare)));
#else
  const T old = *p;
  *p = apply_atomic(op, old, T(val(v)), T(val(compare)));
  return old;
#endif
}

#define TS_PC_ATOMIC(name, op)                                         \
  template <class T, class Rec, class V>                               \
  TS_DEVICE std::remove_cv_t<T> name(const Ptr<T, Rec>& p, const V& v, \
                                     int line = __builtin_LINE()) {    \
    return atomic_apply(op, p, v, v, line);                            \
  }                                                                    \
  template <class T, class V>                                          \
  TS_DEVICE T name(T* p, const V& v) {                                 \
    return atomic_plain(op, p, v, v);                                  \
  }
TS_PC_ATOMIC(atomicAdd, AtomicOp::Add)
TS_PC_ATOMIC(atomicSub, AtomicOp::Sub)
TS_PC_ATOMIC(atomicMax, AtomicOp::Max)
TS_PC_ATOMIC(atomicMin, AtomicOp::Min)
TS_PC_ATOMIC(atomicExch, AtomicOp::Exch)
TS_PC_ATOMIC(atomicAnd, AtomicOp::And)
TS_PC_ATOMIC(atomicOr, AtomicOp::Or)
TS_PC_ATOMIC(atomicXor, AtomicOp::Xor)
#undef TS_PC_ATOMIC
// atomicCAS(&x, compare, value): writes value where x == compare; returns the old x.
template <class T, class Rec, class C, class V>
TS_DEVICE std::remove_cv_t<T> atomicCAS(const Ptr<T, Rec>& p, const C& compare, const V& v,
                                        int line = __builtin_LINE()) {
  using U = std::remove_cv_t<T>;
  return atomic_apply(AtomicOp::Cas, p, U(val(v)), U(val(compare)), line);
}
template <class T, class C, class V>
TS_DEVICE T atomicCAS(T* p, const C& compare, const V& v) {
  return atomic_plain(AtomicOp::Cas, p, T(val(v)), T(val(compare)));
}

// ---- Barriers, shuffles and votes, with their masks and widths ----
// The simulator's and the GPU trace's recorders take the mask and the width
// (engine/sim/sim_recorder.hpp checks them as CUDA defines them); the GPU's
// untraced ones (engine/cuda/recorders.cuh, whose text the compiled-code
// table hashes) know the full warp only, so the intrinsic is called here.
TS_DEVICE int lane_id() {
  return int((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u);
}
template <class Rec>
TS_DEVICE void syncwarp(Rec& rec, int id, int line, unsigned mask = 0xffffffffu) {
  if constexpr (requires { rec.syncwarp_mask(id, line, mask); }) {
    rec.syncwarp_mask(id, line, mask);
  } else {
#if defined(__CUDA_ARCH__)
    (void)line;
    if constexpr (requires { rec.barrier_mask.keeps(id); })
      if (!rec.barrier_mask.keeps(id)) return;  // a barrier the run removes
    __syncwarp(mask);
#else
    (void)mask;
    rec.syncwarp(id, line);  // what nvcc's host pass sees (never run)
#endif
  }
}
template <ShflMode M, class Rec, class V>
TS_DEVICE auto shuffle(Rec& rec, unsigned mask, const V& v, int b, int width, int line) {
  const value_t<V> x = val(v);
  if constexpr (requires { rec.shfl_sync(M, mask, x, b, width, line); }) {
    return rec.shfl_sync(M, mask, x, b, width, line);
  } else {
#if defined(__CUDA_ARCH__)
    (void)line;
    if constexpr (M == ShflMode::Up)
      return __shfl_up_sync(mask, x, unsigned(b), width);
    else if constexpr (M == ShflMode::Down)
      return __shfl_down_sync(mask, x, unsigned(b), width);
    else if constexpr (M == ShflMode::Xor)
      return __shfl_xor_sync(mask, x, b, width);
    else
      return __shfl_sync(mask, x, b, width);
#else
    // What nvcc's host pass sees (never run): the full warp.
    (void)mask, (void)width;
    return rec.shfl_idx(x, shfl_source(M, lane_id(), b, 32), line);
#endif
  }
}
template <class Rec, class V>
TS_DEVICE auto shfl_down_sync(Rec& rec, unsigned mask, const V& v, int delta, int width = 32,
                              int line = __builtin_LINE()) {
  return shuffle<ShflMode::Down>(rec, mask, v, delta, width, line);
}
template <class Rec, class V>
TS_DEVICE auto shfl_up_sync(Rec& rec, unsigned mask, const V& v, int delta, int width = 32,
                            int line = __builtin_LINE()) {
  return shuffle<ShflMode::Up>(rec, mask, v, delta, width, line);
}
template <class Rec, class V>
TS_DEVICE auto shfl_sync(Rec& rec, unsigned mask, const V& v, int src, int width = 32,
                         int line = __builtin_LINE()) {
  return shuffle<ShflMode::Idx>(rec, mask, v, src, width, line);
}
template <class Rec, class V>
TS_DEVICE auto shfl_xor_sync(Rec& rec, unsigned mask, const V& v, int lane_mask, int width = 32,
                             int line = __builtin_LINE()) {
  return shuffle<ShflMode::Xor>(rec, mask, v, lane_mask, width, line);
}
// A vote touches no memory and is not recorded (as __match_any_sync is not).
template <class Rec>
TS_DEVICE unsigned vote(Rec& rec, unsigned mask, bool pred, int line, const char* op) {
#if defined(__CUDA_ARCH__)
  (void)rec, (void)line, (void)op;
  return __ballot_sync(mask, pred);
#else
  if constexpr (requires { rec.vote_sync(mask, pred, line, op); }) {
    return rec.vote_sync(mask, pred, line, op);
  } else {
    // What nvcc's host pass sees (never run): the lanes whose predicate equals
    // mine, and every lane that voted.
    (void)mask, (void)op;
    const unsigned same = rec.match_any(int(pred), line);
    const unsigned all = rec.match_any(0, line);
    return pred ? same : all & ~same;
  }
#endif
}
template <class Rec, class P>
TS_DEVICE unsigned ballot_sync(Rec& rec, unsigned mask, const P& pred,
                               int line = __builtin_LINE()) {
  return vote(rec, mask, bool(val(pred)), line, "__ballot_sync");
}
template <class Rec, class P>
TS_DEVICE int any_sync(Rec& rec, unsigned mask, const P& pred, int line = __builtin_LINE()) {
  return vote(rec, mask, bool(val(pred)), line, "__any_sync") != 0u;
}
template <class Rec, class P>
TS_DEVICE int all_sync(Rec& rec, unsigned mask, const P& pred, int line = __builtin_LINE()) {
  return vote(rec, mask, !bool(val(pred)), line, "__all_sync") == 0u;
}

// min, max and abs on traced elements and mixed types, as CUDA's overloads.
template <class A, class B>
TS_HD auto min(const A& a, const B& b) {
  using C = std::common_type_t<value_t<A>, value_t<B>>;
  const C x = C(val(a)), y = C(val(b));
  return y < x ? y : x;
}
template <class A, class B>
TS_HD auto max(const A& a, const B& b) {
  using C = std::common_type_t<value_t<A>, value_t<B>>;
  const C x = C(val(a)), y = C(val(b));
  return x < y ? y : x;
}
template <class A>
TS_HD auto abs(const A& a) {
  const value_t<A> x = val(a);
  return x < 0 ? value_t<A>(-x) : x;
}

}  // namespace ts::pc
