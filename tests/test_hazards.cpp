// Hazard analysis: hand-built traces with a known answer, then every catalogue
// variant and every subset of its barriers on simulator traces.
#include <gtest/gtest.h>

#include "trace/hazards.hpp"

namespace ts {
namespace {

// Builds a one-block trace event by event; the clock is the order of calls.
struct TraceBuilder {
  Trace t;
  uint64_t clock = 0;
  void access(EventKind kind, uint16_t thread, uint32_t element, float value, uint16_t line,
              Buffer buf = Buffer::TileA, uint32_t block = 0) {
    Event e{};
    e.clock = e.globaltimer = clock++;
    e.block = block;
    e.element = element;
    e.value = value;
    e.thread = thread;
    e.warp = uint16_t(thread / 32);
    e.line = line;
    e.kind = kind;
    e.buffer = buf;
    t.events.push_back(e);
  }
  void store(uint16_t th, uint32_t el, float v, uint16_t line, Buffer b = Buffer::TileA) {
    access(EventKind::SharedStore, th, el, v, line, b);
  }
  void load(uint16_t th, uint32_t el, float v, uint16_t line, Buffer b = Buffer::TileA) {
    access(EventKind::SharedLoad, th, el, v, line, b);
  }
  void barrier(std::initializer_list<uint16_t> threads, uint16_t line = 50) {
    for (auto th : threads)
      access(EventKind::BarrierArrive, th, 0, 0, line, Buffer::None);
    for (auto th : threads)
      access(EventKind::BarrierLeave, th, 0, 0, line, Buffer::None);
  }
};

TEST(Hazards, EmptyTraceHasNone) {
  Trace t;
  auto r = analyze_hazards(t);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.verdict(), "none");
}

TEST(Hazards, ReadAfterWriteBetweenWarpsIsAnError) {
  TraceBuilder b;
  b.store(0, 5, 1.5f, 10);
  b.load(40, 5, 1.5f, 20);  // thread 40 is in warp 1
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.errors, 1u);
  ASSERT_EQ(r.groups.size(), 1u);
  const auto& g = r.groups[0];
  EXPECT_EQ(g.kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(g.severity, HazardSeverity::Error);
  EXPECT_EQ(g.first_line, 10);
  EXPECT_EQ(g.second_line, 20);
  ASSERT_EQ(r.hazards.size(), 1u);
  const auto& h = r.hazards[0];
  EXPECT_EQ(h.element, 5u);
  EXPECT_EQ(h.first.event, 0u);
  EXPECT_EQ(h.second.event, 1u);
  EXPECT_EQ(h.first.thread, 0);
  EXPECT_EQ(h.second.thread, 40);
  EXPECT_EQ(h.second.warp, 1);
  EXPECT_TRUE(h.first.is_write);
  EXPECT_FALSE(h.second.is_write);
  EXPECT_EQ(r.verdict(), "error RAW");
}

TEST(Hazards, WithinOneWarpIsAWarning) {
  TraceBuilder b;
  b.store(0, 5, 1.f, 10);
  b.load(31, 5, 1.f, 20);
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.warnings, 1u);
  EXPECT_EQ(r.groups[0].severity, HazardSeverity::Warning);
  EXPECT_EQ(r.verdict(), "warning RAW");
}

TEST(Hazards, BarrierBetweenOrdersTheAccesses) {
  TraceBuilder b;
  b.store(0, 5, 1.f, 10);
  b.barrier({0, 40});
  b.load(40, 5, 1.f, 20);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, SameThreadNeverRaces) {
  TraceBuilder b;
  b.store(3, 5, 1.f, 10);
  b.load(3, 5, 1.f, 20);
  b.store(3, 5, 2.f, 30);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, ReadsOnlyNeverRace) {
  TraceBuilder b;
  b.load(0, 5, 1.f, 20);
  b.load(40, 5, 1.f, 20);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, DifferentElementsOrBuffersOrBlocksDoNotRace) {
  TraceBuilder b;
  b.store(0, 5, 1.f, 10);
  b.load(40, 6, 1.f, 20);
  b.load(40, 5, 1.f, 20, Buffer::TileB);
  b.access(EventKind::SharedLoad, 40, 5, 1.f, 20, Buffer::TileA, /*block=*/1);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, GlobalAccessesAreNotAnalysed) {
  TraceBuilder b;
  b.access(EventKind::GlobalStore, 0, 5, 1.f, 10, Buffer::C);
  b.access(EventKind::GlobalLoad, 40, 5, 1.f, 20, Buffer::C);
  EXPECT_TRUE(analyze_hazards(b.t).empty());
}

TEST(Hazards, WriteAfterReadAndWriteAfterWrite) {
  TraceBuilder b;
  b.load(40, 7, 0.f, 20);   // reads the old tile
  b.store(0, 7, 3.f, 10);   // overwrites it: WAR
  b.store(33, 7, 4.f, 11);  // overwrites again: WAW with thread 0 (warps 0 and 1)
  auto r = analyze_hazards(b.t);
  EXPECT_EQ(r.total, 2u);
  EXPECT_EQ(r.by_kind[int(HazardKind::WriteAfterRead)], 1u);
  EXPECT_EQ(r.by_kind[int(HazardKind::WriteAfterWrite)], 1u);
  EXPECT_EQ(r.by_kind[int(HazardKind::ReadAfterWrite)], 0u);
  EXPECT_EQ(r.verdict(), "error WAR,WAW");
  for (const auto& h : r.hazards) {
    if (h.kind == HazardKind::WriteAfterRead) {
      EXPECT_EQ(h.first.thread, 40);
      EXPECT_EQ(h.second.thread, 0);
      EXPECT_FALSE(h.first.is_write);
    } else {
      EXPECT_EQ(h.first.thread, 0);
      EXPECT_EQ(h.second.thread, 33);
      EXPECT_EQ(h.first.value, 3.f);
      EXPECT_EQ(h.second.value, 4.f);
    }
  }
}

TEST(Hazards, RecordedOrderWinsOverTraceOrder) {
  // The trace lists thread 40's events first, but the clocks say thread 0
  // stored before thread 40 loaded: read-after-write, as racecheck saw it.
  TraceBuilder b;
  b.load(40, 5, 1.f, 20);
  b.store(0, 5, 1.f, 10);
  b.t.events[0].clock = 9;
  b.t.events[1].clock = 3;
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.hazards[0].kind, HazardKind::ReadAfterWrite);
  EXPECT_EQ(r.hazards[0].first.event, 1u);
  EXPECT_EQ(r.hazards[0].second.event, 0u);
}

TEST(Hazards, IntervalsArePerThreadProgramOrder) {
  // Thread 0 has passed one barrier, thread 40 has not (its arrival is not in
  // the trace yet, as with a removed barrier on one path): both are in
  // different intervals only if they passed different numbers of barriers.
  TraceBuilder b;
  b.access(EventKind::BarrierLeave, 0, 0, 0, 50, Buffer::None);
  b.store(0, 5, 1.f, 10);  // thread 0, interval 1
  b.load(40, 5, 1.f, 20);  // thread 40, interval 0: ordered by the barrier
  b.access(EventKind::BarrierLeave, 40, 0, 0, 50, Buffer::None);
  b.load(40, 5, 1.f, 21);  // thread 40, interval 1: unordered with the store
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.total, 1u);
  EXPECT_EQ(r.hazards[0].second.line, 21);
  EXPECT_EQ(r.hazards[0].interval, 1u);
}

TEST(Hazards, GroupsCountEveryHazardButKeepCappedDetail) {
  TraceBuilder b;
  for (uint32_t el = 0; el < 10; ++el) {
    b.store(0, el, 1.f, 10);
    b.load(64, el, 1.f, 20);
    b.load(65, el, 1.f, 20);
  }
  HazardOptions opt;
  opt.detail_per_group = 4;
  auto r = analyze_hazards(b.t, opt);
  EXPECT_EQ(r.total, 20u);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].count, 20u);
  EXPECT_EQ(r.groups[0].elements, 10u);
  EXPECT_EQ(r.groups[0].blocks, 1u);
  EXPECT_EQ(r.groups[0].detail.size(), 4u);
  EXPECT_EQ(r.hazards.size(), 4u);
}

TEST(Hazards, ErrorsAndWarningsAreSeparateGroups) {
  TraceBuilder b;
  b.store(0, 1, 1.f, 10);
  b.load(1, 1, 1.f, 20);   // same warp: warning
  b.load(32, 1, 1.f, 20);  // other warp: error
  auto r = analyze_hazards(b.t);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].severity, HazardSeverity::Error);  // errors first
  EXPECT_EQ(r.groups[1].severity, HazardSeverity::Warning);
  EXPECT_EQ(r.verdict(), "error RAW; warning RAW");
}

TEST(Hazards, ExplanationsExist) {
  for (int k = 0; k < kHazardKindCount; ++k) {
    EXPECT_GT(std::string(explanation(HazardKind(k))).size(), 40u);
    EXPECT_EQ(std::string(long_name(HazardKind(k))).size() > 10, true);
  }
}

}  // namespace
}  // namespace ts
