// What the reduction lessons share: each block sums its part of `in` into
// out[blockIdx.x], one partial sum per block (a second pass over `out`, or an
// atomicAdd per block, finishes the job; the last step does the latter). The
// steps differ in how a block loads (one element per thread, two added on the
// way in, or many a grid apart, one float or a float4 at a time), how its
// tree of additions runs and how it finishes; everything else is here:
// arrays, geometry, checks, reference and the closed-form counts.
#pragma once

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "lessons/cuda_compat.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::reduction_kit {

using namespace ts::lesson_kit;

// How a lesson ends its tree.
enum class LastWarp : uint8_t {
  None,      // the shared-memory tree runs to one element, a barrier after every step
  Volatile,  // the tree stops at 64 elements; warp 0 finishes through a volatile pointer
  Syncwarp,  // ... warp 0 finishes with a __syncwarp between every read and write
  Shuffle,   // ... warp 0 finishes in registers with __shfl_down_sync
};

struct Shape {
  bool first_add;  // each thread adds two elements while loading: half as many blocks
  LastWarp last;
  // Grid stride (steps 9 on): each thread adds elements a whole grid apart,
  // `vector` floats per load (1, or 4: a float4); 0: one block per B (2B) elements.
  int vector = 0;
  bool atomic_finish = false;  // each block atomicAdds its sum into out[0]: one launch
};

// The grid-stride steps' grid: enough blocks for kPerThread elements per
// thread, at most kMaxBlocks (beyond that each thread adds more: 32 per
// thread for 2^26 floats in blocks of 256).
inline constexpr int kPerThread = 8;
inline constexpr int kMaxBlocks = 8192;

inline bool grid_stride(Shape s) {
  return s.vector > 0;
}

// Elements one block sums (without a grid stride), and the number of blocks.
inline int64_t per_block(const Params& p, Shape s) {
  return int64_t(std::max(p.block, 1)) * (s.first_add ? 2 : 1);
}
inline int64_t block_count(const Params& p, Shape s) {
  const uint64_t length = uint64_t(std::max(p.length, 1));
  if (grid_stride(s))
    return int64_t(std::min<uint64_t>(ceil_div(length, uint64_t(std::max(p.block, 1)) * kPerThread),
                                      kMaxBlocks));
  return int64_t(ceil_div(length, uint64_t(per_block(p, s))));
}
// Values in out: one per block, or the one whole sum.
inline int64_t output_count(const Params& p, Shape s) {
  return s.atomic_finish ? 1 : block_count(p, s);
}

// The block whose sum element i goes into. A grid-stride thread t adds
// elements t, t + G*B, ... (float4s q = t, t + G*B, ... with the vector; the
// length % 4 elements after the last whole float4 go to threads 0, 1, 2).
inline int64_t block_of(int64_t i, const Params& p, Shape s, int64_t blocks) {
  const int64_t B = std::max(p.block, 1);
  if (!grid_stride(s)) return i / per_block(p, s);
  const int64_t whole = s.vector == 4 ? int64_t(std::max(p.length, 0)) / 4 * 4 : 0;
  if (s.vector == 4 && i >= whole) return (i - whole) / B;
  const int64_t t = s.vector == 4 ? i / 4 : i;
  return t % (blocks * B) / B;
}

// in (slot 1, input stream 4), out (slot 2: one value per block, or the one
// sum), and the block's shared array (slot 3, from byte 0 of its shared memory).
inline ArrayTable arrays(const Params& p, Shape s) {
  return {global_input("in", 1, p.length, 4),
          global_output("out", 1, int(std::min<int64_t>(output_count(p, s), INT32_MAX))),
          shared_array("sdata", 1, p.block)};
}

// One thread per element (per two with the first add), `block` floats of
// shared memory given at launch.
inline LaunchGeometry geometry(const Params& p, Shape s) {
  LaunchGeometry g;
  g.block = {at_least_1(p.block), 1, 1};
  g.grid = {at_least_1(block_count(p, s)), 1, 1};
  g.dynamic_shared_bytes = uint32_t(4 * int64_t(std::max(p.block, 1)));
  return g;
}

// The tree halves the block at every step: a power of two, at least a warp
// (at least two warps where the last warp adds sdata[tid + 32]).
inline std::optional<std::string> check(const Params& p, const DeviceLimits& lim, Shape s) {
  if (auto e = check_length(p.length)) return e;
  const int least = s.last == LastWarp::None ? 32 : 64;
  if (p.block < least || p.block > 1024 || (p.block & (p.block - 1)) != 0)
    return "block " + std::to_string(p.block) +
           ": the tree halves the block at every step, so it must be a power of two from " +
           std::to_string(least) + " to 1024" +
           (s.last == LastWarp::None ? std::string()
                                     : std::string(" (the last warp adds sdata[tid + 32])"));
  return check_block_size(p.block, lim);
}

inline int log2_of(int power_of_two) {
  int b = 0;
  while ((1 << (b + 1)) <= power_of_two)
    ++b;
  return b;
}

// Counts of a traced run with every barrier kept. Per block of B = 2^b threads:
// the load stores B cells and meets barrier 1; a tree step of s active threads
// loads 2s cells, stores s and meets barrier 2 (all B threads). The full tree
// has b steps (s = B/2 .. 1: sum B - 1); the warp-unrolled ones b - 6 (s = B/2
// .. 64: sum B - 64), then warp 0 (32 lanes) takes the 6 steps s = 32 .. 1:
//   Volatile  2 loads + 1 store per lane and step, then thread 0 loads sdata[0];
//   Syncwarp  1 load, then per step 1 load, 1 store, 2 __syncwarp (barriers 3, 4);
//   Shuffle   2 loads (sdata[tid] + sdata[tid + 32]), then 5 shuffles (16 .. 1).
// Every element of `in` is loaded once (a float4 load is four events); one
// store to `out` per block, or one atomicAdd per block into out[0].
inline ExpectedCounts counts(const Params& p, Shape s) {
  const uint64_t B = uint64_t(p.block), b = uint64_t(log2_of(p.block));
  const uint64_t G = uint64_t(block_count(p, s));
  ExpectedCounts c;
  c.global_loads = uint64_t(p.length);
  (s.atomic_finish ? c.global_atomics : c.global_stores) = G;
  uint64_t sl = 0, ss = B, arrive = B;  // the load and barrier 1
  if (s.last == LastWarp::None) {
    sl += 2 * (B - 1) + 1, ss += B - 1, arrive += b * B;
  } else {
    sl += 2 * (B - 64), ss += B - 64, arrive += (b - 6) * B;
    switch (s.last) {
      case LastWarp::Volatile:
        sl += 32 * 6 * 2 + 1, ss += 32 * 6;
        break;
      case LastWarp::Syncwarp:
        sl += 32 + 32 * 6, ss += 32 * 6, arrive += 32 * 6 * 2;
        break;
      case LastWarp::Shuffle:
        sl += 32 * 2, c.warp_shuffles = G * 32 * 5;
        break;
      case LastWarp::None:
        break;
    }
  }
  c.shared_loads = G * sl;
  c.shared_stores = G * ss;
  c.barrier_arrivals = G * arrive;
  return c;
}

// out[g]: the sum of block g's elements (out[0]: of all), in double, rounded once.
inline std::vector<float> reference(const Params& p, const LessonInputs& in, Shape s) {
  const std::vector<float>& x = in[1];
  const int64_t G = block_count(p, s);
  std::vector<double> sum(size_t(output_count(p, s)), 0.0);
  for (int64_t i = 0; i < std::min<int64_t>(p.length, int64_t(x.size())); ++i)
    sum[s.atomic_finish ? 0 : size_t(block_of(i, p, s, G))] += x[size_t(i)];
  return std::vector<float>(sum.begin(), sum.end());
}

// The textbook's global loads per output: every element once, L / (values in out).
inline double loads_per_output(const Params& p, std::string* formula, Shape s) {
  const int64_t l = std::max(p.length, 1), e = per_block(p, s), g = output_count(p, s);
  const double r = double(l) / double(g);
  if (formula) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", r);
    const std::string L = std::to_string(l), B = std::to_string(std::max(p.block, 1));
    if (s.atomic_finish)
      *formula = "L (one output: the whole sum) = " + L;
    else if (grid_stride(s))
      *formula =
          "L/min(ceil(L/(8B)), 8192) = " + L + "/min(ceil(" + L + "/(8*" + B + ")), 8192) = " + buf;
    else
      *formula = std::string("L/ceil(L/E) with E = ") + (s.first_add ? "2B" : "B") + ": " + L +
                 "/ceil(" + L + "/" + std::to_string(e) + ") = " + buf;
  }
  return r;
}

// Terms behind one output: a block's elements (a grid-stride block's at most
// ceil(L/(G*B)) per thread, 3 more in block 0), or all of them.
inline int sum_length(const Params& p, Shape s) {
  if (s.atomic_finish) return std::max(p.length, 1);
  if (!grid_stride(s)) return int(per_block(p, s));
  const int64_t B = std::max(p.block, 1), G = block_count(p, s), v = s.vector;
  return int(int64_t(ceil_div(uint64_t(std::max(p.length, 1)), uint64_t(G * B * v))) * v * B + 3);
}

// The steps from 8 on know the block size at compile time (Body<B>): the
// tree's loop has constant bounds and unrolls completely.
template <template <int> class Body, class F>
bool visit_block(const Params& p, F& f) {
  return visit_value<64, 128, 256, 512, 1024>(p.block, [&]<int B>() { f(Body<B>{}); });
}
// One add per element (B - 1 per block, plus the first adds).
inline double flops(const Params& p) {
  return double(p.length);
}

// 1 or 2 warps per block: a block of 32 or 64 threads (with the defaults'
// length, so that the second warp has work).
inline std::optional<Params> with_warps(const Params& p, const Params& defaults, int warps) {
  Params q = p;
  q.block = 32 * warps;
  if (warps > 1) q.length = std::max(q.length, defaults.length);
  return q;
}

inline SharedAdvice smaller_block(const Params&, const DeviceLimits&) {
  return {" (one float per thread)", "use a smaller block"};
}

// What a step states: its text, and what its two __syncthreads (the load's,
// the tree's) keep out; a step with an unrolled last warp may add warp barriers.
struct Step {
  const char* title;
  const char* summary;
  unsigned load_guards;                         // HazardBits of barrier 1 (every element in place)
  unsigned tree_guards;                         // ... of barrier 2 (each step's sums complete)
  std::vector<BarrierInfo> warp_barriers = {};  // SYNCWARP(3), ...
  TestFacts tests = {};
};

// A whole reduction lesson from its shape and its text.
template <Shape S>
LessonSpec step(Step step) {
  std::vector<BarrierInfo> barriers = {
      {"every element in place before anyone adds it: the tree reads cells that other threads, "
       "in other warps, stored",
       uint8_t(step.load_guards)},
      {"this step's sums complete before the next step reads them (and before a cell is "
       "overwritten while another thread still reads it)",
       uint8_t(step.tree_guards)}};
  barriers.insert(barriers.end(), step.warp_barriers.begin(), step.warp_barriers.end());
  step.tests.same_pairs_under_skew = false;  // a skewed warp meets a later step's line
  constexpr bool whole_tree = S.last == LastWarp::None;
  return {
      .title = step.title,
      .summary = step.summary,
      .params = {length(S.atomic_finish ? "elements of in; out gets their sum"
                                        : "elements of in; out gets one sum per block",
                        grid_stride(S) ? 2048 : 512),
                 block("block size",
                       whole_tree ? "threads per block: a power of two, 32 to 1024"
                                  : "threads per block: a power of two, 64 to 1024",
                       128)
                     .timed_at(256)},
      .barriers = std::move(barriers),
      .arrays = [](const Params& p) { return arrays(p, S); },
      .geometry = [](const Params& p) { return geometry(p, S); },
      .check = [](const LessonInfo&, const Params& p,
                  const DeviceLimits& lim) { return check(p, lim, S); },
      .shared_advice = smaller_block,
      .counts = [](const Params& p) { return counts(p, S); },
      .reference = [](const Params& p, const LessonInputs& in) { return reference(p, in, S); },
      .sum_length = [](const Params& p) { return sum_length(p, S); },
      .with_warps = whole_tree ? with_warps : nullptr,
      .loads_per_output = [](const Params& p, std::string* f) { return loads_per_output(p, f, S); },
      .metric = PerfMetric::Bytes,
      .flops = flops,
      .tests = std::move(step.tests),
  };
}

}  // namespace ts::lessons::reduction_kit
