// The limits a run is checked against, and the simulator's model of a device.
#include "engine/backend.hpp"

namespace ts {

DeviceLimits CudaStatus::limits() const {
  DeviceLimits lim;
  if (max_threads_per_block > 0) lim.max_threads_per_block = max_threads_per_block;
  // The CUDA backend opts in to more than 48 KB of dynamic shared memory
  // (cudaFuncSetAttribute), so the opt-in limit is the real one.
  const int shared = shared_per_block_optin > 0 ? shared_per_block_optin : shared_per_block;
  if (shared > 0) lim.max_shared_per_block = shared;
  if (global_memory_bytes > 0) lim.global_memory_bytes = global_memory_bytes;
  return lim;
}

CudaStatus simulator_model() {
  // A modest classroom GPU's figures (an Ampere laptop part), so that a lesson
  // that runs on the simulator also runs on most GPUs. Not a measurement. The
  // limits are DeviceLimits' defaults (48 KB of shared memory per block, no
  // opt-in), which the simulator checks.
  CudaStatus s;
  s.usable = false;
  s.reason = "CPU simulator: a model of a GPU, not a measurement";
  s.device_name = "CPU simulator";
  s.cc_major = 8;
  s.cc_minor = 6;
  s.sm_count = 1;
  s.warp_size = 32;
  s.max_threads_per_block = 1024;
  s.shared_per_block = 48 * 1024;
  s.shared_per_block_optin = 48 * 1024;
  s.shared_per_sm = 100 * 1024;
  s.registers_per_block = 64 * 1024;
  s.registers_per_sm = 64 * 1024;
  s.l2_bytes = 0;
  s.global_memory_bytes = DeviceLimits{}.global_memory_bytes;
  return s;
}

}  // namespace ts
