// Replay jump time: how long seek() to any position takes on a 64 x 64 tiled
// multiply with tile 16 (about 330,000 events), in both orders. Target: < 16 ms,
// one frame at 60 Hz. The trace comes from the CPU simulator (the same one the
// app replays); `--fixture` uses the hand-built trace of the tests instead.
//   ./build/default/bench/bench_replay [n] [tile] [--fixture]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <cstring>

#include "analysis/replay.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"
#include "tests/test_trace_fixtures.hpp"

namespace picks = ts::picks;

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int tile = argc > 2 ? std::atoi(argv[2]) : 16;
  if (n <= 0 || tile <= 0 || n % tile != 0 || n > 512) {
    std::fprintf(stderr, "usage: bench_replay [n] [tile]  (n a multiple of tile, n <= 512)\n");
    return 2;
  }
  using clk = std::chrono::steady_clock;
  const bool fixture = argc > 3 && std::strcmp(argv[3], "--fixture") == 0;
  std::shared_ptr<const ts::Trace> trace;
  if (fixture) {
    trace = std::make_shared<const ts::Trace>(ts::testing::tiled_matmul_trace(n, tile));
  } else {
    ts::RunRequest req;
    req.lesson_id = picks::default_lesson().id;
    req.params.n = req.params.m = req.params.k = n;
    req.params.tile = tile;
    req.backend = ts::BackendChoice::Sim;
    ts::RunResult res = ts::run_simulator(req);
    if (!res.ok) {
      std::fprintf(stderr, "simulator run failed: %s\n", res.error.c_str());
      return 1;
    }
    trace = std::make_shared<const ts::Trace>(std::move(res.trace));
  }
  const auto t0 = clk::now();
  ts::Replay r(trace);
  const double build_ms = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
  std::printf("trace (%s): %dx%d tile %d, %zu events; replay model built in %.1f ms\n",
              fixture ? "hand-built" : "simulator", n, n, tile, trace->events.size(), build_ms);

  std::mt19937_64 rng(42);
  for (ts::ReplayOrder o : {ts::ReplayOrder::AsRecorded, ts::ReplayOrder::Lockstep}) {
    const auto s0 = clk::now();
    r.set_order(o);
    const double switch_ms = std::chrono::duration<double, std::milli>(clk::now() - s0).count();
    std::vector<double> ms;
    for (int i = 0; i < 500; ++i) {
      const uint64_t p = rng() % (r.size() + 1);
      const auto a = clk::now();
      r.seek(p);
      ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - a).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-12s switch %.1f ms; random jump: median %.3f ms, p99 %.3f ms, max %.3f ms %s\n",
                ts::to_string(o), switch_ms, ms[ms.size() / 2], ms[ms.size() * 99 / 100], ms.back(),
                ms.back() < 16.0 ? "(< 16 ms: ok)" : "(OVER 16 ms)");
  }
  return 0;
}
