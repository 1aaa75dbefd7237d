// analysis/trace_compare.hpp: the GPU's and the simulator's traces compared
// thread by thread (the grader's rule "gpu", `check --backend cuda`). Here
// two simulator traces stand in for the pair: the comparison itself is what
// is tested, so that the GPU rule's messages are known before a GPU runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/trace_compare.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

Trace traced(const LessonInfo& v, ScheduleKind schedule) {
  RunRequest req;
  req.lesson_id = v.id;
  req.params = v.defaults;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = schedule;
  RunResult r = run(req);
  EXPECT_TRUE(r.ok) << r.error;
  return r.trace;
}

const LessonInfo& lesson() {
  return picks::first_with("shared arrays, a block barrier, more than one block",
                           [](const LessonInfo& v) {
                             return picks::has_shared_arrays(v) && !v.barriers.empty() &&
                                    geometry(v, v.defaults).grid.count() > 1 &&
                                    !picks::has_shared_atomics(v) && !picks::has_global_atomics(v);
                           });
}

TEST(TraceCompare, EachThreadsOwnOrderIsCompared) {
  const Trace lockstep = traced(lesson(), ScheduleKind::Lockstep);
  ASSERT_GT(lockstep.events.size(), 100u);
  EXPECT_EQ(first_thread_difference(lockstep, lockstep, "A", "B"), std::nullopt);
  // Another interleaving of the same threads (the GPU's is never the
  // simulator's): equal, since each thread's own order is kept.
  Trace by_thread = lockstep;
  std::stable_sort(by_thread.events.begin(), by_thread.events.end(),
                   [](const Event& a, const Event& b) {
                     return std::tie(b.block, b.thread) < std::tie(a.block, a.thread);
                   });
  ASSERT_NE(by_thread.events.front().thread, lockstep.events.front().thread);
  EXPECT_EQ(first_thread_difference(by_thread, lockstep, "A", "B"), std::nullopt);
  // A race-free kernel under warp skew: the same events per thread.
  EXPECT_EQ(first_thread_difference(traced(lesson(), ScheduleKind::WarpSkew), lockstep, "A", "B"),
            std::nullopt);
}

TEST(TraceCompare, TheFirstDifferenceNamesTheThreadTheEventAndBothValues) {
  const Trace sim = traced(lesson(), ScheduleKind::Lockstep);
  const LaunchGeometry& g = sim.config.geometry;
  // The third event of the last block's thread 1, another value on "the GPU".
  const uint32_t block = uint32_t(g.grid.count() - 1);
  Trace gpu = sim;
  int seen = 0;
  Event* changed = nullptr;
  for (Event& e : gpu.events)
    if (e.block == block && e.thread == 1 && ++seen == 3) changed = &e;
  ASSERT_NE(changed, nullptr);
  changed->value += 1000.0f;
  const std::string bx = std::to_string(block % g.grid.x),
                    by = std::to_string((block / g.grid.x) % g.grid.y);
  const std::string tx = std::to_string(1 % g.block.x),
                    ty = std::to_string((1 / g.block.x) % g.block.y);
  const auto d = first_thread_difference(gpu, sim, "the GPU", "the simulator");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rfind("thread (" + tx + ", " + ty + ", 0) of block (" + bx + ", " + by +
                         ", 0): its 3rd event is ",
                     0),
            0u)
      << *d;
  EXPECT_NE(d->find("on the GPU, "), std::string::npos) << *d;
  EXPECT_NE(d->find(" on the simulator"), std::string::npos) << *d;
  EXPECT_NE(d->find("at line " + std::to_string(changed->line)), std::string::npos) << *d;

  // One event fewer on one side: the counts, and the event only one side has.
  Trace shorter = sim;
  auto last = std::find_if(shorter.events.rbegin(), shorter.events.rend(),
                           [&](const Event& e) { return e.block == block && e.thread == 1; });
  shorter.events.erase(std::next(last).base());
  const auto c = first_thread_difference(sim, shorter, "the GPU", "the simulator");
  ASSERT_TRUE(c.has_value());
  EXPECT_NE(c->find(" events on the GPU and "), std::string::npos) << *c;
  EXPECT_NE(c->find("the first one only the GPU has: "), std::string::npos) << *c;
}

}  // namespace
}  // namespace ts
