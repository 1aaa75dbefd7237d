// Scan in one pass (decoupled look-back): the inclusive scan of the WHOLE
// array in one launch, in and out each crossing memory once. Block t scans
// tile t (16 elements per thread, a float4 at a time, in registers and with
// warp shuffles) and needs one more number: the sum of every element before
// its tile. It gets it from the tiles before it, which publish two sums in
// global memory, each announced by a flag:
//   - its own total, as soon as its elements are added up (row 0 of sums);
//   - its inclusive prefix, the sum of everything up to its end (row 1).
// A tile looks back at the 4 x blockDim tiles before it: the farthest one's
// prefix plus the totals of those in between is its own prefix. The totals
// come early, so no tile waits for its neighbour's look-back ("decoupled"):
// only for a prefix 4 x blockDim tiles back, long published by then.
// CUB's look-back walks back until the first prefix it finds, which depends
// on timing; this one always reads the same tiles, so every run (and the
// simulator) reads the same values and adds them in the same order.
//
// The flag protocol: a writer stores the sum, __threadfence(), then the flag;
// a reader waits for the flag, __threadfence(), then reads the sum with
// __ldcg (from L2: this SM's L1 may hold the line from before it was
// written). A flag holds the launch's number + 1 (from epoch), so that the
// flags of the last launch never pass for this one's: no reset between
// launches. The tile index is blockIdx.x: a tile waits only for lower ones,
// which the GPU has started before (it starts blocks in index order, as CUB's
// scan relies on too); the simulator runs the blocks one after another in
// that order, so every flag a tile waits for is set when it looks.
#pragma once

#include "lessons/access.hpp"
#include "lessons/scan_single_pass_kit.hpp"

namespace ts::lessons::scan_decoupled_lookback {

enum : ArraySlot { kIn = 1, kOut, kSums, kReady, kEpoch, kWarpSum };
using scan_single_pass_kit::kGroups;
using scan_single_pass_kit::kItems;
using scan_single_pass_kit::kReach;

template <class Rec>
TS_DEVICE void scan_decoupled_lookback(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length), 16-byte aligned
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length): in[0] + .. + in[i]
  GlobalArray<float, Rec> sums(rec, args, kSums);    // [2][tiles]: totals; inclusive prefixes
  GlobalArray<int, Rec> ready(rec, args, kReady);    // [2][tiles]: launch + 1 once published
  GlobalArray<int, Rec> epoch(rec, args, kEpoch);    // (1): launches so far
  __shared__ float warp_mem[2][32];
  SharedTile<float, 2, 32, Rec> warp_sum(rec, warp_mem, kWarpSum);  // [0] totals, [1] look-back

  const int block = blockDim.x, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warps = block / 32, tiles = gridDim.x, tile = blockIdx.x;
  const int launch = epoch[0];  // this launch's flags hold launch + 1, older ones less

  // 1. The tile in registers: warp w scans its 512 elements 128 at a time, a
  // float4 per lane (one coalesced 512-byte load), carrying the sum along.
  const int first = (tile * warps + warp) * 32 * kItems;
  float4 v[kGroups];   // this lane's 4 x 4 values: the scan within the warp
  float carry = 0.0f;  // the warp's groups so far
  DELAY_POINT(true);   // race lab: the chosen warps start loading late
  for (int g = 0; g < kGroups; ++g) {
    const int i = first + 128 * g + 4 * lane;
    float4 x = {0.0f, 0.0f, 0.0f, 0.0f};  // past the end: zeros
    if (i + 4 <= length) {
      x = in.vec4(i);
    } else {
      if (i < length) x.x = in[i];
      if (i + 1 < length) x.y = in[i + 1];
      if (i + 2 < length) x.z = in[i + 2];
    }
    x.y += x.x, x.z += x.y, x.w += x.z;  // the lane's four, scanned
    float s = x.w;                       // Kogge-Stone over the lanes: s = lanes 0 .. lane
    for (int d = 1; d < 32; d *= 2) {
      const float up = SHFL_UP(s, d);
      if (lane >= d) s += up;
    }
    float before = SHFL_UP(s, 1);  // lanes 0 .. lane - 1
    if (lane == 0) before = 0.0f;
    const float group = SHFL_IDX(s, 31);  // all 128
    const float add = carry + before;
    v[g] = make_float4(x.x + add, x.y + add, x.z + add, x.w + add);
    carry += group;
  }

  // 2. The warps' totals: each thread adds those before its warp, and all of them.
  if (lane == 0) warp_sum[0][warp] = carry;
  SYNCTHREADS(1);  // every warp's total in place before any thread adds them up
  float below = 0.0f, total = 0.0f;
  for (int w = 0; w < warps; ++w) {
    if (w == warp) below = total;
    total += warp_sum[0][w];
  }

  // 3. Publish the tile's total at once: later tiles may add it up before
  // this tile knows its own prefix.
  if (tid == 0) {
    sums[tile] = total;
    THREADFENCE();  // the total reaches memory before the flag that announces it
    ready[tile] = launch + 1;
  }

  // 4. Look back: thread tid takes tiles tile - kReach B + j B + tid. The
  // farthest (thread 0, j = 0) gives its inclusive prefix, the rest their totals.
  float found = 0.0f;
  for (int j = 0; j < kReach; ++j) {
    const int q = tile - kReach * block + j * block + tid;
    if (q < 0) continue;  // before tile 0: nothing
    const int at = (j == 0 && tid == 0 ? tiles : 0) + q;
    wait_at_least(ready[at], launch + 1);  // spins until tile q has published it
    THREADFENCE();                         // nothing below is read before the flag was seen
    found += ldcg(sums[at]);
  }
  for (int d = 16; d > 0; d /= 2)
    found += SHFL_DOWN(found, d);  // lane 0: the warp's share
  if (lane == 0) warp_sum[1][warp] = found;
  SYNCTHREADS(2);  // every warp's share in place before any thread adds them up

  float prefix = 0.0f;  // every element before this tile
  for (int w = 0; w < warps; ++w)
    prefix += warp_sum[1][w];

  // 5. Publish the prefix up to the tile's end (what tile + kReach B waits for).
  if (tid == 0) {
    sums[tiles + tile] = prefix + total;
    THREADFENCE();
    ready[tiles + tile] = launch + 1;
    // The last tile's look-back saw, directly or through a prefix, every
    // other tile publish its total, which each did after reading epoch.
    if (tile == tiles - 1) epoch[0] = launch + 1;
  }

  // 6. Out: the prefix, the warps before, the scan within the warp.
  const float base = prefix + below;
  for (int g = 0; g < kGroups; ++g) {
    const int i = first + 128 * g + 4 * lane;
    const float4 o = make_float4(v[g].x + base, v[g].y + base, v[g].z + base, v[g].w + base);
    if (i + 4 <= length) {
      out.vec4(i) = o;
    } else {
      if (i < length) out[i] = o.x;
      if (i + 1 < length) out[i + 1] = o.y;
      if (i + 2 < length) out[i + 2] = o.z;
    }
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, scan_decoupled_lookback(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return scan_single_pass_kit::lesson({
        .title = "Scan 4: the whole array in one pass (decoupled look-back)",
        .summary = "Each block scans a tile in registers with warp shuffles, publishes its total "
                   "at once, and gets the sum before its tile from the tiles before it.",
        .barriers = {{"every warp's total in place before any thread adds them up", kGuardsRaw},
                     {"every warp's share of the look-back in place before any thread adds "
                      "them up",
                      kGuardsRaw}},
        .tests = {.larger = Params{.length = 4096, .block = 64},
                  .padded = Params{.length = 3001, .block = 96}},
    });
  }
};

}  // namespace ts::lessons::scan_decoupled_lookback
