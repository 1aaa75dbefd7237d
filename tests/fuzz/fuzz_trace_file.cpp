// libFuzzer target for the trace file loader: any bytes must give a Trace or
// a message, never a crash, a hang or a huge allocation.
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/fuzz/fuzz_trace_file -max_total_time=600 tests/fuzz/corpus
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "trace/trace_file.hpp"

namespace {

void check(const uint8_t* data, size_t size) {
  std::string error;
  auto t = ts::parse_trace(std::span<const uint8_t>(data, size), &error);
  if (t) {
    // What loaded must save to the same bytes (the format has one encoding).
    const auto again = ts::serialize_trace(*t);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap();  // a refusal must say why
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check(data, size);
  // Most mutations die at the checksum. Fix the size field and the checksum
  // of a copy too, so that the fuzzer also reaches every field check behind
  // it (as a crafted file would).
  if (size >= 28 && std::memcmp(data, ts::kTraceMagic, 8) == 0) {
    std::vector<uint8_t> sealed(data, data + size);
    const uint64_t n = size;
    std::memcpy(sealed.data() + 12, &n, 8);
    const uint64_t h = ts::fnv1a64(std::span<const uint8_t>(sealed.data(), size - 8));
    std::memcpy(sealed.data() + size - 8, &h, 8);
    check(sealed.data(), sealed.size());
  }
  return 0;
}
