// The simulator's warp vote (MATCH_ANY, __match_any_sync): each lane gets the
// lanes of its own warp that hold its value, as the GPU gives them, on every
// schedule, in a partial last warp, and twice in a row (a lane that votes
// again must not see a value of the previous vote).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sim/fiber_block.hpp"
#include "engine/sim/sim_recorder.hpp"

namespace ts::sim {
namespace {

// Two values per thread, and what each vote returned.
struct Votes {
  SimSink* sink = nullptr;
  std::vector<int> first, second;      // the values voted on
  std::vector<unsigned> got1, got2;    // the masks the votes returned
  std::vector<unsigned> popc, leader;  // __popc and __ffs - 1 of the first vote
};

void vote_twice(void* user, int thread) {
  auto* v = static_cast<Votes*>(user);
  SimRec rec(*FiberBlock::active(), *v->sink, thread);
  v->got1[thread] = MATCH_ANY(v->first[thread]);
  v->popc[thread] = unsigned(__popc(v->got1[thread]));
  v->leader[thread] = unsigned(__ffs(int(v->got1[thread])) - 1);
  v->got2[thread] = MATCH_ANY(v->second[thread]);
}

// __match_any_sync's definition: the lanes of t's warp (those that exist) with t's value.
unsigned expected(const std::vector<int>& value, int t) {
  const int first = t / 32 * 32, threads = int(value.size());
  unsigned mask = 0;
  for (int l = first; l < first + 32 && l < threads; ++l)
    if (value[size_t(l)] == value[size_t(t)]) mask |= 1u << (l - first);
  return mask;
}

Votes run(int threads, const Schedule& schedule, SimSink& sink) {
  Votes v;
  v.sink = &sink;
  for (int t = 0; t < threads; ++t) {
    v.first.push_back((t * 7) % 5 - 2);  // five groups spread over the warp, some negative
    v.second.push_back(t / 3);           // groups of three neighbours
  }
  v.got1.assign(size_t(threads), 0);
  v.got2 = v.popc = v.leader = v.got1;
  FiberBlock fibers;
  const std::string err = fibers.run_block({1, 1, 1}, {unsigned(threads), 1, 1}, {0, 0, 0}, nullptr,
                                           schedule, vote_twice, &v);
  EXPECT_EQ(err, "");
  return v;
}

TEST(WarpMatch, EachLaneGetsTheLanesOfItsWarpWithItsValueOnEverySchedule) {
  for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random})
    for (int threads : {32, 96, 48}) {  // 48: a last warp of 16 lanes
      SCOPED_TRACE(std::string(to_string(kind)) + ", " + std::to_string(threads) + " threads");
      SimSink sink;
      sink.traced = false;
      Schedule s;
      s.kind = kind;
      s.skew_warps = 0b10;
      s.skew_steps = 3;
      const Votes v = run(threads, s, sink);
      for (int t = 0; t < threads; ++t) {
        EXPECT_EQ(v.got1[t], expected(v.first, t)) << "thread " << t;
        EXPECT_EQ(v.got2[t], expected(v.second, t)) << "thread " << t;
        EXPECT_NE(v.got1[t] & (1u << (t % 32)), 0u) << "thread " << t << ": its own bit";
      }
    }
}

TEST(WarpMatch, PopcAndFfsCountTheGroupAndNameItsLowestLane) {
  SimSink sink;
  sink.traced = false;
  const Votes v = run(64, {}, sink);
  for (int t = 0; t < 64; ++t) {
    // first = (7t mod 5) - 2: lane l of the warp is in t's group when 7l = 7t (mod 5), l = t (mod
    // 5).
    const int lane = t % 32;
    unsigned size = 0;
    for (int l = lane % 5; l < 32; l += 5)
      ++size;
    EXPECT_EQ(v.popc[t], size) << "thread " << t;
    EXPECT_EQ(v.leader[t], unsigned(lane % 5)) << "thread " << t;
  }
}

TEST(WarpMatch, AVoteIsNotAnEventAndEndsTheStep) {
  SimSink sink;
  sink.capacity = 1000;
  const Votes v = run(32, {}, sink);
  EXPECT_TRUE(sink.events.empty());  // a vote touches no memory
  EXPECT_EQ(v.got1[0], expected(v.first, 0));
}

}  // namespace
}  // namespace ts::sim
