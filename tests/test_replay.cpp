// The replay model: the state of every cell after event k, in both orders,
// checked against a plain re-application of the first k events; stepping
// backwards gives what stepping forwards gives; switching orders keeps the phase.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "analysis/memory_estimate.hpp"
#include "analysis/replay.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"
#include "tests/test_trace_fixtures.hpp"

namespace ts {
namespace {

std::shared_ptr<const Trace> shared(Trace t) {
  return std::make_shared<const Trace>(std::move(t));
}

// The simplest possible model of "value of each element after k events".
std::map<std::pair<int, uint64_t>, float> naive_values(const Trace& t, const Replay& r,
                                                       uint64_t k) {
  std::map<std::pair<int, uint64_t>, float> v;
  for (uint64_t p = 1; p <= k; ++p) {
    const Event& e = t.events[r.event_at(p)];
    if (!is_store(e.kind)) continue;
    const uint64_t key =
        t.array(e.array)->shared() ? (uint64_t(e.block) << 32) | e.element : e.element;
    v[{int(e.array), key}] = e.value;
  }
  return v;
}

void expect_state_matches(const Trace& t, const Replay& r) {
  const auto want = naive_values(t, r, r.position());
  for (const auto& [key, value] : want) {
    const ArraySlot b = ArraySlot(key.first);
    const uint32_t block = t.array(b)->shared() ? uint32_t(key.second >> 32) : 0;
    const CellState* c = r.cell(b, block, uint32_t(key.second & 0xFFFFFFFFu));
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->value, value) << array_name(t.config.arrays, b) << " element "
                               << (key.second & 0xFFFFFFFF);
    EXPECT_TRUE(c->flags & kCellWritten);
  }
  // Outputs not yet written are not marked written.
  const ReplayArray* out = r.array(picks::default_lesson_slot("C"));
  ASSERT_NE(out, nullptr);
  for (uint32_t i = 0; i < out->count(); ++i) {
    const bool written = want.count({int(picks::default_lesson_slot("C")), i}) > 0;
    EXPECT_EQ(bool(r.cell(picks::default_lesson_slot("C"), 0, i)->flags & kCellWritten), written)
        << "C " << i;
  }
}

bool same_cells(std::span<const CellState> a, std::span<const CellState> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i].value, &b[i].value, 4) != 0 || a[i].time != b[i].time ||
        a[i].flags != b[i].flags || a[i].reads != b[i].reads || a[i].thread != b[i].thread ||
        a[i].src != b[i].src)
      return false;
  }
  return true;
}

// A trace recorded on a "GPU": blocks interleaved and timestamps out of buffer
// order, each thread's own events still in program order.
Trace gpu_like(Trace t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Give every block its own start time and drift so blocks overlap.
  std::map<uint32_t, uint64_t> start;
  for (auto& e : t.events) {
    if (!start.count(e.block)) start[e.block] = rng() % 5000;
    e.globaltimer = start[e.block] + e.globaltimer * 3 + (warp_of(e) * 7);
    e.clock = e.globaltimer * 2;
    e.sm = uint16_t(e.block % 3);
  }
  t.config.backend = BackendKind::Cuda;
  t.config.device_name = "test GPU";
  return t;
}

TEST(Replay, StateAfterEventKMatchesPlainReplayInBothOrders) {
  const Trace t = testing::tiled_matmul_trace(8, 4);
  Replay r(shared(t));
  ASSERT_EQ(r.size(), t.events.size());
  for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
    r.set_order(o);
    for (uint64_t k : {uint64_t(0), uint64_t(1), uint64_t(37), r.size() / 3, r.size() / 2,
                       r.size() - 1, r.size()}) {
      r.seek(k);
      ASSERT_EQ(r.position(), k);
      expect_state_matches(t, r);
    }
  }
}

TEST(Replay, InputsStartWithTheirValuesAndOutputsEmpty) {
  const Trace t = testing::tiled_matmul_trace(8, 4);
  Replay r(shared(t));
  EXPECT_EQ(r.cell(picks::default_lesson_slot("A"), 0, 9)->value,
            t.buffer(picks::default_lesson_slot("A"))->values[9]);
  EXPECT_EQ(r.cell(picks::default_lesson_slot("C"), 0, 9)->flags, 0);
  r.seek(r.size());
  // At the end C holds the trace's output and every element of A was read n/T times.
  for (uint32_t i = 0; i < 64; ++i) {
    EXPECT_EQ(r.cell(picks::default_lesson_slot("C"), 0, i)->value,
              t.buffer(picks::default_lesson_slot("C"))->values[i]);
    EXPECT_EQ(r.cell(picks::default_lesson_slot("A"), 0, i)->reads,
              2u);  // n / T = 8 / 4 blocks in a row
  }
}

TEST(Replay, BackwardSeekGivesTheSameStateAsForwardStepping) {
  // Larger than one checkpoint interval so that seeks cross checkpoints.
  const Trace t = gpu_like(testing::tiled_matmul_trace(16, 4), 3);
  for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
    Replay fwd(shared(t)), back(shared(t));
    const uint64_t every = fwd.checkpoint_interval();
    ASSERT_GT(t.events.size(), 2 * every);
    fwd.set_order(o);
    back.set_order(o);
    back.seek(back.size());
    std::vector<uint64_t> stops = {t.events.size() - 1, every + 5, every, every - 1, 123, 1, 0};
    std::sort(stops.begin(), stops.end());
    // Forward one event at a time, remembering states at the stops.
    std::map<uint64_t, std::vector<CellState>> seen;
    for (uint64_t p = 0; p <= stops.back(); ++p) {
      fwd.seek(p);
      if (std::find(stops.begin(), stops.end(), p) != stops.end())
        seen[p] = std::vector<CellState>(fwd.cells().begin(), fwd.cells().end());
    }
    for (auto it = stops.rbegin(); it != stops.rend(); ++it) {
      back.seek(*it);
      EXPECT_TRUE(same_cells(back.cells(), seen[*it])) << to_string(o) << " at " << *it;
    }
  }
}

TEST(Replay, OrdersKeepEachThreadsProgramOrder) {
  const Trace t = gpu_like(testing::tiled_matmul_trace(8, 4), 5);
  Replay r(shared(t));
  for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
    r.set_order(o);
    std::map<uint64_t, uint32_t> last;  // (block, thread) -> last trace index
    std::vector<bool> used(t.events.size(), false);
    for (uint64_t p = 1; p <= r.size(); ++p) {
      const uint32_t i = r.event_at(p);
      ASSERT_FALSE(used[i]);
      used[i] = true;
      const uint64_t key = (uint64_t(t.events[i].block) << 16) | t.events[i].thread;
      if (last.count(key)) {
        EXPECT_LT(last[key], i) << to_string(o) << " at " << p;
      }
      last[key] = i;
    }
  }
}

TEST(Replay, AsRecordedFollowsGpuTimestamps) {
  const Trace t = gpu_like(testing::tiled_matmul_trace(8, 4), 9);
  Replay r(shared(t));
  for (uint64_t p = 2; p <= r.size(); ++p)
    EXPECT_LE(t.events[r.event_at(p - 1)].globaltimer, t.events[r.event_at(p)].globaltimer);
}

TEST(Replay, LockstepRunsPhaseByPhase) {
  const Trace t = gpu_like(testing::tiled_matmul_trace(8, 4), 11);
  Replay r(shared(t));
  r.set_order(ReplayOrder::Lockstep);
  // 2 tiles along k, 2 barriers each: phases 0..4.
  EXPECT_EQ(r.phase_count(), 5);
  int prev = 0;
  for (uint64_t p = 1; p <= r.size(); ++p) {
    const int ph = r.phase_of(r.event_at(p));
    EXPECT_GE(ph, prev);
    prev = ph;
  }
  // Within phase 0 all threads load A before any stores to tileA... (step by step):
  // the first 4 blocks x 16 threads events are all global loads of A.
  for (uint64_t p = 1; p <= 64; ++p) {
    const Event& e = t.events[r.event_at(p)];
    EXPECT_EQ(e.kind, EventKind::GlobalLoad);
    EXPECT_EQ(e.array, picks::default_lesson_slot("A"));
  }
  EXPECT_EQ(r.lockstep_phase_start(0), 0u);
  EXPECT_EQ(r.phase_of(r.event_at(r.lockstep_phase_start(1) + 1)), 1);
}

TEST(Replay, SwitchingOrderKeepsTheLastEventAndItsPhase) {
  const Trace t = gpu_like(testing::tiled_matmul_trace(8, 4), 13);
  Replay r(shared(t));
  r.seek(r.size() / 2);
  const uint32_t last = r.event_at(r.position());
  const int phase = r.phase_of(last);
  r.set_order(ReplayOrder::Lockstep);
  EXPECT_EQ(r.event_at(r.position()), last);
  EXPECT_EQ(r.phase_of(r.event_at(r.position())), phase);
  expect_state_matches(t, r);
  r.set_order(ReplayOrder::AsRecorded);
  EXPECT_EQ(r.event_at(r.position()), last);
}

TEST(Replay, StepsForwardAndBackwardAreInverse) {
  const Trace t = testing::tiled_matmul_trace(8, 4);
  Replay r(shared(t));
  r.set_order(ReplayOrder::Lockstep);
  // Warp steps: each covers one instruction of one warp (16 threads here).
  uint64_t p = r.warp_step(0, true);
  EXPECT_EQ(p, 16u);  // block 0, warp 0: 16 global loads of A
  uint64_t q = r.warp_step(p, true);
  EXPECT_EQ(r.warp_step(q, false), p);
  EXPECT_EQ(r.warp_step(p, false), 0u);
  // Phases of block 0 and barriers: forward then backward returns.
  std::vector<uint64_t> fwd = {0};
  while (fwd.back() < r.size())
    fwd.push_back(r.phase_step(fwd.back(), true, 0));
  EXPECT_EQ(fwd.size(), 5u + 1u);  // phases 1..4 of block 0, then the end
  for (size_t i = fwd.size() - 1; i > 0; --i)
    EXPECT_EQ(r.phase_step(fwd[i], false, 0), fwd[i - 1]);
  // A barrier stop: everyone of block 0 has arrived, nobody has left.
  const uint64_t b = r.barrier_step(0, true, 0);
  EXPECT_EQ(t.events[r.event_at(b)].kind, EventKind::BarrierArrive);
  EXPECT_EQ(t.events[r.event_at(b + 1)].kind, EventKind::BarrierLeave);
  EXPECT_EQ(r.barrier_step(b, false, 0), 0u);
}

TEST(Replay, SharedCellsRememberTheirSourceAndPadding) {
  Trace t = testing::tiled_matmul_trace(8, 4);
  // Make thread 5 of block 0 store padding instead of loading A in phase 0.
  const ArraySlot a = picks::default_lesson_slot("A");
  for (size_t i = 0; i < t.events.size(); ++i) {
    Event& e = t.events[i];
    if (e.block == 0 && e.thread == 5 && e.kind == EventKind::GlobalLoad && e.array == a) {
      t.events.erase(t.events.begin() + long(i));
      for (size_t j = i; j < t.events.size(); ++j)
        if (t.events[j].thread == 5 && t.events[j].kind == EventKind::SharedStore) {
          t.events[j].value = 0.0f;
          break;
        }
      break;
    }
  }
  Replay r(shared(t));
  r.set_order(ReplayOrder::Lockstep);
  r.seek(r.barrier_step(0, true, 0));
  const CellState* pad = r.cell(picks::default_lesson_slot("tileA"), 0, 5);
  ASSERT_NE(pad, nullptr);
  EXPECT_TRUE(pad->flags & kCellPadded);
  EXPECT_FALSE(pad->flags & kCellLoaded);
  const CellState* loaded = r.cell(picks::default_lesson_slot("tileA"), 0, 6);
  EXPECT_TRUE(loaded->flags & kCellLoaded);
  EXPECT_EQ(loaded->src_buffer, picks::default_lesson_slot("A"));
  EXPECT_EQ(loaded->src, 1 * 8 + 2);  // thread 6: ty 1, tx 2 of tile (0,0)
}

TEST(Replay, TilesStoredFromRegistersRememberTheirSource) {
  // The SGEMM ladder loads the next tiles into registers, computes, and only
  // then stores them (As transposed, element by element): a store is not
  // right after its load. Every shared cell must still name the element of A
  // or B it holds, and none is padding (the tiles are whole), zeros included.
  RunRequest req;
  req.lesson_id = picks::ladder_step(9).id;
  req.params = {.n = 64, .tile = 32};
  req.backend = BackendChoice::Sim;
  const RunResult run = run_simulator(req);
  ASSERT_TRUE(run.ok) << run.error;
  const auto t = shared(run.trace);
  Replay r(t);
  r.seek(r.size());
  size_t checked = 0, zeros = 0;
  for (ArraySlot slot = 1; slot <= t->config.arrays.size(); ++slot) {
    const ArrayInfo* a = t->array(slot);
    if (!a->shared()) continue;
    for (uint32_t block = 0; block < t->config.geometry.grid.count(); ++block)
      for (uint32_t e = 0; e < a->count(); ++e) {
        const CellState* c = r.cell(slot, block, e);
        if (!c || c->time == 0) continue;  // never stored (the padding columns of As)
        EXPECT_FALSE(c->flags & kCellPadded) << a->name << " block " << block << " cell " << e;
        ASSERT_TRUE(c->flags & kCellLoaded) << a->name << " block " << block << " cell " << e;
        const BufferData* src = t->buffer(c->src_buffer);
        ASSERT_NE(src, nullptr);
        EXPECT_EQ(src->values.at(size_t(c->src)), c->value) << a->name << " cell " << e;
        ++checked;
        zeros += c->value == 0.0f;
      }
  }
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(zeros, 0u);  // inputs in [-4, 4]: real zeros, which are not padding
}

TEST(Replay, StaleReadsAreTheOnesHandedOver) {
  Trace t = testing::tiled_matmul_trace(8, 4);
  // Without a report nothing is stale, whatever the loads saw.
  EXPECT_EQ(Replay(shared(t)).stale_read_count(), 0u);
  size_t victim = 0;
  for (size_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].kind == EventKind::SharedLoad && t.events[i].block == 1) {
      victim = i;
      break;
    }
  auto report = std::make_shared<StaleReadReport>();
  report->compared = true;
  report->stale = 1;
  report->stale_events = {uint32_t(victim)};
  Replay r(shared(t), report);
  EXPECT_EQ(r.stale_read_count(), 1u);
  EXPECT_TRUE(r.is_stale_read(uint32_t(victim)));
  EXPECT_EQ(r.first_stale_position(), r.position_after(uint32_t(victim)));
  r.seek(r.position_after(uint32_t(victim)) - 1);
  EXPECT_FALSE(r.cell(t.events[victim].array, 1, t.events[victim].element)->flags & kCellStale);
  r.seek(r.position_after(uint32_t(victim)));
  EXPECT_TRUE(r.cell(t.events[victim].array, 1, t.events[victim].element)->flags & kCellStale);
  // Handed over later: the flags follow, at any position.
  Replay later(shared(t));
  const uint64_t at = later.position_after(uint32_t(victim));
  later.seek(at);
  later.set_stale_reads(report);
  EXPECT_EQ(later.position(), at);
  EXPECT_TRUE(later.cell(t.events[victim].array, 1, t.events[victim].element)->flags & kCellStale);
}

TEST(Replay, SnapshotsStayWithinTheirBytesPerEvent) {
  const Trace t = testing::tiled_matmul_trace(32, 4);
  Replay r(shared(t));
  const uint64_t cells = r.cells().size();
  const uint64_t snapshots = r.size() / r.checkpoint_interval() + 1;
  EXPECT_GE(r.checkpoint_interval(), Replay::kMinCheckpointInterval);
  EXPECT_LE((snapshots - 1) * cells * sizeof(CellState),
            r.size() * Replay::kCheckpointBytesPerEvent);
  // Whatever the interval, a seek anywhere gives the state of stepping there.
  Replay step(shared(t));
  for (uint64_t p : {r.size(), r.checkpoint_interval() + 7, uint64_t(3)}) {
    r.seek(p);
    step.seek(0);
    for (uint64_t q = 1; q <= p; ++q)
      step.seek(q);
    EXPECT_TRUE(same_cells(r.cells(), step.cells())) << "at " << p;
  }
}

TEST(Replay, MemoryEstimateCountsWhatTheReplayHolds) {
  for (const char* id : {picks::default_lesson().id, picks::rectangular_tiled_lesson().id,
                         picks::halo_lesson(picks::Halo::StaticShared).id}) {
    SCOPED_TRACE(id);
    const LessonInfo* v = find_lesson(id);
    ASSERT_NE(v, nullptr);
    RunRequest req;
    req.lesson_id = id;
    req.params = v->defaults;
    req.backend = BackendChoice::Sim;
    RunResult run = run_simulator(req);
    ASSERT_TRUE(run.ok) << run.error;
    const uint64_t events = run.trace.events.size();
    Replay r(shared(std::move(run.trace)));
    EXPECT_EQ(expected_events(*v, v->defaults, req.trace_capacity), events);
    EXPECT_EQ(expected_events(*v, v->defaults, 100), 100u) << "capped by the capacity";
    EXPECT_EQ(replay_cells(*v, v->defaults), r.cells().size());
    // The replay holds what the estimate allows it, beyond the trace.
    EXPECT_LE(r.memory_bytes(), (kHeldBytesPerEvent - sizeof(Event)) * events +
                                    kBytesPerCell * r.cells().size() + 64 * 1024);
  }
  EXPECT_GT(default_memory_budget(), 0u);
  EXPECT_EQ(default_memory_budget(), physical_memory_bytes() / 4);
  EXPECT_EQ(format_bytes(3ull << 30), "3.0 GB");
  EXPECT_EQ(format_bytes(312ull << 20), "312 MB");
}

TEST(Replay, TouchedNowMarksTheLastWarpInstruction) {
  const Trace t = testing::tiled_matmul_trace(8, 4);
  Replay r(shared(t));
  r.set_order(ReplayOrder::Lockstep);
  r.seek(16);  // block 0's warp loaded its 16 elements of A
  int touched = 0;
  for (const CellState& c : r.cells())
    touched += (c.flags & kCellTouchedNow) ? 1 : 0;
  EXPECT_EQ(touched, 16);
  r.seek(0);
  touched = 0;
  for (const CellState& c : r.cells())
    touched += (c.flags & kCellTouchedNow) ? 1 : 0;
  EXPECT_EQ(touched, 0);
}

TEST(Replay, EmptyTraceIsHarmless) {
  Trace t;
  Replay r(shared(t));
  EXPECT_EQ(r.size(), 0u);
  r.seek(10);
  EXPECT_EQ(r.position(), 0u);
  EXPECT_EQ(r.last_event(), nullptr);
  EXPECT_EQ(r.warp_step(0, true), 0u);
  EXPECT_EQ(r.phase_step(0, true, 0), 0u);
  r.set_order(ReplayOrder::Lockstep);
  EXPECT_EQ(r.cell(picks::default_lesson_slot("A"), 0, 0), nullptr);
}

// The phase index answers as a scan of the order would: stops where a block's
// furthest thread enters its next phase, in both orders, also where warps
// drift apart (a GPU-like recorded order, a block's phases interleave).
TEST(Replay, PhaseAndBarrierStepsAgreeWithAScanOfTheOrder) {
  // Two warps per block (tile 8), the second far behind the first.
  Trace lagging = gpu_like(testing::tiled_matmul_trace(16, 8), 5);
  for (Event& e : lagging.events)
    e.globaltimer += uint64_t(warp_of(e)) * 20000;
  for (const Trace& t : {testing::tiled_matmul_trace(8, 4), lagging}) {
    Replay r(shared(t));
    bool interleaved = false;  // a block whose last event is behind its furthest thread
    for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
      r.set_order(o);
      const uint64_t n = r.size();
      for (uint32_t b = 0; b <= r.block_count(); ++b) {  // and one block that has no events
        SCOPED_TRACE(::testing::Message() << to_string(o) << " block " << b);
        // The scan: the running maximum of the block's phases, per position.
        std::vector<int> furthest(n + 1, 0);
        std::vector<uint64_t> starts;
        int last = 0;
        for (uint64_t p = 1; p <= n; ++p) {
          furthest[p] = furthest[p - 1];
          const uint32_t i = r.event_at(p);
          if (t.events[i].block != b) continue;
          last = r.phase_of(i);
          if (last > furthest[p]) furthest[p] = last, starts.push_back(p);
          interleaved |= last < furthest[p];
        }
        auto next = [&](const std::vector<uint64_t>& stops, uint64_t from, bool fwd) {
          if (fwd) {
            for (uint64_t q : stops)
              if (q > from) return q;
            return n;
          }
          for (auto it = stops.rbegin(); it != stops.rend(); ++it)
            if (*it < from) return *it;
          return uint64_t(0);
        };
        std::vector<uint64_t> phase_stops = {0}, barrier_stops;
        for (uint64_t q : starts)
          phase_stops.push_back(q), barrier_stops.push_back(q - 1);
        phase_stops.push_back(n);
        for (uint64_t from = 0; from <= n + 1; ++from)
          for (bool fwd : {true, false}) {
            ASSERT_EQ(r.phase_step(from, fwd, b), next(phase_stops, from, fwd))
                << "from " << from << (fwd ? " forward" : " back");
            ASSERT_EQ(r.barrier_step(from, fwd, b), next(barrier_stops, from, fwd))
                << "from " << from << (fwd ? " forward" : " back");
          }
        for (uint64_t p = 0; p <= n; p += 1 + p / 64) {
          r.seek(p);
          ASSERT_EQ(r.current_phase(b), furthest[p]) << "at " << p;
        }
      }
    }
    if (t.config.backend == BackendKind::Cuda) {
      EXPECT_TRUE(interleaved) << "the GPU-like order should let warps of a block drift apart";
    }
  }
}

}  // namespace
}  // namespace ts
