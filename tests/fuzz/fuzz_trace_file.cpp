// libFuzzer target for the trace file loader: any bytes must give a Trace or
// a message, never a crash, a hang or a huge allocation.
//   cmake --preset fuzz && cmake --build --preset fuzz
//   mkdir -p /tmp/fuzz && build/fuzz/tests/fuzz/fuzz_trace_file -max_total_time=600
//       /tmp/fuzz tests/fuzz/corpus     (new inputs go to the first folder)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sstream>

#include "analysis/counters.hpp"
#include "analysis/decode.hpp"
#include "io/chrome_export.hpp"
#include "io/trace_file.hpp"

namespace {

void check(const uint8_t* data, size_t size) {
  std::string error;
  auto t = ts::parse_trace(std::span<const uint8_t>(data, size), &error);
  if (t) {
    // What loaded saves as the current version, in its one encoding: a file
    // written by this build comes back byte for byte; an older version or
    // parameters listed in another order are saved the canonical way, which
    // loads as the same trace and saves to the same bytes again.
    const auto again = ts::serialize_trace(*t);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) {
      std::string why;
      const auto back = ts::parse_trace(again, &why);
      if (!back || ts::serialize_trace(*back) != again) __builtin_trap();
    }
    // Whatever loads, the consumers of a loaded trace must take too.
    const ts::DecodedTrace d = ts::decode(*t);
    const ts::Counters c = ts::count_accesses(*t);
    uint64_t in_blocks = 0;
    for (const auto& b : d.blocks)
      in_blocks += b.events;
    if (in_blocks != t->events.size() || c.per_kind[0] > t->events.size()) __builtin_trap();
    std::ostringstream json;
    ts::write_chrome_trace(*t, json);
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
