// What the simulator's thread stacks cost: blocks of 1,024 simulated threads,
// each taking `steps` steps (a switch to the scheduler and back), on stacks
// of a given size. Reports the time per block, the time of the first block
// (which maps the stacks) and the peak resident memory, so that 64 KiB stacks
// and the 576 KiB ones that hold CUDA's 512 KiB of local memory compare.
//
//   ./build/bench/bench_fiber_stacks [stack KiB (0: the default)] [blocks] [steps] [local KiB]
//
// `local KiB`: each thread first writes a local array of that size (0: none).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "engine/sim/fiber_block.hpp"

namespace {

int g_steps = 8;
int g_local_kib = 0;

[[gnu::noinline]] float touch_local(int kib, int tid) {
  if (kib <= 0) return 0.0f;
  const int n = kib * 256;
  volatile float* a = static_cast<volatile float*>(__builtin_alloca(size_t(n) * sizeof(float)));
  for (int j = n - 1; j >= 0; j -= 1024)
    a[j] = float(tid);
  return a[n - 1];
}

void entry(void*, int thread) {
  ts::sim::FiberBlock* f = ts::sim::FiberBlock::active();
  touch_local(g_local_kib, thread);
  for (int s = 0; s < g_steps; ++s)
    f->step();
}

}  // namespace

int main(int argc, char** argv) {
  const int stack_kib = argc > 1 ? std::atoi(argv[1]) : 0;
  const int blocks = std::max(2, argc > 2 ? std::atoi(argv[2]) : 200);
  g_steps = argc > 3 ? std::atoi(argv[3]) : 8;
  g_local_kib = argc > 4 ? std::atoi(argv[4]) : 0;
  ts::sim::FiberBlock fiber(stack_kib > 0 ? size_t(stack_kib) * 1024
                                          : ts::sim::FiberBlock::kDefaultStackBytes);
  const ts::Dim3 grid{uint32_t(blocks), 1, 1}, block{1024, 1, 1};
  std::vector<double> ms;
  for (int b = 0; b < blocks; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string err = fiber.run_block(grid, block, ts::Dim3{uint32_t(b), 0, 0}, nullptr,
                                            ts::Schedule{}, &entry, nullptr);
    const auto t1 = std::chrono::steady_clock::now();
    if (!err.empty()) {
      std::fprintf(stderr, "error: %s\n", err.c_str());
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  const double first = ms.front();
  std::sort(ms.begin() + 1, ms.end());
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  // Address space reserved at its peak (what an RLIMIT_AS would count), in MiB.
  double vm_peak = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmPeak: %lf kB", &vm_peak) == 1) break;
    std::fclose(f);
  }
  std::printf(
      "stacks %zu KiB, %d blocks of 1024 threads, %d steps each, local array %d KiB: first "
      "block %.2f ms, median block %.2f ms (%.0f ns per thread step), peak RSS %.1f MiB, peak "
      "address space %.0f MiB\n",
      (stack_kib > 0 ? size_t(stack_kib) * 1024 : ts::sim::FiberBlock::kDefaultStackBytes) / 1024,
      blocks, g_steps, g_local_kib, first, ms[1 + (ms.size() - 1) / 2],
      ms[1 + (ms.size() - 1) / 2] * 1e6 / (1024.0 * (g_steps + 1)), double(ru.ru_maxrss) / 1024.0,
      vm_peak / 1024.0);
  return 0;
}
