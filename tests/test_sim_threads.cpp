// The simulator names the thread that is in trouble, and its line: the one
// that spins (not the first of its warp, waiting for it at a barrier), one
// that spins before any access (no "line 0"), one whose local array
// overflows its stack; and a thread may have a local array as large as CUDA
// allows (issue 31, defects 10 and 11). Also built with the ucontext switch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sim/simulate.hpp"

namespace ts {
namespace {

enum : ArraySlot { kIn = 1, kOut };

// Thread 5 spins on a value nobody writes; the others wait for it at the barrier.
struct OneThreadSpins {
  static constexpr int kSpinLine = __LINE__ + 6;
  static constexpr int kBarrierLine = __LINE__ + 7;
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<const float, Rec> in(rec, args, kIn);
    if (threadIdx.x == 5)
      while (float(in[0]) == 0.0f) {
      }
    SYNCTHREADS(1);
  }
};

TEST(SimThreads, AnEndlessLoopNamesTheThreadThatSpinsAndItsLine) {
  std::vector<float> in(1, 0.0f);
  KernelArgs args;
  args.data[kIn] = in.data();
  args.count[kIn] = 1;
  LaunchGeometry geo;
  geo.block = {64, 1, 1};
  sim::SimOptions opt;
  opt.max_steps = 10000;
  const sim::SimResult r = sim::simulate<OneThreadSpins>(geo, args, opt);
  EXPECT_NE(r.error.find("endless loop"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("thread (5, 0, 0) of block (0, 0, 0) was at line " +
                         std::to_string(OneThreadSpins::kSpinLine)),
            std::string::npos)
      << r.error;
  // And where the others wait for it.
  EXPECT_NE(r.error.find("waits at line " + std::to_string(OneThreadSpins::kBarrierLine)),
            std::string::npos)
      << r.error;
}

// Many blocks, each as long as the last: the step limit is the launch's
// length, not a loop, and the message says so.
struct ManyAccesses {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<float, Rec> out(rec, args, kOut);
    for (int k = 0; k < 4; ++k)
      out[int(threadIdx.x)] = float(k);
  }
};

TEST(SimThreads, ALongLaunchIsNotCalledAnEndlessLoop) {
  std::vector<float> out(32, 0.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 32;
  LaunchGeometry geo;
  geo.grid = {64, 1, 1};
  geo.block = {32, 1, 1};
  sim::SimOptions opt;
  opt.max_steps = 32 * 5 * 10;  // ten blocks' worth
  const sim::SimResult r = sim::simulate<ManyAccesses>(geo, args, opt);
  EXPECT_NE(r.error.find("too many steps for the simulator"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("endless loop"), std::string::npos) << r.error;
}

// Thread 3 spins before its first access: no line is known, and the message says so.
struct SpinBeforeAnyAccess {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<float, Rec> out(rec, args, kOut);
    if (threadIdx.x == 3 && args.m == 0)
      for (volatile int spin = 1; spin;) {
      }
    out[int(threadIdx.x)] = 1.0f;
  }
};

TEST(SimThreads, ALoopBeforeAnyAccessIsNotPlacedAtLineZero) {
  std::vector<float> out(32, 0.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 32;
  LaunchGeometry geo;
  geo.block = {32, 1, 1};
  sim::SimOptions opt;
  opt.stall_seconds = 0.3;
  const sim::SimResult r = sim::simulate<SpinBeforeAnyAccess>(geo, args, opt);
  EXPECT_NE(r.error.find("thread (3, 0, 0) of block (0, 0, 0) ran for"), std::string::npos)
      << r.error;
  EXPECT_EQ(r.error.find("line 0"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("has reached none since it started"), std::string::npos) << r.error;
}

// A local array of `kFloats` floats, written from its top (where the stack
// grows from) down, then its ends read back: 0 when it was all there.
template <int kFloats>
[[gnu::noinline]] float local_array(int tid) {
  volatile float a[kFloats];
  for (int j = kFloats - 1; j >= 0; j -= 256)
    a[j] = float(tid);
  a[0] = float(tid);
  return a[0] - a[kFloats - 1];
}

template <int kFloats>
struct LocalArray {
  template <class Rec>
  static void run(Rec& rec, const KernelArgs& args) {
    GlobalArray<float, Rec> out(rec, args, kOut);
    const int t = int(threadIdx.x);
    out[t] = float(t) + local_array<kFloats>(t);
  }
};

TEST(SimThreads, ALocalArrayOf128KiBFitsAsOnTheGpu) {
  std::vector<float> out(256, -1.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 256;
  LaunchGeometry geo;
  geo.block = {256, 1, 1};
  const sim::SimResult r = sim::simulate<LocalArray<32 * 1024>>(geo, args, sim::SimOptions{});
  ASSERT_EQ(r.error, "");
  for (int t = 0; t < 256; ++t)
    EXPECT_EQ(out[size_t(t)], float(t)) << t;
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(TS_SANITIZED)
// Past the stack: a named failure of that thread, and the next launch runs.
TEST(SimThreads, AStackOverflowIsANamedFailure) {
  std::vector<float> out(32, -1.0f);
  KernelArgs args;
  args.data[kOut] = out.data();
  args.count[kOut] = 32;
  LaunchGeometry geo;
  geo.block = {32, 1, 1};
  const sim::SimResult r = sim::simulate<LocalArray<256 * 1024>>(geo, args, sim::SimOptions{});
  EXPECT_NE(r.error.find("thread (0, 0, 0) of block (0, 0, 0) overflowed its stack"),
            std::string::npos)
      << r.error;
  const sim::SimResult again = sim::simulate<LocalArray<1024>>(geo, args, sim::SimOptions{});
  EXPECT_EQ(again.error, "");
  EXPECT_EQ(out[31], 31.0f);
}
#endif

}  // namespace
}  // namespace ts
