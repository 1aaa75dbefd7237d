// Byte arrays in plain CUDA (docs/plain_cuda.md): `unsigned char` and
// `uint8_t`, global and __shared__, traced one byte an access. What a student
// checks: CUDA by Example's histogram (chapter 9) runs as the book prints it,
// each byte load at its line with the byte's value, and the memory counts are
// those of 1-byte elements (32 lanes on 32 consecutive bytes: one sector, or
// 8 bank words without a conflict), worked out here by hand.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/counters.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "engine/plain_cuda.hpp"
#include "engine/prepare.hpp"
#include "engine/run_wire.hpp"
#include "io/trace_file.hpp"
#include "tests/plain_cuda_suite.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;
const fs::path& kFiles = test::kPlainCudaFiles;

// The 1-based line of tests/plain_cuda/`file` that holds `text`.
int line_with(const std::string& file, const std::string& text) {
  return test::line_holding((kFiles / file).string(), text);
}

struct PlainCudaBytes : test::PlainCudaSuite {};

const BufferData* buffer_of(const Trace& t, const std::string& name) {
  const ArraySlot s = slot_named(t.config.arrays, name);
  for (const BufferData& b : t.buffers)
    if (b.slot == s) return &b;
  return nullptr;
}

const SiteTotals* site(const WarpAccesses& w, int line, EventKind kind) {
  for (const SiteTotals& s : w.per_site)
    if (s.line == line && s.kind == kind) return &s;
  return nullptr;
}

TEST_F(PlainCudaBytes, ByExampleHistogramRunsAsTheBookPrintsIt) {
  const std::string file = "byexample_histogram.cu";
  const RunResult r = run_on_sim(load(file));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  EXPECT_TRUE(r.faults.empty());
  const Trace& t = r.trace;
  const ArrayInfo* buffer = t.array(slot_named(t.config.arrays, "buffer"));
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(buffer->type, ElemType::U8);
  EXPECT_EQ(buffer->elem_bytes, 1);
  EXPECT_EQ(buffer->count(), 4096u);

  // The input: whole bytes, deterministic, spread over the 256 values.
  const BufferData* in = buffer_of(t, "buffer");
  const BufferData* histo = buffer_of(t, "histo");
  ASSERT_TRUE(in && histo);
  ASSERT_EQ(in->values.size(), 4096u);
  std::vector<unsigned> want(256, 0);
  for (float v : in->values) {
    ASSERT_TRUE(v >= 0.0f && v <= 255.0f && v == float(int(v))) << v;
    ++want[size_t(v)];
  }
  int seen = 0;
  for (unsigned n : want)
    seen += n > 0;
  EXPECT_GT(seen, 240);
  // The output: the bytes counted, bin by bin.
  ASSERT_EQ(histo->values.size(), 256u);
  for (size_t b = 0; b < 256; ++b)
    EXPECT_EQ(histo->values[b], float(want[b])) << "bin " << b;

  // Every byte loaded once, at the line of buffer[i], with its value.
  const int line = line_with(file, "atomicAdd( &temp[buffer[i]], 1 );");
  ASSERT_GT(line, 0);
  std::vector<int> loads(4096, 0);
  uint64_t n = 0;
  for (const Event& e : t.events)
    if (e.kind == EventKind::GlobalLoad) {
      ++n;
      ASSERT_EQ(array_name(t.config.arrays, e.array), "buffer");
      ASSERT_LT(e.element, 4096u);
      EXPECT_EQ(e.line, line);
      EXPECT_EQ(e.value, in->values[e.element]) << "buffer[" << e.element << "]";
      ++loads[e.element];
    }
  EXPECT_EQ(n, 4096u);
  for (size_t i = 0; i < loads.size(); ++i)
    ASSERT_EQ(loads[i], 1) << "buffer[" << i << "]";

  // By hand: 8 blocks of 8 warps, two trips each (offset 2048): 128 warp
  // loads, each of 32 consecutive bytes starting at a multiple of 32: one
  // request and one sector apiece (4-byte elements would take 4 sectors).
  const WarpAccesses w = warp_accesses(t);
  const SiteTotals* s = site(w, line, EventKind::GlobalLoad);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->totals.requests, 128u);
  EXPECT_EQ(s->totals.sectors, 128u);
  EXPECT_EQ(s->totals.ideal_sectors, 128u);
  EXPECT_EQ(s->totals.lines, 128u);
  // Global bytes read: the 4096 bytes, and each block's 256 atomics on
  // histo read (and write) 4 bytes apiece.
  EXPECT_EQ(count_accesses(t).global_bytes_read, 4096u + 8u * 256u * 4u);
}

// A __shared__ uint8_t tile: a warp's 32 bytes are 8 bank words, on 8 banks:
// one wavefront, no conflict, for the stores and for the reversed loads.
TEST_F(PlainCudaBytes, SharedByteArrayIsEightBankWordsAWarp) {
  const std::string file = "shared_bytes.cu";
  const RunResult r = run_on_sim(load(file));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << r.verdict.summary();
  const Trace& t = r.trace;
  const ArrayInfo* tile = t.array(slot_named(t.config.arrays, "tile"));
  ASSERT_NE(tile, nullptr);
  EXPECT_TRUE(tile->shared());
  EXPECT_EQ(tile->type, ElemType::U8);
  EXPECT_EQ(tile->elem_bytes, 1);
  EXPECT_EQ(tile->count(), 64u);
  EXPECT_EQ(t.config.geometry.static_shared_bytes, 64u);
  const BufferData* in = buffer_of(t, "in");
  const BufferData* out = buffer_of(t, "out");
  ASSERT_TRUE(in && out);
  for (size_t i = 0; i < 256; ++i)
    ASSERT_EQ(out->values[i], float(int(in->values[i / 64 * 64 + 63 - i % 64]) ^ 0x5a)) << i;
  // What each shared load saw is the byte its block stored there.
  for (const Event& e : t.events) {
    if (e.kind == EventKind::SharedLoad) {
      ASSERT_EQ(e.value, in->values[e.block * 64 + e.element]) << "tile[" << e.element << "]";
    }
  }

  // 4 blocks x 2 warps: 8 warp accesses of each kind.
  const WarpAccesses w = warp_accesses(t);
  for (EventKind k : {EventKind::SharedStore, EventKind::SharedLoad}) {
    const AccessTotals& a = w.totals(k);
    EXPECT_EQ(a.requests, 8u) << to_string(k);
    EXPECT_EQ(a.wavefronts, 8u) << to_string(k);
    EXPECT_EQ(a.bank_conflicts(), 0u) << to_string(k);
    EXPECT_EQ(a.worst_degree, 1) << to_string(k);
  }
  for (EventKind k : {EventKind::GlobalLoad, EventKind::GlobalStore}) {
    EXPECT_EQ(w.totals(k).requests, 8u) << to_string(k);
    EXPECT_EQ(w.totals(k).sectors, 8u) << to_string(k);
  }
  // Lane l of warp 1 stores tile[32 + l]: byte 32 + l, bank (32 + l) / 4.
  for (const WarpAccess& a : w.accesses)
    if (a.kind == EventKind::SharedStore && a.block == 0 && a.warp == 1)
      for (const LaneAccess& l : lane_accesses(t, w, a)) {
        EXPECT_EQ(l.address, uint64_t(32 + l.lane));
        EXPECT_EQ(l.bytes, 1);
      }
}

// A trace with byte arrays saves and loads back exactly; a byte array that
// claims 4-byte elements is refused with a message that says so.
TEST_F(PlainCudaBytes, TraceFileRoundTripsByteArrays) {
  const RunResult r = run_on_sim(load("shared_bytes.cu"));
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<uint8_t> bytes = serialize_trace(r.trace);
  std::string err;
  const auto back = parse_trace(std::span<const uint8_t>(bytes.data(), bytes.size()), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->config.arrays, r.trace.config.arrays);
  EXPECT_EQ(back->array(slot_named(back->config.arrays, "in"))->type, ElemType::U8);
  ASSERT_EQ(back->buffers.size(), r.trace.buffers.size());
  for (size_t i = 0; i < back->buffers.size(); ++i)
    EXPECT_EQ(back->buffers[i].values, r.trace.buffers[i].values);
  ASSERT_EQ(back->events.size(), r.trace.events.size());
  EXPECT_EQ(0, std::memcmp(back->events.data(), r.trace.events.data(),
                           back->events.size() * sizeof(Event)));
  EXPECT_EQ(serialize_trace(*back), bytes);

  // The array entry: its name (length, text), then space (shared), role
  // (scratch), type, element size. (The parameter `tile` is named before it.)
  const std::string name = "tile";
  std::vector<uint8_t> damaged = bytes;
  size_t at = 0;
  for (size_t i = 4; i + name.size() + 4 <= damaged.size() && !at; ++i)
    if (std::memcmp(damaged.data() + i, name.data(), name.size()) == 0 && damaged[i - 4] == 4 &&
        damaged[i - 3] == 0 && damaged[i + name.size()] == uint8_t(Space::Shared) &&
        damaged[i + name.size() + 1] == uint8_t(ArrayRole::Scratch))
      at = i + name.size();
  ASSERT_GT(at, 0u);
  ASSERT_EQ(damaged[at + 2], uint8_t(ElemType::U8));
  ASSERT_EQ(damaged[at + 3], 1);
  damaged[at + 3] = 4;
  const uint64_t h = fnv1a64(std::span<const uint8_t>(damaged.data(), damaged.size() - 8));
  std::memcpy(damaged.data() + damaged.size() - 8, &h, 8);
  EXPECT_FALSE(parse_trace(std::span<const uint8_t>(damaged.data(), damaged.size()), &err));
  EXPECT_NE(err.find("element size is 4 bytes; a u8 element is 1"), std::string::npos) << err;
  damaged[at + 3] = 1, damaged[at + 2] = 4;
  const uint64_t h2 = fnv1a64(std::span<const uint8_t>(damaged.data(), damaged.size() - 8));
  std::memcpy(damaged.data() + damaged.size() - 8, &h2, 8);
  EXPECT_FALSE(parse_trace(std::span<const uint8_t>(damaged.data(), damaged.size()), &err));
  EXPECT_NE(err.find("element type"), std::string::npos) << err;
}

// A run's result crosses from the lesson child to the program (engine/run_wire.hpp)
// with its byte arrays.
TEST_F(PlainCudaBytes, ResultWithByteArraysCrossesTheWire) {
  const RunResult r = run_on_sim(load("byexample_histogram.cu"));
  ASSERT_TRUE(r.ok) << r.error;
  std::string why;
  const std::optional<RunResult> back = decode_run_result(encode_run_result(r), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->trace.config.arrays, r.trace.config.arrays);
  EXPECT_EQ(back->trace.array(1)->type, ElemType::U8);
  EXPECT_EQ(back->trace.array(1)->elem_bytes, 1);
}

// The kernel sees a byte array packed, one byte an element, clamped to 0..255
// (as a cast to unsigned char would not: 300 is 255, not 44), and nothing
// but zeros after it; read back, each byte is its value again.
TEST(PlainCudaBytesBuffers, ByteArraysArePackedAndUnpacked) {
  std::vector<float> v = {0.0f, 255.0f, 300.0f, -3.0f, 7.9f, NAN, 128.0f, 1.0f};
  values_to_element_bits(ElemType::U8, v.data(), v.size());
  const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
  const std::vector<unsigned char> want = {0, 255, 255, 0, 7, 0, 128, 1};
  EXPECT_EQ(std::vector<unsigned char>(bytes, bytes + 8), want);
  for (size_t i = 8; i < v.size() * 4; ++i)
    ASSERT_EQ(bytes[i], 0) << "byte " << i;
  element_bits_to_values(ElemType::U8, v.data(), v.size());
  EXPECT_EQ(v, (std::vector<float>{0, 255, 255, 0, 7, 0, 128, 1}));
}

// Types still not traced are refused with the element type and the ones that are.
TEST(PlainCudaBytesRewrite, SaysWhichElementTypesAreTraced) {
  const std::string block =
      "/* tilescope: grid 1; block 32; params length=32; array in in length; array out out "
      "length */\n";
  const std::string global =
      translate_plain_cuda("/x/k.cu",
                           block + "__global__ void k(const double* in, float* out) {}\n")
          .error;
  EXPECT_NE(global.find("array in: its elements are 'const double'; TileScope traces arrays of "
                        "float, int, unsigned and unsigned char (uint8_t)"),
            std::string::npos)
      << global;
  const std::string shared =
      translate_plain_cuda("/x/k.cu", block +
                                          "__global__ void k(const float* in, float* out) {\n"
                                          "  __shared__ signed char s[32];\n}\n")
          .error;
  EXPECT_NE(shared.find("__shared__ s: its elements are 'signed char'; TileScope traces arrays "
                        "of float, int, unsigned and unsigned char (uint8_t)"),
            std::string::npos)
      << shared;
  for (const char* type : {"unsigned char", "const unsigned char", "uint8_t", "const uint8_t"})
    EXPECT_EQ(translate_plain_cuda(
                  "/x/k.cu", block + "__global__ void k(" + type + "* in, unsigned char* out) {}\n")
                  .error,
              "")
        << type;
}

}  // namespace
}  // namespace ts
