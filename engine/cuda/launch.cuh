// The one way TileScope puts a lesson on the GPU, shared by the traced and
// untraced runs (engine/cuda/cuda_backend.cu) and the timing harness
// (engine/cuda/perf_cuda.cu): device memory that frees itself, the kernel
// wrapper, the shared-memory opt-in, the launch.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "lessons/kernel_args.hpp"
#include "model/params.hpp"

namespace ts {

// One thread of a lesson's kernel body, with the recorder passed by value.
template <class Body, class Rec>
__global__ void launch_body(Rec rec, KernelArgs args) {
  Body::run(rec, args);
}

// Device memory that frees itself. An allocation that fails is not sticky:
// the error is cleared, so the next run can try again.
struct DeviceBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }
  cudaError_t allocate(size_t n) {
    reset();
    const size_t want = std::max<size_t>(n, 4);
    const cudaError_t e = cudaMalloc(&ptr, want);
    if (e != cudaSuccess) {
      ptr = nullptr;
      cudaGetLastError();
      return e;
    }
    bytes = want;
    return cudaSuccess;
  }
  void reset() {
    if (ptr) cudaFree(ptr);
    ptr = nullptr;
    bytes = 0;
  }
  float* f() const { return static_cast<float*>(ptr); }
};

// More than 48 KiB of dynamic shared memory needs an opt-in per kernel.
template <class Body, class Rec>
cudaError_t prepare_launch(const LaunchGeometry& g) {
  if (g.dynamic_shared_bytes > 48 * 1024)
    return cudaFuncSetAttribute(launch_body<Body, Rec>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(g.dynamic_shared_bytes));
  return cudaSuccess;
}

// Launches the body on `g` with recorder `rec`; the launch error (not the run's).
template <class Body, class Rec>
cudaError_t launch_lesson(const LaunchGeometry& g, const Rec& rec, const KernelArgs& args) {
  if (const cudaError_t e = prepare_launch<Body, Rec>(g); e != cudaSuccess) return e;
  const dim3 grid(g.grid.x, g.grid.y, g.grid.z), block(g.block.x, g.block.y, g.block.z);
  launch_body<Body, Rec><<<grid, block, g.dynamic_shared_bytes>>>(rec, args);
  return cudaGetLastError();
}

}  // namespace ts
