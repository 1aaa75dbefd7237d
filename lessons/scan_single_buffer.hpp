// Scan, the naive way: Hillis-Steele in ONE shared buffer. At step d every
// thread tid >= d adds the cell d to its left onto its own,
// temp[tid] += temp[tid - d], with d = 1, 2, 4, .. and a barrier after every
// step. RACY BY DESIGN: within a step, thread tid reads temp[tid - d] while
// thread tid - d adds into that very cell. No barrier can sit between the two:
// they are one statement. When the owner of temp[tid - d] has already added,
// tid adds a sum that counts some elements twice. Warps that run in lockstep
// (every warp's reads before any warp's writes) hide it; a warp that falls
// behind reads its neighbour warp's new sums. scan.double_buffer is the fix.
#pragma once

#include "lessons/access.hpp"
#include "lessons/scan_kit.hpp"

namespace ts::lessons::scan_single_buffer {

enum : ArraySlot { kIn = 1, kOut, kTemp };

template <class Rec>
TS_DEVICE void scan_single_buffer(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length): each block's inclusive scan

  const int block = blockDim.x, tid = threadIdx.x;
  TS_EXTERN_SHARED(float, temp_mem);  // block * sizeof(float) bytes at launch
  SharedArray<float, Rec> temp(rec, temp_mem, block, kTemp);

  const int i = blockIdx.x * block + tid;
  float x = 0.0f;     // threads past the end add nothing
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  if (i < length) x = in[i];
  temp[tid] = x;
  SYNCTHREADS(1);  // every element in place before a thread reads its neighbour's

  for (int d = 1; d < block; d *= 2) {
    DELAY_POINT(true);  // race lab: the chosen warps read late, after others added
    // Reads temp[tid - d] while thread tid - d may be adding into it: the race.
    if (tid >= d) temp[tid] += temp[tid - d];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (i < length) out[i] = temp[tid];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, scan_single_buffer(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return scan_kit::lesson<scan_kit::Algorithm::SingleBuffer>({
        .title = "Scan 1: Hillis-Steele in one buffer (racy)",
        .summary = "temp[tid] += temp[tid - d] in one shared array: a thread reads the cell its "
                   "neighbour is adding into. Wrong once warps drift apart, barriers or not.",
        .barriers = {{"every element in place before a thread reads its neighbour's", kGuardsRaw},
                     {"this step's sums complete before the next step reads them; it cannot "
                      "order the read and the add within one step",
                      kGuardsRaw}},
        .tests = {.racy_by_design = kGuardsWar | kGuardsWarInWarp,
                  .wrong_by_design = [](const Params& p) { return p.block > 32; },
                  .larger = Params{.length = 1000, .block = 256},
                  .padded = Params{.length = 100, .block = 64}},
    });
  }
};

}  // namespace ts::lessons::scan_single_buffer
