// Decoding and counting on hand-built traces: program order, barrier
// instances and phases, and the per-element global load counts.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/counters.hpp"
#include "analysis/decode.hpp"
#include "test_trace_fixtures.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The default lesson (square tiles, two barriers).
std::string default_id() {
  return picks::default_lesson().id;
}

using testing::tiled_matmul_trace;

std::vector<EventKind> kinds_of(const Trace& t, const std::vector<uint32_t>& idx) {
  std::vector<EventKind> k;
  for (uint32_t i : idx)
    k.push_back(t.events[i].kind);
  return k;
}

TEST(Decode, SplitsIntoPerThreadStreamsInProgramOrder) {
  const Trace t = tiled_matmul_trace(4, 2);
  const DecodedTrace d = decode(t);
  ASSERT_EQ(d.blocks.size(), 4u);
  for (uint32_t b = 0; b < 4; ++b) {
    ASSERT_EQ(d.blocks[b].block, b);
    ASSERT_EQ(d.blocks[b].thread_events.size(), 4u);
  }
  // Thread 3 of block 2, phase by phase: load A, store tileA, load B, store
  // tileB, barrier 1, 2 x (tileA, tileB), barrier 2; twice; then store C.
  const auto& s = d.blocks[2].thread_events[3];
  using K = EventKind;
  std::vector<K> phase = {K::GlobalLoad,    K::SharedStore,  K::GlobalLoad,    K::SharedStore,
                          K::BarrierArrive, K::BarrierLeave, K::SharedLoad,    K::SharedLoad,
                          K::SharedLoad,    K::SharedLoad,   K::BarrierArrive, K::BarrierLeave};
  std::vector<K> want = phase;
  want.insert(want.end(), phase.begin(), phase.end());
  want.push_back(K::GlobalStore);
  EXPECT_EQ(kinds_of(t, s), want);
  for (uint32_t i : s) {
    EXPECT_EQ(t.events[i].block, 2u);
    EXPECT_EQ(t.events[i].thread, 3u);
  }
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  for (size_t k = 0; k < s.size(); ++k)
    EXPECT_EQ(t.events[s[k]].instr, k) << "the thread's k-th event is numbered k";
  // The elements this thread loaded from A: row 1 * 2 + 1 = 3, columns 1 and 3.
  EXPECT_EQ(t.events[s[0]].array, picks::default_lesson_slot("A"));
  EXPECT_EQ(t.events[s[0]].element, 3u * 4 + 1);
  EXPECT_EQ(t.events[s[12]].element, 3u * 4 + 3);
}

TEST(Decode, ProgramOrderSurvivesAnotherInterleavingOfThreads) {
  // Reorder events across threads (as a GPU's warps would) but keep each
  // thread's own order: the streams must be the same events in the same order.
  const Trace t = tiled_matmul_trace(4, 2);
  Trace u = t;
  std::stable_sort(u.events.begin(), u.events.end(), [](const Event& a, const Event& b) {
    return std::make_pair(-int(a.block), -int(a.thread)) <
           std::make_pair(-int(b.block), -int(b.thread));
  });
  const DecodedTrace dt = decode(t), du = decode(u);
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t th = 0; th < 4; ++th) {
      const auto& x = dt.blocks[b].thread_events[th];
      const auto& y = du.blocks[b].thread_events[th];
      ASSERT_EQ(x.size(), y.size());
      for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(t.events[x[i]].clock, u.events[y[i]].clock);
        EXPECT_EQ(dt.event_interval[x[i]], du.event_interval[y[i]]);
      }
    }
}

TEST(Decode, BarrierInstancesAndPhasesWithBothBarriers) {
  const Trace t = tiled_matmul_trace(4, 2);
  const DecodedTrace d = decode(t);
  const BlockStreams& b = *d.find_block(1);
  ASSERT_EQ(b.barriers.size(), 4u);  // 2 tile phases x 2 barriers
  const int ids[] = {1, 2, 1, 2};
  for (int n = 0; n < 4; ++n) {
    EXPECT_EQ(b.barriers[n].barrier, ids[n]);
    EXPECT_EQ(b.barriers[n].line, testing::kTiledBarrierLine[ids[n]]);
    EXPECT_EQ(b.barriers[n].arrivals, 4u);
    EXPECT_EQ(b.barriers[n].leaves, 4u);
    EXPECT_TRUE(b.barriers[n].consistent);
    EXPECT_LE(b.barriers[n].last_arrive, b.barriers[n].first_leave);
  }
  EXPECT_TRUE(b.balanced);
  ASSERT_EQ(b.phases.size(), 5u);
  EXPECT_EQ(d.max_phases, 5u);
  // Phase 0: loading the first tiles (4 threads x 2 loads, 2 shared stores) and the arrivals.
  EXPECT_EQ(b.phases[0].per_kind[int(EventKind::GlobalLoad)], 8u);
  EXPECT_EQ(b.phases[0].per_kind[int(EventKind::SharedStore)], 8u);
  EXPECT_EQ(b.phases[0].per_kind[int(EventKind::BarrierArrive)], 4u);
  EXPECT_EQ(b.phases[0].per_kind[int(EventKind::BarrierLeave)], 0u);
  EXPECT_EQ(b.phases[0].opened_by, 0);
  EXPECT_EQ(b.phases[0].closed_by, 1);
  // Phase 1: computing on them (4 threads x 2 steps x 2 shared loads).
  EXPECT_EQ(b.phases[1].per_kind[int(EventKind::SharedLoad)], 16u);
  EXPECT_EQ(b.phases[1].per_kind[int(EventKind::GlobalLoad)], 0u);
  EXPECT_EQ(b.phases[1].opened_by, 1);
  EXPECT_EQ(b.phases[1].closed_by, 2);
  // Last phase: the stores to C.
  EXPECT_EQ(b.phases[4].per_kind[int(EventKind::GlobalStore)], 4u);
  EXPECT_EQ(b.phases[4].closed_by, 0);
  uint64_t sum = 0;
  for (const auto& p : b.phases)
    sum += p.events;
  EXPECT_EQ(sum, b.events);
  // Every event's interval, for thread 0: phases 0 0 0 0 0 | 1 ... in order.
  const auto& s = b.thread_events[0];
  EXPECT_EQ(d.event_interval[s.front()], 0u);
  EXPECT_EQ(d.event_interval[s[5]], 1u);  // the leaving of barrier 1 opens phase 1
  EXPECT_EQ(d.event_interval[s[6]], 1u);
  EXPECT_EQ(d.event_interval[s.back()], 4u);
}

TEST(Decode, RemovingABarrierLeavesFewerIntervals) {
  {
    const DecodedTrace d = decode(tiled_matmul_trace(4, 2, 0x1));  // barrier 2 removed
    const BlockStreams& b = d.blocks[0];
    ASSERT_EQ(b.barriers.size(), 2u);
    EXPECT_EQ(b.barriers[0].barrier, 1);
    EXPECT_EQ(b.barriers[1].barrier, 1);
    EXPECT_EQ(b.phases.size(), 3u);
    // The second tile load now lies in the same interval as the first compute.
    EXPECT_EQ(b.phases[1].per_kind[int(EventKind::SharedLoad)], 16u);
    EXPECT_EQ(b.phases[1].per_kind[int(EventKind::GlobalLoad)], 8u);
  }
  {
    const DecodedTrace d = decode(tiled_matmul_trace(4, 2, 0x0));
    EXPECT_TRUE(d.blocks[0].barriers.empty());
    ASSERT_EQ(d.blocks[0].phases.size(), 1u);
    EXPECT_EQ(d.blocks[0].phases[0].events, d.blocks[0].events);
  }
}

TEST(Decode, ATruncatedTraceIsUnbalanced) {
  Trace t = tiled_matmul_trace(2, 2);
  // Drop the last events: threads 2 and 3 lose their last barrier and store.
  t.events.resize(t.events.size() - 6);
  const DecodedTrace d = decode(t);
  ASSERT_EQ(d.blocks.size(), 1u);
  EXPECT_FALSE(d.blocks[0].balanced);
  EXPECT_EQ(d.blocks[0].barriers.back().leaves, 2u);
}

TEST(Decode, EmptyTrace) {
  const DecodedTrace d = decode(Trace{});
  EXPECT_TRUE(d.blocks.empty());
  EXPECT_EQ(d.find_block(0), nullptr);
}

TEST(Counters, TiledMultiplyReadsEachInputElementNOverTTimes) {
  const Trace t = tiled_matmul_trace(8, 2);
  const Counters c = count_accesses(t);
  for (ArraySlot b : {picks::default_lesson_slot("A"), picks::default_lesson_slot("B")}) {
    const ElementCounts* e = c.loads_of(b);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->rows, 8);
    EXPECT_EQ(e->cols, 8);
    EXPECT_EQ(e->min, 4u);  // N / T = 8 / 2
    EXPECT_EQ(e->max, 4u);
    EXPECT_DOUBLE_EQ(e->mean, 4.0);
  }
  EXPECT_EQ(c.global_loads(), 2u * 64 * 4);
  EXPECT_EQ(c.global_stores(), 64u);
  EXPECT_EQ(c.shared_stores(), 2u * 64 * 4);
  EXPECT_EQ(c.shared_loads(), 2u * 64 * 8);
  EXPECT_EQ(c.loads[picks::default_lesson_slot("tileA")], 64u * 8);
  EXPECT_EQ(c.stores[picks::default_lesson_slot("tileB")], 64u * 4);
  EXPECT_EQ(c.barrier_arrivals(), 16u * 4 * 4 * 2);  // 16 blocks x 4 threads x 4 phases x 2
  EXPECT_EQ(c.global_bytes_read, 4u * 2 * 64 * 4);
  EXPECT_EQ(c.shared_bytes_written, 4u * 2 * 64 * 4);
  EXPECT_EQ(c.output_elements, 64u);
  EXPECT_DOUBLE_EQ(c.global_loads_per_output, 2.0 * 8 / 2);  // 2N/T, not 2N
  ASSERT_EQ(c.global_stores_per_element.size(), 1u);
  EXPECT_EQ(c.global_stores_per_element[0].min, 1u);
  EXPECT_EQ(c.global_stores_per_element[0].max, 1u);
  EXPECT_EQ(c.out_of_range, 0u);
}

TEST(Counters, TileOfOneReadsEachElementNTimesLikeTheNaiveKernel) {
  const Counters c = count_accesses(tiled_matmul_trace(4, 1));
  EXPECT_EQ(c.loads_of(picks::default_lesson_slot("A"))->max, 4u);
  EXPECT_EQ(c.loads_of(picks::default_lesson_slot("A"))->min, 4u);
  EXPECT_DOUBLE_EQ(c.global_loads_per_output, 8.0);  // 2N
}

TEST(Counters, PerElementCountsFollowTheEvents) {
  Trace t = tiled_matmul_trace(2, 2);
  // Make one load read element 3 of A twice more, one flagged out of range.
  Event extra = t.events[0];
  extra.element = 3;
  t.events.push_back(extra);
  t.events.push_back(extra);
  extra.flags = kFlagOutOfRange;
  extra.element = 1000;
  t.events.push_back(extra);
  const Counters c = count_accesses(t);
  const ElementCounts* a = c.loads_of(picks::default_lesson_slot("A"));
  EXPECT_EQ(a->count[3], 3u);
  EXPECT_EQ(a->count[0], 1u);
  EXPECT_EQ(a->max, 3u);
  EXPECT_EQ(c.out_of_range, 1u);
  EXPECT_EQ(c.global_loads(), 8u + 3);
}

TEST(Counters, MatchTheCataloguesClosedForm) {
  const Trace t = tiled_matmul_trace(8, 2);
  const auto x = expected_for(t);
  ASSERT_TRUE(x.has_value()) << default_id() + " should be in the catalogue";
  const Counters c = count_accesses(t);
  EXPECT_EQ(x->counts.global_loads, c.global_loads());
  EXPECT_EQ(x->counts.global_stores, c.global_stores());
  EXPECT_DOUBLE_EQ(x->global_loads_per_output, c.global_loads_per_output);
  Trace unknown = t;
  unknown.config.lesson_id = "no.such.variant";
  EXPECT_FALSE(expected_for(unknown).has_value());
}

}  // namespace
}  // namespace ts
