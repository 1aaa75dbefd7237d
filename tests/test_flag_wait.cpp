// The simulator's side of the accesses a single-pass kernel adds to the
// recorders (lessons/access.hpp): a spin-wait on a flag, __ldcg, the fence,
// and the shuffles up and from one lane. Driven with small kernel bodies of
// this file, no catalogue.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/sim/simulate.hpp"
#include "lessons/access.hpp"

namespace ts {
namespace {

enum : ArraySlot { kFlag = 1, kData, kOut };

// Thread 0 (warp 0) stores a value and then raises a flag; thread 40 (warp 1)
// waits for the flag and copies the value: a message between two threads
// that no barrier orders, only the flag.
struct Message {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<int, Rec> flag(rec, args, kFlag);
    GlobalArray<float, Rec> data(rec, args, kData);
    GlobalArray<float, Rec> out(rec, args, kOut);
    const int tid = int(threadIdx.x);
    if (tid == 0) {
      data[0] = 42.0f;
      THREADFENCE();
      flag[0] = 1;
    }
    if (tid == 40) {
      wait_at_least(flag[0], 1);
      THREADFENCE();
      out[0] = ldcg(data[0]);
    }
  }
};

struct Arrays {
  std::vector<int> flag = std::vector<int>(1, 0);
  std::vector<float> data = std::vector<float>(1, 0.0f), out = std::vector<float>(1, 0.0f);
  KernelArgs args;
  Arrays() {
    args.data[kFlag] = flag.data();
    args.data[kData] = data.data();
    args.data[kOut] = out.data();
    args.count[kFlag] = args.count[kData] = args.count[kOut] = 1;
  }
};

// Warp 1 runs first under skew 0 with the lagging warp 0: the wait must
// give its steps away until warp 0 has raised the flag.
TEST(FlagWait, AWaiterSeesTheValueItsFlagAnnouncesUnderEverySchedule) {
  std::vector<Schedule> schedules(4);
  schedules[1].kind = ScheduleKind::WarpSkew;
  schedules[1].skew_steps = 40;
  schedules[2].kind = schedules[3].kind = ScheduleKind::Random;
  schedules[2].seed = 1, schedules[3].seed = 2;
  for (const Schedule& s : schedules) {
    SCOPED_TRACE(to_string(s.kind));
    Arrays a;
    LaunchGeometry geo;
    geo.block = {64, 1, 1};
    sim::SimOptions opt;
    opt.schedule = s;
    opt.max_steps = 100000;
    const sim::SimResult r = sim::simulate<Message>(geo, a.args, opt);
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(a.out[0], 42.0f);
    // The wait is one load (the one that saw the flag set), however long it spun.
    int flag_loads = 0;
    for (const Event& e : r.events)
      if (e.kind == EventKind::GlobalLoad && e.array == kFlag) {
        ++flag_loads;
        EXPECT_EQ(e.thread, 40);
        EXPECT_EQ(e.value, 1.0f);
      }
    EXPECT_EQ(flag_loads, 1);
    EXPECT_EQ(r.events.size(), 5u);  // data, flag; flag, data, out
  }
}

// Nobody raises the flag: the run stops at the step limit instead of hanging.
struct Unanswered {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<int, Rec> flag(rec, args, kFlag);
    wait_at_least(flag[0], 1);
  }
};

TEST(FlagWait, AFlagNobodySetsStopsTheRunAsStuck) {
  Arrays a;
  LaunchGeometry geo;
  geo.block = {32, 1, 1};
  sim::SimOptions opt;
  opt.max_steps = 10000;
  const sim::SimResult r = sim::simulate<Unanswered>(geo, a.args, opt);
  EXPECT_NE(r.error.find("stuck"), std::string::npos) << r.error;
}

// Lane l gets lane l - 3 (its own below 3), and every lane gets lane 31.
struct Shuffles {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<float, Rec> out(rec, args, kOut);
    const int lane = int(threadIdx.x);
    const float up = SHFL_UP(float(lane), 3);
    const float last = SHFL_IDX(float(lane) * 2.0f, 31);
    out[2 * lane] = up;
    out[2 * lane + 1] = last;
  }
};

TEST(FlagWait, ShufflesUpAndFromOneLane) {
  std::vector<float> out(64, -1.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 64;
  LaunchGeometry geo;
  geo.block = {32, 1, 1};
  const sim::SimResult r = sim::simulate<Shuffles>(geo, args, {});
  ASSERT_EQ(r.error, "");
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[2 * lane], float(lane >= 3 ? lane - 3 : lane)) << lane;
    EXPECT_EQ(out[2 * lane + 1], 62.0f) << lane;
  }
  // A shuffle event names the lane the value came from: first the shuffle
  // up, then the one from lane 31.
  std::vector<int> seen(32, 0);
  for (const Event& e : r.events) {
    if (e.kind != EventKind::WarpShuffle) continue;
    ASSERT_LT(e.thread, 32);
    const int lane = e.thread;
    if (seen[size_t(lane)]++ == 0) {
      EXPECT_EQ(e.element, uint32_t(lane >= 3 ? lane - 3 : lane)) << lane;
    } else {
      EXPECT_EQ(e.element, 31u) << lane;
      EXPECT_EQ(e.value, 62.0f) << lane;
    }
  }
  for (int n : seen)
    EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace ts
