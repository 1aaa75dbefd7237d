// Shared memory no traced access reached (engine/sim/static_shared.hpp): a
// kernel run on the simulator with one `__shared__` array behind an
// accessor, one indexed directly, and dynamic shared memory;
// what the launch reports, matched by address (the puzzle grader's "traced"
// rule, analysis/puzzle.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sim/simulate.hpp"
#include "lessons/access.hpp"

// A library's own thread-local storage, as the CUDA runtime's in a plug-in's
// GPU half: never the solution's shared memory unless something wrote it.
namespace some_library {
thread_local char global[16];
thread_local char busy[16];
}  // namespace some_library

namespace ts {
namespace {

template <class Rec>
void kernel_with_raw_shared(Rec& rec, const KernelArgs& args) {
  __shared__ float traced_mem[32];
  __shared__ float raw[32];
  SharedArray<float, Rec> traced(rec, traced_mem, 32, 1);
  const int t = int(threadIdx.x);
  traced[t] = float(t);
  raw[t] = float(t + 1);  // around the trace (read back: the compiler keeps it)
  traced[t] = raw[(t + 1) % 32];
  some_library::busy[t % 16] = 1;
  if (args.n) {  // the run's dynamic shared memory, through the trace
    SharedArray<float, Rec> dyn(rec, static_cast<float*>(sim::current_dynamic_shared), 32, 2);
    dyn[t] = 1.0f;
  }
}

void body(sim::SimRec& rec, const KernelArgs& args) {
  kernel_with_raw_shared(rec, args);
}

// The reports of this test's kernel (the program's other kernels have arrays too).
std::vector<sim::UntracedShared> run(bool dynamic_traced) {
  KernelArgs args;
  args.n = dynamic_traced;
  LaunchGeometry geo;
  geo.grid = {2, 1, 1};
  geo.block = {32, 1, 1};
  geo.dynamic_shared_bytes = 128;
  sim::SimOptions opt;
  opt.find_untraced_shared = true;
  const sim::SimResult r = sim::simulate_launch(geo, args, opt, &body);
  EXPECT_TRUE(r.error.empty()) << r.error;
  std::vector<sim::UntracedShared> mine;
  for (const sim::UntracedShared& u : r.untraced_shared)
    if (u.function.find("kernel_with_raw_shared") != std::string::npos || u.function.empty())
      mine.push_back(u);
  return mine;
}

TEST(UntracedShared, ArraysUsedAroundTheTraceAreFoundByAddress) {
  const std::vector<sim::UntracedShared> u = run(false);
  auto find = [&](const std::string& name) -> const sim::UntracedShared* {
    for (const sim::UntracedShared& a : u)
      if (a.name == name) return &a;
    return nullptr;
  };
  EXPECT_EQ(find("traced_mem"), nullptr) << "behind an accessor: traced";
  const sim::UntracedShared* raw = find("raw");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->bytes, 128u);
  EXPECT_TRUE(raw->written) << "written around the trace";
  const sim::UntracedShared* dyn = find("dynamic shared memory");
  ASSERT_NE(dyn, nullptr) << "the launch's 128 bytes, never touched";
  EXPECT_EQ(dyn->bytes, 128u);
  EXPECT_FALSE(dyn->written);

  // A library's storage nobody wrote is not the kernel's (an H200's plug-ins
  // hold the CUDA runtime's); written around the trace, it is reported.
  const sim::SimResult all = [] {
    KernelArgs args;
    LaunchGeometry geo;
    geo.block = {32, 1, 1};
    sim::SimOptions opt;
    opt.find_untraced_shared = true;
    return sim::simulate_launch(geo, args, opt, &body);
  }();
  bool busy = false;
  for (const sim::UntracedShared& a : all.untraced_shared) {
    EXPECT_FALSE(a.name == "global" && a.function == "some_library") << "never written";
    busy |= a.name == "busy" && a.function == "some_library" && a.written;
  }
  EXPECT_TRUE(busy) << "written around the trace";
  EXPECT_NE(&some_library::global[0], nullptr);

  const std::vector<sim::UntracedShared> traced = run(true);
  for (const sim::UntracedShared& a : traced)
    EXPECT_NE(a.name, "dynamic shared memory") << "reached through an accessor";
}

}  // namespace
}  // namespace ts
