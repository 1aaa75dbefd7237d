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
#include <string>
#include <vector>

#include "kernels/backend.hpp"

int main(int argc, char** argv) {
  ts::RunRequest req;
  req.variant = "matmul.tiled_square";
  req.params = ts::find_variant(req.variant)->defaults;
  req.params.n = argc > 1 ? std::atoi(argv[1]) : 64;
  req.params.tile = argc > 2 ? std::atoi(argv[2]) : 16;
  const int repeats = std::max(1, argc > 3 ? std::atoi(argv[3]) : 5);
  const std::string schedule = argc > 4 ? argv[4] : "lockstep";
  req.schedule.kind = schedule == "skew"     ? ts::ScheduleKind::WarpSkew
                      : schedule == "random" ? ts::ScheduleKind::Random
                                             : ts::ScheduleKind::Lockstep;
  req.traced = true;

  std::vector<double> ms;
  size_t events = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const ts::RunResult res = ts::run_simulator(req);
    const auto t1 = std::chrono::steady_clock::now();
    if (!res.ok) {
      std::fprintf(stderr, "error: %s\n", res.error.c_str());
      return 1;
    }
    if (!res.verdict.correct) std::fprintf(stderr, "note: %s\n", res.verdict.summary().c_str());
    events = res.trace.events.size();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf(
      "simulator %s n=%d tile=%d traced, %s schedule: %zu events, median %.1f ms "
      "(min %.1f, max %.1f, %d runs), %.0f ns/event\n",
      req.variant.c_str(), req.params.n, req.params.tile, schedule.c_str(), events, median,
      ms.front(), ms.back(), repeats, median * 1e6 / double(std::max<size_t>(events, 1)));
  return 0;
}
