// The compiled level (analysis/compiled_access.hpp) replays what Nsight
// Compute measured on an H200 (docs/measurements/ncu_h200.json, made by
// scripts/ncu_extract.py from a session of scripts/ncu_compare.sh and the
// source pages of six kernels): each rule, line by line, on the source pages
// it was read from, with a table made by hand from those pages' instructions;
// then every lesson's kernel totals at its defaults with the table in this
// build. The lessons come from the measurement file, not from this file.
#include <gtest/gtest.h>

#include <deque>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/compiled_access.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"

namespace ts {
namespace {

const nlohmann::json& measured() {
  static const nlohmann::json j = [] {
    std::ifstream in(std::string(TS_SOURCE_DIR) + "/docs/measurements/ncu_h200.json");
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
  }();
  return j;
}

Params params_of(const nlohmann::json& p) {
  Params out;
  for (const ParamField& f : kParamFields)
    if (p.contains(f.name)) out.*f.field = p[f.name].get<int>();
  return out;
}

Trace simulate(const std::string& id, const Params& p) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  return std::move(r.trace);
}

// A page's memory instructions as a compiled-code table (what the generator
// would write for them); the strings live as long as the table.
struct HandTable {
  std::deque<std::string> opcodes;
  std::vector<CompiledAccess> accesses;
  CompiledKernel kernel;
  explicit HandTable(const nlohmann::json& page) {
    for (const auto& i : page["instructions"]) {
      std::string sass = i["sass"];
      if (sass[0] == '@') sass = sass.substr(sass.find(' ') + 1);  // the predicate
      opcodes.push_back(sass.substr(0, sass.find(' ')));
      CompiledAccess c;
      c.offset = i["offset"];
      c.line = i["line"];
      const std::string space = i["space"], op = i["op"];
      c.space = space == "shared"     ? Space::Shared
                : space == "constant" ? Space::Constant
                                      : Space::Global;
      c.op = op == "load"     ? SassOp::Load
             : op == "store"  ? SassOp::Store
             : op == "reduce" ? SassOp::Reduce
                              : SassOp::Atomic;
      c.bytes = i["bytes"];
      c.predicated = i["predicated"];
      c.barriers = i.value("barriers", uint8_t(0));
      c.opcode = opcodes.back();
      accesses.push_back(c);
    }
    kernel = {"hand-made from a source page", "sm_90", accesses};
  }
};

// Per (line, shared?, load / store / atomic): instructions executed,
// wavefronts, sectors. An atomic's sectors are left out: the page's "L2
// theoretical sectors" of a RED are its distinct sectors (53 for the
// histogram's), l1tex's op_red count follows the red rule (189, warp_access.hpp),
// which the kernel totals below check.
using LineKey = std::tuple<int, bool, int>;
int op_code(const std::string& op) {
  return op == "load" ? 0 : op == "store" ? 1 : 2;
}
int op_code(EventKind k) {
  return is_load(k) ? 0 : is_store(k) ? 1 : 2;
}
struct LineCounts {
  uint64_t executed = 0, wavefronts = 0, sectors = 0;
  bool operator==(const LineCounts&) const = default;
};

std::map<LineKey, LineCounts> page_lines(const nlohmann::json& page) {
  std::map<LineKey, LineCounts> out;
  for (const auto& i : page["instructions"]) {
    const int op = op_code(i["op"].get<std::string>());
    LineCounts& c = out[{i["line"].get<int>(), i["space"] == "shared", op}];
    c.executed += i["executed"].get<uint64_t>();
    c.wavefronts += i.value("wavefronts", uint64_t(0));
    if (op != 2) c.sectors += i.value("sectors", uint64_t(0));
  }
  return out;
}

std::map<LineKey, LineCounts> our_lines(const Trace& t, const WarpAccesses& w) {
  std::map<LineKey, LineCounts> out;
  for (const SiteTotals& s : w.per_site) {
    const ArrayInfo* a = t.array(s.array);
    if (a && a->space == Space::Constant) continue;  // the pages list LDG/STG/LDS/STS/RED only
    const int op = op_code(s.kind);
    LineCounts& c = out[{int(s.line), shared_access(s.kind), op}];
    c.executed += s.totals.instructions();
    c.wavefronts += s.totals.wavefronts;
    if (op != 2) c.sectors += s.totals.sectors;
  }
  return out;
}

std::string describe(const LineKey& k, const LineCounts& c) {
  const auto [line, shared, op] = k;
  return "line " + std::to_string(line) + (shared ? " shared " : " global ") +
         (op == 0   ? "load"
          : op == 1 ? "store"
                    : "atomic") +
         ": " + std::to_string(c.executed) + " executed, " + std::to_string(c.wavefronts) +
         " wavefronts, " + std::to_string(c.sectors) + " sectors";
}

// Every line of `page` as Nsight Compute counted it, from the compiled level
// with the page's own table; returns the compiled level, whose opcodes point
// into `table` (the caller keeps it).
WarpAccesses expect_page_replayed(const nlohmann::json& page, const HandTable& table) {
  const std::string id = page["id"];
  const Trace t = simulate(id, params_of(page["params"]));
  const WarpAccesses w = compiled_warp_accesses(t, &table.kernel);
  const auto want = page_lines(page), got = our_lines(t, w);
  for (const auto& [k, c] : want) {
    const auto it = got.find(k);
    if (it == got.end()) {
      ADD_FAILURE() << id << ": nothing of " << describe(k, c);
      continue;
    }
    EXPECT_EQ(it->second, c) << id << ": ncu " << describe(k, c) << "; ours "
                             << describe(k, it->second);
  }
  return w;
}

// The pages with an instruction of property `has`.
template <class Has>
std::vector<nlohmann::json> pages_with(Has has) {
  std::vector<nlohmann::json> out;
  for (const auto& p : measured()["pages"])
    for (const auto& i : p["instructions"])
      if (has(i)) {
        out.push_back(p);
        break;
      }
  return out;
}

TEST(CompiledAccessMeasured, MergeRuleGivesTheWideLoadsNsightComputeCounted) {
  // Pages with a 16-byte shared load where the source asks for 4 bytes a lane.
  const auto pages = pages_with([](const nlohmann::json& i) {
    return i["space"] == "shared" && i["op"] == "load" && i["bytes"] == 16;
  });
  ASSERT_GE(pages.size(), 2u) << "the measurement has two kernels with LDS.128";
  for (const auto& page : pages) {
    const HandTable table(page);
    const WarpAccesses w = expect_page_replayed(page, table);
    const Trace t = simulate(page["id"], params_of(page["params"]));
    const AccessTotals& c = w.totals(EventKind::SharedLoad);
    const WarpAccesses source = warp_accesses(t);  // kept: totals() refers into it
    const AccessTotals& s = source.totals(EventKind::SharedLoad);
    EXPECT_LT(c.instructions(), s.requests) << page["id"] << ": merged, fewer instructions";
    bool merged = false;
    for (const WarpAccess& a : w.accesses)
      merged |= a.merged == 4 && a.bytes == 16 && a.opcode == "LDS.128";
    EXPECT_TRUE(merged) << page["id"];
  }
}

TEST(CompiledAccessMeasured, PredicatedRuleCountsTheIssuesWithEveryLaneOff) {
  // Pages with a predicated shared access: Nsight Compute counts every warp's issue.
  const auto pages = pages_with(
      [](const nlohmann::json& i) { return i["space"] == "shared" && i["predicated"] == true; });
  ASSERT_GE(pages.size(), 2u);
  for (const auto& page : pages) {
    const HandTable table(page);
    const WarpAccesses w = expect_page_replayed(page, table);
    uint64_t idle = 0;
    for (const WarpAccess& a : w.accesses)
      if (a.idle) {
        ++idle;
        EXPECT_EQ(a.lane_count, 0u);
        EXPECT_EQ(a.bank.wavefronts, 0);
      }
    EXPECT_GT(idle, 0u) << page["id"];
    // Idle issues are instructions, not l1tex requests: the global requests are the source's.
    const Trace t = simulate(page["id"], params_of(page["params"]));
    EXPECT_EQ(w.totals(EventKind::GlobalLoad).requests,
              warp_accesses(t).totals(EventKind::GlobalLoad).requests)
        << page["id"];
  }
}

TEST(CompiledAccessMeasured, LanesPairByAnchorsNotByCount) {
  // A page whose global loads skip lanes by a guard inside a loop (some lanes
  // execute fewer of a line's loads): its sectors line by line, at both levels.
  bool seen = false;
  for (const auto& page : measured()["pages"]) {
    bool skipping = false;
    for (const auto& i : page["instructions"])
      skipping |= i["space"] == "global" && i["op"] == "load" && i["predicated"] == true &&
                  i["predicated_on"].get<int>() < i["threads"].get<int>() &&
                  i["executed"].get<int>() > 10;
    if (!skipping) continue;
    seen = true;
    expect_page_replayed(page, HandTable(page));
    const Trace t = simulate(page["id"], params_of(page["params"]));
    uint64_t want = 0;
    for (const auto& i : page["instructions"])
      if (i["space"] == "global" && i["op"] == "load") want += i["sectors"].get<uint64_t>();
    EXPECT_EQ(warp_accesses(t).totals(EventKind::GlobalLoad).sectors, want)
        << page["id"] << ": the source level pairs lanes the same way";
  }
  EXPECT_TRUE(seen);
}

TEST(CompiledAccessMeasured, EveryPageLineByLine) {
  for (const auto& page : measured()["pages"])
    expect_page_replayed(page, HandTable(page));
}

// Every lesson at its defaults: counters.ncu (the compiled level with this
// build's table) equals what Nsight Compute measured, counter by counter.
TEST(CompiledAccessMeasured, EveryLessonAtItsDefaultsCountsAsNsightCompute) {
  int found = 0, lessons = 0, merged_stores = 0;
  for (const auto& l : measured()["lessons"]) {
    const std::string id = l["id"];
    if (!find_lesson(id)) continue;  // a lesson since removed
    ++found;
    // A lesson edited since its table was made (pending.txt) runs other code
    // than what was measured: tests/test_compiled_table.cpp keeps those few.
    if (!compiled_code_status(*lesson_index(id)).current()) continue;
    ++lessons;
    const Trace t = simulate(id, params_of(l["params"]));
    const CompiledKernel* code = compiled_kernel_for(t);
    ASSERT_NE(code, nullptr) << id << ": "
                             << compiled_code_note(*lesson_index(id), t.config.params);
    const WarpAccesses w = compiled_warp_accesses(t, code);
    for (const NcuCounter& c : ncu_counters(w))
      if (l["ncu"].contains(c.name)) {
        EXPECT_EQ(c.value, l["ncu"][c.name].get<uint64_t>()) << id << " " << c.name;
      }
    for (const WarpAccess& a : w.accesses)
      merged_stores += a.merged_line != 0;
  }
  EXPECT_GE(found, 38);
  EXPECT_GE(lessons, found * 3 / 4) << "most measured lessons' tables are stale: remake them";
  EXPECT_GT(merged_stores, 0) << "the if/else rule: one store for an if's two arms";
}

// The if/else rule alone, on a hand-made trace: lanes 0-15 store on line 10,
// lanes 16-31 on line 12, the table has one store on line 12: one instruction.
TEST(CompiledAccessRules, AnIfsTwoStoresRunAsOne) {
  Trace t;
  ArrayInfo shared;
  shared.name = "buf", shared.space = Space::Shared, shared.role = ArrayRole::Scratch;
  shared.rows = 1, shared.cols = 64;
  t.config.arrays = {shared};
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    Event e{};
    e.kind = EventKind::SharedStore, e.array = 1, e.thread = uint16_t(lane);
    e.line = lane < 16 ? 10 : 12, e.element = uint32_t(lane);
    t.events.push_back(e);
  }
  const CompiledAccess sts[] = {{0x100, 12, "", Space::Shared, SassOp::Store, 4, false, "STS"}};
  const CompiledKernel code{"hand-made", "sm_90", sts};
  EXPECT_EQ(warp_accesses(t).totals(EventKind::SharedStore).requests, 2u);
  const WarpAccesses w = compiled_warp_accesses(t, &code);
  ASSERT_EQ(w.totals(EventKind::SharedStore).instructions(), 1u);
  EXPECT_EQ(w.accesses[0].lane_count, 32u);
  EXPECT_EQ(w.accesses[0].merged_line, 10u);
  EXPECT_EQ(w.accesses[0].bank.wavefronts, 1);
  // With a store on each line the table says two instructions: no merge.
  const CompiledAccess two[] = {{0x100, 10, "", Space::Shared, SassOp::Store, 4, false, "STS"},
                                {0x110, 12, "", Space::Shared, SassOp::Store, 4, false, "STS"}};
  const CompiledKernel apart{"hand-made", "sm_90", two};
  EXPECT_EQ(compiled_warp_accesses(t, &apart).totals(EventKind::SharedStore).instructions(), 2u);
}

// The predicated rule on a hand-made trace: warp 0 stores once on line 10
// (one lane), warp 1 runs but never stores there. A partial tile in an unrolled
// loop: the table has one STS per turn, each behind its own predicate, and
// every warp issues every one of them.
TEST(CompiledAccessRules, EveryWarpIssuesEachPredicatedCopyOfAnUnrolledLine) {
  Trace t;
  ArrayInfo shared;
  shared.name = "tile", shared.space = Space::Shared, shared.role = ArrayRole::Scratch;
  shared.rows = 1, shared.cols = 64;
  t.config.arrays = {shared};
  Event store{};
  store.kind = EventKind::SharedStore, store.array = 1, store.thread = 0, store.line = 10;
  t.events.push_back(store);
  for (int lane = 0; lane < kWarpLanes; ++lane) {  // warp 1: a load elsewhere
    Event load{};
    load.kind = EventKind::SharedLoad, load.array = 1, load.line = 20;
    load.thread = uint16_t(kWarpLanes + lane), load.element = uint32_t(lane);
    t.events.push_back(load);
  }
  const auto sts = [](uint32_t at, bool predicated) {
    return CompiledAccess{at, 10, "", Space::Shared, SassOp::Store, 4, predicated, "STS"};
  };
  const CompiledAccess unrolled[] = {sts(0x100, true), sts(0x110, true), sts(0x120, true),
                                     sts(0x130, true)};
  const CompiledKernel four{"hand-made", "sm_90", unrolled};
  const WarpAccesses w = compiled_warp_accesses(t, &four);
  EXPECT_EQ(w.totals(EventKind::SharedStore).requests, 1u);  // the one with a lane on
  EXPECT_EQ(w.totals(EventKind::SharedStore).instructions(), 8u);
  EXPECT_EQ(w.totals(EventKind::SharedStore).wavefronts, 1u);
  // The last turn behind a branch (nvcc: `@P1 EXIT` then an unpredicated STS):
  // three issues each, the fourth only by a warp with a lane on.
  const CompiledAccess last_branched[] = {sts(0x100, true), sts(0x110, true), sts(0x120, true),
                                          sts(0x140, false)};
  const CompiledKernel three{"hand-made", "sm_90", last_branched};
  EXPECT_EQ(compiled_warp_accesses(t, &three).totals(EventKind::SharedStore).instructions(), 6u);
  // One STS in a loop that was not unrolled: as often as the busiest warp.
  const CompiledAccess looped[] = {sts(0x100, true)};
  const CompiledKernel one{"hand-made", "sm_90", looped};
  EXPECT_EQ(compiled_warp_accesses(t, &one).totals(EventKind::SharedStore).instructions(), 2u);
}

// Without a table entry the compiled level is the source level, every opcode empty.
TEST(CompiledAccessRules, NoTableMeansTheSourceCounts) {
  for (const auto& l : measured()["lessons"]) {
    const std::string id = l["id"];
    if (!find_lesson(id)) continue;
    const Trace t = simulate(id, params_of(l["params"]));
    const WarpAccesses s = warp_accesses(t), c = compiled_warp_accesses(t, nullptr);
    EXPECT_EQ(c.level, AccessLevel::Compiled);
    ASSERT_EQ(c.accesses.size(), s.accesses.size()) << id;
    for (const WarpAccess& a : c.accesses)
      EXPECT_TRUE(a.opcode.empty() && !a.idle && a.merged == 1) << id;
    break;  // one lesson shows it
  }
}

}  // namespace
}  // namespace ts
