// How fast the CPU simulator records a lesson: a 64 x 64 tiled multiply,
// tile 16, traced (659,456 events: every load, store, arrival and departure
// of 4,096 threads). Target: under 1 s on the 2-core development machine.
// Times run_simulator end to end: inputs, simulation, reference and verdict.
//
//   ./build/bench/bench_sim [n] [tile] [repeats] [lockstep|skew|random]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

int main(int argc, char** argv) {
  ts::RunRequest req;
  req.lesson_id = picks::default_lesson().id;
  req.params = ts::find_lesson(req.lesson_id)->defaults;
  req.params.n = argc > 1 ? std::atoi(argv[1]) : 64;
  req.params.tile = argc > 2 ? std::atoi(argv[2]) : 16;
  const int repeats = std::max(1, argc > 3 ? std::atoi(argv[3]) : 5);
  const std::string schedule = argc > 4 ? argv[4] : "lockstep";
  req.schedule.kind = schedule == "skew"     ? ts::ScheduleKind::WarpSkew
                      : schedule == "random" ? ts::ScheduleKind::Random
                                             : ts::ScheduleKind::Lockstep;
  req.traced = true;

  std::vector<double> ms, cpu_ms;  // wall clock; CPU time of the process (the machine is shared)
  size_t events = 0;
  for (int r = 0; r < repeats; ++r) {
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    const ts::RunResult res = ts::run_simulator(req);
    const auto t1 = std::chrono::steady_clock::now();
    const std::clock_t c1 = std::clock();
    if (!res.ok) {
      std::fprintf(stderr, "error: %s\n", res.error.c_str());
      return 1;
    }
    if (!res.verdict.correct) std::fprintf(stderr, "note: %s\n", res.verdict.summary().c_str());
    events = res.trace.events.size();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    cpu_ms.push_back(1000.0 * double(c1 - c0) / CLOCKS_PER_SEC);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu_ms.begin(), cpu_ms.end());
  const double median = ms[ms.size() / 2];
  std::printf(
      "simulator %s n=%d tile=%d traced, %s schedule: %zu events, median %.1f ms "
      "(min %.1f, max %.1f, %d runs), %.0f ns/event; CPU time median %.1f ms\n",
      req.lesson_id.c_str(), req.params.n, req.params.tile, schedule.c_str(), events, median,
      ms.front(), ms.back(), repeats, median * 1e6 / double(std::max<size_t>(events, 1)),
      cpu_ms[cpu_ms.size() / 2]);
  return 0;
}
