// 1D stencil with float4 loads and stores and a register window: out[i] is
// the average of in[i - R] .. in[i + R], indices clamped at the ends. Each
// thread moves two float4s (eight elements) into shared memory with two
// 16-byte loads, and computes four consecutive outputs per float4: it reads
// their 4 + 2R neighbours from shared memory once, as three 16-byte loads,
// into a window of 12 registers, and every output sums its 2R + 1 values
// from there. The step before read 2R + 1 shared values one at a time for
// every output; here a value read once serves up to 2R + 1 outputs (register
// reuse of the halo). The shared array keeps 4 halo cells on each side (R
// rounded up to a float4), so that every float4 in it starts on a 16-byte
// boundary. And the average multiplies by 1 / (2R + 1), a constant the
// compiler folds, where the steps before divided: an IEEE division is a
// dozen instructions and a branch, per output; one multiply rounds at most
// one unit in the last place differently (measured on an H200, 2^26 elements:
// 3,220 GB/s with the division, 4,096 with the multiply).
#pragma once

#include "lessons/access.hpp"
#include "lessons/stencil_kit.hpp"

namespace ts::lessons::stencil_vectorized {

using stencil_kit::clamp_index;
enum : ArraySlot { kIn = 1, kOut, kCache };

inline constexpr int kQuads = 2;               // float4s per thread
inline constexpr int kPerThread = 4 * kQuads;  // elements (and outputs) per thread
inline constexpr int kHalo = 4;                // halo cells a side: R <= 4, a whole float4
inline constexpr int kWindow = 4 + 2 * kHalo;  // registers: 4 outputs and their neighbours
inline constexpr int kMaxRadius = kHalo;

template <int R, class Rec>  // R: the radius, at compile time (the window's indices)
TS_DEVICE void stencil_vectorized(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length), 16-byte aligned
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length), 16-byte aligned

  const int block = blockDim.x, tx = threadIdx.x;
  const int span = kPerThread * block;  // the block's elements
  // [ 4 halo cells | the span | 4 halo cells ]: element first + i is cache[kHalo + i].
  TS_EXTERN_SHARED(float, cache_mem);  // (span + 2 * kHalo) * sizeof(float) bytes at launch
  SharedArray<float, Rec> cache(rec, cache_mem, span + 2 * kHalo, kCache);
  const int first = blockIdx.x * span;

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // Float4 q of the span is elements 4q .. 4q + 3: thread tx takes q = tx and
  // q = tx + block, so a warp's load is 512 consecutive bytes.
#pragma unroll
  for (int v = 0; v < kQuads; ++v) {
    const int o = 4 * (tx + v * block), e = first + o;
    float4 x;
    if (e + 3 < length) {
      x = in.vec4(e);  // one 16-byte load
    } else {           // the array's end: four clamped 4-byte loads
      x.x = in[clamp_index(e, length)];
      x.y = in[clamp_index(e + 1, length)];
      x.z = in[clamp_index(e + 2, length)];
      x.w = in[clamp_index(e + 3, length)];
    }
    cache.vec4(kHalo + o) = x;  // one 16-byte store
  }
  if (tx < kHalo) {  // the halos: 4 cells before the span and 4 after it
    cache[tx] = in[clamp_index(first - kHalo + tx, length)];
    cache[kHalo + span + tx] = in[clamp_index(first + span + tx, length)];
  }
  SYNCTHREADS(1);  // neighbours were loaded by other threads, other warps: wait for all

#pragma unroll
  for (int v = 0; v < kQuads; ++v) {
    const int o = 4 * (tx + v * block), e = first + o;
    // The window: elements e - 4 .. e + 7, three 16-byte shared loads.
    float w[kWindow];
#pragma unroll
    for (int q = 0; q < kWindow / 4; ++q) {
      const float4 t = cache.vec4(o + 4 * q);
      w[4 * q] = t.x, w[4 * q + 1] = t.y, w[4 * q + 2] = t.z, w[4 * q + 3] = t.w;
    }
    constexpr float kInverse = 1.0f / float(2 * R + 1);  // folded at compile time
    float r[4];                                          // outputs e .. e + 3, from registers only
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      float sum = 0.0f;
#pragma unroll
      for (int j = -R; j <= R; ++j)
        sum += w[kHalo + q + j];
      r[q] = sum * kInverse;  // a multiply, not a division
    }
    if (e + 3 < length) {
      out.vec4(e) = make_float4(r[0], r[1], r[2], r[3]);  // one 16-byte store
    } else {
      for (int q = 0; q < 3 && e + q < length; ++q)  // 1 to 3 elements before the end
        out[e + q] = r[q];
    }
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int R>
TS_KERNEL_BODY(Body, (stencil_vectorized<R>(rec, args)));

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return lesson_kit::visit_value<1, 2, 3, 4>(p.radius, [&]<int R>() { f(Body<R>{}); });
  }
  static LessonSpec descriptor() {
    using namespace stencil_kit;
    LessonSpec s = lesson<Cache::Dynamic>(
        "1D stencil, float4 loads and a register window",
        "16-byte loads and stores; each thread reads four outputs' neighbours from shared memory "
        "once into 12 registers and sums every output from there.");
    s.params = {
        length("elements of in and out", 600),
        {"radius", "radius R", "neighbours on each side, 1 to 4 (the window's halo)", 1, kMaxRadius,
         3, radius_out_of_range},
        block("block size", "threads per block, at least 4: 8 elements each", 64).timed_at(256)};
    s.check = [](const LessonInfo&, const Params& p, const DeviceLimits& lim) {
      return check_block(p, lim);
    };
    s.arrays = [](const Params& p) {
      return arrays(p.length, {shared_array("cache", 1, kPerThread * p.block + 2 * kHalo)});
    };
    s.geometry = [](const Params& p) {
      LaunchGeometry g = span_geometry(p, kPerThread);
      g.dynamic_shared_bytes =
          uint32_t(4 * (int64_t(kPerThread) * (p.block < 1 ? 1 : p.block) + 2 * kHalo));
      return g;
    };
    s.counts = counts;
    s.loads_per_output = [](const Params& p, std::string* formula) {
      return span_loads(p, kPerThread, kHalo, formula);
    };
    // Two or more blocks of two warps; the padded run ends inside a float4.
    s.tests.larger = Params{.length = 1100, .radius = 3, .block = 64};
    s.tests.padded = Params{.length = 1030, .radius = 2, .block = 64};
    return s;
  }

 private:
  static std::string radius_out_of_range(const char*, int radius) {
    return "radius " + std::to_string(radius) + ": the radius must be from 1 to " +
           std::to_string(kMaxRadius) + " (the window keeps " + std::to_string(kHalo) +
           " neighbours on each side, compiled for each radius)";
  }
  static std::optional<std::string> check_block(const Params& p, const DeviceLimits& lim) {
    if (auto e = lesson_kit::check_block_size(p.block, lim)) return e;
    if (p.block < kHalo)
      return "block " + std::to_string(p.block) + ": the first " + std::to_string(kHalo) +
             " threads load the halo cells, so a block needs at least " + std::to_string(kHalo) +
             " threads";
    return std::nullopt;
  }
  // Every float4 of every block is loaded and stored to shared (clamped past
  // the end), the halos by the first 4 threads; every thread reads its two
  // windows (3 float4s each); every element is stored once.
  static ExpectedCounts counts(const Params& p) {
    ExpectedCounts c;
    const LaunchGeometry g = stencil_kit::span_geometry(p, kPerThread);
    const uint64_t blocks = g.grid.x, b = g.block.x, span = kPerThread * b;
    c.global_loads = blocks * (span + 2 * kHalo);
    c.shared_stores = blocks * (span + 2 * kHalo);
    c.shared_loads = blocks * b * kQuads * kWindow;
    c.global_stores = uint64_t(p.length);
    c.barrier_arrivals = blocks * b;
    return c;
  }
};

}  // namespace ts::lessons::stencil_vectorized
