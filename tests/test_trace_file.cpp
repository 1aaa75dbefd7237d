// The .tstrace file: exact round trips, and every kind of damaged file is
// refused with a message that says what is wrong.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>

#include "io/chrome_export.hpp"
#include "io/trace_file.hpp"
#include "test_trace_fixtures.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

using testing::tiled_matmul_trace;

Trace full_trace() {
  Trace t = tiled_matmul_trace(4, 2, 0x2);  // barrier 1 removed
  // Every field away from its default, so a field the file forgets shows up
  // (and every one consistent, since the loader checks what they mean).
  // tiled_square reads only n and tile; m and k as square multiplies record
  // them (= n), the others 0 (the loader refuses values a lesson does not use).
  t.config.params = {4, 4, 4, 2, 0, 0, 0};
  t.config.barrier_mask = 0x2;
  t.config.backend = BackendKind::Cuda;
  t.config.device_name = "NVIDIA H100 80GB HBM3";
  t.config.schedule = {ScheduleKind::Random, 0x5u, 17, 0x1234567890abcdefull};
  t.config.skew_ns = 1000;
  t.config.skew_warps = 0xAAAAAAAAu;
  t.config.input_seed = 99;
  t.capacity = t.events.size() + 12;  // a GPU may drop events with slots to spare
  t.events_dropped = 40;              // of the 64 barrier 1 would have recorded
  t.events[5].sm = 131;
  t.events[7].clock = ~0ull;
  t.events[7].globaltimer = 1ull << 60;
  t.events[9].value = -0.0f;
  return t;
}

void expect_same(const Trace& a, const Trace& b) {
  const RunConfig &x = a.config, &y = b.config;
  EXPECT_EQ(x.lesson_id, y.lesson_id);
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
  EXPECT_EQ(x.arrays, y.arrays);
  EXPECT_EQ(a.capacity, b.capacity);
  EXPECT_EQ(a.events_dropped, b.events_dropped);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i].slot, b.buffers[i].slot);
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

// Where each section of a version-2 file of `t` ends (trace_file.hpp's layout).
struct Sections {
  size_t config_end, arrays_end, recording_end, buffers_end, events_end;
};
Sections sections_of(const Trace& t) {
  Sections s{};
  size_t at = 20 + 4 + t.config.lesson_id.size() + 4;
  for (const ParamField& f : kParamFields)
    at += 4 + std::strlen(f.name) + 4;
  at += 4 + 8 * 4 + 1 + 4 + t.config.device_name.size() + 1 + 4 + 4 + 8 + 4 + 4 + 8;
  s.config_end = at;
  at += 4;
  for (const ArrayInfo& a : t.config.arrays)
    at += 4 + a.name.size() + 4 + 4 * 4;  // name, 4 x u8, rows, cols, stream, shared offset
  s.arrays_end = at;
  s.recording_end = at += 16;
  at += 4;
  for (const auto& b : t.buffers)
    at += 10 + b.values.size() * 4;
  s.buffers_end = at;
  s.events_end = at + 8 + t.events.size() * sizeof(Event);
  return s;
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
  EXPECT_EQ(back->events_needed(), t.events.size() + 40);
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

TEST(TraceFile, AnUntracedRunRoundTrips) {
  Trace t = tiled_matmul_trace(4, 2);
  t.events.clear();
  t.capacity = 0;
  std::string err;
  auto back = parse(serialize_trace(t), &err);
  ASSERT_TRUE(back) << err;
  expect_same(t, *back);
  // A default Trace names no lesson: well-formed bytes, yet no run.
  EXPECT_FALSE(parse(serialize_trace(Trace{}), &err));
  EXPECT_NE(err.find("invalid: the lesson id is empty"), std::string::npos) << err;
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

// A flipped version byte is as likely as a newer program: the message says both.
TEST(TraceFile, RefusesAnUnknownVersionAsDamagedOrNewer) {
  auto bytes = serialize_trace(full_trace());
  const uint32_t v3 = 3;
  std::memcpy(bytes.data() + 8, &v3, 4);
  std::string err;
  EXPECT_FALSE(parse(bytes, &err));
  EXPECT_EQ(err,
            "format version 3: the file is damaged, or written by a newer TileScope (this build "
            "reads up to v2)");
  bytes[11] ^= 0x01;  // the high byte of version 3: 16777219
  EXPECT_FALSE(parse(bytes, &err));
  EXPECT_NE(err.find("format version 16777219: the file is damaged, or written by a newer"),
            std::string::npos)
      << err;
}

TEST(TraceFile, SaysWhichSectionATruncatedFileEndsIn) {
  const Trace t = full_trace();
  const auto bytes = serialize_trace(t);
  // Section boundaries of this trace: header 20, config, arrays, recording,
  // buffers, events, checksum.
  const Sections at = sections_of(t);
  ASSERT_EQ(at.events_end + 8, bytes.size());
  auto section_of = [&](size_t cut) -> std::string {
    if (cut < 20) return "header";
    if (cut < at.config_end) return "run configuration";
    if (cut < at.arrays_end) return "arrays";
    if (cut < at.recording_end) return "recording";
    if (cut < at.buffers_end) return "buffers";
    if (cut < at.events_end) return "events";
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
  // 2^61 events of 40 bytes overflow 64 bits: said so, not "needs 18446744073709551615 bytes".
  EXPECT_NE(err.find("corrupt: in the events section, the event count is 2305843009213693952: at "
                     "40 bytes each, more than 2^64 bytes"),
            std::string::npos)
      << err;
  // A count that fits 64 bits but not the file: the bytes it needs.
  const uint64_t big = 1ull << 40;
  std::memcpy(bytes.data() + count_at, &big, 8);
  reseal(bytes);
  EXPECT_FALSE(parse(bytes, &err));
  EXPECT_NE(err.find("corrupt: the events section needs 43980465111040 bytes"), std::string::npos)
      << err;
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
  // The first buffer record (A, 2 x 2) made 100000 x 100000.
  const uint8_t rec[] = {1, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  const auto it = bytes.begin() + long(sections_of(t).recording_end + 4);
  ASSERT_TRUE(std::equal(std::begin(rec), std::end(rec), it));
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
    const std::string good = picks::default_lesson().id;
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
    EXPECT_NE(err.find("the lesson id is not UTF-8 text"), std::string::npos) << err;
    // ... and saving one writes '?' for the bad bytes, so that the file loads.
    Trace t = tiled_matmul_trace(2, 2);
    t.config.device_name = bad;
    auto back = parse(serialize_trace(t), &err);
    ASSERT_TRUE(back) << err;
    EXPECT_NE(back->config.device_name.find('?'), std::string::npos);
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

// --- hostile paths: what the loader refuses before reading, how saves write ---

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A scratch folder of the test's own, removed at the end.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    path = fs::temp_directory_path() /
           ("ts_trace_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(TraceFile, LoadRefusesDevicesAsNotRegularFilesNeverAsEmpty) {
  for (const char* dev : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    if (!fs::exists(dev)) continue;
    std::string err;
    EXPECT_FALSE(load_trace(dev, &err));
    EXPECT_EQ(err, std::string(dev) + ": not a regular file (a character device)");
  }
  ScratchDir d;
  const std::string link = d / "zero.tstrace";
  fs::create_symlink("/dev/zero", link);
  std::string err;
  EXPECT_FALSE(load_trace(link, &err));
  EXPECT_NE(err.find("not a regular file (a character device)"), std::string::npos) << err;
  EXPECT_FALSE(load_trace(d.path.string(), &err));
  EXPECT_EQ(err, d.path.string() + ": is a directory, not a trace file");
}

TEST(TraceFile, LoadRefusesAFifoWithoutWaitingForAWriter) {
  ScratchDir d;
  const std::string fifo = d / "pipe.tstrace";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto refused = std::async(std::launch::async, [&] {
    std::string err;
    load_trace(fifo, &err);
    return err;
  });
  if (refused.wait_for(5s) != std::future_status::ready) {
    // Release the loader blocked in open() so that the test ends, then fail.
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
    FAIL() << "load_trace waits on a FIFO";
  }
  EXPECT_EQ(refused.get(), fifo + ": not a regular file (a FIFO)");
}

// A 2 GiB file (sparse: no disk used) is refused after its header, without
// being read: no 2 GiB buffer, no seconds of reading.
TEST(TraceFile, LoadRefusesA2GiBFileAfterReadingItsHeader) {
  ScratchDir d;
  const std::string junk = d / "junk.tstrace";
  std::ofstream(junk) << "PK\x03\x04 this is a zip file, not a trace";
  ASSERT_EQ(::truncate(junk.c_str(), 2ll << 30), 0) << std::strerror(errno);
  // A real header whose size field disagrees with the file.
  const std::string grown = d / "grown.tstrace";
  const auto bytes = serialize_trace(tiled_matmul_trace(2, 2));
  std::ofstream(grown, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size()));
  ASSERT_EQ(::truncate(grown.c_str(), 2ll << 30), 0) << std::strerror(errno);
  // And one whose header agrees with a file over the limit.
  const std::string huge = d / "huge.tstrace";
  auto big_header = bytes;
  const uint64_t five_gib = 5ull << 30;
  std::memcpy(big_header.data() + 12, &five_gib, 8);
  std::ofstream(huge, std::ios::binary)
      .write(reinterpret_cast<const char*>(big_header.data()), long(big_header.size()));
  ASSERT_EQ(::truncate(huge.c_str(), off_t(five_gib)), 0) << std::strerror(errno);

  const long rss_before = max_rss_kib();
  const auto t0 = std::chrono::steady_clock::now();
  std::string err;
  EXPECT_FALSE(load_trace(junk, &err));
  EXPECT_EQ(err, junk + ": not a TileScope trace: the file does not start with \"TSTRACE\"");
  EXPECT_FALSE(load_trace(grown, &err));
  EXPECT_EQ(err, grown + ": corrupt: the header says the file has " + std::to_string(bytes.size()) +
                     " bytes, but it has 2147483648");
  EXPECT_FALSE(load_trace(huge, &err));
  EXPECT_EQ(err, huge + ": the file has 5368709120 bytes; TileScope reads traces up to 4 GiB");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 0.5);
  // Reading any of them whole would have raised the peak by gigabytes.
  EXPECT_LT(max_rss_kib() - rss_before, 64 * 1024) << "KiB";
}

TEST(TraceFile, LoadSaysWhereASmallTruncatedFileEnds) {
  ScratchDir d;
  const std::string path = d / "cut.tstrace";
  const auto bytes = serialize_trace(tiled_matmul_trace(2, 2));
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size() - 100));
  std::string err;
  EXPECT_FALSE(load_trace(path, &err));
  EXPECT_EQ(err.rfind(path + ": truncated: the file ends inside the events section", 0), 0u) << err;
}

TEST(TraceFile, LoadReportsMissingFilesAndSavesIntoMissingFolders) {
  std::string err;
  EXPECT_FALSE(load_trace("/nonexistent/dir/x.tstrace", &err));
  EXPECT_EQ(err, "/nonexistent/dir/x.tstrace: cannot open: No such file or directory");
  EXPECT_FALSE(save_trace(tiled_matmul_trace(2, 2), "/nonexistent/dir/x.tstrace", &err));
  EXPECT_EQ(err, "cannot write /nonexistent/dir/x.tstrace: No such file or directory");
}

// A save through a symbolic link replaces the file the link leads to; the
// link stays a link (it used to be replaced by a regular file, its target
// left stale).
TEST(TraceFile, SaveThroughASymlinkReplacesItsTarget) {
  ScratchDir d;
  const std::string target = d / "real.tstrace", link = d / "link.tstrace",
                    link2 = d / "link2.tstrace";
  std::ofstream(target) << "old contents";
  fs::create_symlink("real.tstrace", link);  // relative, as `ln -s` makes them
  fs::create_symlink(link, link2);           // and a chain of two
  const Trace t = tiled_matmul_trace(2, 2);
  std::string err;
  ASSERT_TRUE(save_trace(t, link2, &err)) << err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_symlink(link2));
  const auto back = load_trace(target, &err);
  ASSERT_TRUE(back) << err;
  expect_same(t, *back);
  // A link to a file not there yet: the file is made where it points.
  const std::string dangling = d / "dangling.tstrace";
  fs::create_symlink("new.tstrace", dangling);
  ASSERT_TRUE(save_trace(t, dangling, &err)) << err;
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_TRUE(fs::is_regular_file(d / "new.tstrace"));
  // No temporary file is left beside them.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(d.path)) {
    ++entries;
    EXPECT_EQ(e.path().string().find(".part"), std::string::npos) << e.path();
  }
  EXPECT_EQ(entries, 5u);
}

TEST(TraceFile, SaveKeepsTheFilesPermissions) {
  ScratchDir d;
  const std::string path = d / "kept.tstrace";
  std::ofstream(path) << "old";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  std::string err;
  ASSERT_TRUE(save_trace(tiled_matmul_trace(2, 2), path, &err)) << err;
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(TraceFile, SaveOntoDevNullWritesItInPlace) {
  if (::access("/dev/null", W_OK) != 0) GTEST_SKIP() << "/dev/null is not writable here";
  std::string err;
  EXPECT_TRUE(save_trace(tiled_matmul_trace(2, 2), "/dev/null", &err)) << err;
  // As root, a rename over it used to make /dev/null a regular file.
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(export_chrome_trace(tiled_matmul_trace(2, 2), "/dev/null", &err)) << err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(TraceFile, SaveOntoDevFullIsAnError) {
  if (!fs::exists("/dev/full") || ::access("/dev/full", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/full here";
  std::string err;
  EXPECT_FALSE(save_trace(tiled_matmul_trace(2, 2), "/dev/full", &err));
  EXPECT_EQ(err, "cannot write /dev/full: No space left on device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  EXPECT_FALSE(export_chrome_trace(tiled_matmul_trace(2, 2), "/dev/full", &err));
  EXPECT_EQ(err, "cannot write /dev/full: No space left on device");
}

TEST(TraceFile, SaveNeverReplacesADirectory) {
  ScratchDir d;
  const std::string dir = d / "folder.tstrace";
  fs::create_directory(dir);
  std::ofstream(d / "folder.tstrace/inside") << "kept";
  std::string err;
  EXPECT_FALSE(save_trace(tiled_matmul_trace(2, 2), dir, &err));
  EXPECT_EQ(err, "cannot write " + dir + ": it is a directory");
  EXPECT_FALSE(export_chrome_trace(tiled_matmul_trace(2, 2), dir, &err));
  EXPECT_EQ(err, "cannot write " + dir + ": it is a directory");
  EXPECT_EQ(contents(d / "folder.tstrace/inside"), "kept");
}

TEST(TraceFile, ChromeExportThroughASymlinkReplacesItsTarget) {
  ScratchDir d;
  const std::string target = d / "out.json", link = d / "link.json";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  std::string err;
  ASSERT_TRUE(export_chrome_trace(tiled_matmul_trace(2, 2), link, &err)) << err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(target).rfind("{", 0), 0u);
}

TEST(TraceFile, SameFileFollowsLinks) {
  ScratchDir d;
  const std::string a = d / "a.tstrace", b = d / "b.tstrace", link = d / "l.tstrace";
  std::ofstream(a) << "a";
  std::ofstream(b) << "b";
  fs::create_symlink(a, link);
  EXPECT_TRUE(same_file(a, link));
  EXPECT_TRUE(same_file(a, d.path.string() + "/./a.tstrace"));
  EXPECT_FALSE(same_file(a, b));
  EXPECT_FALSE(same_file(a, d / "missing.tstrace"));
}

}  // namespace
}  // namespace ts
