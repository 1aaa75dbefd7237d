// The lane a warp shuffle reads, with a width, as PTX's shfl.sync computes it
// (the PTX ISA, "shfl.sync"; CUDA's __shfl_*_sync pass c = (32 - width) << 8,
// or'ed with 31 except for up): the warp is cut into segments of `width`
// lanes, and a lane whose source falls outside its own segment (past its end;
// before its start for up) reads its own value. Only the offset's or source
// lane's low 5 bits count, as in the hardware. The simulator and the GPU's
// trace recorder both record the source lane this gives (lessons/plain_cuda.hpp).
#pragma once

#include <cstdint>

#include "lessons/cuda_compat.hpp"

namespace ts {

enum class ShflMode : uint8_t { Up, Down, Xor, Idx };

// CUDA's name of the intrinsic, for messages.
TS_HD const char* shfl_name(ShflMode mode) {
  return mode == ShflMode::Up     ? "__shfl_up_sync"
         : mode == ShflMode::Down ? "__shfl_down_sync"
         : mode == ShflMode::Xor  ? "__shfl_xor_sync"
                                  : "__shfl_sync";
}

// CUDA defines a width that is a power of two from 1 to 32 (warpSize).
TS_HD bool shfl_width_ok(int width) {
  return width >= 1 && width <= 32 && (width & (width - 1)) == 0;
}

// The lane `lane` reads: `b` is the delta (up, down), the lane mask (xor) or
// the source lane (idx). `width` must be shfl_width_ok.
TS_HD int shfl_source(ShflMode mode, int lane, int b, int width) {
  const int segmask = 32 - width;  // the lane bits that pick the segment
  const int bval = b & 31;
  const int first = lane & segmask;
  const int last = first | (31 & ~segmask);
  int j = lane;
  bool in = true;
  switch (mode) {
    case ShflMode::Up:
      j = lane - bval, in = j >= first;
      break;
    case ShflMode::Down:
      j = lane + bval, in = j <= last;
      break;
    case ShflMode::Xor:  // an earlier segment may be read, a later one not
      j = lane ^ bval, in = j <= last;
      break;
    case ShflMode::Idx:
      j = first | (bval & ~segmask);
      break;
  }
  return in ? j : lane;
}

}  // namespace ts
