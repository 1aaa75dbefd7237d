// The output layer and the input layer (io/output_file.hpp, io/input_file.hpp)
// and the CLI through them, tried as a user would: every output onto its
// input, onto an existing file, through a link to its input, onto /dev/full,
// a full disk and a read-only folder (the original's bytes compared before
// and after); every input as a FIFO, /dev/zero, a 4 GiB sparse file and a
// folder (refused at once, without reading it). Files are made here.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/input_file.hpp"
#include "io/lecture_file.hpp"
#include "io/output_file.hpp"
#include "io/perf_report.hpp"
#include "io/trace_file.hpp"
#include "temp_files.hpp"
#include "test_trace_fixtures.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

// Every scratch folder of this file under temp/ts_io_<name>_<pid>.
struct TempDir : ts::test::TempDir {
  explicit TempDir(const std::string& name) : ts::test::TempDir("ts_io_", name) {}
};
using ts::test::read_all;

void write_bytes(const std::string& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// What a user compares: the file's hash before and after.
uint64_t hash_of(const std::string& p) {
  const std::string b = read_all(p);
  return fnv1a64({reinterpret_cast<const uint8_t*>(b.data()), b.size()});
}

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// No temporary file left beside the target.
bool no_part_files(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (has(e.path().filename().string(), ".part-")) return false;
  return true;
}

// A small tmpfs (root may mount one): the disk-full and read-only cases.
struct SmallTmpfs {
  fs::path path;
  bool mounted = false;
  explicit SmallTmpfs(const std::string& name, const char* size = "size=1m")
      : path(fs::temp_directory_path() / ("ts_io_fs_" + name + "_" + std::to_string(::getpid()))) {
    fs::create_directories(path);
    mounted = ::mount("tmpfs", path.c_str(), "tmpfs", 0, size) == 0;
  }
  bool make_read_only() {
    return ::mount(nullptr, path.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }
  ~SmallTmpfs() {
    if (mounted) ::umount2(path.c_str(), MNT_DETACH);
    std::error_code ec;
    fs::remove(path, ec);
  }
};
#define REQUIRE_TMPFS(fs_)                                                                 \
  if (!(fs_).mounted)                                                                      \
  GTEST_SKIP() << "skipped: cannot mount a tmpfs here (needs root and mount permission); " \
                  "the injected-writer test covers the atomic path"

// ---------------------------------------------------------------- output layer

TEST(OutputLayer, RefusesEveryAliasOfAnInput) {
  TempDir d("alias");
  const std::string in = d / "in.tstrace";
  write_bytes(in, "the input");
  const uint64_t before = hash_of(in);
  fs::create_symlink(in, d / "link");
  ASSERT_EQ(::link(in.c_str(), (d / "hard").c_str()), 0);
  OutputOptions o;
  o.force = true;  // even with --force: an input is never an output
  o.inputs = {in};
  const fs::path cwd = fs::current_path();
  fs::current_path(d.path);
  for (const std::string& alias : {in, d / "link", d / "hard", std::string("./in.tstrace"),
                                   std::string("../") + d.path.filename().string() + "/in.tstrace",
                                   std::string("/proc/self/cwd/in.tstrace")}) {
    std::string err;
    EXPECT_FALSE(write_output(alias, o, "new bytes", &err)) << alias;
    EXPECT_TRUE(has(err, "is the input")) << alias << ": " << err;
  }
  fs::current_path(cwd);
  EXPECT_EQ(hash_of(in), before);
  EXPECT_TRUE(no_part_files(d.path));
}

TEST(OutputLayer, AnExistingFileNeedsForceAndIsReplacedWhole) {
  TempDir d("exists");
  const std::string p = d / "r.json";
  write_bytes(p, "old report");
  const uint64_t before = hash_of(p);
  std::string err;
  EXPECT_FALSE(write_output(p, OutputOptions{}, "new", &err));
  EXPECT_EQ(err, p + " exists; add --force to overwrite it");
  EXPECT_EQ(hash_of(p), before);
  OutputOptions o;
  o.force_hint = "confirm to replace it";  // the window says it its own way
  EXPECT_FALSE(write_output(p, o, "new", &err));
  EXPECT_TRUE(has(err, "confirm to replace it")) << err;
  o.force = true;
  ASSERT_TRUE(write_output(p, o, "new", &err)) << err;
  EXPECT_EQ(read_all(p), "new");
  EXPECT_TRUE(no_part_files(d.path));
}

TEST(OutputLayer, DevFullIsAFailureWithTheReason) {
  std::string err;
  OutputOptions o;
  EXPECT_FALSE(write_output("/dev/full", o, std::string(100000, 'x'), &err));
  EXPECT_EQ(err, "cannot write /dev/full: No space left on device");
  // A small write is buffered by nobody: the error still reaches the caller.
  EXPECT_FALSE(write_output("/dev/full", o, "x", &err));
  EXPECT_EQ(err, "cannot write /dev/full: No space left on device");
  EXPECT_TRUE(write_output("/dev/null", o, "x", &err)) << err;
}

TEST(OutputLayer, AFailedProducerLeavesTheOldFile) {
  // The injected writer: half the content, then a failure (as a PNG encoder
  // or a GIF writer that fails midway).
  TempDir d("inject");
  const std::string p = d / "old.gif";
  write_bytes(p, "GIF89a old animation");
  const uint64_t before = hash_of(p);
  OutputOptions o;
  o.force = true;
  std::string err;
  EXPECT_FALSE(write_output(
      p, o, [](std::ostream& os) { return bool(os << std::string(200000, 'n')) && false; }, &err));
  EXPECT_TRUE(has(err, "cannot write " + p)) << err;
  EXPECT_EQ(hash_of(p), before);
  // An external writer (ffmpeg) writes the temporary; a failure is reported.
  auto t = open_output(p, o, &err);
  ASSERT_TRUE(t) << err;
  EXPECT_NE(t->write_path(), p);
  write_bytes(t->write_path(), "half an mp4");
  t->fail("ffmpeg exited with 1");
  EXPECT_FALSE(t->commit(&err));
  EXPECT_EQ(err, "cannot write " + p + ": ffmpeg exited with 1");
  EXPECT_EQ(hash_of(p), before);
  EXPECT_TRUE(no_part_files(d.path));
  // And a good one is committed over the original.
  auto ok = open_output(p, o, &err);
  ASSERT_TRUE(ok) << err;
  write_bytes(ok->write_path(), "new animation");
  ASSERT_TRUE(ok->commit(&err)) << err;
  EXPECT_EQ(read_all(p), "new animation");
}

TEST(OutputLayer, ADiskFullLeavesTheOldFile) {
  SmallTmpfs full("full");
  REQUIRE_TMPFS(full);
  const std::string p = (full.path / "old.gif").string();
  write_bytes(p, std::string(600 << 10, 'o'));
  const uint64_t before = hash_of(p);
  OutputOptions o;
  o.force = true;
  std::string err;
  EXPECT_FALSE(write_output(p, o, std::string(600 << 10, 'n'), &err));
  EXPECT_EQ(err, "cannot write " + p + ": No space left on device");
  EXPECT_EQ(hash_of(p), before);
  EXPECT_TRUE(no_part_files(full.path));
}

TEST(OutputLayer, AReadOnlyFolderLeavesItsFile) {
  SmallTmpfs ro("ro");
  REQUIRE_TMPFS(ro);
  const std::string p = (ro.path / "old.png").string();
  write_bytes(p, "old picture");
  const uint64_t before = hash_of(p);
  ASSERT_TRUE(ro.make_read_only());
  OutputOptions o;
  o.force = true;
  std::string err;
  EXPECT_FALSE(write_output(p, o, "new", &err));
  EXPECT_EQ(err, "cannot write " + p + ": Read-only file system");
  EXPECT_FALSE(write_output((ro.path / "new.png").string(), o, "new", &err));
  EXPECT_TRUE(has(err, "Read-only file system")) << err;
  EXPECT_EQ(hash_of(p), before);
}

TEST(OutputLayer, AFifoWithoutReaderIsRefusedAtOnceAndOneWithAReaderIsWritten) {
  TempDir d("fifo");
  const std::string f = d / "pipe";
  ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0);
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(open_output(f, OutputOptions{}, &err));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(err, "cannot write " + f +
                     ": it is a FIFO and nothing reads from it; start its "
                     "reader first");
  // With a reader: written in place (no temporary renamed over the FIFO).
  FILE* reader = ::popen(("cat '" + f + "'").c_str(), "r");
  ASSERT_NE(reader, nullptr);
  bool wrote = false;
  for (int i = 0; i < 200 && !wrote; ++i) {
    wrote = write_output(f, OutputOptions{}, "through the pipe", &err);
    if (!wrote) ::usleep(10000);
  }
  EXPECT_TRUE(wrote) << err;
  std::array<char, 64> buf{};
  const size_t n = fread(buf.data(), 1, buf.size(), reader);
  ::pclose(reader);
  EXPECT_EQ(std::string(buf.data(), n), "through the pipe");
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputLayer, AFolderOrABlockDeviceIsRefused) {
  TempDir d("folder");
  std::string err;
  OutputOptions o;
  o.force = true;
  EXPECT_FALSE(write_output(d.path.string(), o, "x", &err));
  EXPECT_EQ(err, "cannot write " + d.path.string() + ": it is a directory");
}

// ---------------------------------------------------------------- input layer

// Every input kind against every reader: refused at once, with the kind.
struct InputCase {
  std::string name, path, message;
};

std::vector<InputCase> special_inputs(const TempDir& d) {
  const std::string fifo = d / "fifo";
  ::mkfifo(fifo.c_str(), 0600);
  const std::string zero_link = d / "zero_link";
  fs::create_symlink("/dev/zero", zero_link);
  return {{"FIFO", fifo, "not a regular file (a FIFO)"},
          {"/dev/zero", "/dev/zero", "not a regular file (a character device)"},
          {"link to /dev/zero", zero_link, "not a regular file (a character device)"},
          {"folder", d.path.string(), "is a directory"}};
}

template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(InputLayer, SpecialFilesAreRefusedAtOnceByEveryReader) {
  TempDir d("inputs");
  for (const InputCase& c : special_inputs(d)) {
    std::string err;
    const double s = seconds_of([&] {
      EXPECT_FALSE(load_trace(c.path, &err)) << c.name;
      EXPECT_TRUE(has(err, c.message)) << c.name << " trace: " << err;
      EXPECT_FALSE(load_report(c.path, &err)) << c.name;
      EXPECT_TRUE(has(err, c.message) || has(err, "is a directory"))
          << c.name << " report: " << err;
      EXPECT_FALSE(load_lecture(c.path, &err)) << c.name;
      EXPECT_TRUE(has(err, "not a regular file") || has(err, "is a folder"))
          << c.name << " lecture: " << err;
    });
    EXPECT_LT(s, 2.0) << c.name;
  }
}

// A sparse file: its size without its bytes on the disk.
std::string sparse_file(const std::string& path, const std::string& head, uint64_t size) {
  write_bytes(path, head);
  EXPECT_EQ(::truncate(path.c_str(), off_t(size)), 0);
  return path;
}

TEST(InputLayer, AReportOverItsLimitIsRefusedWithoutReadingIt) {
  TempDir d("bigreport");
  const std::string p = sparse_file(d / "big.json", "{\"format\": \"tilescope-perf\"", 4ull << 30);
  std::string err;
  const double s = seconds_of([&] { EXPECT_FALSE(load_report(p, &err)); });
  EXPECT_EQ(err, p + ": the file has 4294967296 bytes; TileScope reads a performance report of "
                     "at most 64 MiB");
  EXPECT_LT(s, 1.0);
  const std::string lect = sparse_file(d / "big.tslecture", "{", 4ull << 30);
  EXPECT_FALSE(load_lecture(lect, &err));
  EXPECT_TRUE(has(err, "larger than")) << err;
}

// A 4 GiB sparse file behind a valid trace header: the layout is checked
// before the checksum reads it (defect 6: it read 4.2 GB first).
uint64_t peak_rss_kib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return uint64_t(u.ru_maxrss);
}

TEST(InputLayer, AHugeTraceOfZerosIsRefusedAfterItsHeader) {
  TempDir d("sparse");
  std::string head(kTraceMagic, sizeof(kTraceMagic));
  const uint32_t version = kTraceFormatVersion;
  const uint64_t declared = 4ull << 30;
  head.append(reinterpret_cast<const char*>(&version), 4);
  head.append(reinterpret_cast<const char*>(&declared), 8);
  const std::string p = sparse_file(d / "zeros.tstrace", head, declared);
  const uint64_t rss0 = peak_rss_kib();
  std::string err;
  const double s = seconds_of([&] { EXPECT_FALSE(load_trace(p, &err)); });
  EXPECT_LT(s, 1.0) << err;
  EXPECT_LT(peak_rss_kib() - rss0, 64u << 10) << "KiB more at peak";
  EXPECT_EQ(err, p + ": corrupt: in the run configuration section, grid x is 0; allowed: 1 to "
                     "2147483647");
}

TEST(InputLayer, AHugeTraceWhoseSectionsEndEarlyIsRefusedWithoutReadingIt) {
  // A real trace, its declared size and its length grown to 4 GiB: every
  // section is valid, they end long before the file does.
  TempDir d("grown");
  const std::vector<uint8_t> bytes = serialize_trace(testing::tiled_matmul_trace(4, 2));
  std::string b(bytes.begin(), bytes.end());
  const uint64_t declared = 4ull << 30;
  std::memcpy(b.data() + 12, &declared, 8);
  const std::string p = sparse_file(d / "grown.tstrace", b, declared);
  const uint64_t rss0 = peak_rss_kib();
  std::string err;
  const double s = seconds_of([&] { EXPECT_FALSE(load_trace(p, &err)); });
  EXPECT_LT(s, 1.0) << err;
  EXPECT_LT(peak_rss_kib() - rss0, 64u << 10) << "KiB more at peak";
  EXPECT_EQ(err, p + ": corrupt: its sections end at byte " + std::to_string(bytes.size()) +
                     ", but the file has 4294967296 bytes");
}

TEST(InputLayer, TracesStillLoadThroughTheMapping) {
  TempDir d("roundtrip");
  const Trace t = testing::tiled_matmul_trace(4, 2);
  std::string err;
  ASSERT_TRUE(save_trace(t, d / "t.tstrace", &err)) << err;
  const auto back = load_trace(d / "t.tstrace", &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(serialize_trace(*back), serialize_trace(t));
}

}  // namespace
}  // namespace ts
