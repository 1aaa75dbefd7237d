// The .tstrace file: exact round trips, and every kind of damaged file is
// refused with a message that says what is wrong.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "test_trace_fixtures.hpp"
#include "trace/trace_file.hpp"

namespace ts {
namespace {

using testing::tiled_matmul_trace;

Trace full_trace() {
  Trace t = tiled_matmul_trace(4, 2);
  // Every field away from its default, so a field the file forgets shows up.
  t.config.params = {3, 5, 4, 2, 11, 2, 64};
  t.config.barrier_mask = 0x2;
  t.config.geometry.dynamic_shared_bytes = 96;
  t.config.backend = BackendKind::Cuda;
  t.config.device_name = "NVIDIA H100 80GB HBM3";
  t.config.schedule = {ScheduleKind::Random, 0x5u, 17, 0x1234567890abcdefull};
  t.config.skew_ns = 1000;
  t.config.skew_warps = 0xAAAAAAAAu;
  t.config.input_seed = 99;
  t.capacity = 12345;
  t.events_dropped = 678;
  t.events[3].flags = kFlagOutOfRange;
  t.events[5].sm = 131;
  t.events[7].clock = ~0ull;
  t.events[7].globaltimer = 1ull << 60;
  t.events[9].value = -0.0f;
  return t;
}

void expect_same(const Trace& a, const Trace& b) {
  const RunConfig &x = a.config, &y = b.config;
  EXPECT_EQ(x.variant, y.variant);
  EXPECT_EQ(x.params, y.params);
  EXPECT_EQ(x.barrier_mask, y.barrier_mask);
  EXPECT_EQ(x.geometry.grid, y.geometry.grid);
  EXPECT_EQ(x.geometry.block, y.geometry.block);
  EXPECT_EQ(x.geometry.dynamic_shared_bytes, y.geometry.dynamic_shared_bytes);
  EXPECT_EQ(x.geometry.static_shared_bytes, y.geometry.static_shared_bytes);
  EXPECT_EQ(x.backend, y.backend);
  EXPECT_EQ(x.device_name, y.device_name);
  EXPECT_EQ(x.schedule, y.schedule);
  EXPECT_EQ(x.skew_ns, y.skew_ns);
  EXPECT_EQ(x.skew_warps, y.skew_warps);
  EXPECT_EQ(x.input_seed, y.input_seed);
  EXPECT_EQ(a.capacity, b.capacity);
  EXPECT_EQ(a.events_dropped, b.events_dropped);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i].id, b.buffers[i].id);
    EXPECT_EQ(a.buffers[i].rows, b.buffers[i].rows);
    EXPECT_EQ(a.buffers[i].cols, b.buffers[i].cols);
    EXPECT_EQ(a.buffers[i].is_output, b.buffers[i].is_output);
    ASSERT_EQ(a.buffers[i].values.size(), b.buffers[i].values.size());
    if (!a.buffers[i].values.empty()) {
      EXPECT_EQ(0, std::memcmp(a.buffers[i].values.data(), b.buffers[i].values.data(),
                               a.buffers[i].values.size() * sizeof(float)));
    }
  }
  ASSERT_EQ(a.events.size(), b.events.size());
  if (!a.events.empty()) {
    EXPECT_EQ(0, std::memcmp(a.events.data(), b.events.data(), a.events.size() * sizeof(Event)));
  }
}

std::optional<Trace> parse(const std::vector<uint8_t>& bytes, std::string* err) {
  return parse_trace(std::span<const uint8_t>(bytes.data(), bytes.size()), err);
}

// Rewrites the checksum, so that a test can damage a field and reach the
// field checks behind the checksum (as a crafted file would).
void reseal(std::vector<uint8_t>& bytes) {
  const uint64_t h = fnv1a64(std::span<const uint8_t>(bytes.data(), bytes.size() - 8));
  std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
}

TEST(TraceFile, RoundTripsEveryFieldInMemory) {
  const Trace t = full_trace();
  std::string err;
  auto back = parse(serialize_trace(t), &err);
  ASSERT_TRUE(back) << err;
  expect_same(t, *back);
  EXPECT_EQ(back->events.size(), t.events.size());
  EXPECT_TRUE(back->truncated());
  EXPECT_EQ(back->events_needed(), t.events.size() + 678);
}

TEST(TraceFile, RoundTripsThroughADiskFile) {
  const Trace t = full_trace();
  const auto path = (std::filesystem::temp_directory_path() / "ts_roundtrip.tstrace").string();
  std::string err;
  ASSERT_TRUE(save_trace(t, path, &err)) << err;
  auto back = load_trace(path, &err);
  ASSERT_TRUE(back) << err;
  expect_same(t, *back);
  // Saving what was loaded gives the same bytes.
  EXPECT_EQ(serialize_trace(t), serialize_trace(*back));
  std::filesystem::remove(path);
}

TEST(TraceFile, EmptyTraceRoundTrips) {
  Trace t;
  std::string err;
  auto back = parse(serialize_trace(t), &err);
  ASSERT_TRUE(back) << err;
  expect_same(t, *back);
}

TEST(TraceFile, RefusesAnEmptyFile) {
  std::string err;
  EXPECT_FALSE(parse({}, &err));
  EXPECT_NE(err.find("empty file"), std::string::npos) << err;
}

TEST(TraceFile, RefusesSomethingThatIsNotATrace) {
  std::string err;
  const std::string png = "\x89PNG\r\n\x1a\n and then some more bytes of an image";
  EXPECT_FALSE(parse(std::vector<uint8_t>(png.begin(), png.end()), &err));
  EXPECT_NE(err.find("not a TileScope trace"), std::string::npos) << err;
  EXPECT_FALSE(parse({'T', 'S'}, &err));  // a prefix of the magic is a truncated header
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

TEST(TraceFile, RefusesANewerVersionAndSaysWhatToDo) {
  auto bytes = serialize_trace(full_trace());
  const uint32_t v3 = 3;
  std::memcpy(bytes.data() + 8, &v3, 4);
  std::string err;
  EXPECT_FALSE(parse(bytes, &err));
  EXPECT_EQ(
      err, "written by a newer TileScope (format v3); this build reads up to v1: update TileScope");
}

TEST(TraceFile, SaysWhichSectionATruncatedFileEndsIn) {
  const Trace t = full_trace();
  const auto bytes = serialize_trace(t);
  // Section boundaries of this trace: header 20, config, recording, buffers, events, checksum.
  const size_t config_end = 20 + 4 + t.config.variant.size() + 7 * 4 + 4 + 8 * 4 + 1 + 4 +
                            t.config.device_name.size() + 1 + 4 + 4 + 8 + 4 + 4 + 8;
  const size_t recording_end = config_end + 16;
  size_t buffers_end = recording_end + 4;
  for (const auto& b : t.buffers)
    buffers_end += 10 + b.values.size() * 4;
  const size_t events_end = buffers_end + 8 + t.events.size() * sizeof(Event);
  ASSERT_EQ(events_end + 8, bytes.size());
  auto section_of = [&](size_t cut) -> std::string {
    if (cut < 20) return "header";
    if (cut < config_end) return "run configuration";
    if (cut < recording_end) return "recording";
    if (cut < buffers_end) return "buffers";
    if (cut < events_end) return "events";
    return "checksum";
  };
  // Every length short of the whole file, each refused and placed correctly.
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> part(bytes.begin(), bytes.begin() + cut);
    std::string err;
    ASSERT_FALSE(parse(part, &err)) << "cut at " << cut;
    ASSERT_EQ(err.rfind("truncated", 0), 0u) << "cut at " << cut << ": " << err;
    ASSERT_NE(err.find(section_of(cut)), std::string::npos)
        << "cut at " << cut << " should name " << section_of(cut) << ": " << err;
  }
}

TEST(TraceFile, RefusesEveryFlippedBit) {
  const auto bytes = serialize_trace(tiled_matmul_trace(2, 2));
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = bytes;
      bad[i] ^= uint8_t(1u << bit);
      std::string err;
      ASSERT_FALSE(parse(bad, &err)) << "byte " << i << " bit " << bit;
      ASSERT_FALSE(err.empty());
    }
  // A flip in the events section is caught by the checksum.
  auto bad = bytes;
  bad[bytes.size() - 8 - 40 + 12] ^= 0x10;
  std::string err;
  EXPECT_FALSE(parse(bad, &err));
  EXPECT_NE(err.find("checksum mismatch"), std::string::npos) << err;
}

TEST(TraceFile, RefusesTrailingBytes) {
  auto bytes = serialize_trace(tiled_matmul_trace(2, 2));
  bytes.push_back(0);
  std::string err;
  EXPECT_FALSE(parse(bytes, &err));
  EXPECT_NE(err.find("corrupt"), std::string::npos) << err;
}

// Behind a valid checksum (a crafted file): counts and enums are still checked.
TEST(TraceFile, RefusesAnEventCountLargerThanTheFileBeforeAllocating) {
  const Trace t = tiled_matmul_trace(2, 2);
  auto bytes = serialize_trace(t);
  const size_t count_at = bytes.size() - 8 - t.events.size() * sizeof(Event) - 8;
  uint64_t count = 0;
  std::memcpy(&count, bytes.data() + count_at, 8);
  ASSERT_EQ(count, t.events.size());
  const uint64_t huge = 1ull << 61;
  std::memcpy(bytes.data() + count_at, &huge, 8);
  reseal(bytes);
  std::string err;
  EXPECT_FALSE(parse(bytes, &err));
  EXPECT_NE(err.find("corrupt: the events section needs"), std::string::npos) << err;
}

TEST(TraceFile, RefusesUnknownEventKindsAndOutOfRangeThreads) {
  const Trace t = tiled_matmul_trace(2, 2);
  const size_t events_at = serialize_trace(t).size() - 8 - t.events.size() * sizeof(Event);
  {
    auto bytes = serialize_trace(t);
    bytes[events_at + offsetof(Event, kind)] = 9;
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse(bytes, &err));
    EXPECT_NE(err.find("event 0 has kind 9"), std::string::npos) << err;
  }
  {
    auto bytes = serialize_trace(t);
    const uint16_t thread = 4;  // a 2 x 2 block has threads 0..3
    std::memcpy(bytes.data() + events_at + sizeof(Event) + offsetof(Event, thread), &thread, 2);
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse(bytes, &err));
    EXPECT_NE(err.find("event 1 is by thread 4 of a block of 4"), std::string::npos) << err;
  }
}

TEST(TraceFile, RefusesAbsurdBufferDimensions) {
  Trace t = tiled_matmul_trace(2, 2);
  auto bytes = serialize_trace(t);
  // Find the first buffer record (A, 2 x 2) and make it 100000 x 100000.
  const uint8_t rec[] = {uint8_t(Buffer::A), 0, 2, 0, 0, 0, 2, 0, 0, 0};
  auto it = std::search(bytes.begin() + 20, bytes.end(), std::begin(rec), std::end(rec));
  ASSERT_NE(it, bytes.end());
  const uint32_t big = 100000;
  std::memcpy(&*(it + 2), &big, 4);
  std::memcpy(&*(it + 6), &big, 4);
  reseal(bytes);
  std::string err;
  EXPECT_FALSE(parse(bytes, &err));
  EXPECT_NE(err.find("buffers section needs 40000000000 bytes"), std::string::npos) << err;
}

// Found by the fuzzer: names are exported as JSON, so they must be text.
TEST(TraceFile, RefusesNamesThatAreNotText) {
  for (const std::string& bad : {std::string("mat\x8f\x8a"), std::string("a\nb"),
                                 std::string("\xc3"), std::string("\xed\xa0\x80")}) {
    // A crafted file with such a name is refused...
    const std::string good = "matmul.tiled_square";
    std::vector<uint8_t> bytes = serialize_trace(tiled_matmul_trace(2, 2));
    const size_t at = 24;  // header (20) + length (4)
    ASSERT_EQ(std::string(bytes.begin() + at, bytes.begin() + at + good.size()), good);
    const uint32_t len = uint32_t(bad.size());
    std::memcpy(bytes.data() + 20, &len, 4);
    bytes.erase(bytes.begin() + at, bytes.begin() + at + good.size());
    bytes.insert(bytes.begin() + at, bad.begin(), bad.end());
    const uint64_t size = bytes.size();
    std::memcpy(bytes.data() + 12, &size, 8);
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse(bytes, &err));
    EXPECT_NE(err.find("the variant id is not UTF-8 text"), std::string::npos) << err;
    // ... and saving one writes '?' for the bad bytes, so that the file loads.
    Trace t = tiled_matmul_trace(2, 2);
    t.config.variant = bad;
    auto back = parse(serialize_trace(t), &err);
    ASSERT_TRUE(back) << err;
    EXPECT_NE(back->config.variant.find('?'), std::string::npos);
  }
  Trace t = tiled_matmul_trace(2, 2);
  t.config.device_name = "GPU \xc3\xa9t\xc3\xa9 \xf0\x9f\x9a\x80";  // UTF-8 is fine
  std::string err;
  EXPECT_TRUE(parse(serialize_trace(t), &err)) << err;
}

TEST(TraceFile, OverlongNamesAreCutAtAWholeCharacter) {
  Trace t = tiled_matmul_trace(2, 2);
  t.config.device_name.clear();
  for (int i = 0; i < 3000; ++i)
    t.config.device_name += "\xc3\xa9";  // 6000 bytes
  std::string err;
  auto back = parse(serialize_trace(t), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->config.device_name.size(), 4096u);
  EXPECT_EQ(back->config.device_name, t.config.device_name.substr(0, 4096));
}

TEST(TraceFile, LoadReportsMissingFilesAndDirectories) {
  std::string err;
  EXPECT_FALSE(load_trace("/nonexistent/dir/x.tstrace", &err));
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
  EXPECT_FALSE(load_trace(std::filesystem::temp_directory_path().string(), &err));
  EXPECT_NE(err.find("directory"), std::string::npos) << err;
  EXPECT_FALSE(save_trace(Trace{}, "/nonexistent/dir/x.tstrace", &err));
  EXPECT_NE(err.find("cannot write"), std::string::npos) << err;
}

}  // namespace
}  // namespace ts
