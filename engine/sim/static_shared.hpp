// The `__shared__` arrays a lesson file's kernels declare, as the simulator
// lays them out: lessons/cuda_compat.hpp makes `__shared__` `static
// thread_local`, so each array is a TLS object of the plug-in, allocated (and
// zeroed) whole for the OS thread that runs the blocks. Its size is the
// kernel's static shared memory, whatever the descriptor's geometry says.
#pragma once

#include <cstdint>
#include <string>

namespace ts::sim {

struct StaticShared {
  bool known = false;  // false: the module could not be read (then nothing is said)
  // The most one function's arrays take (a template instantiated for several
  // tiles has a copy per tile; one kernel runs at a time), and that function.
  uint64_t bytes = 0;
  std::string function;
  // The largest array, by itself: its name and bytes.
  std::string largest;
  uint64_t largest_bytes = 0;
};

// The static shared memory of the module (executable or plug-in) whose code
// holds `code`: from its symbol table (TLS objects grouped by the function
// they are declared in), else its whole TLS segment. Cached per module.
StaticShared static_shared_of(const void* code);

}  // namespace ts::sim
