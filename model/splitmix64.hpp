// SplitMix64: the same pseudo-random numbers on every platform and compiler
// (std's distributions are not), for schedules, inputs, quizzes and tables
// that must repeat from a seed.
#pragma once

#include <cstdint>

namespace ts {

// The generator's output for a state `x` (x + the increment, mixed): a
// stateless hash of x.
constexpr uint64_t splitmix64_hash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The next number of the sequence that `state` holds, advancing it.
constexpr uint64_t splitmix64(uint64_t& state) {
  const uint64_t r = splitmix64_hash(state);
  state += 0x9E3779B97F4A7C15ull;
  return r;
}

}  // namespace ts
