// Lets one kernel header compile twice: by nvcc for the GPU, and by the host
// compiler for the CPU simulator. On the host, the CUDA built-ins name the
// state of the simulated thread that is running now (engine/sim/fiber_block.hpp).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)

#define TS_HD __host__ __device__ __forceinline__
#define TS_DEVICE __device__ __forceinline__
#define TS_ON_DEVICE 1
// Dynamically sized shared memory, sized at launch: `extern __shared__`.
#define TS_EXTERN_SHARED(T, name) extern __shared__ T name[]
// A constant-memory array: `TS_CONSTANT float mask_c[49];`. nvcc compiles each
// .cu on its own, so every .cu that includes the lessons has its own copy of
// the symbol (internal linkage, as whole-program mode requires); the launch in
// that .cu fills it (engine/cuda/launch.cuh: upload_constants).
#define TS_CONSTANT static __constant__

#else  // host compiler: the simulator

#define TS_HD inline
#define TS_DEVICE inline
#define TS_ON_DEVICE 0

// CUDA's 16-byte vector type, for the lessons' 128-bit loads and stores
// (lessons/access.hpp: vec4). Aligned as on the GPU.
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) {
  return float4{x, y, z, w};
}

namespace ts::sim {
struct Uint3 {
  unsigned x = 0, y = 0, z = 0;
};
// Built-ins of the simulated thread that runs now; set by the scheduler on
// every switch. Defined in engine/sim/fiber_block.cpp.
struct ThreadBuiltins {
  Uint3 thread_idx, block_idx, block_dim, grid_dim;
};
extern thread_local const ThreadBuiltins* current_builtins;
// The block's dynamically sized shared memory (the launch's shared bytes).
extern thread_local void* current_dynamic_shared;
}  // namespace ts::sim

#define TS_EXTERN_SHARED(T, name) T* const name = static_cast<T*>(::ts::sim::current_dynamic_shared)
   // The simulator never reads a constant-memory symbol: ConstantArray reads the
   // run's copy of the array (KernelArgs), so that simulations may run side by side.
#define TS_CONSTANT [[maybe_unused]] static

// The bit intrinsics the lessons use, as the GPU computes them: __popc
// counts the set bits, __ffs gives the lowest set bit's position + 1 (0 for 0).
inline int __popc(unsigned x) {
  return __builtin_popcount(x);
}
inline int __ffs(int x) {
  return __builtin_ffs(x);
}

#define threadIdx (::ts::sim::current_builtins->thread_idx)
#define blockIdx (::ts::sim::current_builtins->block_idx)
#define blockDim (::ts::sim::current_builtins->block_dim)
#define gridDim (::ts::sim::current_builtins->grid_dim)

// The simulator runs one block at a time on one OS thread, its threads as
// fibers of that OS thread: a static thread_local array is exactly one
// block's shared memory. Shared memory is not initialised, on the GPU either.
#define __shared__ static thread_local

#endif
