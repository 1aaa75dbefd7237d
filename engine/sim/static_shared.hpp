// The `__shared__` arrays a lesson file's kernels declare, as the simulator
// lays them out: lessons/cuda_compat.hpp makes `__shared__` `static
// thread_local`, so each array is a TLS object of the plug-in, allocated (and
// zeroed) whole for the OS thread that runs the blocks. Its size is the
// kernel's static shared memory, whatever the descriptor's geometry says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ts::sim {

// One `__shared__` array: a TLS object of the module, at `offset` in each
// thread's TLS block of the module.
struct SharedSymbol {
  std::string name;      // "tile_mem", or "ts_mem_tile" (plain CUDA's storage of `tile`)
  std::string function;  // the function it is declared in ("" at namespace scope)
  uint64_t offset = 0, bytes = 0;
};

struct StaticShared {
  bool known = false;  // false: the module could not be read (then nothing is said)
  // The most one function's arrays take (a template instantiated for several
  // tiles has a copy per tile; one kernel runs at a time), and that function.
  uint64_t bytes = 0;
  std::string function;
  // The largest array, by itself: its name and bytes.
  std::string largest;
  uint64_t largest_bytes = 0;
  std::vector<SharedSymbol> arrays;  // each array (from the symbol table only)
};

// The static shared memory of the module (executable or plug-in) whose code
// holds `code`: from its symbol table (TLS objects grouped by the function
// they are declared in), else its whole TLS segment. Cached per module.
StaticShared static_shared_of(const void* code);

// Shared memory the kernel has that no traced access reached: a `__shared__`
// array used as a plain array (a lesson header's `__shared__ float raw[32];`
// indexed directly), or the launch's dynamic shared memory.
struct UntracedShared {
  std::string name;      // the array as declared ("raw"), or "dynamic shared memory"
  std::string function;  // where it is declared ("" at namespace scope or for dynamic)
  uint64_t bytes = 0;
  bool written = false;  // it holds a non-zero byte after the run: written around the trace
};

// The shared memory the traced accesses reached: each array's base and bytes,
// as the recorder saw them (engine/sim/sim_recorder.hpp, SimSink::saw_shared).
using SharedRanges = std::vector<std::pair<const void*, size_t>>;

// On the OS thread that ran the launch, before it ends (the arrays are that
// thread's): the static arrays of the module holding `code`, and the dynamic
// shared memory [dynamic, + dynamic_bytes), that no range of `seen` overlaps.
std::vector<UntracedShared> untraced_shared(const void* code, const SharedRanges& seen,
                                            const void* dynamic, uint64_t dynamic_bytes);

}  // namespace ts::sim
