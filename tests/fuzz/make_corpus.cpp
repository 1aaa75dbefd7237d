// Writes the seed corpus of the trace loader's fuzz target (run by hand when
// the format changes): a few small valid traces and damaged lessons of them.
// The valid-v1-* files were written by TileScope before the open catalogue
// (format version 1) and are kept: version-1 files must still load.
//   build/tests/fuzz/make_fuzz_corpus tests/fuzz/corpus
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "io/trace_file.hpp"
#include "tests/test_trace_fixtures.hpp"

namespace {

void write(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  std::ofstream(dir + "/" + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void reseal(std::vector<uint8_t>& b) {
  const uint64_t h = ts::fnv1a64(std::span<const uint8_t>(b.data(), b.size() - 8));
  std::memcpy(b.data() + b.size() - 8, &h, 8);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  using ts::testing::tiled_matmul_trace;
  const auto small = ts::serialize_trace(tiled_matmul_trace(2, 2));
  write(dir, "valid-matmul-n2-t2.tstrace", small);
  write(dir, "valid-matmul-n4-t2-no-barrier-2.tstrace",
        ts::serialize_trace(tiled_matmul_trace(4, 2, 1u)));
  ts::Trace truncated = tiled_matmul_trace(2, 2);
  truncated.events_dropped = truncated.events.size() - 10;
  truncated.events.resize(10);
  truncated.config.backend = ts::BackendKind::Cuda;
  truncated.config.device_name = "NVIDIA H100 80GB HBM3";
  write(dir, "valid-recording-truncated.tstrace", ts::serialize_trace(truncated));
  ts::Trace untraced = tiled_matmul_trace(2, 2);  // an untraced run: no events
  untraced.events.clear();
  untraced.capacity = 0;
  write(dir, "valid-untraced-run.tstrace", ts::serialize_trace(untraced));
  write(dir, "bad-no-variant.tstrace", ts::serialize_trace(ts::Trace{}));

  write(dir, "bad-empty.tstrace", {});
  write(dir, "bad-not-a-trace.tstrace", {'P', 'K', 3, 4, 'n', 'o', 't', ' ', 'a', ' ', 't'});
  auto newer = small;
  newer[8] = uint8_t(ts::kTraceFormatVersion + 1);
  write(dir, "bad-newer-version.tstrace", newer);
  write(dir, "bad-truncated-events.tstrace",
        std::vector<uint8_t>(small.begin(), small.begin() + long(small.size() - 100)));
  write(dir, "bad-truncated-header.tstrace",
        std::vector<uint8_t>(small.begin(), small.begin() + 14));
  auto flipped = small;
  flipped[small.size() / 2] ^= 0x40;
  write(dir, "bad-bit-flip.tstrace", flipped);
  auto huge = small;  // event count of 2^40 behind a valid checksum
  const uint64_t count = 1ull << 40;
  std::memcpy(huge.data() + huge.size() - 8 - 40 * tiled_matmul_trace(2, 2).events.size() - 8,
              &count, 8);
  reseal(huge);
  write(dir, "bad-event-count-huge.tstrace", huge);
  auto kind = small;  // an unknown event kind behind a valid checksum
  kind[kind.size() - 8 - 40 + offsetof(ts::Event, kind)] = 77;
  reseal(kind);
  write(dir, "bad-unknown-event-kind.tstrace", kind);
  // Well-formed, checksum valid, and no run could have recorded it.
  ts::Trace element = tiled_matmul_trace(2, 2);
  for (ts::Event& e : element.events)
    if (e.kind == ts::EventKind::SharedLoad) {
      e.element = 0x7fffffff;
      break;
    }
  write(dir, "bad-shared-element-huge.tstrace", ts::serialize_trace(element));
  ts::Trace tile = tiled_matmul_trace(2, 2);
  tile.config.params.tile = 0;
  write(dir, "bad-tile-zero.tstrace", ts::serialize_trace(tile));
  ts::Trace grid = tiled_matmul_trace(2, 2);
  grid.config.geometry.grid = {16777216, 1, 1};
  write(dir, "bad-grid-mismatch.tstrace", ts::serialize_trace(grid));
  // Version 2 names parameters and arrays: a name this build does not know,
  // and a table that is not the lesson's, behind a valid checksum.
  auto renamed = small;
  const std::string known("\4\0\0\0tile", 8), unknown("\4\0\0\0tyle", 8);  // length, name
  std::copy(unknown.begin(), unknown.end(),
            std::search(renamed.begin() + 20, renamed.end(), known.begin(), known.end()));
  reseal(renamed);
  write(dir, "bad-unknown-parameter.tstrace", renamed);
  ts::Trace table = tiled_matmul_trace(2, 2);
  table.config.arrays[3].name = "tileZ";
  write(dir, "bad-array-table.tstrace", ts::serialize_trace(table));
  std::printf("wrote the corpus to %s\n", dir.c_str());
  return 0;
}
