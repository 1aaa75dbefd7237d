// The command line, run as a user runs it: the built tilescope-cli binary,
// its exit codes, and what it prints.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/catalogue.hpp"
#include "io/trace_file.hpp"
#include "test_trace_fixtures.hpp"
#include "tests/cli_process.hpp"
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
  for (const LessonInfo& v : all_lessons()) {
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
  ASSERT_EQ(j.size(), all_lessons().size());
  for (size_t i = 0; i < j.size(); ++i) {
    EXPECT_EQ(j[i]["id"], all_lessons()[i].id);
    EXPECT_EQ(j[i]["barriers"].size(), all_lessons()[i].barriers.size());
  }
}

TEST(Cli, UnknownVariantIsAUsageErrorThatListsTheValidIds) {
  REQUIRE_CLI();
  const Result r = cli("run matmul.nope");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown lesson 'matmul.nope'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(default_id()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(picks::halo_lesson(picks::Halo::StaticShared).id), std::string::npos)
      << r.out;
}

TEST(Cli, UnknownBarrierSaysWhichExist) {
  REQUIRE_CLI();
  const LessonInfo* v = &picks::default_lesson();
  ASSERT_NE(v, nullptr);
  Result r = cli("run " + default_id() + " --no-barrier 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("there is no barrier 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 (line " + std::to_string(v->barriers[0].line) + ")"), std::string::npos)
      << r.out;
  r = cli("run " + naive_grid_id() + " --barriers 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("has no barriers"), std::string::npos) << r.out;
  r = cli("run " + default_id() + " --barriers x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("'x' is not a barrier number"), std::string::npos) << r.out;
}

TEST(Cli, ParametersOutOfRangeAreUsageErrorsWithTheLimit) {
  REQUIRE_CLI();
  Result r = cli("run " + default_id() + " --tile 64");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("1024"), std::string::npos) << r.out;
  r = cli("run " + default_id() + " --n 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run " + default_id() + " --n -5");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run " + default_id() + " --n abc");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run " + default_id() + " --capacity 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = cli("run " + default_id() + " --skew-warps 40");
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST(Cli, BadCommandLinesAreUsageErrors) {
  REQUIRE_CLI();
  EXPECT_EQ(cli("").code, 2);
  EXPECT_EQ(cli("frobnicate").code, 2);
  EXPECT_EQ(cli("run").code, 2);
  EXPECT_EQ(cli("run " + default_id() + " --backend quantum").code, 2);
  EXPECT_EQ(cli("run " + default_id() + " --barriers 1 --no-barrier 2").code, 2);
  EXPECT_EQ(cli("--help").code, 0);
  EXPECT_NE(cli("--help").out.find("Exit codes"), std::string::npos);
}

TEST(Cli, InspectSummarisesATraceFile) {
  REQUIRE_CLI();
  const std::string path = written_fixture("inspect.tstrace");
  const Result r = cli("inspect '" + path + "'");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(default_id()), std::string::npos) << r.out;
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
  std::filesystem::remove(json);  // an earlier run's file would be refused (no --force)
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
  std::filesystem::remove(path);  // an earlier run's file would be refused (no --force)
  const Result r =
      cli("run " + default_id() + " --n 8 --tile 4 --backend sim --json -o '" + path + "'", false);
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
  const Result r = cli("run " + default_id() + " --n 8 --tile 4 --backend sim --capacity 100");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("TRUNCATED: the trace holds 100 of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--capacity "), std::string::npos) << r.out;
}

TEST(Cli, RunCheckExitsWith3WhenABarrierIsMissingAndTheOutputIsWrong) {
  REQUIRE_CLI();
  // Several warps per block and a skewed schedule: without barriers the output goes wrong.
  const Result r = cli("run " + default_id() +
                       " --n 32 --tile 16 --backend sim --no-barrier 1,2 --schedule skew "
                       "--check");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("WRONG"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 (line"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OFF"), std::string::npos) << r.out;
}

// ---- one options parser (issue 9 section 4) ----

bool has(const Result& r, const std::string& text) {
  return r.out.find(text) != std::string::npos;
}

TEST(Cli, NumbersOutOfRangeNameTheOptionTheValueAndTheRange) {
  REQUIRE_CLI();
  // Beyond an int: not only "Could not convert".
  Result r = cli("run " + default_id() + " --n 2147483648 --backend sim");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--n")) << r.out;
  EXPECT_TRUE(has(r, "2147483648")) << r.out;
  EXPECT_TRUE(has(r, "from 1 to 32768")) << r.out;
  r = cli("run " + default_id() + " --n 0 --backend sim");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--n: 0 is out of range")) << r.out;
  // A seed is unsigned: -1 is refused, not wrapped to 2^64 - 1.
  r = cli("run " + default_id() + " --n 8 --backend sim --schedule random --seed -1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--seed: -1 is out of range")) << r.out;
  r = cli("run " + default_id() + " --n 8 --backend sim --input-seed 18446744073709551616");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--input-seed")) << r.out;
  r = cli("races " + default_id() + " --n 8 --backend sim --detail-limit -5");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--detail-limit: -5 is out of range: give a whole number from 1")) << r.out;
  r = cli("races " + default_id() + " --n 8 --backend sim --runs 0");
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST(Cli, BarrierListsAreCheckedNotReadCharacterByCharacter) {
  REQUIRE_CLI();
  Result r = cli("run " + default_id() + " --n 8 --backend sim --barriers 10");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "there is no barrier 10")) << r.out;
  // An empty list does not silently remove every barrier.
  r = cli("run " + default_id() + " --n 8 --backend sim --barriers ''");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--barriers '': give all, none or barrier numbers")) << r.out;
  r = cli("run " + default_id() + " --n 8 --backend sim --barriers none --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["barriers_kept"].empty()) << r.out;
  // Issue 20: an empty item is a typo, not the list without it (it ran with mask 3).
  for (const char* list : {"1,,2", "1,", ",2", "--no-barrier 1,,2"}) {
    const std::string arg = list[0] == '-' ? list : "--barriers " + std::string(list);
    r = cli("run " + default_id() + " --n 8 --backend sim " + arg);
    EXPECT_EQ(r.code, 2) << arg << ": " << r.out;
    EXPECT_TRUE(has(r, "': an empty item between commas; give all, none or barrier numbers"))
        << arg << ": " << r.out;
  }
}

TEST(Cli, SkewNanosecondsOnTheSimulatorSayTheyApplyToTheGpuOnly) {
  REQUIRE_CLI();
  const Result r = cli("run " + default_id() + " --n 8 --backend sim --skew-ns 500");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "--skew-ns applies to the GPU only")) << r.out;
  EXPECT_TRUE(has(r, "--schedule skew --skew-steps")) << r.out;
  EXPECT_FALSE(has(cli("run " + default_id() + " --n 8 --backend sim"), "--skew-ns"));
}

TEST(Cli, UsageErrorsWithJsonPrintAJsonObject) {
  REQUIRE_CLI();
  for (const std::string& args :
       std::vector<std::string>{"run --json matmul.nope", "run --json " + default_id() + " --n abc",
                                "run " + default_id() + " --backend sim --barriers 3 --json",
                                "races " + default_id() + " --backend sim --runs 0 --json"}) {
    const Result r = cli(args, false);
    EXPECT_EQ(r.code, 2) << args;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << args << ": " << r.out;
    EXPECT_EQ(j["ok"], false) << args;
    EXPECT_FALSE(j["error"].get<std::string>().empty()) << args;
  }
}

TEST(Cli, RacesCasesWithJsonPrintsJson) {
  REQUIRE_CLI();
  const Result r = cli("races --cases --json", false);
  ASSERT_EQ(r.code, 0);
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  ASSERT_EQ(j.size(), all_lessons().size());
  for (size_t i = 0; i < j.size(); ++i) {
    EXPECT_EQ(j[i]["id"], all_lessons()[i].id);
    EXPECT_EQ(j[i]["barriers"], all_lessons()[i].barriers.size());
  }
}

uint64_t memtotal_mib() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  while (in >> key >> kb)
    if (key == "MemTotal:") return kb >> 10;
  return 0;
}

TEST(Cli, RunsThatCannotFitAreUsageErrorsMeasuredOnThisMachine) {
  REQUIRE_CLI();
  // A trace capacity beyond half of this machine's memory (the simulator
  // records into it): refused before running, with the memory it has.
  const uint64_t mib = memtotal_mib();
  ASSERT_GT(mib, 0u);
  const uint64_t capacity = (mib << 20) / 40;  // about all of the memory
  Result r =
      cli("run " + default_id() + " --n 8 --backend sim --capacity " + std::to_string(capacity));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "half of the " + std::to_string(mib) + " MiB of memory")) << r.out;
  // Too many steps for the simulator: a usage error too.
  r = cli("run " + default_id() + " --n 4096 --tile 16 --backend sim");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "the simulator would take")) << r.out;
}

// ---- writing files: never over an input, never over a file without --force ----

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(Cli, ExportRefusesToWriteOntoItsInput) {
  REQUIRE_CLI();
  const std::string path = written_fixture("self.tstrace");
  const std::string before = file_bytes(path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const std::string link = temp_path("self_link.tstrace");
  std::filesystem::remove(link);
  std::filesystem::create_symlink(path, link);
  const std::string name = std::filesystem::path(path).filename().string();
  for (const std::string& out :
       {path, dir + "/./" + name,
        dir + "/../" + std::filesystem::path(dir).filename().string() + "/" + name, link}) {
    const Result r = cli("export '" + path + "' -o '" + out + "' --force");
    EXPECT_EQ(r.code, 2) << out << ": " << r.out;
    EXPECT_TRUE(has(r, "is the input")) << r.out;
  }
  // Through the link as the input, onto the file itself.
  EXPECT_EQ(cli("export '" + link + "' -o '" + path + "' --force").code, 2);
  EXPECT_EQ(file_bytes(path), before);
  std::string err;
  EXPECT_TRUE(load_trace(path, &err).has_value()) << err;
  std::filesystem::remove(link);
  std::filesystem::remove(path);
}

TEST(Cli, ExistingOutputsNeedForce) {
  REQUIRE_CLI();
  const std::string out = temp_path("existing.tstrace");
  {
    std::ofstream f(out);
    f << "mine";
  }
  const std::string run = "run " + default_id() + " --n 8 --tile 4 --backend sim -o '" + out + "'";
  Result r = cli(run);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "exists; add --force")) << r.out;
  EXPECT_EQ(file_bytes(out), "mine");
  r = cli(run + " --json", false);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(nlohmann::json::parse(r.out)["ok"], false) << r.out;
  EXPECT_EQ(file_bytes(out), "mine");
  r = cli(run + " --force");
  EXPECT_EQ(r.code, 0) << r.out;
  std::string err;
  EXPECT_TRUE(load_trace(out, &err).has_value()) << err;

  const std::string json = temp_path("existing.json");
  {
    std::ofstream f(json);
    f << "mine";
  }
  r = cli("export '" + out + "' -o '" + json + "'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "exists; add --force")) << r.out;
  EXPECT_EQ(file_bytes(json), "mine");
  EXPECT_EQ(cli("export '" + out + "' -o '" + json + "' --force").code, 0);
  EXPECT_NE(file_bytes(json), "mine");
  // Not a regular file: nothing to lose, no question.
  r = cli("export '" + out + "' -o /dev/null");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  std::filesystem::remove(out);
  std::filesystem::remove(json);
}

// ---- races --runs honours the schedule (issue 8) ----

TEST(Cli, RacesRandomRunsTheSeedsFromTheGivenSeed) {
  REQUIRE_CLI();
  const std::string lesson =
      default_id() + " --n 16 --tile 8 --backend sim --barriers none --schedule random ";
  const Result r = cli("races " + lesson + "--seed 5 --runs 3 --json --no-stale", false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto runs = nlohmann::json::parse(r.out)["runs"];
  EXPECT_EQ(runs["done"], 3);
  EXPECT_EQ(runs["seeds"]["first"], 5);
  EXPECT_EQ(runs["seeds"]["last"], 7);
  EXPECT_NE(runs["plan"].get<std::string>().find("seeds 5 to 7"), std::string::npos) << runs;
  // Each run is the run of that seed: the same wrong cells as `run --seed S`.
  bool any_wrong = false;
  for (int i = 0; i < 3; ++i) {
    const Result one = cli("run " + lesson + "--seed " + std::to_string(5 + i) + " --json", false);
    ASSERT_EQ(one.code, 0) << one.out;
    const auto wrong = nlohmann::json::parse(one.out)["verdict"]["wrong_count"];
    EXPECT_EQ(runs["wrong_cells_per_run"][i], wrong) << "seed " << 5 + i;
    any_wrong = any_wrong || wrong.get<int>() > 0;
  }
  EXPECT_TRUE(any_wrong);  // else the comparison shows nothing
  const Result text = cli("races " + lesson + "--seed 5 --runs 3 --no-stale");
  EXPECT_TRUE(has(text, "ran: simulator, random schedule, seeds 5 to 7")) << text.out;
}

TEST(Cli, RacesWithoutAScheduleSaysItRunsRandomSeedsFromTheSeed) {
  REQUIRE_CLI();
  const Result r = cli("races " + default_id() +
                       " --n 16 --tile 8 --backend sim --barriers none --seed 3 --runs 2 "
                       "--no-stale");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "ran: simulator, random schedule, seeds 3 to 4 (no --schedule given"))
      << r.out;
  EXPECT_FALSE(has(r, "--seed goes with")) << r.out;  // it did apply
}

TEST(Cli, RacesWithADeterministicScheduleRunsOnceAndSaysSo) {
  REQUIRE_CLI();
  const std::string lesson = "races " + default_id() +
                             " --n 16 --tile 8 --backend sim --barriers none --schedule skew "
                             "--runs 7 --no-stale";
  const Result r = cli(lesson + " --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto runs = nlohmann::json::parse(r.out)["runs"];
  EXPECT_EQ(runs["requested"], 7);
  EXPECT_EQ(runs["done"], 1);
  EXPECT_EQ(runs["deterministic"], true);
  EXPECT_TRUE(runs["seeds"].is_null());
  EXPECT_NE(runs["plan"].get<std::string>().find("warp-skew"), std::string::npos) << runs;
  const Result text = cli(lesson);
  EXPECT_TRUE(has(text, "deterministic")) << text.out;
  EXPECT_TRUE(has(text, "ran once (not 7 times")) << text.out;
}

}  // namespace
}  // namespace ts
