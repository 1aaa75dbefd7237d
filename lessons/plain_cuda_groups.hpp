// Cooperative groups in a plain CUDA file (docs/plain_cuda.md). A file's
// `#include <cooperative_groups.h>` is replaced by this header, for the
// simulator and for nvcc alike: the block, tiles of 1 to 32 threads and a
// group passed as `thread_group` are values over threadIdx and blockDim, and
// what they do is rewritten by engine/plain_cuda.cpp into calls that reach
// the recorder (`g.sync()` -> `g.ts_sync(ts_rec, 3, __LINE__)`), so that each
// barrier, shuffle and vote is traced as the intrinsic it stands for:
//
//   block.sync(), cg::sync(block)      __syncthreads()          (a barrier, numbered)
//   tile.sync()                        __syncwarp(tile's lanes) (a barrier, numbered)
//   tile.shfl_down(v, d)               __shfl_down_sync(tile's lanes, v, d, tile size)
//   tile.ballot(p), any(p), all(p)     the vote over the tile's lanes
//   cg::reduce(tile, v, cg::plus<T>()) a butterfly of __shfl_xor_sync over the tile
#pragma once

#include "lessons/plain_cuda.hpp"

// nvcc's own headers declare a cooperative_groups namespace of their own (and
// a file may reach it through them): the file's name for it means this one.
#define cooperative_groups ts_cooperative_groups

namespace cooperative_groups {

namespace detail {
TS_DEVICE unsigned linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
TS_DEVICE unsigned block_threads() {
  return blockDim.x * blockDim.y * blockDim.z;
}
// The lanes of this thread's tile of `n` threads within its warp, those the
// block has (a block's last warp may be partial).
TS_DEVICE unsigned tile_mask(unsigned n) {
  const unsigned t = linear_thread(), lane = t % 32u, first = t - lane;
  const unsigned in_block = block_threads() - first;
  const unsigned warp = in_block >= 32u ? 0xffffffffu : (1u << in_block) - 1u;
  const unsigned tile = n >= 32u ? 0xffffffffu : ((1u << n) - 1u) << (lane / n * n);
  return tile & warp;
}
template <class D>
struct always_false {
  static constexpr bool value = false;
};
}  // namespace detail

// A group whose kind is known at run time: the block (tile_ == 0) or a tile.
class thread_group {
 public:
  TS_DEVICE unsigned long long size() const { return tile_ ? tile_ : detail::block_threads(); }
  TS_DEVICE unsigned long long num_threads() const { return size(); }
  TS_DEVICE unsigned long long thread_rank() const {
    return tile_ ? detail::linear_thread() % tile_ : detail::linear_thread();
  }
  TS_DEVICE unsigned ts_mask() const { return detail::tile_mask(tile_ ? tile_ : 32u); }
  template <class Rec>
  TS_DEVICE void ts_sync(Rec& rec, int id, int line) const {
    if (tile_)
      ::ts::pc::syncwarp(rec, id, line, ts_mask());
    else
      rec.syncthreads(id, line);
  }
  // tiled_partition(parent, n): a tile whose size is known at run time.
  TS_HD static thread_group ts_tile(unsigned n) { return thread_group(n); }
  // Reached only where the rewrite did not see the call (`groups[i].sync()`):
  // a barrier the trace would not have.
  template <class D = void>
  void sync() const {
    static_assert(detail::always_false<D>::value,
                  "TileScope traces g.sync() and cg::sync(g) written on a group variable of this "
                  "file; write the call so");
  }

 protected:
  TS_HD explicit thread_group(unsigned tile) : tile_(tile) {}
  unsigned tile_ = 0;
};

class thread_block : public thread_group {
 public:
  TS_HD thread_block() : thread_group(0) {}
  TS_DEVICE auto group_index() const { return blockIdx; }
  TS_DEVICE auto thread_index() const { return threadIdx; }
  TS_DEVICE auto group_dim() const { return blockDim; }
  TS_DEVICE auto dim_threads() const { return blockDim; }
};

template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "a tile of 1, 2, 4, 8, 16 or 32 threads (TileScope keeps a tile within a warp)");

 public:
  TS_HD thread_block_tile() : thread_group(N) {}
  static constexpr unsigned long long size() { return N; }
  static constexpr unsigned long long num_threads() { return N; }
  TS_DEVICE unsigned long long thread_rank() const { return detail::linear_thread() % N; }
  TS_DEVICE unsigned long long meta_group_rank() const { return detail::linear_thread() / N; }
  TS_DEVICE unsigned long long meta_group_size() const {
    return (detail::block_threads() + N - 1) / N;
  }
  template <class Rec, class V>
  TS_DEVICE auto ts_shfl(Rec& rec, const V& v, int src, int line = __builtin_LINE()) const {
    return ::ts::pc::shfl_sync(rec, ts_mask(), v, src, int(N), line);
  }
  template <class Rec, class V>
  TS_DEVICE auto ts_shfl_down(Rec& rec, const V& v, unsigned d, int line = __builtin_LINE()) const {
    return ::ts::pc::shfl_down_sync(rec, ts_mask(), v, int(d), int(N), line);
  }
  template <class Rec, class V>
  TS_DEVICE auto ts_shfl_up(Rec& rec, const V& v, unsigned d, int line = __builtin_LINE()) const {
    return ::ts::pc::shfl_up_sync(rec, ts_mask(), v, int(d), int(N), line);
  }
  template <class Rec, class V>
  TS_DEVICE auto ts_shfl_xor(Rec& rec, const V& v, unsigned m, int line = __builtin_LINE()) const {
    return ::ts::pc::shfl_xor_sync(rec, ts_mask(), v, int(m), int(N), line);
  }
  // The vote's bits numbered by the tile's ranks, as cooperative groups give them.
  template <class Rec, class P>
  TS_DEVICE unsigned ts_ballot(Rec& rec, const P& p, int line = __builtin_LINE()) const {
    const unsigned bits = ::ts::pc::ballot_sync(rec, ts_mask(), p, line);
    const unsigned first = detail::linear_thread() % 32u / N * N;
    return N == 32 ? bits : (bits >> first) & ((1u << N) - 1u);
  }
  template <class Rec, class P>
  TS_DEVICE int ts_any(Rec& rec, const P& p, int line = __builtin_LINE()) const {
    return ::ts::pc::any_sync(rec, ts_mask(), p, line);
  }
  template <class Rec, class P>
  TS_DEVICE int ts_all(Rec& rec, const P& p, int line = __builtin_LINE()) const {
    return ::ts::pc::all_sync(rec, ts_mask(), p, line);
  }
};

TS_HD thread_block this_thread_block() {
  return thread_block();
}
template <unsigned N, class Parent>
TS_HD thread_block_tile<N> tiled_partition(const Parent&) {
  return thread_block_tile<N>();
}

// Tiles of up to 32 threads, as the templated ones.
TS_HD thread_group tiled_partition(const thread_group&, unsigned n) {
  return thread_group::ts_tile(n);
}

template <class T>
struct plus {
  TS_HD T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  TS_HD T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  TS_HD T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  TS_HD T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  TS_HD T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  TS_HD T operator()(T a, T b) const { return a ^ b; }
};

}  // namespace cooperative_groups

namespace ts::pc {

// cg::reduce(tile, v, op): every lane gets the tile's result, here through a
// butterfly of shuffles (the GPU's may use redux.sync for integers: the
// values are the same, the trace shows the shuffles).
template <class Rec, unsigned N, class V, class Op>
TS_DEVICE auto group_reduce(Rec& rec, const cooperative_groups::thread_block_tile<N>& g, const V& v,
                            Op op, int line = __builtin_LINE()) {
  value_t<V> x = val(v);
  for (unsigned m = N / 2; m > 0; m /= 2)
    x = op(x, shfl_xor_sync(rec, g.ts_mask(), x, int(m), int(N), line));
  return x;
}

}  // namespace ts::pc
