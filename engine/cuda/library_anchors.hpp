// The library anchors on the GPU (engine/perf.hpp: kLibraryAnchors): each
// routine run once on inputs of the anchor's kind, its output checked on the
// CPU, then timed by the sweep's own timer. Called by the sweep
// (engine/cuda/perf_cuda.cu) at every bandwidth size.
#pragma once

#include <cublas_v2.h>

#include <optional>

#include "engine/cuda/perf_timing.hpp"
#include "engine/perf.hpp"

namespace ts::perf_detail {

struct AnchorContext {
  cublasHandle_t cublas = nullptr;  // nullptr: cuBLAS could not be loaded
  double budget_bytes = 0;          // device memory one point may use
  uint64_t seed = 1;
  TimeLaunch time;
  int radius = 0;  // the conv2d line's mask radius: the family's lessons' at this point
};

// The device-to-device copy of up to 256 MiB (less where `free_bytes` is
// short): the bandwidth every family's "% of copy" divides by. nullopt when
// the sweep was cancelled.
std::optional<PerfResult> copy_point(size_t free_bytes, const TimeLaunch& time);

// Anchor `a` at `size` elements (a transpose: a square of side floor(sqrt(size)),
// as the sweep sizes the 2D lessons). nullopt when the sweep was cancelled.
std::optional<PerfResult> library_anchor_point(const LibraryAnchor& a, int size,
                                               const AnchorContext& c);

}  // namespace ts::perf_detail
