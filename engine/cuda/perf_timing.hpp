// What one timed point of the sweep gives back (engine/cuda/perf_cuda.cu times
// it), shared with the library anchors (engine/cuda/library_anchors.cu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace ts::perf_detail {

struct Timing {
  bool ok = false;
  std::string error;
  bool cancelled = false;
  int reps = 0;
  double median = 0, min = 0, max = 0;
};

inline double median_of(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n == 0) return 0;
  return n % 2 ? v[n / 2] : 0.5 * (double(v[n / 2 - 1]) + double(v[n / 2]));
}

// The harness's timer: warm-up, then timed launches of `launch` (one launch
// on the default stream; returns its launch error), named `label` for NVTX.
using TimeLaunch =
    std::function<Timing(const std::string& label, const std::function<cudaError_t()>& launch)>;

}  // namespace ts::perf_detail
