// The 2D convolutions (lessons/conv2d_naive.hpp, lessons/conv2d_tiled.hpp) on
// the simulator: right output at every radius and at sizes that are not
// multiples of the tile, event counts equal to the closed forms and to a
// count made here pixel by pixel, every input tile position (halo and
// corners included) loaded by the thread the kernel says, races without the
// barrier, and the mask's reads kept apart as constant-memory reads in every
// analysis and in the file format.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "analysis/counters.hpp"
#include "analysis/hazards.hpp"
#include "analysis/trace_validate.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "io/trace_file.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The lessons with a constant-memory filter: read straight from global memory,
// and through a shared tile with its halo.
const LessonInfo& naive_conv() {
  return picks::constant_memory_lesson(false);
}
const LessonInfo& tiled_conv() {
  return picks::constant_memory_lesson(true);
}

// The arrays by the names the kernels give them: the image, the filter, the tile.
ArraySlot tiled_slot(const std::string& name) {
  return picks::array_slot(tiled_conv(), name);
}
ArraySlot naive_slot(const std::string& name) {
  return picks::array_slot(naive_conv(), name);
}

RunResult run(const char* id, const Params& p, uint32_t mask = ~0u,
              ScheduleKind kind = ScheduleKind::Lockstep) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.barrier_mask = mask;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = kind;
  // The lag must outlast the halo: the lanes of a warp reconverge after the
  // corner lanes' extra loads and stores before any of them reads the tile.
  req.schedule.skew_steps = 64;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  return r;
}

struct Tally {
  uint64_t in_loads = 0, mask_loads = 0, stores = 0, shared_loads = 0, shared_stores = 0,
           arrivals = 0, leaves = 0;
};

// Counted by array, not by kind: a mask read is a GlobalLoad on the mask's slot.
Tally tally(const Trace& t, ArraySlot in, ArraySlot mask) {
  Tally c;
  for (const Event& e : t.events) {
    if (e.kind == EventKind::GlobalLoad) {
      EXPECT_TRUE(e.array == in || e.array == mask) << int(e.array);
      (e.array == mask ? c.mask_loads : c.in_loads)++;
    }
    c.stores += e.kind == EventKind::GlobalStore;
    c.shared_loads += e.kind == EventKind::SharedLoad;
    c.shared_stores += e.kind == EventKind::SharedStore;
    c.arrivals += e.kind == EventKind::BarrierArrive;
    c.leaves += e.kind == EventKind::BarrierLeave;
  }
  return c;
}

// Counted here pixel by pixel, independently of the lessons' closed forms.
uint64_t naive_in_loads(const Params& p) {
  uint64_t n = 0;
  for (int row = 0; row < p.m; ++row)
    for (int col = 0; col < p.n; ++col)
      for (int i = -p.radius; i <= p.radius; ++i)
        for (int j = -p.radius; j <= p.radius; ++j)
          n += row + i >= 0 && row + i < p.m && col + j >= 0 && col + j < p.n;
  return n;
}
uint64_t tiled_in_loads(const Params& p) {
  const int T = p.tile, R = p.radius, side = T + 2 * R;
  uint64_t n = 0;
  for (int by = 0; by * T < p.m; ++by)
    for (int bx = 0; bx * T < p.n; ++bx)
      for (int a = 0; a < side; ++a)
        for (int b = 0; b < side; ++b) {
          const int y = by * T - R + a, x = bx * T - R + b;
          n += y >= 0 && y < p.m && x >= 0 && x < p.n;
        }
  return n;
}

std::vector<Params> sizes(bool tiled_lesson) {
  std::vector<Params> out;
  for (int radius = 1; radius <= 3; ++radius)
    for (auto [m, n] : std::vector<std::pair<int, int>>{{12, 12}, {1, 1}, {7, 13}, {17, 9}}) {
      Params p;
      p.m = m, p.n = n, p.radius = radius;
      if (tiled_lesson)
        for (int tile : {4, 8}) {
          p.tile = tile;
          out.push_back(p);
        }
      else
        out.push_back(p);
    }
  return out;
}

TEST(Conv2d, BothLessonsMatchTheReferenceWithClosedFormCounts) {
  for (const char* id : {naive_conv().id, tiled_conv().id}) {
    const LessonInfo& v = *find_lesson(id);
    const bool is_tiled = std::string(id) == tiled_conv().id;
    std::vector<Params> sets = sizes(is_tiled);
    sets.push_back(v.defaults);
    for (const Params& p : sets)
      for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew}) {
        const std::string what = std::string(id) + " " + describe(v, p) +
                                 (kind == ScheduleKind::Lockstep ? " lockstep" : " skew");
        ASSERT_FALSE(validate(v, p, DeviceLimits{})) << what;
        const RunResult r = run(id, p, ~0u, kind);
        ASSERT_TRUE(r.ok) << what;
        EXPECT_TRUE(r.verdict.checked && r.verdict.correct) << what << ": " << r.verdict.summary();
        EXPECT_TRUE(r.faults.empty()) << what << ": " << (r.faults.empty() ? "" : r.faults[0]);

        const ExpectedCounts want = expected_counts(v, p);
        const Tally got =
            tally(r.trace, picks::array_slot(v, "in", p), picks::array_slot(v, "mask", p));
        const uint64_t pixels = uint64_t(p.m) * p.n,
                       taps = uint64_t(2 * p.radius + 1) * uint64_t(2 * p.radius + 1);
        const uint64_t in_loads = is_tiled ? tiled_in_loads(p) : naive_in_loads(p);
        EXPECT_EQ(got.in_loads, in_loads) << what;
        EXPECT_EQ(want.global_loads, in_loads) << what;
        EXPECT_EQ(got.mask_loads, pixels * taps) << what;
        EXPECT_EQ(want.constant_loads, pixels * taps) << what;
        EXPECT_EQ(got.stores, pixels) << what;
        EXPECT_EQ(want.global_stores, pixels) << what;
        const LaunchGeometry g = geometry(v, p);
        if (is_tiled) {
          const uint64_t side = uint64_t(p.tile + 2 * p.radius);
          EXPECT_EQ(got.shared_stores, g.grid.count() * side * side) << what;
          EXPECT_EQ(got.shared_loads, pixels * taps) << what;
          EXPECT_EQ(got.arrivals, g.grid.count() * g.block.count()) << what;
        } else {
          EXPECT_EQ(got.shared_stores + got.shared_loads + got.arrivals, 0u) << what;
        }
        EXPECT_EQ(got.shared_stores, want.shared_stores) << what;
        EXPECT_EQ(got.shared_loads, want.shared_loads) << what;
        EXPECT_EQ(got.arrivals, want.barrier_arrivals) << what;
        EXPECT_EQ(got.leaves, want.barrier_arrivals) << what;
        EXPECT_EQ(r.trace.events.size(), want.total()) << what;

        // The counters keep the mask's reads out of the global loads.
        const Counters c = count_accesses(r.trace);
        EXPECT_EQ(c.global_loads(), in_loads) << what;
        EXPECT_EQ(c.constant_loads, pixels * taps) << what;
        EXPECT_EQ(c.global_bytes_read, 4 * in_loads) << what;
        EXPECT_EQ(c.constant_bytes_read, 4 * pixels * taps) << what;
      }
  }
}

// Every position of every block's (T + 2R)^2 input tile is stored exactly
// once, by the thread the kernel's halo rule names (the centre by its own
// thread, the edges by the first R rows or columns, the corners by the top-left
// R x R threads), right after that thread loaded the image pixel there, or
// as 0 without a load when the position lies outside the image.
TEST(Conv2d, TiledLoadsEveryHaloAndCornerCellOnceByTheRightThread) {
  for (const Params& p : sizes(true)) {
    const std::string what = describe(tiled_conv(), p);
    const RunResult r = run(tiled_conv().id, p);
    const Trace& t = r.trace;
    const ArraySlot tile = picks::array_slot(tiled_conv(), "tile", p);
    const ArraySlot in = picks::array_slot(tiled_conv(), "in", p);
    const int T = p.tile, R = p.radius, side = T + 2 * R;
    const uint32_t gx = t.config.geometry.grid.x;
    // Each thread's previous event, to pair a store with the load before it.
    std::map<std::pair<uint32_t, uint16_t>, const Event*> previous;
    std::map<std::pair<uint32_t, uint32_t>, int> stored;  // (block, tile element) -> times
    uint64_t corner_loads = 0, want_corner_loads = 0;
    for (const Event& e : t.events) {
      const Event*& prev = previous[{e.block, e.thread}];
      if (e.kind == EventKind::SharedStore && e.array == tile) {
        const int a = int(e.element) / side, b = int(e.element) % side;
        ++stored[{e.block, e.element}];
        // Which thread the halo rule gives this tile position.
        const auto owner = [&](int x) { return x < R ? x : x >= T + R ? x - T - R : x - R; };
        const uint32_t tx = e.thread % uint32_t(T), ty = e.thread / uint32_t(T);
        EXPECT_EQ(int(ty), owner(a)) << what << " tile[" << a << "][" << b << "]";
        EXPECT_EQ(int(tx), owner(b)) << what << " tile[" << a << "][" << b << "]";
        const int y = int(e.block / gx) * T - R + a, x = int(e.block % gx) * T - R + b;
        const bool inside = y >= 0 && y < p.m && x >= 0 && x < p.n;
        const bool corner = (a < R || a >= T + R) && (b < R || b >= T + R);
        if (inside) {
          ASSERT_NE(prev, nullptr) << what;
          EXPECT_EQ(prev->kind, EventKind::GlobalLoad) << what;
          EXPECT_EQ(prev->array, in) << what;
          EXPECT_EQ(prev->element, uint32_t(y * p.n + x)) << what;
          EXPECT_EQ(prev->value, e.value) << what;
          corner_loads += corner;
        } else {
          EXPECT_EQ(e.value, 0.0f) << what << " outside the image";
          EXPECT_FALSE(prev && prev->kind == EventKind::GlobalLoad && prev->array == in)
              << what << ": a load for a position outside the image";
        }
        want_corner_loads += inside && corner;
      }
      prev = &e;
    }
    EXPECT_EQ(stored.size(), size_t(t.config.geometry.grid.count()) * size_t(side * side)) << what;
    for (const auto& [key, times] : stored)
      EXPECT_EQ(times, 1) << what << " block " << key.first << " element " << key.second;
    EXPECT_EQ(corner_loads, want_corner_loads) << what;
    if (p.m >= 12 && p.n >= 12) {
      EXPECT_GT(corner_loads, 0u) << what;
    }
  }
}

TEST(Conv2d, WithoutTheBarrierRacesAcrossWarpsAndGoesWrongUnderSkew) {
  const Params p = tiled_conv().defaults;  // 8 x 8 threads: two warps
  HazardOptions opt;
  const HazardReport lock = analyze_hazards(run(tiled_conv().id, p, 0).trace, opt);
  EXPECT_GT(lock.errors, 0u) << "different warps: errors, as racecheck labels them";
  EXPECT_GT(
      lock.by_kind[int(HazardKind::ReadAfterWrite)] + lock.by_kind[int(HazardKind::WriteAfterRead)],
      0u);
  for (const Hazard& h : lock.hazards)
    EXPECT_EQ(h.buffer, tiled_slot("tile"));
  const RunResult skewed = run(tiled_conv().id, p, 0, ScheduleKind::WarpSkew);
  EXPECT_TRUE(skewed.verdict.checked);
  EXPECT_FALSE(skewed.verdict.correct)
      << "a lagging warp's tile rows are read before they are stored";
  EXPECT_FALSE(analyze_hazards(skewed.trace, opt).empty());

  // With the barrier: no hazard; the mask's reads are never part of the analysis.
  const Trace good = run(tiled_conv().id, p).trace;
  const HazardReport none = analyze_hazards(good, opt);
  EXPECT_TRUE(none.empty()) << none.verdict();
  const Tally n = tally(good, tiled_slot("in"), tiled_slot("mask"));
  EXPECT_EQ(none.shared_accesses, n.shared_loads + n.shared_stores);
  EXPECT_TRUE(analyze_hazards(run(naive_conv().id, p, 0).trace, opt).empty());
}

// The mask is a constant-memory array: its reads are GlobalLoad events on its
// slot, served by distinct address (one per warp here: broadcasts), and none
// of them is a global request in Nsight Compute's l1tex counters.
TEST(Conv2d, MaskReadsAreConstantNotGlobalRequests) {
  for (const char* id : {naive_conv().id, tiled_conv().id}) {
    const LessonInfo& v = *find_lesson(id);
    const Params p = v.defaults;
    const ArrayTable table = arrays(v, p);
    const ArraySlot mask = picks::array_slot(table, "mask", id);
    EXPECT_EQ(array_at(table, mask)->space, Space::Constant);
    EXPECT_EQ(array_at(table, mask)->rows, 2 * p.radius + 1);
    const Trace t = run(id, p).trace;
    const WarpAccesses w = warp_accesses(t);
    uint64_t in_requests = 0, mask_requests = 0;
    for (const WarpAccess& a : w.accesses) {
      if (a.kind != EventKind::GlobalLoad) continue;
      EXPECT_EQ(a.constant, a.array == mask) << id;
      (a.array == mask ? mask_requests : in_requests)++;
      if (a.constant) {
        EXPECT_EQ(a.constant_addresses, 1) << id << ": the warp reads one weight";
      }
    }
    EXPECT_GT(mask_requests, 0u);
    EXPECT_EQ(w.constant_loads.requests, mask_requests) << id;
    EXPECT_EQ(w.constant_loads.constant_addresses, mask_requests) << id << ": broadcasts only";
    EXPECT_EQ(w.constant_loads.serialised(), 0u);
    EXPECT_EQ(w.totals(EventKind::GlobalLoad).requests, in_requests) << id;
    for (const NcuCounter& c : ncu_counters(w))
      if (std::string(c.name) == "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") {
        EXPECT_EQ(c.value, in_requests) << id << ": the mask is no global request";
      }
  }
  // Lanes that read different weights are served one address after another.
  const std::vector<LaneAccess> lanes = {{0, 0, 4}, {1, 0, 4}, {2, 4, 4}, {3, 96, 4}};
  EXPECT_EQ(distinct_addresses(lanes), 3);
}

TEST(Conv2d, TheFileFormatKeepsTheConstantArrayAndRefusesAStoreToIt) {
  const Trace t = run(naive_conv().id, naive_conv().defaults).trace;
  std::string err;
  const auto back = parse_trace(serialize_trace(t), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->config.arrays, t.config.arrays);
  EXPECT_EQ(back->config.arrays[naive_slot("mask") - 1].space, Space::Constant);
  EXPECT_FALSE(check_trace_semantics(t));

  Trace bad = t;
  const ArraySlot mask = naive_slot("mask");
  for (Event& e : bad.events)
    if (e.kind == EventKind::GlobalLoad && e.array == mask) {
      e.kind = EventKind::GlobalStore;
      break;
    }
  const auto why = check_trace_semantics(bad);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("a store to mask, which lives in constant memory"), std::string::npos)
      << *why;
  EXPECT_FALSE(parse_trace(serialize_trace(bad), &err));
  EXPECT_NE(err.find("constant memory"), std::string::npos) << err;
}

}  // namespace
}  // namespace ts
