// Hazard analysis speed on the lesson-sized trace the issue names: a 64 x 64
// tiled multiply with tile 16, traced on the simulator (about 330,000 events).
// Target: under 200 ms on the 2-core development machine.
//
//   ./build/bench/bench_hazards [n] [tile] [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "analysis/hazards.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// The default lesson (square tiles, two barriers).
static std::string default_id() {
  return picks::default_lesson().id;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int tile = argc > 2 ? std::atoi(argv[2]) : 16;
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 10;

  struct Case {
    const char* name;
    uint32_t mask;
  };
  const Case cases[] = {{"all barriers", 0x3u},
                        {"barrier 2 removed", 0x1u},
                        {"barrier 1 removed", 0x2u},
                        {"no barriers", 0x0u}};
  std::printf("hazard analysis, %s n=%d tile=%d, %d repeats (median, min)\n", default_id().c_str(),
              n, tile, repeats);
  for (const Case& c : cases) {
    ts::RunRequest req;
    req.lesson_id = default_id();
    req.params.n = n;
    req.params.tile = tile;
    req.barrier_mask = c.mask;
    req.backend = ts::BackendChoice::Sim;
    req.schedule.kind = ts::ScheduleKind::WarpSkew;
    ts::RunResult run = ts::run_simulator(req);
    if (!run.ok) {
      std::fprintf(stderr, "simulator run failed: %s\n", run.error.c_str());
      return 1;
    }
    // Wall time, and this thread's CPU time (less disturbed when the
    // machine's two cores are shared with other work).
    auto cpu_ms = [] {
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
    };
    std::vector<double> ms, cpu;
    ts::HazardReport report;
    for (int i = 0; i < repeats; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = cpu_ms();
      report = ts::analyze_hazards(run.trace);
      cpu.push_back(cpu_ms() - c0);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("  %-18s %7zu events %7llu hazards  wall %6.1f ms (min %6.1f)  cpu %6.1f ms  %s\n",
                c.name, run.trace.events.size(), (unsigned long long)report.total,
                ms[ms.size() / 2], ms.front(), cpu[cpu.size() / 2], report.verdict().c_str());
  }
  return 0;
}
