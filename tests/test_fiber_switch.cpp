// The fiber switch itself (sim/fiber_block.cpp): whatever a simulated thread
// keeps in callee-saved registers, and its floating-point rounding mode,
// survives its steps, and the scheduler's own state survives the block. The
// same file runs in ts_tests (the assembly switch on x86-64 and aarch64) and
// in ts_sim_ucontext_tests (built with TS_SIM_UCONTEXT: the fallback).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cfenv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "engine/sim/fiber_block.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace ts::sim {
namespace {

TEST(FiberSwitch, ThisBuildUsesTheSwitchItWasConfiguredFor) {
#if defined(TS_SIM_UCONTEXT) || !(defined(__x86_64__) || defined(__aarch64__))
  EXPECT_STREQ(FiberBlock::switch_kind(), "ucontext");
#elif defined(__x86_64__)
  EXPECT_STREQ(FiberBlock::switch_kind(), "x86-64 assembly");
#else
  EXPECT_STREQ(FiberBlock::switch_kind(), "aarch64 assembly");
#endif
}

// Sixteen values per thread, live across every step: the compiler keeps them
// in callee-saved registers (x19-x28 and d8-d15 on aarch64; rbx, rbp, r12-r15
// on x86-64) or spills them, and the other threads of the block use the same
// registers for their own values in between.
struct Live {
  std::vector<double> sums;
  std::vector<long> isums;
};

void keep_values_live(void* user, int thread) {
  auto* out = static_cast<Live*>(user);
  volatile int seed = thread;  // not known to the compiler
  const double b = seed + 0.5;
  double d0 = b * 1, d1 = b * 2, d2 = b * 3, d3 = b * 5, d4 = b * 7, d5 = b * 11, d6 = b * 13,
         d7 = b * 17;
  long i0 = seed * 3 + 1, i1 = seed * 5 + 2, i2 = seed * 7 + 3, i3 = seed * 11 + 4,
       i4 = seed * 13 + 5, i5 = seed * 17 + 6, i6 = seed * 19 + 7, i7 = seed * 23 + 8;
  for (int s = 0; s < 4; ++s) {
    FiberBlock::active()->step();
    d0 += 1, d1 += 1, d2 += 1, d3 += 1, d4 += 1, d5 += 1, d6 += 1, d7 += 1;
    i0 += 1, i1 += 1, i2 += 1, i3 += 1, i4 += 1, i5 += 1, i6 += 1, i7 += 1;
  }
  out->sums[thread] = d0 + d1 + d2 + d3 + d4 + d5 + d6 + d7;
  out->isums[thread] = i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7;
}

TEST(FiberSwitch, ValuesInRegistersSurviveSteps) {
  constexpr int kThreads = 96;
  Live live{std::vector<double>(kThreads), std::vector<long>(kThreads)};
  FiberBlock fibers;
  const std::string err = fibers.run_block({1, 1, 1}, {kThreads, 1, 1}, {0, 0, 0}, nullptr, {},
                                           keep_values_live, &live);
  ASSERT_EQ(err, "");
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(live.sums[t], (t + 0.5) * (1 + 2 + 3 + 5 + 7 + 11 + 13 + 17) + 8 * 4) << t;
    EXPECT_EQ(live.isums[t], long(t) * (3 + 5 + 7 + 11 + 13 + 17 + 19 + 23) + 36 + 8 * 4) << t;
  }
}

// Each thread sets its own rounding mode (FPCR on aarch64, MXCSR on x86-64)
// and divides after a step: the quotient must be rounded its way, whatever
// the other threads set meanwhile.
struct Rounding {
  std::vector<int> mode_at_start;
  std::vector<double> quotient;
};

void divide_after_step(void* user, int thread) {
  auto* out = static_cast<Rounding*>(user);
  out->mode_at_start[thread] = std::fegetround();
  std::fesetround(thread % 2 ? FE_DOWNWARD : FE_UPWARD);
  FiberBlock::active()->step();
  volatile double one = 1.0, three = 3.0;
  volatile double q = one / three;
  out->quotient[thread] = q;
  std::fesetround(FE_TONEAREST);
}

TEST(FiberSwitch, EachThreadKeepsItsRoundingMode) {
  constexpr int kThreads = 64;
  Rounding r{std::vector<int>(kThreads), std::vector<double>(kThreads)};
  volatile double one = 1.0, three = 3.0;
  std::fesetround(FE_UPWARD);
  const double up = one / three;
  std::fesetround(FE_DOWNWARD);
  const double down = one / three;
  std::fesetround(FE_TONEAREST);
  ASSERT_NE(up, down);

  FiberBlock fibers;
  ASSERT_EQ(
      fibers.run_block({1, 1, 1}, {kThreads, 1, 1}, {0, 0, 0}, nullptr, {}, divide_after_step, &r),
      "");
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(r.mode_at_start[t], FE_TONEAREST) << t;
    EXPECT_EQ(r.quotient[t], t % 2 ? down : up) << t;
  }
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);  // the scheduler's own mode
}

// A block that ends with threads still inside their frames (thread 0 throws,
// the others wait at a step), then the FiberBlock goes: memory mapped later at
// the addresses of their stacks is plain memory. Under AddressSanitizer those
// frames' redzones stayed poisoned after munmap, and the window's next mapped
// file there (the shipped performance reports) read as a stack-buffer-underflow.
struct Frames {
  std::vector<const volatile char*> locals;
};

void wait_with_a_local_array(void* user, int thread) {
  volatile char buf[64] = {};
  static_cast<Frames*>(user)->locals[thread] = buf;
  for (;;) {
    FiberBlock::active()->step();  // every thread is inside its frames by now
    if (thread == 0) throw std::runtime_error("thread 0 gives up");
  }
}

TEST(FiberSwitch, MemoryMappedWhereStacksWereIsPlainMemory) {
  constexpr int kThreads = 8;
  Frames frames{std::vector<const volatile char*>(kThreads)};
  {
    FiberBlock fibers;
    EXPECT_NE(fibers.run_block({1, 1, 1}, {kThreads, 1, 1}, {0, 0, 0}, nullptr, {},
                               wait_with_a_local_array, &frames),
              "");
  }
  const auto page = uintptr_t(sysconf(_SC_PAGESIZE));
  int checked = 0;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_NE(frames.locals[t], nullptr) << t;
    void* at = reinterpret_cast<void*>(uintptr_t(frames.locals[t]) / page * page);
    void* m = mmap(at, page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED) continue;  // something else lives there now
    if (m != at) {                  // a kernel (or emulator) that took it as a hint only
      munmap(m, page);
      continue;
    }
    ++checked;
#if defined(__SANITIZE_ADDRESS__)
    if (__asan_region_is_poisoned(m, page)) {  // reading it would stop the test binary
      ADD_FAILURE() << "thread " << t << ": a stack frame's redzone outlived its stack";
      munmap(m, page);
      continue;
    }
#endif
    unsigned sum = 0;
    for (uintptr_t i = 0; i < page; ++i)  // what a reader of a mapped file does
      sum += static_cast<unsigned char>(static_cast<const volatile char*>(m)[i]);
    EXPECT_EQ(sum, 0u);
    munmap(m, page);
  }
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_GT(checked, 0) << "no stack address could be mapped again: nothing was checked";
#endif
}

// Not a check: how long one step (a switch into a thread and back) takes with
// this build's switch, printed for the report (scripts/test_aarch64.sh).
void step_many(void*, int) {
  for (int s = 0; s < 500; ++s)
    FiberBlock::active()->step();
}

TEST(FiberSwitch, TimePerStep) {
  FiberBlock fibers;
  // The first block maps and touches the stacks; the second is timed.
  ASSERT_EQ(fibers.run_block({1, 1, 1}, {256, 1, 1}, {0, 0, 0}, nullptr, {}, step_many, nullptr),
            "");
  const uint64_t before = fibers.thread_steps();
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(fibers.run_block({1, 1, 1}, {256, 1, 1}, {0, 0, 0}, nullptr, {}, step_many, nullptr),
            "");
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t steps = fibers.thread_steps() - before;
  std::printf("[ timing ] %s switch: %.1f ns per thread step (%llu steps)\n",
              FiberBlock::switch_kind(), ns / double(steps),
              static_cast<unsigned long long>(steps));
  EXPECT_EQ(steps, 256u * 501u);  // 500 steps and the exit of each thread
}

}  // namespace
}  // namespace ts::sim
