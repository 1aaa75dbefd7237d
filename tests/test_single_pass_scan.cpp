// The lessons whose blocks talk to each other through flags in global memory
// (a single-pass scan: each block waits on flags that earlier blocks raise),
// picked by that property, never by id. On the simulator, which runs the
// blocks one after another: right output at odd sizes and with many tiles,
// closed-form counts, the same bits and accesses under every schedule, and
// launch after launch on the same memory with no reset.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine/backend.hpp"
#include "engine/lesson_dispatch.hpp"
#include "engine/prepare.hpp"
#include "engine/sim/simulate.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// Every lesson whose kernel waits on a flag another block raises.
std::vector<const LessonInfo*> flag_lessons() {
  const auto found =
      picks::all_with([](const LessonInfo& v) { return picks::source_has(v, "wait_at_least("); });
  if (found.empty())
    throw std::runtime_error("no lesson waits on another block's flag: the test needs one");
  return found;
}

RunResult simulate(const LessonInfo& v, const Params& p, Schedule s = {}) {
  RunRequest req;
  req.lesson_id = v.id;
  req.params = p;
  req.backend = BackendChoice::Sim;
  req.schedule = s;
  return run_simulator(req);
}

// Odd lengths, blocks of 1 to 4 warps (3: not a power of two), a partial
// last tile and last warp; 70001 elements in blocks of 32 are 137 tiles of
// 512, more than a look-back reaches, so that later tiles take an earlier
// tile's inclusive prefix (row 1 of `sums`) instead of adding up totals.
const std::vector<Params> kSizes = {
    {.length = 1, .block = 32},     {.length = 7, .block = 32},    {.length = 513, .block = 32},
    {.length = 1000, .block = 64},  {.length = 4097, .block = 96}, {.length = 20001, .block = 128},
    {.length = 70001, .block = 32},
};

TEST(SinglePassScan, OddSizesAndManyTilesMatchTheReferenceAndTheClosedForms) {
  for (const LessonInfo* v : flag_lessons()) {
    int prefix_reads = 0;
    for (const Params& p : kSizes) {
      if (validate(*v, p, DeviceLimits{})) continue;
      const std::string what = std::string(v->id) + " " + describe(*v, p);
      const RunResult r = simulate(*v, p);
      ASSERT_TRUE(r.ok) << what << ": " << r.error;
      EXPECT_TRUE(r.verdict.correct) << what << ": " << r.verdict.summary();
      EXPECT_TRUE(r.faults.empty()) << what << ": " << (r.faults.empty() ? "" : r.faults[0]);
      ASSERT_FALSE(r.trace.truncated()) << what;
      uint64_t n[kEventKindCount] = {};
      for (const Event& e : r.trace.events)
        ++n[int(e.kind)];
      const ExpectedCounts want = expected_counts(*v, p);
      EXPECT_EQ(n[int(EventKind::GlobalLoad)], want.global_loads) << what;
      EXPECT_EQ(n[int(EventKind::GlobalStore)], want.global_stores) << what;
      EXPECT_EQ(n[int(EventKind::SharedLoad)], want.shared_loads) << what;
      EXPECT_EQ(n[int(EventKind::SharedStore)], want.shared_stores) << what;
      EXPECT_EQ(n[int(EventKind::BarrierArrive)], want.barrier_arrivals) << what;
      EXPECT_EQ(n[int(EventKind::WarpShuffle)], want.warp_shuffles) << what;
      EXPECT_EQ(n[int(EventKind::GlobalAtomic)], want.global_atomics) << what;
      EXPECT_EQ(r.trace.events.size(), want.total()) << what;
      // Loads of row 1 of sums: an earlier tile's inclusive prefix.
      const ArrayTable table = arrays(*v, p);
      const ArraySlot sums = picks::array_slot(table, "sums", v->id);
      const uint32_t tiles = uint32_t(array_at(table, sums)->cols);
      for (const Event& e : r.trace.events)
        prefix_reads += e.kind == EventKind::GlobalLoad && e.array == sums && e.element >= tiles;
    }
    EXPECT_GT(prefix_reads, 0) << v->id << ": no size reached past the look-back's totals";
  }
}

// Per thread, in program order: what it touched and the value's bits.
using Access = std::tuple<int, int, uint32_t, uint32_t, uint16_t>;
std::map<std::pair<uint32_t, uint32_t>, std::vector<Access>> per_thread(const Trace& t) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Access>> m;
  for (const Event& e : t.events) {
    uint32_t bits;
    std::memcpy(&bits, &e.value, 4);
    m[{e.block, e.thread}].push_back({int(e.kind), int(e.array), e.element, bits, e.line});
  }
  return m;
}

// The look-back always reads the same tiles and adds in the same order:
// whatever order the warps run in, the same accesses with the same values,
// and out the same bit for bit (what lets the GPU's trace equal the simulator's).
TEST(SinglePassScan, EveryScheduleGivesTheSameAccessesAndBits) {
  std::vector<Schedule> schedules(5);
  schedules[1].kind = ScheduleKind::WarpSkew;
  schedules[1].skew_steps = 40;
  for (int i = 2; i < 5; ++i)
    schedules[size_t(i)].kind = ScheduleKind::Random, schedules[size_t(i)].seed = uint64_t(i);
  for (const LessonInfo* v : flag_lessons()) {
    const Params p{.length = 20001, .block = 96};
    const RunResult first = simulate(*v, p, schedules[0]);
    ASSERT_TRUE(first.ok) << first.error;
    const auto want = per_thread(first.trace);
    for (size_t s = 1; s < schedules.size(); ++s) {
      SCOPED_TRACE(std::string(v->id) + " schedule " + to_string(schedules[s].kind) + " " +
                   std::to_string(s));
      const RunResult r = simulate(*v, p, schedules[s]);
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_TRUE(r.verdict.correct) << r.verdict.summary();
      EXPECT_TRUE(per_thread(r.trace) == want);
      ASSERT_EQ(r.trace.buffers.size(), first.trace.buffers.size());
      for (size_t b = 0; b < r.trace.buffers.size(); ++b) {
        const std::vector<float>&got = r.trace.buffers[b].values,
              &was = first.trace.buffers[b].values;
        if (r.trace.buffers[b].is_output) {
          EXPECT_EQ(0, std::memcmp(got.data(), was.data(), got.size() * sizeof(float)));
        }
      }
    }
  }
}

// The flags of one launch are still set when the next one starts (nothing
// clears them): each launch must wait for its own. Three launches on the same
// memory, the sums poisoned before the third: every output right, every flag
// read in launch k holding k.
TEST(SinglePassScan, LaunchAfterLaunchOnTheSameMemoryNeedsNoReset) {
  for (const LessonInfo* v : flag_lessons()) {
    SCOPED_TRACE(v->id);
    RunRequest req;
    req.lesson_id = v->id;
    req.params = {.length = 70001, .block = 32};
    req.traced = false;  // the simulator is driven directly below, traced
    PreparedRun run;
    ASSERT_FALSE(prepare_run(req, {BackendKind::Simulator, DeviceLimits{}, 0}, run));
    const ArraySlot in = picks::array_slot(run.arrays, "in", v->id);
    const ArraySlot out = picks::array_slot(run.arrays, "out", v->id);
    const ArraySlot sums = picks::array_slot(run.arrays, "sums", v->id);
    const ArraySlot ready = picks::array_slot(run.arrays, "ready", v->id);
    std::vector<std::vector<float>> mem;  // 4-byte words, as the backends allocate them
    for (size_t i = 0; i < run.globals.size(); ++i) {
      mem.emplace_back(run.allocation[i], 0.0f);
      std::copy(run.globals[i].values.begin(), run.globals[i].values.end(), mem.back().begin());
      run.args.data[run.globals[i].slot] = mem.back().data();
    }
    ASSERT_EQ(run.globals[0].slot, in);
    const std::vector<float>& x = run.globals[0].values;  // small integers: exact prefix sums
    for (int launch = 1; launch <= 3; ++launch) {
      SCOPED_TRACE("launch " + std::to_string(launch));
      if (launch == 3) {
        float* s = static_cast<float*>(run.args.data[sums]);
        for (int i = 0; i < run.args.count[sums]; ++i)
          s[i] = std::nanf("");
      }
      std::fill_n(static_cast<float*>(run.args.data[out]), run.args.count[out], -1.0f);
      sim::SimOptions opt;
      opt.max_steps = 4 * run.expected_events + (1u << 20);
      sim::SimResult r;
      ASSERT_TRUE(visit_lesson(run.index, run.params, [&](auto body) {
        r = sim::simulate<decltype(body)>(run.geometry, run.args, opt);
      }));
      ASSERT_EQ(r.error, "");
      const float* got = static_cast<const float*>(run.args.data[out]);
      double sum = 0;
      int wrong = 0;
      for (size_t i = 0; i < x.size(); ++i)
        wrong += double(got[i]) != (sum += x[i]);
      EXPECT_EQ(wrong, 0);
      int flags = 0, stale = 0;
      for (const Event& e : r.events)
        if (e.kind == EventKind::GlobalLoad && e.array == ready)
          ++flags, stale += e.value != float(launch);
      EXPECT_GT(flags, 0);
      EXPECT_EQ(stale, 0);
    }
  }
}

}  // namespace
}  // namespace ts
