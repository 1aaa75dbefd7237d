// The simulator's core, driven directly with a kernel body (no catalogue):
// fibers, barriers, schedules, the recorder's checks and capacity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "engine/sim/simulate.hpp"
#include "lessons/matmul_tiled_square.hpp"

namespace ts {
namespace {

using lessons::matmul_tiled_square::kA;
using lessons::matmul_tiled_square::kB;
using lessons::matmul_tiled_square::kC;

struct Matmul {
  int n, tile;
  std::vector<float> a, b, c;
  KernelArgs args;
  LaunchGeometry geo;
  Matmul(int n_, int tile_) : n(n_), tile(tile_), a(n_ * n_), b(n_ * n_), c(n_ * n_, 0.0f) {
    // Small integers: float sums are exact, so the result must match exactly.
    for (int i = 0; i < n * n; ++i) {
      a[i] = float((i * 7 + 3) % 9 - 4);
      b[i] = float((i * 5 + 1) % 9 - 4);
    }
    args.data[kA] = a.data();
    args.data[kB] = b.data();
    args.data[kC] = c.data();
    args.m = args.k = args.n = n;
    args.count[kA] = args.count[kB] = args.count[kC] = n * n;
    const uint32_t g = uint32_t((n + tile - 1) / tile);
    geo.grid = {g, g, 1};
    geo.block = {uint32_t(tile), uint32_t(tile), 1};
  }
  int wrong_cells() const {
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int k = 0; k < n; ++k)
          s += double(a[i * n + k]) * b[k * n + j];
        if (float(s) != c[i * n + j]) ++wrong;
      }
    return wrong;
  }
};

template <int T>
sim::SimResult run_tiled(Matmul& m, const sim::SimOptions& opt) {
  return sim::simulate<lessons::matmul_tiled_square::Body<T>>(m.geo, m.args, opt);
}

TEST(SimCore, TiledSquareMatchesReference) {
  for (int n : {1, 7, 16, 17, 33}) {
    Matmul m(n, 16);
    sim::SimResult r = run_tiled<16>(m, {});
    ASSERT_EQ(r.error, "") << "n=" << n;
    EXPECT_EQ(m.wrong_cells(), 0) << "n=" << n;
    EXPECT_EQ(r.fault_count, 0u);
    // 2 loads per tile per thread, threads of the padded grid included.
    const uint64_t tiles = (n + 15) / 16, threads = tiles * tiles * 256;
    uint64_t gl = 0, gs = 0, sl = 0, ss = 0, ba = 0, bl = 0;
    for (const Event& e : r.events) {
      gl += e.kind == EventKind::GlobalLoad;
      gs += e.kind == EventKind::GlobalStore;
      sl += e.kind == EventKind::SharedLoad;
      ss += e.kind == EventKind::SharedStore;
      ba += e.kind == EventKind::BarrierArrive;
      bl += e.kind == EventKind::BarrierLeave;
    }
    EXPECT_EQ(gs, uint64_t(n * n));
    EXPECT_EQ(ss, threads * tiles * 2);
    EXPECT_EQ(sl, threads * tiles * 2 * 16);
    EXPECT_EQ(ba, threads * tiles * 2);
    EXPECT_EQ(bl, ba);
    // Global loads happen only inside the matrix: 2 * tiles per output element.
    EXPECT_EQ(gl, uint64_t(n) * n * 2 * tiles);
  }
}

TEST(SimCore, SchedulesAreDeterministic) {
  for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random}) {
    sim::SimOptions opt;
    opt.schedule.kind = kind;
    opt.schedule.seed = 42;
    opt.barrier_mask = 0;  // races make any difference in order visible in the values
    Matmul m1(20, 8), m2(20, 8);
    sim::SimResult r1 = run_tiled<8>(m1, opt), r2 = run_tiled<8>(m2, opt);
    ASSERT_EQ(r1.error, "");
    ASSERT_EQ(r1.events.size(), r2.events.size());
    EXPECT_EQ(std::memcmp(r1.events.data(), r2.events.data(), r1.events.size() * sizeof(Event)), 0)
        << int(kind);
    EXPECT_EQ(m1.c, m2.c);
  }
}

// Per block, the k-th barrier crossing of every thread: no thread leaves it
// before every thread of the block that reaches it has arrived.
void expect_barriers_hold(const std::vector<Event>& events) {
  std::map<std::pair<uint32_t, uint16_t>, int> arrivals_of_thread, leaves_of_thread;
  std::map<std::pair<uint32_t, int>, int> arrived, left;  // (block, instance) -> count
  std::map<uint32_t, int> threads_in_block;
  for (const Event& e : events)
    threads_in_block[e.block] = std::max(threads_in_block[e.block], e.thread + 1);
  for (const Event& e : events) {
    if (e.kind == EventKind::BarrierArrive) {
      ++arrived[{e.block, arrivals_of_thread[{e.block, e.thread}]++}];
    } else if (e.kind == EventKind::BarrierLeave) {
      const int instance = leaves_of_thread[{e.block, e.thread}]++;
      ASSERT_EQ(arrived[std::pair(e.block, instance)], threads_in_block[e.block])
          << "thread " << e.thread << " of block " << e.block << " left barrier crossing "
          << instance << " before the whole block arrived";
      ++left[{e.block, instance}];
    }
  }
  EXPECT_FALSE(arrived.empty());
  EXPECT_EQ(arrived, left);
}

TEST(SimCore, NoThreadPassesABarrierEarly) {
  for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random}) {
    sim::SimOptions opt;
    opt.schedule.kind = kind;
    opt.schedule.skew_steps = 7;
    Matmul m(37, 16);
    sim::SimResult r = run_tiled<16>(m, opt);
    ASSERT_EQ(r.error, "");
    expect_barriers_hold(r.events);
    EXPECT_EQ(m.wrong_cells(), 0) << "schedule " << int(kind) << " with all barriers";
  }
}

TEST(SimCore, EventsOfAThreadAreInProgramOrderAndClockNeverGoesBack) {
  Matmul m(17, 8);
  sim::SimOptions opt;
  opt.schedule.kind = ScheduleKind::Random;
  sim::SimResult r = run_tiled<8>(m, opt);
  ASSERT_EQ(r.error, "");
  uint64_t last = 0;
  for (const Event& e : r.events) {
    ASSERT_GE(e.clock, last);
    last = e.clock;
    EXPECT_EQ(e.sm, 0);
    EXPECT_EQ(e.globaltimer, e.clock);
  }
  EXPECT_GE(r.steps, last);  // the last step may be a thread exiting, which records nothing
}

// Event::instr is the thread's own event counter: 0, 1, 2, ... in the
// thread's program order, whatever the schedule interleaves between them.
void expect_instr_counts_per_thread(const std::vector<Event>& events) {
  std::map<std::pair<uint32_t, uint16_t>, uint32_t> next;  // (block, thread) -> expected instr
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    uint32_t& want = next[{e.block, e.thread}];
    ASSERT_EQ(e.instr, uint16_t(want))
        << "event " << i << " of block " << e.block << " thread " << e.thread;
    ++want;
  }
}

TEST(SimCore, InstrNumbersEachThreadsEventsFromZero) {
  for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random}) {
    sim::SimOptions opt;
    opt.schedule.kind = kind;
    opt.schedule.seed = 5;
    Matmul m(17, 8);  // 3 x 3 blocks of 64 threads: two warps, padded threads included
    sim::SimResult r = run_tiled<8>(m, opt);
    ASSERT_EQ(r.error, "");
    expect_instr_counts_per_thread(r.events);
    // A thread inside the matrix records per tile 2 global loads, 2 shared
    // stores, 2 x (arrive, leave) and 2 * 8 shared loads, and finally stores C.
    std::map<std::pair<uint32_t, uint16_t>, uint16_t> last;
    for (const Event& e : r.events)
      last[{e.block, e.thread}] = e.instr;
    const int per_tile = 2 + 2 + 4 + 2 * 8, tiles = 3;
    // Block 0, thread 0 is inside the matrix: it loads both tiles and stores
    // C, so its events are numbered 0 .. per_tile * tiles.
    const std::pair<uint32_t, uint16_t> first_thread{0, 0};
    EXPECT_EQ(last[first_thread], per_tile * tiles) << "schedule " << int(kind);
  }
  // Barriers removed: fewer events per thread, still numbered from 0.
  sim::SimOptions none;
  none.barrier_mask = 0;
  none.schedule.kind = ScheduleKind::WarpSkew;
  Matmul m(16, 8);
  sim::SimResult r = run_tiled<8>(m, none);
  ASSERT_EQ(r.error, "");
  expect_instr_counts_per_thread(r.events);
}

TEST(SimCore, WarpsAdvanceInLockstep) {
  // Lockstep: in every warp step all 32 lanes do the same access, so the
  // events of one clock tick come from one warp and are in lane order.
  Matmul m(16, 16);
  sim::SimResult r = run_tiled<16>(m, {});
  ASSERT_EQ(r.error, "");
  std::map<uint64_t, std::vector<const Event*>> by_tick;
  for (const Event& e : r.events)
    by_tick[e.clock].push_back(&e);
  for (const auto& [tick, evs] : by_tick) {
    ASSERT_EQ(evs.size(), 32u) << "tick " << tick;
    for (size_t i = 0; i < evs.size(); ++i) {
      EXPECT_EQ(warp_of(*evs[i]), warp_of(*evs[0]));
      EXPECT_EQ(evs[i]->thread % 32, i);
      EXPECT_EQ(evs[i]->kind, evs[0]->kind);
      EXPECT_EQ(evs[i]->line, evs[0]->line);
    }
  }
}

TEST(SimCore, WarpSkewWithoutBarriersGivesWrongOutput) {
  for (int tile : {8, 16}) {  // 2 and 8 warps per block
    sim::SimOptions skew;
    skew.schedule.kind = ScheduleKind::WarpSkew;
    skew.barrier_mask = 0;
    Matmul bad(32, tile), good(32, tile);
    sim::SimResult r1 = tile == 8 ? run_tiled<8>(bad, skew) : run_tiled<16>(bad, skew);
    ASSERT_EQ(r1.error, "");
    EXPECT_GT(bad.wrong_cells(), 0) << "tile " << tile;
    sim::SimResult r2 = tile == 8 ? run_tiled<8>(good, {}) : run_tiled<16>(good, {});
    ASSERT_EQ(r2.error, "");
    EXPECT_EQ(good.wrong_cells(), 0) << "tile " << tile;
  }
}

TEST(SimCore, RandomSeedsGiveDifferentSchedules) {
  sim::SimOptions opt;
  opt.schedule.kind = ScheduleKind::Random;
  opt.schedule.seed = 1;
  Matmul m1(16, 16), m2(16, 16);
  sim::SimResult r1 = run_tiled<16>(m1, opt);
  opt.schedule.seed = 2;
  sim::SimResult r2 = run_tiled<16>(m2, opt);
  ASSERT_EQ(r1.events.size(), r2.events.size());
  EXPECT_NE(std::memcmp(r1.events.data(), r2.events.data(), r1.events.size() * sizeof(Event)), 0);
  // The same events, in another order.
  auto key = [](const Event& e) {
    return std::tuple(e.thread, e.kind, e.array, e.element, e.line);
  };
  std::vector<std::tuple<uint16_t, EventKind, ArraySlot, uint32_t, uint16_t>> k1, k2;
  for (const Event& e : r1.events)
    k1.push_back(key(e));
  for (const Event& e : r2.events)
    k2.push_back(key(e));
  EXPECT_NE(k1, k2);
  std::sort(k1.begin(), k1.end());
  std::sort(k2.begin(), k2.end());
  EXPECT_EQ(k1, k2);
}

// The test kernels below name two global arrays, `in` and `out`.
enum : ArraySlot { kIn = 1, kOut };
const ArrayTable kInOut = {lesson_kit::global_input("in", 1, 4, 0),
                           lesson_kit::global_output("out", 1, 4)};

// Reads one element past the end of `in`, like a kernel without bounds checks.
struct Overrun {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<const float, Rec> in(rec, args, kIn);
    GlobalArray<float, Rec> out(rec, args, kOut);
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    out[i] = in[i + 1];
  }
};

TEST(SimCore, OutOfRangeIsAFaultNotACrash) {
  std::vector<float> in(4, 1.0f), out(4, 0.0f);
  KernelArgs args;
  args.data[kIn] = in.data();
  args.data[kOut] = out.data();
  args.count[kIn] = args.count[kOut] =
      3;  // extents smaller than the allocation: nothing touched beyond
  LaunchGeometry geo;
  geo.grid = {2, 1, 1};
  geo.block = {2, 1, 1};
  sim::SimOptions opt;
  opt.arrays = &kInOut;  // fault messages name the arrays through the table
  sim::SimResult r = sim::simulate<Overrun>(geo, args, opt);
  ASSERT_EQ(r.error, "");
  // Thread 0 of block 1 stores out[2]; thread 1 of block 1 reads in[4] and stores out[3].
  EXPECT_EQ(r.fault_count, 3u);
  ASSERT_EQ(r.faults.size(), 3u);
  EXPECT_NE(r.faults[0].find("in[3]"), std::string::npos) << r.faults[0];
  EXPECT_NE(r.faults[0].find("thread (0, 0, 0) of block (1, 0, 0)"), std::string::npos)
      << r.faults[0];
  EXPECT_EQ(out[3], 0.0f);  // not written
  EXPECT_EQ(out[2], 0.0f);  // in[3] read as 0
  int flagged = 0;
  for (const Event& e : r.events)
    flagged += (e.flags & kFlagOutOfRange) != 0;
  EXPECT_EQ(flagged, 3);
}

TEST(SimCore, CapacityTruncatesWithoutWritingPastIt) {
  Matmul m(20, 8);
  sim::SimOptions opt;
  opt.capacity = 100;
  sim::SimResult r = run_tiled<8>(m, opt);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.events.size(), 100u);
  EXPECT_GT(r.events_dropped, 0u);
  EXPECT_EQ(m.wrong_cells(), 0);  // the kernel still ran to the end
  Matmul full(20, 8);
  sim::SimResult all = run_tiled<8>(full, {});
  EXPECT_EQ(all.events.size(), r.events.size() + r.events_dropped);
}

TEST(SimCore, UntracedRunsTheKernelWithoutEvents) {
  Matmul m(17, 4);
  sim::SimOptions opt;
  opt.traced = false;
  sim::SimResult r = run_tiled<4>(m, opt);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(r.events_dropped, 0u);
  EXPECT_EQ(m.wrong_cells(), 0);
}

// Spins on a value that nobody writes: without a step limit, a hang.
struct Spin {
  static constexpr int kLine = __LINE__ + 4;  // the load in the loop's condition
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<const float, Rec> in(rec, args, kIn);
    while (float(in[0]) == 0.0f) {
    }
  }
};

TEST(SimCore, AStuckKernelIsStoppedWithAMessage) {
  std::vector<float> in(1, 0.0f);
  KernelArgs args;
  args.data[kIn] = in.data();
  args.count[kIn] = 1;
  LaunchGeometry geo;
  geo.block = {64, 1, 1};
  sim::SimOptions opt;
  opt.max_steps = 10000;
  sim::SimResult r = sim::simulate<Spin>(geo, args, opt);
  EXPECT_NE(r.error.find("stuck"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("was at line " + std::to_string(Spin::kLine)), std::string::npos)
      << "names the thread's line: " << r.error;
}

// Thread 3 loops without touching an array: it never yields, so no step
// limit can stop it; the stall watch does, naming it and its last line, and
// the simulator runs the next launch as before.
struct SpinWithoutAccess {
  static constexpr int kLine = __LINE__ + 5;
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<float, Rec> out(rec, args, kOut);
    const int t = int(threadIdx.x);
    out[t] = 1.0f;
    if (t == 3 && args.m == 0)
      for (volatile int spin = 1; spin;) {
      }
  }
};

TEST(SimCore, ALoopThatTouchesNoArrayIsStopped) {
  std::vector<float> out(32, 0.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 32;
  LaunchGeometry geo;
  geo.block = {32, 1, 1};
  sim::SimOptions opt;
  opt.stall_seconds = 0.3;
  const sim::SimResult r = sim::simulate<SpinWithoutAccess>(geo, args, opt);
  EXPECT_NE(r.error.find("thread (3, 0, 0) of block (0, 0, 0) ran for"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("last at line " + std::to_string(SpinWithoutAccess::kLine)),
            std::string::npos)
      << r.error;
  args.m = 1;  // no spin this time
  const sim::SimResult again = sim::simulate<SpinWithoutAccess>(geo, args, opt);
  EXPECT_EQ(again.error, "");
}

// Odd threads exit early; the even ones meet at a barrier, which must open
// without them (exited threads do not count), then store their thread id.
struct EarlyExit {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<float, Rec> out(rec, args, kOut);
    const int t =
        int(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
    if (t % 2) return;
    SYNCTHREADS(1);
    out[t] = float(t);
  }
};

TEST(SimCore, ExitedThreadsDoNotHoldABarrier) {
  std::vector<float> out(64, -1.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 64;
  LaunchGeometry geo;
  geo.block = {4, 4, 4};  // 3D: linear id = x + y * 4 + z * 16, two warps
  sim::SimResult r = sim::simulate<EarlyExit>(geo, args, {});
  ASSERT_EQ(r.error, "");
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], t % 2 ? -1.0f : float(t)) << t;
  int arrive = 0, leave = 0;
  for (const Event& e : r.events) {
    arrive += e.kind == EventKind::BarrierArrive;
    leave += e.kind == EventKind::BarrierLeave;
    if (e.kind == EventKind::GlobalStore) {
      EXPECT_EQ(e.element, e.thread);
      EXPECT_EQ(e.instr, 2u);  // after its barrier arrival and leave
      EXPECT_EQ(e.value, float(e.thread));
    }
  }
  EXPECT_EQ(arrive, 32);
  EXPECT_EQ(leave, 32);
}

// A barrier removed by the mask records nothing and waits for no one.
TEST(SimCore, RemovedBarrierRecordsNothing) {
  std::vector<float> out(64, -1.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 64;
  LaunchGeometry geo;
  geo.block = {64, 1, 1};
  sim::SimOptions opt;
  opt.barrier_mask = ~1u;
  sim::SimResult r = sim::simulate<EarlyExit>(geo, args, opt);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.events.size(), 32u);
  for (const Event& e : r.events)
    EXPECT_EQ(e.kind, EventKind::GlobalStore);
}

}  // namespace
}  // namespace ts
