// Issue 20: every file the window writes goes through the output layer
// (io/output_file.hpp). For each kind (PNG screenshot, cells-json, GIF, MP4,
// PNG sequence) and each way to lose a file (onto the trace being replayed,
// an existing file with and without --force, a symbolic link to the trace,
// /dev/full, a full 1 MiB tmpfs, a read-only folder) the exit status and the
// message are checked, and the file that was there must keep its bytes.
// Also: a tilescope_perf.json in the working folder that is a FIFO or a link
// to /dev/zero does not hang the window at start-up. Runs tilescope on a
// private Xvfb; the tmpfs cases need mount (root), else they are skipped.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "io/trace_file.hpp"
#include "tests/app/private_x_server.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

namespace {

namespace fs = std::filesystem;
using ts::app_test::out_dir;
using ts::app_test::x_display;

struct AppRun {
  int rc = -1;
  std::string log;
  double seconds = 0;
};

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void put(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// tilescope with `args` in `cwd` (a 60 s limit: a hang is a failure, not a stuck test).
AppRun run_app(const std::string& args, const std::string& name, const fs::path& cwd = {}) {
  AppRun r;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb (" << TS_XVFB << ") did not start";
    return r;
  }
  const fs::path log = out_dir() / (name + ".log");
  const std::string cmd = (cwd.empty() ? std::string() : "cd " + cwd.string() + " && ") +
                          "DISPLAY=" + display + " timeout 60 " + TS_TILESCOPE_EXE + " " + args +
                          " > " + log.string() + " 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  const int st = std::system(cmd.c_str());
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.log = read(log);
  return r;
}

// A small trace of the tiled multiply, saved once; the tests copy it.
const std::string& trace_bytes() {
  static const std::string bytes = [] {
    ts::RunRequest req;
    req.lesson_id = picks::default_lesson().id;
    req.params = ts::find_lesson(req.lesson_id)->defaults;
    req.params.n = 8;
    req.params.tile = 4;
    req.backend = ts::BackendChoice::Sim;
    const ts::RunResult run = ts::run_simulator(req);
    EXPECT_TRUE(run.ok) << run.error;
    const fs::path f = out_dir() / "source.tstrace";
    std::string err;
    EXPECT_TRUE(ts::save_trace(run.trace, f.string(), &err)) << err;
    return read(f);
  }();
  return bytes;
}

bool have_ffmpeg() {
  return std::system("command -v ffmpeg > /dev/null 2>&1") == 0;
}

enum class Kind { Png, CellsJson, Gif, Mp4, PngSequence };
struct KindInfo {
  Kind kind;
  const char* name;
  const char* ext;  // of the file named on the command line
};
const KindInfo kKinds[] = {{Kind::Png, "png", ".png"},
                           {Kind::CellsJson, "cells", ".json"},
                           {Kind::Gif, "gif", ".gif"},
                           {Kind::Mp4, "mp4", ".mp4"},
                           {Kind::PngSequence, "pngseq", ".png"}};

// The file that matters for `named` (a PNG sequence: its first frame).
fs::path first_file(Kind k, const fs::path& named) {
  if (k != Kind::PngSequence) return named;
  std::string s = named.string();
  return s.substr(0, s.size() - 4) + "_0000.png";
}

// The window replaying `trace` and writing `out` as `k`: a small window, two frames.
std::string args_for(Kind k, const fs::path& trace, const fs::path& out, bool force) {
  std::string a = trace.string() + " --size 480x320 --exit" + (force ? " --force" : "");
  switch (k) {
    case Kind::Png:
      return a + " --screenshot " + out.string();
    case Kind::CellsJson: {
      const fs::path png = out_dir() / ("shot_" + std::to_string(::rand()) + ".png");
      return a + " --screenshot " + png.string() + " --cells-json " + out.string();
    }
    default:
      return a + " --record " + out.string() + " --fps 2 --duration 1";
  }
}

// What a complete file of the kind starts with.
bool looks_written(Kind k, const std::string& b) {
  switch (k) {
    case Kind::Png:
    case Kind::PngSequence:
      return b.rfind("\x89PNG", 0) == 0 && b.find("IEND") != std::string::npos;
    case Kind::CellsJson:
      return nlohmann::json::parse(b, nullptr, false).is_object();
    case Kind::Gif:
      return b.rfind("GIF89a", 0) == 0 && !b.empty() && b.back() == ';';
    case Kind::Mp4:
      return b.size() > 8 && b.compare(4, 4, "ftyp") == 0;
  }
  return false;
}

// No temporary left beside the outputs.
void expect_no_leftovers(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    EXPECT_EQ(e.path().filename().string().find(".part-"), std::string::npos) << e.path();
}

class WindowOutputs : public ::testing::TestWithParam<KindInfo> {
 protected:
  void SetUp() override {
    if (GetParam().kind == Kind::Mp4 && !have_ffmpeg())
      GTEST_SKIP() << "ffmpeg is not installed: the MP4 cases are skipped";
    dir_ = out_dir() / (std::string("outputs_") + GetParam().name + "_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    trace_ = dir_ / "a.tstrace";
    put(trace_, trace_bytes());
  }
  const KindInfo& k() const { return GetParam(); }
  std::string tag(const char* c) const { return std::string(k().name) + "_" + c; }
  fs::path dir_, trace_;
};

std::string name_of(const ::testing::TestParamInfo<KindInfo>& i) {
  return i.param.name;
}

// `W a.tstrace --screenshot a.tstrace`: the trace became a PNG (exit 0).
// Now refused, exit 2; the trace as it was. The recordings are given a trace
// whose name is their output's (a trace may be called anything).
TEST_P(WindowOutputs, OntoTheInputTraceIsRefused) {
  fs::path in = trace_, out = trace_;
  if (k().kind == Kind::Gif || k().kind == Kind::Mp4 || k().kind == Kind::PngSequence) {
    out = dir_ / (std::string("in") + k().ext);
    in = first_file(k().kind, out);
    put(in, trace_bytes());
  }
  const AppRun r = run_app(args_for(k().kind, in, out, true), tag("onto_input"));
  EXPECT_EQ(r.rc, 2) << r.log;
  EXPECT_NE(r.log.find("is the input"), std::string::npos) << r.log;
  EXPECT_EQ(read(in), trace_bytes());
}

// An existing file is replaced only with --force (it used to be replaced
// silently): without, exit 2 naming --force and the file as it was.
TEST_P(WindowOutputs, AnExistingFileNeedsForce) {
  const fs::path out = dir_ / (std::string("old") + k().ext);
  const fs::path file = first_file(k().kind, out);
  const std::string old = "the user's old file\n";
  put(file, old);
  const AppRun no = run_app(args_for(k().kind, trace_, out, false), tag("existing"));
  EXPECT_EQ(no.rc, 2) << no.log;
  EXPECT_NE(no.log.find("--force"), std::string::npos) << no.log;
  EXPECT_NE(no.log.find(file.string()), std::string::npos) << no.log;
  EXPECT_EQ(read(file), old);

  const AppRun yes = run_app(args_for(k().kind, trace_, out, true), tag("existing_force"));
  EXPECT_EQ(yes.rc, 0) << yes.log;
  EXPECT_TRUE(looks_written(k().kind, read(file))) << file;
  EXPECT_EQ(read(trace_), trace_bytes());
  expect_no_leftovers(dir_);
}

// l.gif -> a.tstrace (and l.mp4, l_0000.png): the trace was overwritten
// through the link. Refused even with --force; the link and the trace stay.
TEST_P(WindowOutputs, ASymlinkToTheInputIsRefused) {
  const fs::path out = dir_ / (std::string("l") + k().ext);
  const fs::path link = first_file(k().kind, out);
  fs::create_symlink(trace_, link);
  const AppRun r = run_app(args_for(k().kind, trace_, out, true), tag("symlink"));
  EXPECT_EQ(r.rc, 2) << r.log;
  EXPECT_NE(r.log.find("is the input"), std::string::npos) << r.log;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read(trace_), trace_bytes());
}

// `--screenshot /dev/full` said "wrote /dev/full", exit 0; a PNG sequence
// with a frame linked to /dev/full said "wrote 3 frames". Now exit 1 with the
// reason, and (the sequence) no frame replaced.
TEST_P(WindowOutputs, DevFullIsAFailedWrite) {
  fs::path out = "/dev/full";
  const std::string old = "an older frame\n";
  fs::path kept;
  if (k().kind == Kind::PngSequence) {
    out = dir_ / "full.png";
    kept = first_file(k().kind, out);
    put(kept, old);
    fs::create_symlink("/dev/full", dir_ / "full_0001.png");
  } else if (k().kind == Kind::Gif || k().kind == Kind::Mp4) {  // the name gives the format
    out = dir_ / (std::string("full") + k().ext);
    fs::create_symlink("/dev/full", out);
  }
  const AppRun r = run_app(args_for(k().kind, trace_, out, true), tag("dev_full"));
  EXPECT_EQ(r.rc, 1) << r.log;
  EXPECT_EQ(r.log.find("wrote "), std::string::npos) << r.log;
  if (k().kind == Kind::Mp4)  // ffmpeg's own words
    EXPECT_NE(r.log.find("ffmpeg could not write " + out.string()), std::string::npos) << r.log;
  else
    EXPECT_NE(r.log.find("No space left on device"), std::string::npos) << r.log;
  if (!kept.empty()) EXPECT_EQ(read(kept), old);
  EXPECT_EQ(read(trace_), trace_bytes());
}

// A tmpfs of `size` mounted at `dir` for the test's life; mounted() false
// (and the test skipped) where mount is refused.
class Tmpfs {
 public:
  explicit Tmpfs(const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir);
    mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m") == 0;
  }
  ~Tmpfs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  bool remount_read_only() {
    return ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, "size=1m") == 0;
  }
  // Fills what is left (the disk is then full).
  void fill() {
    std::ofstream f(dir_ / "filler", std::ios::binary);
    const std::string block(4096, 'x');
    for (int i = 0; i < 1024 && f; ++i)
      f << block;
  }

 private:
  fs::path dir_;
  bool mounted_ = false;
};

// On a full 1 MiB tmpfs holding old.gif, `--record old.gif` said "Write
// failed (disk full?)", exit 1, and old.gif was gone (MP4 too). Now exit 1
// with the reason and every old file as it was, no temporary left.
TEST_P(WindowOutputs, AFullDiskKeepsTheOldFile) {
  Tmpfs disk(dir_ / "full");
  if (!disk.mounted()) GTEST_SKIP() << "mount -t tmpfs refused (not root?): skipped";
  const fs::path out = dir_ / "full" / (std::string("old") + k().ext);
  const fs::path file = first_file(k().kind, out);
  const std::string old = "the user's old file, before the disk was full\n";
  put(file, old);
  disk.fill();
  const AppRun r = run_app(args_for(k().kind, trace_, out, true), tag("disk_full"));
  EXPECT_EQ(r.rc, 1) << r.log;
  if (k().kind != Kind::Mp4)
    EXPECT_NE(r.log.find("No space left on device"), std::string::npos) << r.log;
  EXPECT_EQ(read(file), old);
  expect_no_leftovers(dir_ / "full");
}

// A read-only folder (a read-only mount: root writes through mode bits):
// exit 1 with the reason, the old file as it was.
TEST_P(WindowOutputs, AReadOnlyFolderKeepsTheOldFile) {
  Tmpfs disk(dir_ / "ro");
  if (!disk.mounted()) GTEST_SKIP() << "mount -t tmpfs refused (not root?): skipped";
  const fs::path out = dir_ / "ro" / (std::string("old") + k().ext);
  const fs::path file = first_file(k().kind, out);
  const std::string old = "the user's old file, in a read-only folder\n";
  put(file, old);
  if (!disk.remount_read_only()) GTEST_SKIP() << "remounting read-only refused: skipped";
  const AppRun r = run_app(args_for(k().kind, trace_, out, true), tag("read_only"));
  EXPECT_EQ(r.rc, 1) << r.log;
  if (k().kind != Kind::Mp4)
    EXPECT_NE(r.log.find("Read-only file system"), std::string::npos) << r.log;
  EXPECT_EQ(read(file), old);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, WindowOutputs, ::testing::ValuesIn(kKinds), name_of);

// A tilescope_perf.json in the working folder that is a FIFO, or a link to
// /dev/zero, is refused at start-up (the Performance panel reads it), not
// waited on or read for ever.
TEST(WindowInputs, ADefaultPerfReportThatIsAFifoOrDevZeroDoesNotHang) {
  const fs::path trace = out_dir() / "perf_start.tstrace";
  put(trace, trace_bytes());
  for (const char* what : {"fifo", "zero"}) {
    const fs::path dir = out_dir() / (std::string("perf_") + what);
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path report = dir / "tilescope_perf.json";
    if (std::string(what) == "fifo")
      ASSERT_EQ(::mkfifo(report.c_str(), 0644), 0);
    else
      fs::create_symlink("/dev/zero", report);
    const AppRun r = run_app(trace.string() + " --size 640x400 --tab Performance --screenshot " +
                                 (dir / "shot.png").string() + " --exit",
                             std::string("perf_start_") + what, dir);
    EXPECT_EQ(r.rc, 0) << what << ": " << r.log;
    EXPECT_LT(r.seconds, 45) << what;
    EXPECT_TRUE(fs::exists(dir / "shot.png")) << what;
  }
}

// --perf-report naming a FIFO or /dev/zero: said at once, never read.
TEST(WindowInputs, APerfReportThatIsAFifoOrDevZeroIsRefused) {
  const fs::path trace = out_dir() / "perf_arg.tstrace";
  put(trace, trace_bytes());
  const fs::path fifo = out_dir() / "perf_arg.json";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string& report : {fifo.string(), std::string("/dev/zero")}) {
    const AppRun r =
        run_app(trace.string() + " --size 640x400 --perf-report " + report + " --screenshot " +
                    (out_dir() / "perf_arg.png").string() + " --cells-json " +
                    (out_dir() / "perf_arg_cells.json").string() + " --force --exit",
                "perf_arg");
    EXPECT_LT(r.seconds, 45) << report;
    // The window keeps running and says why in its banner (as for any bad report).
    EXPECT_EQ(r.rc, 0) << report << ": " << r.log;
    const nlohmann::json cells =
        nlohmann::json::parse(read(out_dir() / "perf_arg_cells.json"), nullptr, false);
    ASSERT_TRUE(cells.is_object()) << report;
    EXPECT_EQ(cells["banner"]["kind"], "error") << report;
    EXPECT_NE(cells["banner"]["text"].get<std::string>().find(
                  "Cannot open the performance report: " + report + ": not a regular file"),
              std::string::npos)
        << cells["banner"];
  }
}

}  // namespace
