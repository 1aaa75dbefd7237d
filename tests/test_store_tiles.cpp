// The grid's register and warp tiles and the cells of a warp access
// (analysis/store_tiles.hpp), from the events: a simulated matmul.tiled_square
// (one output per thread, 32 per warp), a hand-made trace where each thread
// stores a 2 x 2 register tile, and 16-byte accesses grouped as one per lane.
#include <gtest/gtest.h>

#include <string>

#include "analysis/store_tiles.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

Trace simulate(const std::string& id, const Params& p) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  return std::move(r.trace);
}

ArraySlot slot_named(const Trace& t, const std::string& name) {
  for (size_t i = 0; i < t.config.arrays.size(); ++i)
    if (t.config.arrays[i].name == name) return ArraySlot(i + 1);
  return kNoArray;
}

TEST(StoreTiles, TiledSquareThreadStoresOneCellItsWarp32) {
  // n = 16, tile 8: blocks of 8 x 8 threads, 2 warps each; block (1, 1) is
  // block 3. Thread (3, 1) is thread 11 of warp 0; it stores C[8 + 1][8 + 3].
  const Trace t = simulate(picks::default_lesson().id, Params{.n = 16, .tile = 8});
  const auto s = store_tiles(t, 3, 11);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->thread_tile.array, slot_named(t, "C"));
  EXPECT_EQ(s->warp, 0u);
  ASSERT_EQ(s->thread_tile.elements, (std::vector<uint32_t>{9 * 16 + 11}));
  EXPECT_EQ(s->thread_tile.rows, 1);
  EXPECT_EQ(s->thread_tile.cols, 1);
  // Warp 0: threads 0..31, rows 8..11 of C, columns 8..15.
  ASSERT_EQ(s->warp_tile.elements.size(), 32u);
  EXPECT_EQ(s->warp_tile.row0, 8);
  EXPECT_EQ(s->warp_tile.col0, 8);
  EXPECT_EQ(s->warp_tile.rows, 4);
  EXPECT_EQ(s->warp_tile.cols, 8);
  for (uint32_t e : s->warp_tile.elements) {
    EXPECT_GE(e / 16, 8u);
    EXPECT_LT(e / 16, 12u);
    EXPECT_GE(e % 16, 8u);
  }
  EXPECT_EQ(describe(t, *s), "thread (3, 1): register tile 1 x 1 = 1 output; warp 0 tile 4 x 8");
  // Warp 1 of the same block: the rows below.
  const auto w1 = store_tiles(t, 3, 40);
  ASSERT_TRUE(w1.has_value());
  EXPECT_EQ(w1->warp, 1u);
  EXPECT_EQ(w1->warp_tile.row0, 12);
  // The thread that stores a cell, back from the cell.
  const auto who = storing_thread(t, slot_named(t, "C"), 9 * 16 + 11);
  ASSERT_TRUE(who.has_value());
  EXPECT_EQ(who->first, 3u);
  EXPECT_EQ(who->second, 11u);
  // A thread that stores nothing (there is no thread 64 in a block of 64).
  EXPECT_FALSE(store_tiles(t, 3, 64).has_value());
}

// An 8 x 8 output; one block of 4 x 2 threads (one warp, 8 lanes), each
// storing a 2 x 2 register tile: thread (tx, ty) the rows 2 ty, 2 ty + 1 and
// the columns 2 tx, 2 tx + 1. Together they store rows 0..3, columns 0..7.
Trace four_stores_per_thread() {
  Trace t;
  ArrayInfo c;
  c.name = "C", c.rows = 8, c.cols = 8, c.role = ArrayRole::Output;
  t.config.arrays = {c};
  t.config.geometry.block = {4, 2, 1};
  t.config.geometry.grid = {1, 1, 1};
  for (uint16_t th = 0; th < 8; ++th) {
    const uint32_t tx = th % 4, ty = th / 4;
    uint16_t instr = 0;
    for (uint32_t i = 0; i < 2; ++i)
      for (uint32_t j = 0; j < 2; ++j) {
        Event e{};
        e.kind = EventKind::GlobalStore, e.array = 1, e.thread = th, e.instr = instr++;
        e.element = (2 * ty + i) * 8 + 2 * tx + j;
        t.events.push_back(e);
      }
  }
  return t;
}

TEST(StoreTiles, FourStoresPerThreadAreOneTwoByTwoTile) {
  const Trace t = four_stores_per_thread();
  const auto s = store_tiles(t, 0, 5);  // thread (1, 1): rows 2, 3, columns 2, 3
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->thread_tile.elements, (std::vector<uint32_t>{18, 19, 26, 27}));
  EXPECT_EQ(s->thread_tile.row0, 2);
  EXPECT_EQ(s->thread_tile.col0, 2);
  EXPECT_TRUE(s->thread_tile.rectangle());
  EXPECT_EQ(s->warp_tile.elements.size(), 32u);
  EXPECT_TRUE(s->warp_tile.contains(0));
  EXPECT_FALSE(s->warp_tile.contains(32));
  EXPECT_EQ(describe(t, *s), "thread (1, 1): register tile 2 x 2 = 4 outputs; warp 0 tile 4 x 8");
}

TEST(StoreTiles, ScatteredStoresSayTheirBox) {
  // Thread 0 stores C[0][0] and C[1][3]: 2 outputs in a 2 x 4 box, not a tile.
  Trace t = four_stores_per_thread();
  t.events.resize(2);
  t.events[1].element = 11;
  const auto s = store_tiles(t, 0, 0);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->thread_tile.rectangle());
  EXPECT_EQ(describe(t, *s),
            "thread (0, 0): register tile of 2 outputs over 2 x 4; warp 0 tile of 2 outputs "
            "over 2 x 4");
}

TEST(StoreTiles, SixteenByteAccessIsOneGroupOfFourCells) {
  // Lanes 0..31 load g[4l .. 4l + 3] as float4 (four events each, flagged
  // 16 bytes), then lanes store out[l] one float each.
  Trace t;
  ArrayInfo g, out;
  g.name = "g", g.rows = 1, g.cols = 128;
  out.name = "out", out.rows = 1, out.cols = 32, out.role = ArrayRole::Output;
  t.config.arrays = {g, out};
  uint16_t instr[kWarpLanes] = {};
  for (int lane = 0; lane < kWarpLanes; ++lane)
    for (uint32_t j = 0; j < 4; ++j) {
      Event e{};
      e.kind = EventKind::GlobalLoad, e.array = 1, e.line = 10, e.thread = uint16_t(lane);
      e.element = uint32_t(4 * lane) + j, e.flags = width_flags(16), e.instr = instr[lane]++;
      t.events.push_back(e);
    }
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    Event e{};
    e.kind = EventKind::GlobalStore, e.array = 2, e.line = 11, e.thread = uint16_t(lane);
    e.element = uint32_t(lane), e.instr = instr[lane]++;
    t.events.push_back(e);
  }
  const WarpAccesses w = warp_accesses(t);
  ASSERT_EQ(w.accesses.size(), 2u);
  const std::vector<LaneCells> v = lane_cells(t, w, w.accesses[0]);
  ASSERT_EQ(v.size(), 32u);  // one access per lane, not 128
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    EXPECT_EQ(v[size_t(lane)].lane, lane);
    EXPECT_EQ(v[size_t(lane)].first, uint32_t(4 * lane));
    EXPECT_EQ(v[size_t(lane)].count, 4);
  }
  // What the coalescing caption counts: 32 lane accesses of 16 bytes, 16 sectors.
  EXPECT_EQ(w.accesses[0].lane_count, 32);
  EXPECT_EQ(w.accesses[0].bytes, 16);
  EXPECT_EQ(w.accesses[0].sector.sectors, 16);
  const std::vector<LaneCells> s = lane_cells(t, w, w.accesses[1]);
  ASSERT_EQ(s.size(), 32u);
  EXPECT_EQ(s[7].first, 7u);
  EXPECT_EQ(s[7].count, 1);
}

}  // namespace
}  // namespace ts
