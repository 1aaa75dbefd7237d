// No replay order draws what the trace contradicts. For every lesson, every
// subset of its barriers, every schedule and both replay orders, on the
// simulator at the lessons' default sizes (two warps per block):
//   - when a load is applied, the cell it read holds the value the load
//     recorded; when the load ran before any store to it the cell is still
//     unwritten and holds the recorded value, marked as read unwritten (what
//     the simulator did is the truth: its trace order is the execution);
//   - an output cell counts as final (the grid may call it wrong) exactly from
//     its last store on, and then holds the value the run produced.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "analysis/replay.hpp"
#include "analysis/stale_reads.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

RunResult sim_run(const LessonInfo& v, uint32_t mask, Schedule schedule) {
  RunRequest req;
  req.lesson_id = v.id;
  req.params = v.defaults;
  req.barrier_mask = mask;
  req.backend = BackendChoice::Sim;
  req.schedule = schedule;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << r.error;
  return r;
}

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// (array, block for shared arrays, element): one cell.
uint64_t cell_key(const Event& e) {
  const uint64_t block = is_shared(e.kind) ? e.block : 0;
  return (uint64_t(e.array) << 56) | (block << 32) | e.element;
}

struct Counts {
  int combinations = 0, runs = 0, reordered = 0, racy_runs = 0;
  uint64_t positions = 0, loads_checked = 0;
};

// Steps through every position of `r` in its current order and checks both
// invariants; returns the loads checked.
uint64_t check_order(const Trace& t, Replay& r, const std::vector<uint8_t>& saw_store) {
  const auto& ev = t.events;
  uint64_t loads = 0;
  // Each output cell's last store in this order, found independently (stores
  // to a global array that is not the output, a look-back's flags, aside).
  std::map<uint32_t, uint64_t> last_store;
  ArraySlot out = kNoArray;
  for (uint64_t p = 1; p <= r.size(); ++p) {
    const Event& e = ev[r.event_at(p)];
    const ArrayInfo* info = array_at(t.config.arrays, e.array);
    if (e.kind == EventKind::GlobalStore && !(e.flags & kFlagOutOfRange) && info &&
        info->output()) {
      last_store[e.element] = p;
      out = e.array;
    }
  }
  r.seek(0);
  for (uint64_t p = 1; p <= r.size(); ++p) {
    r.seek(p);
    const uint32_t i = r.event_at(p);
    const Event& e = ev[i];
    if (!is_load(e.kind) || (e.flags & kFlagOutOfRange)) continue;
    const CellState* c = r.cell(e.array, e.block, e.element);
    if (!c) {
      ADD_FAILURE() << "no cell for event " << i;
      return loads;
    }
    ++loads;
    const ReplayArray* a = r.array(e.array);
    const bool input = a && !a->shared && !a->is_output;
    if (input || saw_store[i]) {
      if (!same_bits(c->value, e.value) || (!input && !(c->flags & kCellWritten))) {
        ADD_FAILURE() << to_string(r.order()) << ": at position " << p << " thread " << e.thread
                      << " of block " << e.block << " read "
                      << element_name(t.config.arrays, e.array, e.element) << " = " << e.value
                      << " but the cell shows " << c->value
                      << ((c->flags & kCellWritten) ? "" : " (unwritten)");
        return loads;
      }
    } else if (c->flags & kCellWritten) {
      ADD_FAILURE() << to_string(r.order()) << ": at position " << p << " thread " << e.thread
                    << " of block " << e.block << " read "
                    << element_name(t.config.arrays, e.array, e.element)
                    << " before any store, but the cell shows " << c->value;
      return loads;
    } else if (!same_bits(c->value, e.value) || !(c->flags & kCellReadUnwritten)) {
      // Read before any store (a stale read, uninitialised memory): the cell
      // prints what the load recorded, 0 included.
      ADD_FAILURE() << to_string(r.order()) << ": at position " << p << " thread " << e.thread
                    << " of block " << e.block << " read "
                    << element_name(t.config.arrays, e.array, e.element) << " = " << e.value
                    << " before any store, but the cell holds " << c->value
                    << ((c->flags & kCellReadUnwritten) ? "" : " and is not marked as read");
      return loads;
    }
  }
  // Final exactly from the last store on, holding the run's output.
  const BufferData* data = out == kNoArray ? nullptr : t.buffer(out);
  for (const auto& [element, p] : last_store) {
    r.seek(p - 1);
    EXPECT_FALSE(r.output_final(out, element)) << "element " << element << " before its last store";
    r.seek(p);
    EXPECT_TRUE(r.output_final(out, element)) << "element " << element << " at its last store";
    if (data && element < data->values.size()) {
      EXPECT_TRUE(same_bits(r.cell(out, 0, element)->value, data->values[element]))
          << to_string(r.order()) << ": " << element_name(t.config.arrays, out, element)
          << " final value differs from the run's output";
    }
  }
  return loads;
}

// Under the sanitizers (the debug preset: unoptimised, more than 15 times
// slower, past ctest's 25 minutes) the sweep keeps every lesson, schedule and
// order but two barrier subsets, all kept and none: the code the sanitizers
// watch runs the same for every subset. The main ctest sweeps them all.
#if defined(TS_SANITIZED)
constexpr bool kEverySubset = false;
#else
constexpr bool kEverySubset = true;
#endif

TEST(ReplayInvariant, NoOrderDrawsWhatTheTraceContradicts) {
  Counts n;
  int expected = 0;  // lessons x barrier subsets x 4 schedules x 2 orders
  for (const LessonInfo& v : all_lessons())
    expected += (kEverySubset ? 1 << v.barriers.size() : v.barriers.empty() ? 1 : 2) * 4 * 2;
  for (const LessonInfo& v : all_lessons()) {
    const uint32_t all = all_barriers(v);
    for (uint32_t mask = 0; mask <= all; ++mask) {
      if ((mask & all) != mask) continue;
      if (!kEverySubset && mask != 0 && mask != all) continue;
      std::vector<Schedule> schedules(4);
      schedules[1].kind = ScheduleKind::WarpSkew;
      schedules[2].kind = schedules[3].kind = ScheduleKind::Random;
      schedules[2].seed = 1;
      schedules[3].seed = 2;
      for (const Schedule& sch : schedules) {
        SCOPED_TRACE(std::string(v.id) + " barriers kept " + std::to_string(mask) + " schedule " +
                     to_string(sch.kind) + " seed " + std::to_string(sch.seed));
        RunResult run = sim_run(v, mask, sch);
        ASSERT_FALSE(run.trace.truncated());
        ++n.runs;
        const auto& ev = run.trace.events;
        // Which loads ran after some store to their cell: the simulator's
        // trace order is the order things happened.
        std::vector<uint8_t> saw_store(ev.size(), 0);
        {
          std::map<uint64_t, bool> stored;
          for (size_t i = 0; i < ev.size(); ++i) {
            if (is_store(ev[i].kind) && !(ev[i].flags & kFlagOutOfRange))
              stored[cell_key(ev[i])] = true;
            else if (is_load(ev[i].kind))
              saw_store[i] = stored.count(cell_key(ev[i])) ? 1 : 0;
          }
        }
        auto trace = std::make_shared<const Trace>(std::move(run.trace));
        auto stale = std::make_shared<const StaleReadReport>(find_stale_reads(*trace));
        Replay r(trace, stale);
        EXPECT_FALSE(r.lockstep_unavailable()) << r.lockstep_note();
        n.reordered += r.lockstep_reordered() ? 1 : 0;
        n.racy_runs += stale->stale > 0 ? 1 : 0;
        for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
          r.set_order(o);
          n.loads_checked += check_order(*trace, r, saw_store);
          n.positions += r.size();
          ++n.combinations;
        }
      }
    }
  }
  std::printf(
      "[ invariant ] %d combinations (lesson x barrier subset x schedule x order) from %d runs; "
      "%llu positions, %llu loads checked; %d runs with stale reads, lockstep reordered in %d\n",
      n.combinations, n.runs, (unsigned long long)n.positions, (unsigned long long)n.loads_checked,
      n.racy_runs, n.reordered);
  EXPECT_GT(n.reordered, 0) << "some run must need the repair, or this test proves nothing";
  EXPECT_EQ(n.combinations, expected);
}

// The case from issue 8: barrier 1 removed, warp skew. Plain lockstep drew
// the whole of tileB loaded while thread (1, 0) read tileB[4][1] and got 0.
TEST(ReplayInvariant, LockstepDrawsTheMissedStoreAfterTheLoad) {
  const LessonInfo* v = &picks::default_lesson();
  ASSERT_NE(v, nullptr);
  RunRequest req;
  req.lesson_id = v->id;
  req.params = Params{.n = 12, .tile = 8};
  req.barrier_mask = 0x2;  // barrier 2 kept
  req.backend = BackendChoice::Sim;
  req.schedule.kind = ScheduleKind::WarpSkew;
  RunResult run = run_simulator(req);
  ASSERT_TRUE(run.ok) << run.error;
  auto trace = std::make_shared<const Trace>(std::move(run.trace));
  auto stale = std::make_shared<const StaleReadReport>(find_stale_reads(*trace));
  ASSERT_GT(stale->stale, 0u);
  Replay r(trace, stale);
  r.set_order(ReplayOrder::Lockstep);
  EXPECT_TRUE(r.lockstep_reordered());
  EXPECT_FALSE(r.lockstep_note().empty());
  // Every stale read that got 0 from a tile finds its cell still empty.
  int checked = 0;
  for (uint32_t i : stale->stale_events) {
    const Event& e = trace->events[i];
    if (e.kind != EventKind::SharedLoad || e.value != 0.0f) continue;
    r.seek(r.position_after(i));
    const CellState* c = r.cell(e.array, e.block, e.element);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(!(c->flags & kCellWritten) || c->value == 0.0f)
        << "thread " << e.thread << " read "
        << element_name(trace->config.arrays, e.array, e.element) << " = 0, the cell shows "
        << c->value;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// One definition of a stale read: the replay's flags, its count, the first
// stale position and the report the race panel prints agree.
TEST(ReplayInvariant, StaleReadsAreOneNumberEverywhere) {
  int racy = 0;
  for (const char* id : {picks::default_lesson().id, picks::dynamic_staging_lesson(1).id,
                         picks::halo_lesson(picks::Halo::StaticShared).id}) {
    const LessonInfo* v = find_lesson(id);
    ASSERT_NE(v, nullptr);
    for (ScheduleKind k : {ScheduleKind::WarpSkew, ScheduleKind::Random}) {
      SCOPED_TRACE(std::string(id) + " " + to_string(k));
      Schedule sch;
      sch.kind = k;
      RunResult run = sim_run(*v, 0, sch);
      auto trace = std::make_shared<const Trace>(std::move(run.trace));
      auto stale = std::make_shared<const StaleReadReport>(
          find_stale_reads(*trace, InputKind::SmallIntegers, 8));
      ASSERT_TRUE(stale->compared) << stale->error;
      Replay r(trace, stale);
      EXPECT_EQ(r.stale_read_count(), stale->stale);
      for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
        r.set_order(o);
        uint64_t flagged = 0, first = 0;
        for (uint64_t p = 1; p <= r.size(); ++p)
          if (r.is_stale_read(r.event_at(p))) {
            ++flagged;
            if (!first) first = p;
          }
        EXPECT_EQ(flagged, stale->stale) << "every stale read, not the first `cap`";
        EXPECT_EQ(r.first_stale_position(), first);
        if (first) {
          r.seek(first);
          const Event& e = *r.last_event();
          EXPECT_TRUE(r.cell(e.array, e.block, e.element)->flags & kCellStale);
        }
      }
      racy += stale->stale > 0;
    }
  }
  EXPECT_GE(racy, 3);
}

}  // namespace
}  // namespace ts
