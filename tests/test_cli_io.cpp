// tilescope-cli's files, through the output and input layers: every output
// (run -o trace, export -o JSON, bench --json, bench --csv) onto its input,
// onto an existing file, through a link to its input and onto /dev/full, the
// original's hash compared before and after; every input (inspect's trace,
// bench --compare's report) as a FIFO, /dev/zero, a 4 GiB sparse file and a
// folder, refused at once. Files are made here.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/backend.hpp"
#include "io/perf_report.hpp"
#include "io/trace_file.hpp"
#include "temp_files.hpp"
#include "test_trace_fixtures.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The default lesson (square tiles, two barriers).
std::string default_id() {
  return picks::default_lesson().id;
}
// The ladder's naive step before tiling.
std::string naive_grid_id() {
  return picks::ladder_step(2).id;
}

namespace fs = std::filesystem;

#ifdef TS_CLI_PATH
#define REQUIRE_CLI()
#else
#define REQUIRE_CLI() GTEST_SKIP() << "tilescope-cli is not built"
#define TS_CLI_PATH ""
#endif

struct CliResult {
  int code = -1;
  std::string out;
  double seconds = 0;
};

// `tilescope-cli <args>` under a 60 s timeout (exit 124: it hung).
CliResult cli(const std::string& args) {
  CliResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string cmd = std::string("timeout 60 '") + TS_CLI_PATH + "' " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// Every scratch folder of this file under temp/ts_cli_io_<name>_<pid>.
struct TempDir : ts::test::TempDir {
  explicit TempDir(const std::string& name) : ts::test::TempDir("ts_cli_io_", name) {}
};
using ts::test::read_all;

uint64_t hash_of(const std::string& p) {
  const std::string b = read_all(p);
  return fnv1a64({reinterpret_cast<const uint8_t*>(b.data()), b.size()});
}

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

std::string q(const std::string& s) {
  return "'" + s + "'";
}

std::string trace_file(const TempDir& d, const std::string& name = "in.tstrace") {
  const std::string p = d / name;
  std::string err;
  EXPECT_TRUE(save_trace(testing::tiled_matmul_trace(4, 2), p, &err)) << err;
  return p;
}

std::string report_file(const TempDir& d, const std::string& name = "before.json") {
  const std::string p = d / name;
  std::string err;
  PerfReport r;
  r.host = "the H100 run";
  EXPECT_TRUE(save_report(r, p, &err)) << err;
  return p;
}

// The kinds of output the CLI writes, each as a command line with its
// input (or none) and where its output goes.
struct OutputKind {
  const char* name;
  // The command writing `out`; `in` is its input file where it has one.
  std::string (*command)(const std::string& in, const std::string& out);
  bool has_input;
};

const OutputKind kOutputKinds[] = {
    {"run -o (trace)",
     [](const std::string&, const std::string& out) {
       return "run " + default_id() + " --n 4 --tile 2 --backend sim -o " + q(out);
     },
     false},
    {"export -o (Chrome JSON)",
     [](const std::string& in, const std::string& out) {
       return "export " + q(in) + " -o " + q(out);
     },
     true},
    {"bench --json",
     [](const std::string& in, const std::string& out) {
       return "bench --quiet --kernels " + naive_grid_id() + " --sizes 64 --compare " + q(in) +
              " --json " + q(out);
     },
     true},
    {"bench --csv",
     [](const std::string& in, const std::string& out) {
       return "bench --quiet --kernels " + naive_grid_id() + " --sizes 64 --compare " + q(in) +
              " --csv " + q(out);
     },
     true},
};

bool is_bench(const OutputKind& k) {
  return std::string(k.name).rfind("bench", 0) == 0;
}

std::string input_for(const OutputKind& k, const TempDir& d) {
  return is_bench(k) ? report_file(d) : trace_file(d);
}

TEST(CliOutputs, NeverOntoTheirInputNorThroughALinkToIt) {
  REQUIRE_CLI();
  for (const OutputKind& k : kOutputKinds) {
    if (!k.has_input) continue;
    TempDir d("alias");
    const std::string in = input_for(k, d);
    const uint64_t before = hash_of(in);
    fs::create_symlink(in, d / "link");
    for (const std::string& out : {in, d / "link"}) {
      const CliResult r = cli(k.command(in, out) + " --force");
      EXPECT_EQ(r.code, 2) << k.name << " onto " << out << ": " << r.out;
      EXPECT_TRUE(has(r.out, "is the input")) << k.name << ": " << r.out;
    }
    EXPECT_EQ(hash_of(in), before) << k.name;
  }
}

// Defect 4: bench --json and --csv replaced an existing report without --force.
TEST(CliOutputs, AnExistingFileIsRefusedUnlessForce) {
  REQUIRE_CLI();
  for (const OutputKind& k : kOutputKinds) {
    TempDir d("exists");
    const std::string in = input_for(k, d);
    const std::string out = d / "existing";
    std::ofstream(out) << "19.5 KB of H100 measurements";
    const uint64_t before = hash_of(out);
    const CliResult r = cli(k.command(in, out));
    EXPECT_EQ(r.code, 2) << k.name << ": " << r.out;
    EXPECT_TRUE(has(r.out, out + " exists; add --force to overwrite it"))
        << k.name << ": " << r.out;
    EXPECT_EQ(hash_of(out), before) << k.name;
  }
}

// Issue 31, defect 9: `bench --json report.json --force` without a GPU replaced
// a report of timings with one that has none, then exited 1.
TEST(CliOutputs, BenchWithoutAGpuNeverReplacesAReport) {
  REQUIRE_CLI();
  if (cuda_status().usable) GTEST_SKIP() << "skipped: this checks a machine without a usable GPU";
  for (const OutputKind& k : kOutputKinds) {
    if (!is_bench(k)) continue;
    TempDir d("no_gpu");
    const std::string in = input_for(k, d);
    const std::string out = d / "existing";
    std::ofstream(out) << "19.5 KB of H200 measurements";
    const uint64_t before = hash_of(out);
    const CliResult r = cli(k.command(in, out) + " --force");
    EXPECT_EQ(r.code, 1) << k.name << ": " << r.out;
    EXPECT_TRUE(has(r.out, "bench: nothing written")) << k.name << ": " << r.out;
    EXPECT_EQ(hash_of(out), before) << k.name << ": the report was replaced";
  }
}

TEST(CliOutputs, DevFullIsAFailureWithTheReason) {
  REQUIRE_CLI();
  for (const OutputKind& k : kOutputKinds) {
    TempDir d("full");
    const std::string in = input_for(k, d);
    const CliResult r = cli(k.command(in, "/dev/full"));
    EXPECT_EQ(r.code, 1) << k.name << ": " << r.out;
    if (is_bench(k) && !cuda_status().usable) {  // no timings: nothing is written at all
      EXPECT_TRUE(has(r.out, "bench: nothing written")) << k.name << ": " << r.out;
      continue;
    }
    EXPECT_TRUE(has(r.out, "cannot write /dev/full: No space left on device"))
        << k.name << ": " << r.out;
    EXPECT_FALSE(has(r.out, "wrote /dev/full")) << k.name << ": " << r.out;
  }
}

// `run -o fifo` waited forever for a reader.
TEST(CliOutputs, RunOntoAFifoWithoutReaderDoesNotBlock) {
  REQUIRE_CLI();
  TempDir d("fifo");
  const std::string f = d / "pipe";
  ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0);
  const CliResult r = cli("run " + default_id() + " --n 4 --tile 2 --backend sim -o " + q(f));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_LT(r.seconds, 20.0);
  EXPECT_TRUE(has(r.out, "it is a FIFO and nothing reads from it")) << r.out;
}

// ------------------------------------------------------------------ inputs

struct InputCase {
  std::string name, path, message;
};

std::vector<InputCase> bad_inputs(const TempDir& d) {
  const std::string fifo = d / "fifo";
  ::mkfifo(fifo.c_str(), 0600);
  const std::string zero_link = d / "zero_link";
  fs::create_symlink("/dev/zero", zero_link);
  const std::string sparse = d / "sparse";
  {
    std::ofstream f(sparse, std::ios::binary);
    f << "TSTRACE";
    f.put('\0');
    const uint32_t v = kTraceFormatVersion;
    const uint64_t size = 4ull << 30;
    f.write(reinterpret_cast<const char*>(&v), 4);
    f.write(reinterpret_cast<const char*>(&size), 8);
  }
  EXPECT_EQ(::truncate(sparse.c_str(), off_t(4ull << 30)), 0);
  const std::string folder = d / "folder";
  fs::create_directories(folder);
  return {{"FIFO", fifo, "not a regular file (a FIFO)"},
          {"/dev/zero", "/dev/zero", "not a regular file (a character device)"},
          {"link to /dev/zero", zero_link, "not a regular file (a character device)"},
          {"4 GiB sparse", sparse, ""},
          {"folder", folder, "is a directory"}};
}

uint64_t children_peak_kib() {
  rusage u{};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return uint64_t(u.ru_maxrss);
}

// Defect 5 (CLI): bench --compare /dev/zero grew to 5 GB; defect 6: inspect
// of a 4 GiB sparse file with a valid header read 4.2 GB first.
TEST(CliInputs, RefusedAtOnceWithoutReadingThem) {
  REQUIRE_CLI();
  TempDir d("inputs");
  for (const InputCase& c : bad_inputs(d)) {
    const CliResult inspect = cli("inspect " + q(c.path));
    EXPECT_EQ(inspect.code, 1) << c.name << ": " << inspect.out;
    EXPECT_LT(inspect.seconds, 5.0) << c.name;
    EXPECT_TRUE(has(inspect.out, c.path + ": ")) << c.name << ": " << inspect.out;
    if (c.name == "4 GiB sparse")
      EXPECT_TRUE(has(inspect.out, "in the run configuration section, grid x is 0")) << inspect.out;
    else
      EXPECT_TRUE(has(inspect.out, c.message)) << c.name << ": " << inspect.out;

    const CliResult bench =
        cli("bench --quiet --kernels " + naive_grid_id() + " --sizes 64 --compare " + q(c.path));
    EXPECT_EQ(bench.code, 2) << c.name << ": " << bench.out;
    EXPECT_LT(bench.seconds, 5.0) << c.name;
    if (c.name == "4 GiB sparse")
      EXPECT_TRUE(has(bench.out, "TileScope reads a performance report of at most 64 MiB"))
          << bench.out;
    else
      EXPECT_TRUE(has(bench.out, c.message)) << c.name << ": " << bench.out;
  }
  // Neither read what it refused: the largest child stayed small. A child
  // counts this test program's pages from its fork until its exec: under
  // AddressSanitizer that alone is about 260 MB (each CLI run peaks at 143).
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(children_peak_kib(), 512u << 10) << "KiB";
#else
  EXPECT_LT(children_peak_kib(), 256u << 10) << "KiB";
#endif
}

}  // namespace
}  // namespace ts
