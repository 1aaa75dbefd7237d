// The parameters of a run and the launch they lead to: plain values that a
// trace records (model/trace.hpp) and that every lesson reads a subset of.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// The parameters a user sets. Which of them a lesson reads is in its `uses`
// (ParamBits); the others are ignored. A trace stores them by name.
struct Params {
  int m = 0, k = 0, n = 0;  // matrices: C (m x n) = A (m x k) x B (k x n); square lessons use n
  int tile = 0;             // tile width -- a compile-time size, one of kTileWidths
  int length = 0;           // 1D arrays: number of elements
  int radius = 0;           // stencils: neighbours on each side
  int block = 0;            // threads per block (a block side for 2D naive kernels)
  bool operator==(const Params&) const = default;
};

enum ParamBits : uint32_t {
  kUsesM = 1u << 0,
  kUsesK = 1u << 1,
  kUsesN = 1u << 2,
  kUsesTile = 1u << 3,
  kUsesLength = 1u << 4,
  kUsesRadius = 1u << 5,
  kUsesBlock = 1u << 6,
};

// Every parameter by its option name, in the order m, k, n, tile, length,
// radius, block: what listings, files and JSON walk.
// (An alias: nvcc's front end rewrites a bare `int Params::*field` with
// parentheses, which g++ then warns about in every CUDA file.)
using ParamMember = int Params::*;
struct ParamField {
  const char* name;
  ParamMember field;
  uint32_t bit;
};
inline constexpr ParamField kParamFields[] = {{"m", &Params::m, kUsesM},
                                              {"k", &Params::k, kUsesK},
                                              {"n", &Params::n, kUsesN},
                                              {"tile", &Params::tile, kUsesTile},
                                              {"length", &Params::length, kUsesLength},
                                              {"radius", &Params::radius, kUsesRadius},
                                              {"block", &Params::block, kUsesBlock}};

// One parameter by its option name ("tile") and value.
struct NamedParam {
  const char* name;
  int value;
};
// The parameters selected by `uses` (kUsesM | ...), in kParamFields order.
std::vector<NamedParam> used_params(uint32_t uses, const Params& p);
// "n=10 tile=4", only the parameters in `uses`.
std::string describe(uint32_t uses, const Params& p);

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3&) const = default;
};

struct LaunchGeometry {
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;  // extern __shared__
  uint32_t static_shared_bytes = 0;   // __shared__ arrays of fixed size
};

// What the hardware (or the simulator's model) allows; checked before launch.
struct DeviceLimits {
  int max_threads_per_block = 1024;
  int max_shared_per_block = 48 * 1024;  // without opt-in
  uint64_t global_memory_bytes = 8ull << 30;
};

// Closed-form event counts of one traced run with all barriers on.
struct ExpectedCounts {
  uint64_t global_loads = 0, global_stores = 0;
  uint64_t shared_loads = 0, shared_stores = 0;
  uint64_t barrier_arrivals = 0;  // BarrierArrive events over all barriers (as many BarrierLeave)
  uint64_t warp_shuffles = 0;     // WarpShuffle events (one per lane and shuffle)
  uint64_t shared_atomics = 0, global_atomics = 0;  // atomicAdd and friends
  // Reads of constant-memory arrays: GlobalLoad events, not in global_loads.
  uint64_t constant_loads = 0;
  // Warp-aggregated atomics (lanes on one address add once, through their
  // leader) depend on the data: then shared_atomics is the most (no two lanes
  // of an instruction agree) and this the fewest (every instruction's lanes
  // on one address); 0 where shared_atomics is exact.
  uint64_t fewest_shared_atomics = 0;
  // Whether a run's `n` shared atomics are what the closed form allows.
  bool allows_shared_atomics(uint64_t n) const {
    return fewest_shared_atomics ? n >= fewest_shared_atomics && n <= shared_atomics
                                 : n == shared_atomics;
  }
  // Every event of the run: loads, stores, atomics, arrivals and departures,
  // shuffles (the most, where the shared atomics depend on the data).
  uint64_t total() const {
    return global_loads + constant_loads + global_stores + shared_loads + shared_stores +
           shared_atomics + global_atomics + 2 * barrier_arrivals + warp_shuffles;
  }
};

}  // namespace ts
