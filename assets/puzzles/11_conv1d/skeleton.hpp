// Puzzle 11: 1D convolution.
// The statement and the hints: `tilescope-cli puzzles conv1d`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check conv1d this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_conv1d {

enum : ArraySlot { kA = 1, kW, kOut, kTile };

template <class Rec>
TS_DEVICE void conv1d_kernel(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;  // radius 1 to 4
  GlobalArray<const float, Rec> a(rec, args, kA);        // (length)
  GlobalArray<const float, Rec> w(rec, args, kW);        // (2 radius + 1): the weights
  GlobalArray<float, Rec> out(rec, args, kOut);          // (length)
  __shared__ float tile_mem[64 + 2 * 4];
  SharedArray<float, Rec> tile(rec, tile_mem, 64 + 2 * 4, kTile);  // room for 4 halo cells a side
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;              // blocks of 64 threads

  // TODO: your code. A barrier is SYNCTHREADS(1);
}

TS_KERNEL_BODY(Body, conv1d_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("conv1d", __FILE__); }
};

}  // namespace ts::lessons::puzzle_conv1d
