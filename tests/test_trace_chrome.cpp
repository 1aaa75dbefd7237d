// Chrome trace export: valid JSON, the expected number of events, and the
// fields Perfetto shows (buffer, element, value, line) on the right tracks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "io/chrome_export.hpp"
#include "test_trace_fixtures.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

using testing::tiled_matmul_trace;

nlohmann::json exported(const Trace& t, ChromeExportStats* st, ChromeExportOptions opt = {}) {
  std::ostringstream out;
  EXPECT_TRUE(write_chrome_trace(t, out, opt, st));
  return nlohmann::json::parse(out.str());  // throws (fails the test) on invalid JSON
}

int count_ph(const nlohmann::json& j, const std::string& ph) {
  int n = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == ph) ++n;
  return n;
}

TEST(ChromeExport, IsValidJsonWithOneEventPerRecordPlusPhasesAndBarriers) {
  const Trace t = tiled_matmul_trace(4, 2);
  ChromeExportStats st;
  const auto j = exported(t, &st);
  ASSERT_TRUE(j.contains("traceEvents"));
  EXPECT_EQ(j["traceEvents"].size(), st.total());
  EXPECT_EQ(count_ph(j, "i"), int(t.events.size()));
  EXPECT_EQ(st.instants, t.events.size());
  // 4 blocks x 4 threads (small blocks: one track per thread) x 5 phases.
  EXPECT_EQ(count_ph(j, "X"), 4 * 4 * 5);
  // 4 barrier instances per block, as begin/end pairs.
  EXPECT_EQ(count_ph(j, "b"), 16);
  EXPECT_EQ(count_ph(j, "e"), 16);
  // process_name + process_sort_index per block, thread_name per thread.
  EXPECT_EQ(count_ph(j, "M"), 4 * (2 + 4));
  EXPECT_EQ(j["otherData"]["variant"], picks::default_lesson().id);
}

TEST(ChromeExport, InstantEventsCarryArrayElementValueAndLine) {
  const Trace t = tiled_matmul_trace(4, 2);
  const auto j = exported(t, nullptr);
  // The first access of the trace: block 0, thread 0 loads A[0][0] at line 20.
  const Event& e0 = t.events[0];
  bool found = false;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "i" || e["name"] != "global load A") continue;
    if (e["pid"] != 0 || e["tid"] != 0) continue;
    EXPECT_EQ(e["args"]["array"], "A");  // the table's name for the event's slot
    EXPECT_EQ(e["args"]["instr"], 0);    // the thread's first event
    EXPECT_EQ(e["args"]["warp"], 0);
    EXPECT_EQ(e["args"]["element"], e0.element);
    EXPECT_EQ(e["args"]["row"], 0);
    EXPECT_EQ(e["args"]["col"], 0);
    EXPECT_EQ(e["args"]["value"].get<double>(), double(e0.value));
    EXPECT_EQ(e["args"]["line"], 20);
    EXPECT_EQ(e["args"]["interval"], 0);
    EXPECT_EQ(e["ts"].get<double>(), 0.0);
    found = true;
    break;
  }
  EXPECT_TRUE(found);
}

TEST(ChromeExport, PhaseSlicesOfATrackDoNotOverlap) {
  const auto j = exported(tiled_matmul_trace(4, 2), nullptr);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X")
      tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
          {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
  ASSERT_FALSE(tracks.empty());
  for (auto& [k, v] : tracks) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i)
      EXPECT_LE(v[i - 1].second, v[i].first);
  }
}

TEST(ChromeExport, WarpTracksForLargeBlocksAndGpuTimeInMicroseconds) {
  Trace t = tiled_matmul_trace(8, 8);  // one block of 64 threads: 2 warps
  t.config.backend = BackendKind::Cuda;
  for (auto& e : t.events)
    e.globaltimer = 1'000'000 + e.globaltimer * 32;  // ns
  ChromeExportStats st;
  ChromeExportOptions opt;
  opt.lanes = ChromeExportOptions::Lanes::Warps;
  const auto j = exported(t, &st, opt);
  std::set<int> tids;
  double last = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "i") {
      tids.insert(e["tid"].get<int>());
      last = std::max(last, e["ts"].get<double>());
    }
  EXPECT_EQ(tids, (std::set<int>{0, 1}));
  EXPECT_DOUBLE_EQ(last, double(t.events.size() - 1) * 32 / 1000.0);
  EXPECT_EQ(j["displayTimeUnit"], "ns");
}

TEST(ChromeExport, WithoutAccessesOnlyPhasesAndBarriers) {
  const Trace t = tiled_matmul_trace(4, 2);
  ChromeExportStats st;
  ChromeExportOptions opt;
  opt.accesses = false;
  const auto j = exported(t, &st, opt);
  EXPECT_EQ(count_ph(j, "i"), 0);
  EXPECT_EQ(count_ph(j, "X"), 80);
}

TEST(ChromeExport, NamesThatAreNotUtf8AreReplacedNotThrown) {
  Trace t = tiled_matmul_trace(2, 2);
  t.config.lesson_id = "mat\x8f\x8a";
  t.config.device_name = "\xff";
  const auto j = exported(t, nullptr);
  EXPECT_TRUE(j["otherData"]["variant"].get<std::string>().starts_with("mat"));
}

TEST(ChromeExport, EmptyTraceAndFileErrors) {
  ChromeExportStats st;
  const auto j = exported(Trace{}, &st);
  EXPECT_TRUE(j["traceEvents"].empty());
  std::string err;
  EXPECT_FALSE(export_chrome_trace(Trace{}, "/nonexistent/dir/out.json", &err));
  EXPECT_NE(err.find("cannot write /nonexistent/dir/out.json"), std::string::npos) << err;
}

}  // namespace
}  // namespace ts
