// Scan, work-efficient (Blelloch): each block scans 2B elements, two per
// thread, with a tree. Up-sweep: level by level, pairs further and further
// apart are added into the right one, until the last cell holds the block's
// total. Then the last cell is cleared, and the down-sweep walks the tree
// back: each left cell passes its value to the right one, which adds the
// left's old value. What is left is the EXCLUSIVE scan: out[i] = in[0] + ..
// + in[i - 1] of the segment, with 2 (n - 1) adds instead of n log2 n.
// The tree's strides (2, 4, .. 64 words between a warp's lanes) put many
// lanes in one bank: the padding, one spare word after every 32 (index
// i lives at i + (i >> 5)), moves each group of 32 into the next bank.
#pragma once

#include "lessons/access.hpp"
#include "lessons/scan_kit.hpp"

namespace ts::lessons::scan_blelloch {

enum : ArraySlot { kIn = 1, kOut, kTemp };

// Where element i of the segment lives in temp: one spare word after every 32.
TS_HD int at(int i) {
  return scan_kit::padded(i);
}

template <class Rec>
TS_DEVICE void scan_blelloch(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length): each block's exclusive scan

  const int block = blockDim.x, tid = threadIdx.x;
  const int n = 2 * block;            // elements this block scans
  TS_EXTERN_SHARED(float, temp_mem);  // at(n - 1) + 1 floats at launch
  SharedArray<float, Rec> temp(rec, temp_mem, at(n - 1) + 1, kTemp);

  // Each thread loads two elements, B apart (threads past the end load 0).
  const int base = blockIdx.x * n, a = tid, b = tid + block;
  float xa = 0.0f, xb = 0.0f;
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  if (base + a < length) xa = in[base + a];
  if (base + b < length) xb = in[base + b];
  temp[at(a)] = xa;
  temp[at(b)] = xb;
  SYNCTHREADS(1);  // every element in place before the tree adds pairs of them

  // Up-sweep: at each level d threads add pairs `offset` apart; the last cell ends with the total.
  int offset = 1;
  for (int d = n / 2; d > 0; d /= 2) {
    DELAY_POINT(true);  // race lab: the chosen warps add late
    if (tid < d) {
      const int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      temp[at(right)] += temp[at(left)];
    }
    offset *= 2;
    SYNCTHREADS(2);  // this level's sums complete before the next level adds them
  }
  if (tid == 0) temp[at(n - 1)] = 0.0f;  // thread 0 wrote the total itself: no barrier needed

  // Down-sweep: the left cell passes its value right; the right one adds the left's old value.
  for (int d = 1; d < n; d *= 2) {
    offset /= 2;
    DELAY_POINT(true);  // race lab: the chosen warps swap late
    if (tid < d) {
      const int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      const float t = temp[at(left)];
      temp[at(left)] = temp[at(right)];
      temp[at(right)] += t;
    }
    SYNCTHREADS(3);  // this level's cells final before the next level (and the output) reads them
  }
  if (base + a < length) out[base + a] = temp[at(a)];
  if (base + b < length) out[base + b] = temp[at(b)];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, scan_blelloch(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return scan_kit::lesson<scan_kit::Algorithm::Blelloch>({
        .title = "Scan 3: Blelloch, work-efficient, padded",
        .summary = "An up-sweep and a down-sweep over a tree, two elements per thread: 2 (n - 1) "
                   "adds, exclusive. One spare word per 32 keeps the tree's strides off one bank.",
        .barriers = {{"every element in place before the tree adds pairs of them",
                      kGuardsRaw | kGuardsWaw},
                     {"up-sweep: this level's sums complete before the next level adds them",
                      kGuardsRaw | kGuardsWaw},
                     {"down-sweep: this level's cells final before the next level, and at the "
                      "end the output, reads them",
                      kGuardsRaw | kGuardsWar | kGuardsWaw}},
        .tests = {.larger = Params{.length = 1024, .block = 128},
                  .padded = Params{.length = 1000, .block = 128},
                  .same_pairs_under_skew = false},
    });
  }
};

}  // namespace ts::lessons::scan_blelloch
