// Runs the structure-aware fuzz target (fuzz_trace_fields.cpp) over a fixed
// set of pseudo-random inputs with a plain main, so CI exercises it without
// clang: every seed trace must load, and no mutation may crash a consumer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/splitmix64.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  uint64_t s = 0x9e3779b97f4a7c15ull;  // the same inputs on every machine
  auto next = [&] { return ts::splitmix64(s); };
  std::vector<uint8_t> input;
  for (int r = 0; r < runs; ++r) {
    input.resize(8 + next() % 120);
    for (uint8_t& b : input)
      b = uint8_t(next());
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("%d structure-aware inputs, no crash\n", runs);
  return 0;
}
