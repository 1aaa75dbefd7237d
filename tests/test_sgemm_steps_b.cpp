// SGEMM ladder steps 6, 7 and 8 (lessons/sgemm_vectorized.hpp,
// sgemm_conflict_free.hpp, sgemm_warptile.hpp) on the simulator: right output,
// event counts derived by hand from the kernels, the refusals, and what each
// step is about in the warp analysis: float4 accesses counted once per lane
// (step 6), the transposed stores' bank conflicts gone (step 7), conflict-free
// inner-loop reads from compact warp tiles (step 8). And trace validation of
// the 16-byte events these lessons record.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/trace_validate.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

const char* vectorized_id() {
  return picks::ladder_step(6).id;
}
const char* conflict_free_id() {
  return picks::ladder_step(7).id;
}
const char* warptile_id() {
  return picks::ladder_step(8).id;
}

Trace simulate(const std::string& id, const Params& p) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  EXPECT_TRUE(r.verdict.checked) << id;
  EXPECT_TRUE(r.verdict.correct) << id << " " << describe(*find_lesson(id), p) << ": "
                                 << r.verdict.summary();
  EXPECT_TRUE(r.faults.empty()) << id << ": " << (r.faults.empty() ? "" : r.faults[0]);
  return std::move(r.trace);
}

// The totals of every site (line) of one kind on one array.
AccessTotals totals_of(const Trace& t, const WarpAccesses& w, EventKind kind,
                       const std::string& array) {
  AccessTotals sum;
  for (const SiteTotals& s : w.per_site)
    if (s.kind == kind && array_name(t.config.arrays, s.array) == array) {
      sum.requests += s.totals.requests, sum.lanes += s.totals.lanes;
      sum.wavefronts += s.totals.wavefronts, sum.ideal_wavefronts += s.totals.ideal_wavefronts;
      sum.sectors += s.totals.sectors, sum.ideal_sectors += s.totals.ideal_sectors;
    }
  return sum;
}

uint64_t count_kind(const Trace& t, EventKind kind, const std::string& array) {
  return uint64_t(std::count_if(t.events.begin(), t.events.end(), [&](const Event& e) {
    return e.kind == kind && array_name(t.config.arrays, e.array) == array;
  }));
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// ---- Output and counts ----

struct HandCounts {
  const char* id;
  Params p;
  uint64_t global_loads, shared_loads, barrier_arrivals;
};

TEST(SgemmStepsB, RightOutputAndHandCountsAt64And128) {
  // Global loads: every block loads BM x BK of A and BK x BN of B per k step:
  // n^3 / BN + n^3 / BM events (a float4 is 4 events), as many shared stores.
  // Shared loads: every thread reads its rows of As and columns of Bs per k:
  // (threads = n^2 / outputs per thread) x n x (rows + columns).
  // Barriers: 2 per thread and k step of 8. C: n^2 stores.
  const std::vector<HandCounts> cases = {
      // 32: 4 x 4 a thread, 256 threads at n = 64.
      {vectorized_id(), {.n = 64, .tile = 32}, 2 * 64 * 64 * 2, 256 * 64 * 8, 256 * 2 * 8},
      {vectorized_id(), {.n = 128, .tile = 32}, 2 * 128 * 128 * 4, 1024 * 128 * 8, 1024 * 2 * 16},
      // 64: 8 x 8 a thread, 64 threads at n = 64.
      {vectorized_id(), {.n = 64, .tile = 64}, 2 * 64 * 64, 64 * 64 * 16, 64 * 2 * 8},
      {vectorized_id(), {.n = 128, .tile = 64}, 2 * 128 * 128 * 2, 256 * 128 * 16, 256 * 2 * 16},
      {conflict_free_id(), {.n = 64, .tile = 32}, 2 * 64 * 64 * 2, 256 * 64 * 8, 256 * 2 * 8},
      {conflict_free_id(), {.n = 128, .tile = 64}, 2 * 128 * 128 * 2, 256 * 128 * 16, 256 * 2 * 16},
      // Warp tiles: 32: 4 x 4 a thread; 64: 2 x 2 sub-tiles of 4 x 4 = 8 x 8 a thread.
      {warptile_id(), {.n = 64, .tile = 32}, 2 * 64 * 64 * 2, 256 * 64 * 8, 256 * 2 * 8},
      {warptile_id(), {.n = 128, .tile = 32}, 2 * 128 * 128 * 4, 1024 * 128 * 8, 1024 * 2 * 16},
      {warptile_id(), {.n = 64, .tile = 64}, 2 * 64 * 64, 64 * 64 * 16, 64 * 2 * 8},
      {warptile_id(), {.n = 128, .tile = 64}, 2 * 128 * 128 * 2, 256 * 128 * 16, 256 * 2 * 16},
  };
  for (const HandCounts& c : cases) {
    const LessonInfo& v = *find_lesson(c.id);
    const std::string what = std::string(c.id) + " " + describe(v, c.p);
    const Trace t = simulate(c.id, c.p);
    const ExpectedCounts want = expected_counts(v, c.p);
    EXPECT_EQ(want.global_loads, c.global_loads) << what;
    EXPECT_EQ(want.shared_stores, c.global_loads) << what;
    EXPECT_EQ(want.shared_loads, c.shared_loads) << what;
    EXPECT_EQ(want.barrier_arrivals, c.barrier_arrivals) << what;
    EXPECT_EQ(want.global_stores, uint64_t(c.p.n * c.p.n)) << what;
    uint64_t gl = 0, gs = 0, sl = 0, ss = 0, arrive = 0;
    for (const Event& e : t.events) {
      gl += e.kind == EventKind::GlobalLoad, gs += e.kind == EventKind::GlobalStore;
      sl += e.kind == EventKind::SharedLoad, ss += e.kind == EventKind::SharedStore;
      arrive += e.kind == EventKind::BarrierArrive;
    }
    EXPECT_EQ(gl, c.global_loads) << what;
    EXPECT_EQ(ss, c.global_loads) << what;
    EXPECT_EQ(sl, c.shared_loads) << what;
    EXPECT_EQ(arrive, c.barrier_arrivals) << what;
    EXPECT_EQ(gs, uint64_t(c.p.n * c.p.n)) << what;
    EXPECT_EQ(t.events.size(), want.total()) << what;
  }
}

TEST(SgemmStepsB, TheTunedShapesRunOnTheSimulatorToo) {
  // n = 128, block tile 128: one block of 256 threads, 8 x 8 outputs each.
  for (const char* id : {vectorized_id(), conflict_free_id(), warptile_id()}) {
    const Params p{.n = 128, .tile = 128};
    const Trace t = simulate(id, p);
    EXPECT_EQ(t.config.geometry.block.count(), 256u) << id;
    EXPECT_EQ(t.config.geometry.grid.count(), 1u) << id;
    EXPECT_EQ(t.events.size(), expected_counts(*find_lesson(id), p).total()) << id;
  }
}

TEST(SgemmStepsB, DefaultsAreSmallEnoughToReplay) {
  for (const char* id : {vectorized_id(), conflict_free_id(), warptile_id()}) {
    const LessonInfo& v = *find_lesson(id);
    EXPECT_EQ(v.defaults.n, 64) << id;
    EXPECT_LT(expected_counts(v, v.defaults).total(), 300000u) << id;
    EXPECT_GE(warps_per_block(v, v.defaults), 2) << id << ": the barriers need two warps to matter";
    EXPECT_EQ(std::string(v.ladder), "sgemm");
    EXPECT_EQ(v.tile_choices, (std::vector<int>{32, 64, 128})) << id;
  }
}

TEST(SgemmStepsB, RefusesSizesThatAreNotWholeTilesAndOtherTiles) {
  for (const char* id : {vectorized_id(), conflict_free_id(), warptile_id()}) {
    const LessonInfo& v = *find_lesson(id);
    const auto odd = validate(v, Params{.n = 100, .tile = 32}, DeviceLimits{});
    ASSERT_TRUE(odd) << id;
    EXPECT_HAS(*odd, "n = 100: " + std::string(id) +
                         " computes whole 32 x 32 tiles of C (k steps of 8) with no bounds "
                         "checks; use a multiple of 32 (32, 64, 96, ...)");
    const auto small = validate(v, Params{.n = 64, .tile = 128}, DeviceLimits{});
    ASSERT_TRUE(small) << id;
    EXPECT_HAS(*small, "use a multiple of 128");
    const auto other = validate(v, Params{.n = 64, .tile = 16}, DeviceLimits{});
    ASSERT_TRUE(other) << id;
    EXPECT_HAS(*other,
               "tile 16: " + std::string(id) + " is compiled for block tiles 32, 64 or 128");
    for (int tile : {32, 64})
      EXPECT_EQ(validate(v, Params{.n = 128, .tile = tile}, DeviceLimits{}), std::nullopt) << id;
    // The tuned shape's 256 threads do not fit a device of 128 threads per block.
    DeviceLimits lim;
    lim.max_threads_per_block = 128;
    const auto big = validate(v, Params{.n = 128, .tile = 128}, lim);
    ASSERT_TRUE(big) << id;
    EXPECT_HAS(*big, "256 threads per block");
  }
}

// ---- Step 6: 128-bit accesses ----

TEST(SgemmStepsB, InnerLoopReadsAreSixteenByteWarpAccesses) {
  // n = 64, tile 32: 4 blocks of 2 warps, 8 k steps of 8. Per k a thread
  // reads one float4 of As (TM = 4) and one of Bs (TN = 4): 4 events, one
  // lane access. Requests per tile: 4 blocks x 2 warps x 64 k = 512.
  for (const char* id : {vectorized_id(), conflict_free_id(), warptile_id()}) {
    const Trace t = simulate(id, Params{.n = 64, .tile = 32});
    const WarpAccesses w = warp_accesses(t);
    for (const char* tile : {"As", "Bs"}) {
      const AccessTotals a = totals_of(t, w, EventKind::SharedLoad, tile);
      EXPECT_EQ(count_kind(t, EventKind::SharedLoad, tile), 256u * 64u * 4u) << id << " " << tile;
      EXPECT_EQ(a.lanes, 256u * 64u) << id << " " << tile << ": one lane access per float4";
      EXPECT_EQ(a.requests, 512u) << id << " " << tile;
      // 16 bytes a lane, served by quarter-warps: a row of Bs (each quarter the
      // same 8 float4, every bank) takes 4 a request; a column of As (each
      // quarter one float4, side by side) 2, two quarters a wavefront, as
      // Nsight Compute counted on an H100 (docs/measurements.md, session 6).
      EXPECT_EQ(a.ideal_wavefronts, (std::string(tile) == "As" ? 2u : 4u) * 512u)
          << id << " " << tile;
    }
    for (const WarpAccess& a : w.accesses) {
      if (a.kind == EventKind::SharedLoad) {
        EXPECT_EQ(a.bytes, 16) << id;
        EXPECT_EQ(a.lane_count, 32) << id;
      }
    }
  }
}

TEST(SgemmStepsB, GlobalLoadsAndStoresAreSixteenBytesWithIdealSectors) {
  // A warp's float4s: of A, 16 rows x 32 bytes (each one sector); of B (BN =
  // 32), 4 rows x 128 bytes. 32 lanes x 16 bytes = 512 bytes = 16 sectors,
  // the ideal. Requests: A and B are n^3 / 32 = 8192 events each at n = 64,
  // 2048 float4s, 64 warp requests. The C stores: n^2 / 4 float4s.
  for (const char* id : {vectorized_id(), conflict_free_id(), warptile_id()})
    for (int tile : {32, 64}) {
      const Params p{.n = 64, .tile = tile};
      const Trace t = simulate(id, p);
      const WarpAccesses w = warp_accesses(t);
      const std::string what = std::string(id) + " tile " + std::to_string(tile);
      for (const char* m : {"A", "B"}) {
        const AccessTotals a = totals_of(t, w, EventKind::GlobalLoad, m);
        EXPECT_EQ(a.lanes * 4, count_kind(t, EventKind::GlobalLoad, m)) << what << " " << m;
        EXPECT_EQ(a.requests * 32, a.lanes) << what << " " << m;
        EXPECT_EQ(a.ideal_sectors, 16 * a.requests) << what << " " << m;
        EXPECT_EQ(a.sectors, a.ideal_sectors) << what << " " << m;
        if (tile == 32) {
          EXPECT_EQ(a.requests, 64u) << what << " " << m;
        }
      }
      const AccessTotals c = totals_of(t, w, EventKind::GlobalStore, "C");
      EXPECT_EQ(c.lanes, 64u * 64u / 4u) << what;
      for (const WarpAccess& a : w.accesses) {
        if (a.kind == EventKind::GlobalLoad || a.kind == EventKind::GlobalStore) {
          EXPECT_EQ(a.bytes, 16) << what;
        }
      }
    }
}

// ---- Step 7: the transposed stores without bank conflicts ----

TEST(SgemmStepsB, PaddingAsRemovesTheTransposedStoresConflicts) {
  // A warp stores a float4 of A's tile as four scalar stores As[a_col + j][m]
  // (lines x, y, z, w): lanes 2m store row j, lanes 2m + 1 row 4 + j, both at
  // column m = 0..15. Rows BM floats long (a multiple of 32 banks): both rows
  // start in bank 0, each bank gets two words: 2 wavefronts, 1 conflict per
  // request. Rows of BM + 4: row 4 + j starts 16 banks on: 1 wavefront.
  // Requests: blocks x k steps x warps x 4 lines x passes.
  struct Case {
    Params p;
    uint64_t requests;
  };
  for (const Case& c :
       {Case{{.n = 64, .tile = 32}, 4 * 8 * 2 * 4}, Case{{.n = 64, .tile = 64}, 1 * 8 * 2 * 4 * 2},
        Case{{.n = 128, .tile = 128}, 1 * 16 * 8 * 4}}) {
    const std::string what = describe(*find_lesson(vectorized_id()), c.p);
    const Trace plain = simulate(vectorized_id(), c.p);
    const Trace padded = simulate(conflict_free_id(), c.p);
    const WarpAccesses wp = warp_accesses(plain), wq = warp_accesses(padded);
    const AccessTotals before = totals_of(plain, wp, EventKind::SharedStore, "As");
    const AccessTotals after = totals_of(padded, wq, EventKind::SharedStore, "As");
    EXPECT_EQ(before.requests, c.requests) << what;
    EXPECT_EQ(before.wavefronts, 2 * c.requests) << what;
    EXPECT_EQ(before.bank_conflicts(), c.requests) << what;
    EXPECT_EQ(after.requests, c.requests) << what;
    EXPECT_EQ(after.wavefronts, c.requests) << what;
    EXPECT_EQ(after.bank_conflicts(), 0u) << what;
    // The stores of Bs are float4s along a row: conflict-free in both.
    EXPECT_EQ(totals_of(plain, wp, EventKind::SharedStore, "Bs").bank_conflicts(), 0u) << what;
    EXPECT_EQ(totals_of(padded, wq, EventKind::SharedStore, "Bs").bank_conflicts(), 0u) << what;
    // The padding keeps the float4 reads of As conflict-free (broadcasts).
    EXPECT_EQ(totals_of(padded, wq, EventKind::SharedLoad, "As").bank_conflicts(), 0u) << what;
    // The same work: the same events but for where As's elements sit.
    EXPECT_EQ(plain.events.size(), padded.events.size()) << what;
    EXPECT_EQ(plain.buffers.back().values, padded.buffers.back().values) << what;
  }
  // The table has the padded shape; its 4 spare columns are never touched.
  const Trace t = simulate(conflict_free_id(), Params{.n = 64, .tile = 32});
  const ArrayInfo* as = t.array(slot_named(t.config.arrays, "As"));
  ASSERT_NE(as, nullptr);
  EXPECT_EQ(as->rows, 8);
  EXPECT_EQ(as->cols, 36);
  EXPECT_EQ(t.array(slot_named(t.config.arrays, "Bs"))->shared_offset, 4u * 8u * 36u);
  for (const Event& e : t.events)
    if (e.array == slot_named(t.config.arrays, "As")) {
      EXPECT_LT(e.element % 36, 32u);
    }
}

TEST(SgemmStepsB, StepsSixAndSevenAreOneLayoutToggle) {
  const LessonInfo& plain = *find_lesson(vectorized_id());
  const LessonInfo& padded = *find_lesson(conflict_free_id());
  ASSERT_TRUE(plain.layout_group && padded.layout_group);
  EXPECT_EQ(std::string(plain.layout_group), "sgemm.as_layout");
  EXPECT_EQ(std::string(padded.layout_group), "sgemm.as_layout");
  EXPECT_EQ(std::string(plain.layout_label), "transposed [BK][BM]");
  EXPECT_EQ(std::string(padded.layout_label), "padded [BK][BM+4]");
  // The toggle re-runs with the same parameters: both take the same ones.
  EXPECT_EQ(plain.uses, padded.uses);
  EXPECT_EQ(plain.defaults, padded.defaults);
  EXPECT_EQ(plain.tile_choices, padded.tile_choices);
  int siblings = 0;
  for (const LessonInfo& v : all_lessons())
    siblings += v.layout_group && std::string(v.layout_group) == "sgemm.as_layout";
  EXPECT_EQ(siblings, 2);
}

// ---- Step 8: warp tiles ----

TEST(SgemmStepsB, WarpTilesReadSharedMemoryWithoutConflicts) {
  // Step 7 at a thread tile of 8 x 8 (tiles 64 and 128): the 8 lanes of a
  // quarter-warp read Bs at thread_col * 8 + j, 8 floats apart: lanes l and
  // l + 4 share banks, 2 wavefronts per phase: 8 for an ideal 4 per request.
  // Step 8: a sub-tile's lanes read neighbouring float4s (4 lanes across) or
  // the same one (broadcast): 1 wavefront per phase, in As and Bs alike.
  for (int tile : {64, 128}) {
    const Params p{.n = 128, .tile = tile};
    const Trace before = simulate(conflict_free_id(), p);
    const WarpAccesses wb = warp_accesses(before);
    const AccessTotals bs = totals_of(before, wb, EventKind::SharedLoad, "Bs");
    EXPECT_EQ(bs.wavefronts, 8 * bs.requests) << "tile " << tile;
    EXPECT_EQ(bs.bank_conflicts(), 4 * bs.requests) << "tile " << tile;

    const Trace after = simulate(warptile_id(), p);
    const WarpAccesses wa = warp_accesses(after);
    for (const char* m : {"As", "Bs"}) {
      const AccessTotals a = totals_of(after, wa, EventKind::SharedLoad, m);
      EXPECT_GT(a.requests, 0u);
      EXPECT_EQ(a.bank_conflicts(), 0u) << "tile " << tile << " " << m;
    }
    EXPECT_EQ(wa.totals(EventKind::SharedStore).bank_conflicts(), 0u) << "tile " << tile;
    // The same reads of shared memory, in as many requests: only where they fall changed.
    EXPECT_EQ(totals_of(after, wa, EventKind::SharedLoad, "Bs").requests, bs.requests);
  }
}

TEST(SgemmStepsB, EachWarpStoresOneCompactWarpTileOfC) {
  // The C elements a warp stores fill exactly a WM x WN rectangle: 64 x 32
  // at tiles 64 and 128 (2 x 2 sub-tiles of 32 x 16), 32 x 16 at tile 32.
  // Step 7's warps (tile 128: 16 threads of 8 x 8 a row) fill 16 x 128.
  struct Case {
    const char* id;
    int tile, rows, cols;
  };
  for (const Case& c : {Case{warptile_id(), 32, 32, 16}, Case{warptile_id(), 64, 64, 32},
                        Case{warptile_id(), 128, 64, 32}, Case{conflict_free_id(), 128, 16, 128}}) {
    const int n = 128;
    const Trace t = simulate(c.id, Params{.n = n, .tile = c.tile});
    struct Box {
      int r0 = 1 << 30, r1 = -1, c0 = 1 << 30, c1 = -1, count = 0;
    };
    std::map<std::pair<uint32_t, uint32_t>, Box> boxes;  // (block, warp)
    for (const Event& e : t.events)
      if (e.kind == EventKind::GlobalStore) {
        Box& b = boxes[{e.block, warp_of(e)}];
        const int r = int(e.element) / n, col = int(e.element) % n;
        b.r0 = std::min(b.r0, r), b.r1 = std::max(b.r1, r);
        b.c0 = std::min(b.c0, col), b.c1 = std::max(b.c1, col);
        ++b.count;
      }
    ASSERT_FALSE(boxes.empty());
    for (const auto& [key, b] : boxes) {
      EXPECT_EQ(b.r1 - b.r0 + 1, c.rows) << c.id << " tile " << c.tile;
      EXPECT_EQ(b.c1 - b.c0 + 1, c.cols) << c.id << " tile " << c.tile;
      EXPECT_EQ(b.count, c.rows * c.cols) << c.id << " tile " << c.tile;
    }
  }
}

// ---- Trace validation of the 16-byte events ----

// The events of the first 16-byte access of `kind` on `array`: four indices.
std::vector<size_t> first_vector(const Trace& t, EventKind kind, const std::string& array) {
  for (size_t i = 0; i + 3 < t.events.size(); ++i) {
    const Event& e = t.events[i];
    if (e.kind == kind && is_vector_element(e) && e.element % 4 == 0 &&
        array_name(t.config.arrays, e.array) == array) {
      std::vector<size_t> run = {i};
      for (size_t j = i + 1; j < t.events.size() && run.size() < 4; ++j)
        if (t.events[j].block == e.block && t.events[j].thread == e.thread) run.push_back(j);
      return run;
    }
  }
  ADD_FAILURE() << "no 16-byte " << to_string(kind) << " on " << array;
  return {0, 0, 0, 0};
}

TEST(SgemmStepsB, TraceValidationChecksTheSixteenByteEvents) {
  for (const char* id : {vectorized_id(), conflict_free_id(), warptile_id()}) {
    const Trace t = simulate(id, find_lesson(id)->defaults);
    EXPECT_EQ(check_trace_semantics(t), std::nullopt) << id;
    uint64_t wide = 0;
    for (const Event& e : t.events)
      wide += is_vector_element(e);
    // Every event of A, B, Bs and C, and the reads of As, is an element of a float4.
    EXPECT_GT(wide, t.events.size() / 2) << id;

    struct Edit {
      EventKind kind;
      const char* array;
    };
    for (const Edit& at : {Edit{EventKind::GlobalLoad, "A"}, Edit{EventKind::SharedLoad, "As"},
                           Edit{EventKind::SharedStore, "Bs"}, Edit{EventKind::GlobalStore, "C"}}) {
      const std::string what = std::string(id) + " " + to_string(at.kind) + " " + at.array;
      const std::vector<size_t> run = first_vector(t, at.kind, at.array);
      {  // One element of the access removed: the next does not continue it.
        Trace cut = t;
        cut.events.erase(cut.events.begin() + ptrdiff_t(run[1]));
        const auto why = check_trace_semantics(cut);
        ASSERT_TRUE(why) << what;
        EXPECT_HAS(*why, "16-byte access");
      }
      {  // Two elements swapped.
        Trace swapped = t;
        std::swap(swapped.events[run[1]].element, swapped.events[run[2]].element);
        const auto why = check_trace_semantics(swapped);
        ASSERT_TRUE(why) << what;
        EXPECT_HAS(*why, "does not continue the 16-byte access of event " + std::to_string(run[0]));
      }
      {  // The last element dropped from the end of the run: three elements only.
        Trace short_run = t;
        short_run.events[run[3]].flags &= uint8_t(~kFlagWidthMask);
        const auto why = check_trace_semantics(short_run);
        ASSERT_TRUE(why) << what;
        EXPECT_HAS(*why, "16-byte access");
      }
    }
    // A 16-byte flag on a lone 4-byte event: a scalar store into As.
    size_t lone = t.events.size();
    for (size_t i = 0; i < t.events.size(); ++i)
      if (t.events[i].kind == EventKind::SharedStore &&
          array_name(t.config.arrays, t.events[i].array) == "As" && t.events[i].element % 4 != 0) {
        lone = i;
        break;
      }
    ASSERT_LT(lone, t.events.size()) << id;
    EXPECT_FALSE(is_vector_element(t.events[lone])) << id << ": As is stored a float at a time";
    Trace flagged = t;
    flagged.events[lone].flags |= width_flags(16);
    const auto why = check_trace_semantics(flagged);
    ASSERT_TRUE(why) << id;
    EXPECT_HAS(*why, "event " + std::to_string(lone));
    EXPECT_HAS(*why, "of a 16-byte access, whose first element");
  }
}

}  // namespace
}  // namespace ts
