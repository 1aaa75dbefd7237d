// Warp accesses (analysis/warp_access.hpp): the lanes of a trace grouped into
// warp instructions, shared-memory bank conflicts and global sectors, each
// against a count derived by hand from the kernel's indexing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/trace_validate.hpp"
#include "analysis/warp_access.hpp"
#include "cli_process.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "io/trace_file.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The first lesson with a layout toggle, plain.
std::string plain_layout_id() {
  return picks::layout_lesson().id;
}

Trace simulate(const std::string& id, const Params& p) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  EXPECT_TRUE(r.verdict.correct) << id;
  return std::move(r.trace);
}

Trace simulate_defaults(const std::string& id) {
  const LessonInfo* v = find_lesson(id);
  EXPECT_NE(v, nullptr) << id;
  return simulate(id, v ? v->defaults : Params{});
}

const SiteTotals* site(const Trace& t, const WarpAccesses& w, EventKind kind,
                       const std::string& array) {
  for (const SiteTotals& s : w.per_site)
    if (s.kind == kind && array_name(t.config.arrays, s.array) == array) return &s;
  return nullptr;
}

// ---- The rules on hand-made lanes ----

std::vector<LaneAccess> lanes_at(int bytes, auto address_of_lane) {
  std::vector<LaneAccess> v;
  for (int l = 0; l < kWarpLanes; ++l)
    v.push_back({l, uint64_t(address_of_lane(l)), bytes});
  return v;
}

TEST(WarpAccess, BroadcastIsNotAConflict) {
  // All 32 lanes read word 5: one word, one bank, one wavefront.
  const BankService one = serve_shared(lanes_at(4, [](int) { return 20; }));
  EXPECT_EQ(one.degree, 1);
  EXPECT_EQ(one.wavefronts, 1);
  EXPECT_EQ(one.conflicts(), 0);
  // Lanes in pairs on one word (lane / 2): 16 words in 16 banks, still one wavefront.
  EXPECT_EQ(serve_shared(lanes_at(4, [](int l) { return 4 * (l / 2); })).wavefronts, 1);
  // 32 words 32 apart: one bank, 32 distinct words: 32 wavefronts, 31 conflicts.
  const BankService column = serve_shared(lanes_at(4, [](int l) { return 4 * 32 * l; }));
  EXPECT_EQ(column.degree, 32);
  EXPECT_EQ(column.wavefronts, 32);
  EXPECT_EQ(column.conflicts(), 31);
  EXPECT_EQ(column.busiest_bank, 0);
  // Stride 2 words: banks 0, 2, .., 30 twice each (lanes l and l + 16): 2-way.
  EXPECT_EQ(serve_shared(lanes_at(4, [](int l) { return 8 * l; })).degree, 2);
  // Stride 33 words (the padded column): banks l % 32, all distinct.
  EXPECT_EQ(serve_shared(lanes_at(4, [](int l) { return 4 * 33 * l; })).degree, 1);
}

TEST(WarpAccess, WideAccessesAreServedByPhases) {
  // 8 bytes per lane, contiguous: half-warp 0 covers words 0..31 (each bank
  // once), half-warp 1 words 32..63: 2 phases of 1 wavefront, no conflict.
  const BankService dense = serve_shared(lanes_at(8, [](int l) { return 8 * l; }));
  EXPECT_EQ(dense.phases, 2);
  EXPECT_EQ(dense.wavefronts, 2);
  EXPECT_EQ(dense.conflicts(), 0);
  // 8 bytes every 16: lane l covers words 4l, 4l + 1; in a half-warp lanes l
  // and l + 8 meet in banks 4l % 32 and (4l + 1) % 32 with different words:
  // 2-way in each half-warp, 4 wavefronts for an ideal 2.
  const BankService strided = serve_shared(lanes_at(8, [](int l) { return 16 * l; }));
  EXPECT_EQ(strided.degree, 2);
  EXPECT_EQ(strided.wavefronts, 4);
  EXPECT_EQ(strided.conflicts(), 2);
  // 16 bytes per lane, contiguous: 4 quarter-warps of 8 lanes x 4 words = 32 banks each.
  const BankService quad = serve_shared(lanes_at(16, [](int l) { return 16 * l; }));
  EXPECT_EQ(quad.phases, 4);
  EXPECT_EQ(quad.wavefronts, 4);
  // The SGEMM register tile's reads, as Nsight Compute counted them on an H100:
  // a column (quarter-warp q all on float4 q: the quarters touch banks 4q..4q+3,
  // none in common) takes 2 wavefronts, one per half-warp; a row (each quarter
  // the same 8 float4, every bank) takes 4.
  const BankService column = serve_shared(lanes_at(16, [](int l) { return 16 * (l / 8); }));
  EXPECT_EQ(column.wavefronts, 2);
  EXPECT_EQ(column.conflicts(), 0);
  const BankService row = serve_shared(lanes_at(16, [](int l) { return 16 * (l % 8); }));
  EXPECT_EQ(row.wavefronts, 4);
  EXPECT_EQ(row.conflicts(), 0);
  // Global: 32 lanes x 8 contiguous bytes = 256 bytes: 8 sectors, 2 lines, ideal 8.
  const SectorService g = serve_global(lanes_at(8, [](int l) { return 8 * l; }));
  EXPECT_EQ(g.sectors, 8);
  EXPECT_EQ(g.lines, 2);
  EXPECT_EQ(g.ideal_sectors, 8);
}

// A hand-made trace of 8-byte accesses, through the whole grouping.
TEST(WarpAccess, HandMadeTraceOfEightByteAccesses) {
  Trace t;
  ArrayInfo shared;
  shared.name = "buf", shared.space = Space::Shared, shared.role = ArrayRole::Scratch;
  shared.rows = 1, shared.cols = 256, shared.shared_offset = 64;  // starts at bank 16
  ArrayInfo global;
  global.name = "g", global.rows = 1, global.cols = 256;
  t.config.arrays = {shared, global};
  uint16_t instr[kWarpLanes] = {};
  auto add = [&](EventKind kind, ArraySlot slot, uint16_t line, int lane, uint32_t element) {
    Event e{};
    e.kind = kind, e.array = slot, e.line = line, e.thread = uint16_t(lane);
    e.element = element, e.flags = width_flags(8), e.instr = instr[lane]++;
    t.events.push_back(e);
  };
  // Line 10, twice: every lane stores 8 bytes at element 2 * lane (contiguous),
  // then at element 4 * lane (8 bytes every 16). The offset only rotates banks.
  for (int pass = 0; pass < 2; ++pass)
    for (int lane = 0; lane < kWarpLanes; ++lane)
      add(EventKind::SharedStore, 1, 10, lane, uint32_t((pass ? 4 : 2) * lane));
  // Line 11: lane l loads g[2l], 8 bytes: 256 contiguous bytes.
  for (int lane = 0; lane < kWarpLanes; ++lane)
    add(EventKind::GlobalLoad, 2, 11, lane, uint32_t(2 * lane));

  const WarpAccesses w = warp_accesses(t);
  ASSERT_EQ(w.accesses.size(), 3u);  // line 10 twice (k = 0, 1), line 11 once
  EXPECT_EQ(w.accesses[0].instance, 0u);
  EXPECT_EQ(w.accesses[1].instance, 1u);
  EXPECT_EQ(w.accesses[0].lane_mask, 0xFFFFFFFFu);
  EXPECT_EQ(w.accesses[0].bytes, 8);
  const AccessTotals& st = w.totals(EventKind::SharedStore);
  EXPECT_EQ(st.requests, 2u);
  EXPECT_EQ(st.wavefronts, 2u + 4u);  // contiguous: 2 phases x 1; strided: 2 phases x 2
  EXPECT_EQ(st.ideal_wavefronts, 4u);
  EXPECT_EQ(st.bank_conflicts(), 2u);
  const AccessTotals& ld = w.totals(EventKind::GlobalLoad);
  EXPECT_EQ(ld.requests, 1u);
  EXPECT_EQ(ld.sectors, 8u);
  EXPECT_EQ(ld.lines, 2u);
  // The lane x bank view's input: lane 1 of the contiguous store starts at byte 64 + 8.
  const std::vector<LaneAccess> lanes = lane_accesses(t, w, w.accesses[0]);
  ASSERT_EQ(lanes.size(), 32u);
  EXPECT_EQ(lanes[1].address, 72u);
  EXPECT_EQ(bank_of(lanes[1].address), 18);
}

TEST(WarpAccess, SixteenByteAccessIsOneLaneAccessOfFourEvents) {
  // A float4 access is recorded as four events per lane (elements 4l .. 4l + 3,
  // each flagged 16 bytes wide); the warp instruction counts it once.
  Trace t;
  ArrayInfo shared;
  shared.name = "tile", shared.space = Space::Shared, shared.role = ArrayRole::Scratch;
  shared.rows = 1, shared.cols = 256;
  ArrayInfo global;
  global.name = "g", global.rows = 1, global.cols = 256;
  t.config.arrays = {shared, global};
  uint16_t instr[kWarpLanes] = {};
  auto add4 = [&](EventKind kind, ArraySlot slot, uint16_t line, int lane, uint32_t first) {
    for (uint32_t j = 0; j < 4; ++j) {
      Event e{};
      e.kind = kind, e.array = slot, e.line = line, e.thread = uint16_t(lane);
      e.element = first + j, e.flags = width_flags(16), e.instr = instr[lane]++;
      e.value = float(first + j);
      t.events.push_back(e);
    }
  };
  // Line 20: lane l loads g[4l .. 4l + 3]: 512 contiguous bytes.
  for (int lane = 0; lane < kWarpLanes; ++lane)
    add4(EventKind::GlobalLoad, 2, 20, lane, uint32_t(4 * lane));
  // Line 21: lane l stores tile[4l .. 4l + 3]: conflict-free, four phases of 8 lanes.
  for (int lane = 0; lane < kWarpLanes; ++lane)
    add4(EventKind::SharedStore, 1, 21, lane, uint32_t(4 * lane));
  // Line 22: lane l stores tile[8l .. 8l + 3] (stride 32 bytes): each phase of 8
  // lanes covers 256 bytes, so every bank is asked for two words: 2 wavefronts.
  for (int lane = 0; lane < kWarpLanes; ++lane)
    add4(EventKind::SharedStore, 1, 22, lane, uint32_t(8 * lane % 256));

  const WarpAccesses w = warp_accesses(t);
  ASSERT_EQ(w.accesses.size(), 3u);
  EXPECT_EQ(w.accesses[0].lane_count, 32u);
  EXPECT_EQ(w.accesses[0].bytes, 16);
  const AccessTotals& ld = w.totals(EventKind::GlobalLoad);
  EXPECT_EQ(ld.requests, 1u);
  EXPECT_EQ(ld.sectors, 16u);
  EXPECT_EQ(ld.ideal_sectors, 16u);
  const AccessTotals& st = w.totals(EventKind::SharedStore);
  EXPECT_EQ(st.requests, 2u);
  EXPECT_EQ(st.ideal_wavefronts, 8u);
  EXPECT_EQ(st.wavefronts, 4u + 8u);
  // A lane's event is the first element's: its value, its address.
  const std::vector<LaneAccess> lanes = lane_accesses(t, w, w.accesses[1]);
  EXPECT_EQ(lanes[3].address, 48u);
  EXPECT_EQ(lanes[3].bytes, 16);
  EXPECT_EQ(t.events[w.lanes_of(w.accesses[1])[3]].element, 12u);
}

// ---- Lessons on the simulator, against closed forms ----

TEST(WarpAccess, TransposeSharedColumnReadIs32WayPerFullWarp) {
  // m = n = 64: 2 x 2 full blocks of 32 warps. The column read tile[tx][ty]
  // puts lane tx on word tx * 32 + ty: one bank (ty), 32 distinct words, so
  // each of the 4 * 32 = 128 warp reads takes 32 wavefronts (31 extra).
  const Trace t = simulate(plain_layout_id(), Params{.m = 64, .n = 64});
  const WarpAccesses w = warp_accesses(t);
  const AccessTotals& ld = w.totals(EventKind::SharedLoad);
  EXPECT_EQ(ld.requests, 128u);
  EXPECT_EQ(ld.wavefronts, 128u * 32u);
  EXPECT_EQ(ld.bank_conflicts(), 128u * 31u);
  EXPECT_EQ(ld.worst_degree, 32);
  // The row store tile[ty][tx]: words ty * 32 + 0..31, all 32 banks: no conflict.
  const AccessTotals& st = w.totals(EventKind::SharedStore);
  EXPECT_EQ(st.requests, 128u);
  EXPECT_EQ(st.wavefronts, 128u);
  EXPECT_EQ(st.bank_conflicts(), 0u);
}

TEST(WarpAccess, TransposeSharedAtItsDefaults) {
  // m = 40, n = 48: blocks 2 x 2. Column reads: rows of out are 48 (bx = 0: 32
  // warps, bx = 1: 16), lanes are columns of out, 40 (by = 0: 32 lanes, by = 1:
  // 8). 96 warp reads; each lane its own wavefront (one bank): 48 * 32 + 48 * 8
  // = 1920 = m * n wavefronts, 1920 - 96 = 1824 conflicts.
  const Trace t = simulate_defaults(plain_layout_id());
  const WarpAccesses w = warp_accesses(t);
  const AccessTotals& ld = w.totals(EventKind::SharedLoad);
  EXPECT_EQ(ld.requests, 96u);
  EXPECT_EQ(ld.wavefronts, 1920u);
  EXPECT_EQ(ld.bank_conflicts(), 1824u);
  // Row stores: 40 rows of in, 2 warps each (32 and 16 lanes): 80, conflict-free.
  EXPECT_EQ(w.totals(EventKind::SharedStore).requests, 80u);
  EXPECT_EQ(w.totals(EventKind::SharedStore).bank_conflicts(), 0u);
  const SiteTotals* column = site(t, w, EventKind::SharedLoad, "tile");
  ASSERT_NE(column, nullptr);
  EXPECT_EQ(access_text(t, column->line, column->array), "tile[tx][ty]");
}

TEST(WarpAccess, PaddedTransposeHasNoConflicts) {
  // tile[32][33]: lane tx reads word tx * 33 + ty, bank (tx + ty) % 32: 32
  // different banks. Stores: ty * 33 + tx, 32 consecutive words. 0 conflicts,
  // one wavefront per warp access; the same access counts as transpose.shared.
  for (const Params& p : {Params{.m = 40, .n = 48}, Params{.m = 64, .n = 64}}) {
    const Trace t = simulate(picks::padded_layout_lesson().id, p);
    const WarpAccesses w = warp_accesses(t);
    for (EventKind k : {EventKind::SharedLoad, EventKind::SharedStore}) {
      const AccessTotals& a = w.totals(k);
      EXPECT_EQ(a.bank_conflicts(), 0u) << to_string(k);
      EXPECT_EQ(a.wavefronts, a.requests) << to_string(k);
      EXPECT_EQ(a.worst_degree, 1) << to_string(k);
    }
    const uint64_t warps = p.m == 64 ? 128u : 96u;
    EXPECT_EQ(w.totals(EventKind::SharedLoad).requests, warps);
  }
  // The table has the padded shape: element = row * 33 + col.
  const Trace t = simulate_defaults(picks::padded_layout_lesson().id);
  const ArrayInfo* tile = t.array(3);
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(tile->rows, 32);
  EXPECT_EQ(tile->cols, 33);
  for (const Event& e : t.events) {
    if (is_shared(e.kind)) {
      EXPECT_NE(e.element % 33, 32u) << "the spare column is never touched";
    }
  }
}

TEST(WarpAccess, SwizzledTransposeHasNoConflictsAndNoPadding) {
  // tile[r][c ^ r]: the column read by lanes tx = 0..31 at row tx, column
  // ty ^ tx is word tx * 32 + (ty ^ tx), bank ty ^ tx: 32 different banks.
  // The row store at column tx ^ ty: a permutation of one row. 0 conflicts,
  // the same requests as transpose.shared, and the tile keeps 32 columns.
  for (const Params& p : {Params{.m = 40, .n = 48}, Params{.m = 64, .n = 64}}) {
    const Trace t = simulate(picks::swizzled_layout_lesson().id, p);
    const WarpAccesses w = warp_accesses(t);
    for (EventKind k : {EventKind::SharedLoad, EventKind::SharedStore}) {
      const AccessTotals& a = w.totals(k);
      EXPECT_EQ(a.bank_conflicts(), 0u) << to_string(k);
      EXPECT_EQ(a.wavefronts, a.requests) << to_string(k);
    }
    const Trace plain = simulate(plain_layout_id(), p);
    EXPECT_EQ(w.totals(EventKind::SharedLoad).requests,
              warp_accesses(plain).totals(EventKind::SharedLoad).requests);
    const ArrayInfo* tile = t.array(3);
    ASSERT_NE(tile, nullptr);
    EXPECT_EQ(tile->cols, 32);
    // Element (r, c) of the block's square sits at word r * 32 + (c ^ r): the
    // load by thread (tx, ty) reads word tx * 32 + (ty ^ tx).
    for (const Event& e : t.events)
      if (e.kind == EventKind::SharedLoad) {
        const uint32_t tx = e.thread % 32, ty = e.thread / 32;
        EXPECT_EQ(e.element, tx * 32 + (ty ^ tx));
      }
  }
}

TEST(WarpAccess, NaiveTransposeStoresOneSectorPerLane) {
  // m = n = 64, full warps. Loads in[row * 64 + col]: 32 floats from a
  // 128-byte boundary: 4 sectors, 1 line per request. Stores out[col * 64 +
  // row]: lanes 256 bytes apart: 32 sectors, 32 lines per request.
  const Trace t = simulate(picks::layout_family_naive_lesson().id, Params{.m = 64, .n = 64});
  const WarpAccesses w = warp_accesses(t);
  const AccessTotals& ld = w.totals(EventKind::GlobalLoad);
  const AccessTotals& st = w.totals(EventKind::GlobalStore);
  EXPECT_EQ(ld.requests, 128u);  // 64 rows x 2 warps
  EXPECT_EQ(ld.sectors, 128u * 4u);
  EXPECT_EQ(ld.lines, 128u);
  EXPECT_DOUBLE_EQ(ld.sectors_per_request(), 4.0);
  EXPECT_EQ(st.requests, 128u);
  EXPECT_EQ(st.sectors, 128u * 32u);
  EXPECT_EQ(st.lines, 128u * 32u);
  EXPECT_DOUBLE_EQ(st.sectors_per_request(), 32.0);
  EXPECT_DOUBLE_EQ(st.ideal_sectors_per_request(), 4.0);
  // At the defaults (40 x 48): a row of in is 48 floats = 192 bytes = 6
  // sectors, 4 for the full warp and 2 for the 16-lane one: 40 * 6 = 240
  // sectors for 80 requests; every store its own sector: 40 * 48 = 1920.
  const WarpAccesses d = warp_accesses(simulate_defaults(picks::layout_family_naive_lesson().id));
  EXPECT_EQ(d.totals(EventKind::GlobalLoad).requests, 80u);
  EXPECT_EQ(d.totals(EventKind::GlobalLoad).sectors, 240u);
  EXPECT_EQ(d.totals(EventKind::GlobalStore).sectors, 1920u);
}

TEST(WarpAccess, TiledSquareReadsAreBroadcastsOrConflictFree) {
  // n = 32, one warp = 32 / T rows of T threads. tileA[ty][kk]: 32 / T words
  // (one per row, T apart: distinct banks), each read by the T lanes of its
  // row (broadcast): 1 wavefront. tileB[kk][tx]: T consecutive words, each
  // read by 32 / T lanes: 1 wavefront. Stores tileX[ty][tx]: 32 consecutive
  // words. Requests of each tile read: T per warp and tile step; warps x steps
  // = (n * n / 32) * (n / T).
  for (int tile : {8, 16, 32}) {
    const int n = 32;
    const Trace t = simulate(picks::default_lesson().id, Params{.n = n, .tile = tile});
    const WarpAccesses w = warp_accesses(t);
    const uint64_t warp_steps = uint64_t(n * n / 32) * uint64_t(n / tile);
    for (const char* name : {"tileA", "tileB"}) {
      const SiteTotals* s = site(t, w, EventKind::SharedLoad, name);
      ASSERT_NE(s, nullptr) << name;
      EXPECT_EQ(s->totals.requests, warp_steps * uint64_t(tile)) << name << " tile " << tile;
      EXPECT_EQ(s->totals.wavefronts, s->totals.requests) << name << " tile " << tile;
      EXPECT_EQ(s->totals.worst_degree, 1) << name << " tile " << tile;
    }
    EXPECT_EQ(w.totals(EventKind::SharedStore).bank_conflicts(), 0u);
    // The loads of A: 32 / T rows of T floats from a T * 4-byte boundary (n is
    // a multiple of T): 128 bytes in 4 sectors, the ideal.
    const SiteTotals* a = site(t, w, EventKind::GlobalLoad, "A");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->totals.requests, warp_steps);
    EXPECT_EQ(a->totals.sectors, 4 * warp_steps) << "tile " << tile;
    // tileB starts after tileA's T * T floats (declaration order, packed).
    EXPECT_EQ(t.array(slot_named(t.config.arrays, "tileB"))->shared_offset,
              uint32_t(4 * tile * tile));
  }
}

TEST(WarpAccess, DivergentLanesReconvergeOnTheNextLine) {
  // stencil.shared (length 150, radius 3, block 64): lanes 0..2 load two halo
  // cells more than the others, so their event numbers run 4 ahead of their
  // warp's other lanes; the GPU still runs the sum's loop as one instruction
  // per iteration. Warps with lanes in range: blocks 0 and 1 two each, block 2
  // one (22 elements): 5 warps x (2R + 1) = 35 warp reads, all 22 or 32 lanes.
  const Trace t = simulate_defaults(picks::halo_lesson(picks::Halo::StaticShared).id);
  const WarpAccesses w = warp_accesses(t);
  const AccessTotals& ld = w.totals(EventKind::SharedLoad);
  EXPECT_EQ(ld.requests, 35u);
  EXPECT_EQ(ld.lanes, uint64_t(150 * 7));
  for (const WarpAccess& a : w.accesses) {
    if (a.kind == EventKind::SharedLoad) {
      EXPECT_TRUE(a.lane_count == 32 || a.lane_count == 22) << int(a.lane_count);
    }
  }
  EXPECT_EQ(ld.bank_conflicts(), 0u);  // 32 consecutive words
  // The halo stores: one per block and line, 3 lanes each.
  EXPECT_EQ(w.totals(EventKind::SharedStore).requests, 6u + 6u);
}

TEST(WarpAccess, SharedOffsetTravelsInTheTraceFile) {
  const Trace t = simulate(picks::default_lesson().id, Params{.n = 16, .tile = 8});
  std::string error;
  const auto back = parse_trace(serialize_trace(t), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->config.arrays, t.config.arrays);
  EXPECT_EQ(back->array(slot_named(back->config.arrays, "tileB"))->shared_offset, 256u);
  // A table whose offset is not the lesson's is not this lesson's run.
  Trace moved = t;
  moved.config.arrays[slot_named(moved.config.arrays, "tileB") - 1].shared_offset = 128;
  const auto why = check_trace_semantics(moved);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("shared offset 128"), std::string::npos) << *why;
}

#ifdef TS_CLI_PATH
TEST(WarpAccess, RunJsonHasNsightComputeNames) {
  const auto r = testing::run_cli("run " + plain_layout_id() + " --backend sim --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto& ncu = j.at("counters").at("ncu");
  // The defaults' numbers from TransposeSharedAtItsDefaults and the naive loads.
  EXPECT_EQ(ncu.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 1824);
  EXPECT_EQ(ncu.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), 0);
  EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 1920);
  EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"), 80);
  EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 80);
  EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 240);
  EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 96);
  EXPECT_TRUE(ncu.contains("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"));
  const auto text = testing::run_cli("run " + plain_layout_id() + " --backend sim", false);
  EXPECT_NE(text.out.find("shared loads: 96 warp accesses, 1,920 wavefronts"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("tile[tx][ty]: up to 32-way conflicts"), std::string::npos) << text.out;
}
#endif

}  // namespace
}  // namespace ts

namespace ts {
namespace {

std::vector<LaneAccess> probe_lanes(int bytes, auto address_of_lane) {
  std::vector<LaneAccess> v;
  for (int l = 0; l < kWarpLanes; ++l)
    v.push_back({l, uint64_t(address_of_lane(l)), bytes});
  return v;
}

// The rules derived from the H200 bank probe (analysis/warp_access.hpp).
TEST(WarpAccess, ProbeRulesLoadsStoresAtomicsAndReds) {
  // LDS.64 of one element: one pass over the whole warp (#127: 1), a store 2 (#409).
  const auto bcast8 = probe_lanes(8, [](int) { return 40; });
  EXPECT_EQ(serve_shared(bcast8, EventKind::SharedLoad).wavefronts, 1);
  EXPECT_EQ(serve_shared(bcast8, EventKind::SharedStore).wavefronts, 2);
  // LDS.64 lanes l%4 on 4 elements: a quad asks 32 bytes, half-warps (#134: 2 / 0).
  EXPECT_EQ(serve_shared(probe_lanes(8, [](int l) { return 8 * (l % 4); })).wavefronts, 2);
  // LDS.64 4-lane groups 128 bytes apart: whole warp, bank 0 holds 4 words (#136: 4 / 3).
  const BankService by8 = serve_shared(probe_lanes(8, [](int l) { return 64 * (l / 4); }));
  EXPECT_EQ(by8.wavefronts, 4);
  EXPECT_EQ(by8.conflicts(), 3);
  // LDS.128 pairs: half-warps (#225: 2); STS.128 pairs: quarter-warps (#507: 4).
  const auto pairs16 = probe_lanes(16, [](int l) { return 16 * (l / 2); });
  EXPECT_EQ(serve_shared(pairs16, EventKind::SharedLoad).wavefronts, 2);
  EXPECT_EQ(serve_shared(pairs16, EventKind::SharedStore).wavefronts, 4);
  // ATOMS.ADD of per-lane values, all lanes on one word: 32 / 31 (#597);
  // one value for all lanes: like a load, 1.
  const auto one_word = probe_lanes(4, [](int) { return 0; });
  const BankService atom = serve_shared(one_word, EventKind::SharedAtomic, AtomicOperand::PerLane);
  EXPECT_EQ(atom.wavefronts, 32);
  EXPECT_EQ(atom.conflicts(), 31);
  EXPECT_EQ(serve_shared(one_word, EventKind::SharedAtomic).wavefronts, 1);
  // RED: lanes alternate two words of one sector: 16 sectors (#847); a load 1.
  const auto two = probe_lanes(4, [](int l) { return 4 * (l % 2); });
  EXPECT_EQ(serve_global(two, EventKind::GlobalAtomic).sectors, 16);
  EXPECT_EQ(serve_global(two, EventKind::GlobalLoad).sectors, 1);
}

}  // namespace
}  // namespace ts
