// Scan, Hillis-Steele done right: two shared buffers, ping and pong. At step
// d every thread reads the previous step's buffer and writes the other one:
// tid >= d writes the sum of its cell and the cell d to its left, the others
// copy their cell. Nobody writes what anyone reads in the same step, so one
// barrier per step is enough. An inclusive scan in log2(B) steps, but
// O(n log n) adds: about B log2 B per block against the B - 1 a sequential
// loop needs (scan.blelloch is work-efficient).
#pragma once

#include "lessons/access.hpp"
#include "lessons/scan_kit.hpp"

namespace ts::lessons::scan_double_buffer {

enum : ArraySlot { kIn = 1, kOut, kTemp };

template <class Rec>
TS_DEVICE void scan_double_buffer(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length): each block's inclusive scan

  const int block = blockDim.x, tid = threadIdx.x;
  TS_EXTERN_SHARED(float, temp_mem);  // 2 * block * sizeof(float) bytes at launch
  SharedArray<float, Rec> temp(rec, temp_mem, 2 * block, kTemp);  // (2, block): ping, pong

  const int i = blockIdx.x * block + tid;
  float x = 0.0f;     // threads past the end add nothing
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  if (i < length) x = in[i];
  int pout = 0;  // the buffer this step writes; the other one it reads
  temp[pout * block + tid] = x;
  SYNCTHREADS(1);  // every element in place before a thread reads its neighbour's

  for (int d = 1; d < block; d *= 2) {
    pout = 1 - pout;
    const int pin = 1 - pout;
    DELAY_POINT(true);  // race lab: the chosen warps read late
    const float mine = temp[pin * block + tid];
    if (tid >= d)
      temp[pout * block + tid] = temp[pin * block + tid - d] + mine;
    else
      temp[pout * block + tid] = mine;  // copied, so that the next step finds it there
    SYNCTHREADS(2);  // this step's buffer complete before the next step reads it, and
                     // read before the step after overwrites it
  }
  if (i < length) out[i] = temp[pout * block + tid];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, scan_double_buffer(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return scan_kit::lesson<scan_kit::Algorithm::DoubleBuffer>({
        .title = "Scan 2: Hillis-Steele, double buffer",
        .summary = "Each step reads one shared buffer and writes the other: no thread writes "
                   "what another reads. log2(B) steps, but B log2 B adds.",
        .barriers = {{"every element in place before a thread reads its neighbour's", kGuardsRaw},
                     {"this step's buffer complete before the next step reads it, and read "
                      "before the step after that overwrites it",
                      kGuardsRaw | kGuardsWar}},
        .tests = {.larger = Params{.length = 1000, .block = 256},
                  .padded = Params{.length = 100, .block = 64}},
    });
  }
};

}  // namespace ts::lessons::scan_double_buffer
