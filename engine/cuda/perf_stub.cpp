// The performance sweep in a build without CUDA: nothing to time, and the
// report says why. (With CUDA, engine/cuda/perf_cuda.cu defines run_perf_sweep.)
#include "engine/perf.hpp"

#if !TS_HAVE_CUDA

#include <ctime>

namespace ts {

PerfReport run_perf_sweep(const PerfConfig& config, SweepControl* control) {
  PerfReport r;
  r.config = resolved(config);
  char buf[32];
  std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  r.created = buf;
  r.device.usable = false;
  r.device.reason = "built without CUDA (rebuild with the CUDA toolkit: cmake -DTS_WITH_CUDA=ON)";
  r.error = "no CUDA device / " + r.device.reason;
  if (control) {
    control->total = 0;
    control->done = 0;
  }
  return r;
}

}  // namespace ts

#endif
