// The reference solution of puzzle prefix_sum (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_prefix_sum {

enum : ArraySlot { kA = 1, kOut, kBuf };

template <class Rec>
TS_DEVICE void prefix_sum_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  __shared__ float buf_mem[2][64];
  SharedTile<float, 2, 64, Rec> buf(rec, buf_mem, kBuf);  // two rows: buf[0][t], buf[1][t]
  const int length = args.length;
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  buf[0][t] = i < length ? float(a[i]) : 0.0f;
  SYNCTHREADS(1);  // @BARRIER1
  int from = 0;
  for (int d = 1; d < 64; d *= 2) {  // @STEPS
    float v = buf[from][t];
    if (t >= d) v += buf[from][t - d];
    buf[1 - from][t] = v;  // @WRITE
    SYNCTHREADS(2);        // @BARRIER2
    from = 1 - from;       // @SWAP
  }
  if (i < length) out[i] = buf[from][t];
}

TS_KERNEL_BODY(Body, prefix_sum_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("prefix_sum", __FILE__); }
};

}  // namespace ts::lessons::puzzle_prefix_sum
