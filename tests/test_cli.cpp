// The command line, run as a user runs it: the built tilescope-cli binary,
// its exit codes, and what it prints.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "kernels/catalogue.hpp"
#include "test_trace_fixtures.hpp"
#include "tests/cli_process.hpp"
#include "trace/trace_file.hpp"

namespace ts {
namespace {

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr together
  std::string stdout_only;
};

#ifdef TS_CLI_PATH
Result cli(const std::string& args, bool merge_stderr = true) {
  const testing::CliRun run = testing::run_cli(args, merge_stderr);
  Result r;
  r.code = run.code;
  r.out = run.out;
  r.stdout_only = r.out;
  return r;
}
#define REQUIRE_CLI()
#else
Result cli(const std::string&, bool = true) {
  return {};
}
#define REQUIRE_CLI() GTEST_SKIP() << "tilescope-cli is not built"
#endif

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ts_cli_test_" + name)).string();
}

std::string written_fixture(const std::string& name) {
  const std::string path = temp_path(name);
  std::string err;
  EXPECT_TRUE(save_trace(testing::tiled_matmul_trace(4, 2), path, &err)) << err;
  return path;
}

TEST(Cli, ListShowsEveryCatalogueVariantWithItsBarrierLines) {
  REQUIRE_CLI();
  const Result r = cli("list");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const Variant& v : catalogue()) {
    EXPECT_NE(r.out.find(v.id), std::string::npos) << v.id;
    for (const auto& b : v.barriers)
      EXPECT_NE(r.out.find(std::to_string(b.id) + " (line " + std::to_string(b.line) + ")"),
                std::string::npos)
          << v.id << " barrier " << b.id;
  }
}

TEST(Cli, ListJsonHasTheCatalogue) {
  REQUIRE_CLI();
  const Result r = cli("list --json", false);
  ASSERT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), catalogue().size());
  for (size_t i = 0; i < j.size(); ++i) {
    EXPECT_EQ(j[i]["id"], catalogue()[i].id);
    EXPECT_EQ(j[i]["barriers"].size(), catalogue()[i].barriers.size());
  }
}

TEST(Cli, UnknownVariantIsAUsageErrorThatListsTheValidIds) {
  REQUIRE_CLI();
  const Result r = cli("run matmul.nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown variant 'matmul.nope'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("matmul.tiled_square"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stencil.shared"), std::string::npos) << r.out;
}

TEST(Cli, UnknownBarrierSaysWhichExist) {
  REQUIRE_CLI();
  const Variant* v = find_variant("matmul.tiled_square");
  ASSERT_NE(v, nullptr);
  Result r = cli("run matmul.tiled_square --no-barrier 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("there is no barrier 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 (line " + std::to_string(v->barriers[0].line) + ")"), std::string::npos)
      << r.out;
  r = cli("run matmul.naive_grid --barriers 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("has no barriers"), std::string::npos) << r.out;
  r = cli("run matmul.tiled_square --barriers x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("'x' is not a barrier number"), std::string::npos) << r.out;
}

TEST(Cli, ParametersOutOfRangeAreUsageErrorsWithTheLimit) {
  REQUIRE_CLI();
  Result r = cli("run matmul.tiled_square --tile 64");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("1024"), std::string::npos) << r.out;
  r = cli("run matmul.tiled_square --n 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run matmul.tiled_square --n -5");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run matmul.tiled_square --n abc");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run matmul.tiled_square --capacity 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run matmul.tiled_square --skew-warps 40");
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST(Cli, BadCommandLinesAreUsageErrors) {
  REQUIRE_CLI();
  EXPECT_EQ(cli("").code, 2);
  EXPECT_EQ(cli("frobnicate").code, 2);
  EXPECT_EQ(cli("run").code, 2);
  EXPECT_EQ(cli("run matmul.tiled_square --backend quantum").code, 2);
  EXPECT_EQ(cli("run matmul.tiled_square --barriers 1 --no-barrier 2").code, 2);
  EXPECT_EQ(cli("--help").code, 0);
  EXPECT_NE(cli("--help").out.find("Exit codes"), std::string::npos);
}

TEST(Cli, InspectSummarisesATraceFile) {
  REQUIRE_CLI();
  const std::string path = written_fixture("inspect.tstrace");
  const Result r = cli("inspect '" + path + "'");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("matmul.tiled_square"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict:  correct"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("global loads per element of A (4 x 4): min 2, max 2"), std::string::npos)
      << r.out;
  const Result j = cli("inspect --json '" + path + "'", false);
  ASSERT_EQ(j.code, 0);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["counters"]["global_loads"], 64);  // 4 blocks x 4 threads x 2 phases x 2
  EXPECT_EQ(doc["counters"]["global_loads_per_output"], 4.0);
  EXPECT_EQ(doc["verdict"]["correct"], true);
  EXPECT_EQ(doc["events"]["truncated"], false);
  std::filesystem::remove(path);
}

TEST(Cli, InspectRefusesDamagedFilesWithExitCode1) {
  REQUIRE_CLI();
  const std::string path = written_fixture("damaged.tstrace");
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x55');
  }
  Result r = cli("inspect '" + path + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("checksum mismatch"), std::string::npos) << r.out;
  std::filesystem::resize_file(path, 100);
  r = cli("inspect '" + path + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("truncated"), std::string::npos) << r.out;
  r = cli("inspect /nonexistent/x.tstrace");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("cannot open"), std::string::npos) << r.out;
  std::filesystem::remove(path);
}

TEST(Cli, ExportWritesChromeTraceJson) {
  REQUIRE_CLI();
  const std::string path = written_fixture("export.tstrace");
  const std::string json = temp_path("export.json");
  const Result r = cli("export '" + path + "' -o '" + json + "'");
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream in(json);
  const auto doc = nlohmann::json::parse(in);
  size_t instants = 0;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "i") ++instants;
  EXPECT_EQ(instants, testing::tiled_matmul_trace(4, 2).events.size());
  EXPECT_EQ(cli("export /nonexistent/x.tstrace -o '" + json + "'").code, 1);
  std::filesystem::remove(path);
  std::filesystem::remove(json);
}

TEST(Cli, RunOnTheSimulatorPrintsVerdictAndCountersAndSavesTheTrace) {
  REQUIRE_CLI();
  const std::string path = temp_path("run.tstrace");
  const Result r =
      cli("run matmul.tiled_square --n 8 --tile 4 --backend sim --json -o '" + path + "'", false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["ok"], true);
  EXPECT_EQ(doc["backend"], "sim");
  EXPECT_EQ(doc["verdict"]["correct"], true);
  // Tiled multiply: 2N/T global loads per output element.
  EXPECT_EQ(doc["counters"]["global_loads_per_output"], 2.0 * 8 / 4);
  EXPECT_EQ(doc["counters"]["global_loads"], doc["counters"]["expected"]["global_loads"]);
  std::string err;
  const auto t = load_trace(path, &err);
  ASSERT_TRUE(t) << err;
  EXPECT_EQ(t->events.size(), doc["events"]["recorded"].get<size_t>());
  std::filesystem::remove(path);
}

TEST(Cli, RunWithATooSmallCapacitySaysWhatWouldFit) {
  REQUIRE_CLI();
  const Result r = cli("run matmul.tiled_square --n 8 --tile 4 --backend sim --capacity 100");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("TRUNCATED: the trace holds 100 of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--capacity "), std::string::npos) << r.out;
}

TEST(Cli, RunCheckExitsWith3WhenABarrierIsMissingAndTheOutputIsWrong) {
  REQUIRE_CLI();
  // Several warps per block and a skewed schedule: without barriers the output goes wrong.
  const Result r =
      cli("run matmul.tiled_square --n 32 --tile 16 --backend sim --no-barrier 1,2 --schedule skew "
          "--check");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("WRONG"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 (line"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OFF"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ts
