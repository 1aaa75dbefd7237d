// The one way TileScope puts a lesson on the GPU, shared by the traced and
// untraced runs (engine/cuda/cuda_backend.cu) and the timing harness
// (engine/cuda/perf_cuda.cu): device memory that frees itself, the kernel
// wrapper, the shared-memory opt-in, the launch.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "lessons/access.hpp"
#include "lessons/kernel_args.hpp"
#include "model/params.hpp"

namespace ts {

// The kernels and launches below have internal linkage (an unnamed
// namespace): nvcc compiles each .cu on its own, so each .cu that includes the
// lessons has its own copy of every __constant__ symbol. A kernel launched here
// must be this .cu's kernel, which reads the copy this .cu's launch filled; a
// template kernel with external linkage, instantiated in two .cu files, could
// be registered from the other one.
namespace {

// One thread of a lesson's kernel body, with the recorder passed by value.
template <class Body, class Rec>
__global__ void launch_body(Rec rec, KernelArgs args) {
  Body::run(rec, args);
}

// The same for a recorder that must launch every block the lesson allows
// (Rec::kAnyBlock: the trace recorder). Its bookkeeping raises a kernel's
// registers: sgemm.blocktile_1d's 512 threads did not launch traced on an
// H100 (too many resources requested). The bound keeps registers within
// what 1024 threads may have; the timed PlainRec kernels keep theirs.
template <class Body, class Rec>
__global__ void __launch_bounds__(1024) launch_body_any_block(Rec rec, KernelArgs args) {
  Body::run(rec, args);
}

// The kernel that runs Body with Rec.
template <class Body, class Rec>
constexpr auto body_kernel() {
  if constexpr (requires { Rec::kAnyBlock; })
    return &launch_body_any_block<Body, Rec>;
  else
    return &launch_body<Body, Rec>;
}

}  // namespace

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

namespace {

// Copies the lesson's constant-memory arrays (lessons/access.hpp:
// ConstantSymbol) from their global copies, args.data[slot], into this .cu's
// __constant__ symbols. Lessons without constant memory: nothing to do.
template <class Body>
cudaError_t upload_constants(const KernelArgs& args) {
  if constexpr (requires { constant_symbols(Body{}); }) {
    for (const ConstantSymbol& c : constant_symbols(Body{})) {
      const size_t bytes = std::min<size_t>(c.capacity_bytes, size_t(args.count[c.slot]) * 4);
      if (!args.data[c.slot] || bytes == 0) continue;
      if (const cudaError_t e =
              cudaMemcpyToSymbol(c.symbol, args.data[c.slot], bytes, 0, cudaMemcpyDeviceToDevice);
          e != cudaSuccess)
        return e;
    }
  }
  return cudaSuccess;
}

// More than 48 KiB of dynamic shared memory needs an opt-in per kernel.
template <class Body, class Rec>
cudaError_t prepare_launch(const LaunchGeometry& g) {
  if (g.dynamic_shared_bytes > 48 * 1024)
    return cudaFuncSetAttribute(body_kernel<Body, Rec>(),
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(g.dynamic_shared_bytes));
  return cudaSuccess;
}

// Launches the body on `g` with recorder `rec`, after prepare_launch and
// upload_constants (the timing harness calls those once, outside the timing).
template <class Body, class Rec>
cudaError_t launch_prepared(const LaunchGeometry& g, const Rec& rec, const KernelArgs& args) {
  const dim3 grid(g.grid.x, g.grid.y, g.grid.z), block(g.block.x, g.block.y, g.block.z);
  body_kernel<Body, Rec>()<<<grid, block, g.dynamic_shared_bytes>>>(rec, args);
  return cudaGetLastError();
}

// Launches the body on `g` with recorder `rec`; the launch error (not the run's).
template <class Body, class Rec>
cudaError_t launch_lesson(const LaunchGeometry& g, const Rec& rec, const KernelArgs& args) {
  if (const cudaError_t e = prepare_launch<Body, Rec>(g); e != cudaSuccess) return e;
  if (const cudaError_t e = upload_constants<Body>(args); e != cudaSuccess) return e;
  return launch_prepared<Body, Rec>(g, rec, args);
}

}  // namespace

}  // namespace ts
