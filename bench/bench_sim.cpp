// How fast the CPU simulator records a lesson: 64 x 64 tiled multiply, tile
// 16, traced (327,680 events). Target: under 1 s on the 2-core dev machine.
//   ./build/bench/bench_sim [n] [tile] [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/dispatch.hpp"
#include "sim/simulate.hpp"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int tile = argc > 2 ? std::atoi(argv[2]) : 16;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i)
    a[i] = b[i] = float(i % 9 - 4);
  ts::KernelArgs args;
  args.a = a.data(), args.b = b.data(), args.c = c.data();
  args.m = args.k = args.n = n;
  args.a_count = args.b_count = args.c_count = n * n;
  ts::LaunchGeometry geo;
  const uint32_t g = uint32_t((n + tile - 1) / tile);
  geo.grid = {g, g, 1};
  geo.block = {uint32_t(tile), uint32_t(tile), 1};
  std::vector<double> ms;
  size_t events = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    ts::sim::SimResult res;
    ts::visit_kernel("matmul.tiled_square", tile, [&](auto body) {
      res = ts::sim::simulate<decltype(body)>(geo, args, ts::sim::SimOptions{});
    });
    const auto t1 = std::chrono::steady_clock::now();
    if (!res.error.empty()) {
      std::fprintf(stderr, "error: %s\n", res.error.c_str());
      return 1;
    }
    events = res.events.size();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "simulator matmul.tiled_square n=%d tile=%d traced: %zu events, median %.1f ms "
      "(min %.1f, max %.1f, %d runs), %.0f ns/event\n",
      n, tile, events, ms[ms.size() / 2], ms.front(), ms.back(), repeats,
      ms[ms.size() / 2] * 1e6 / double(events));
  return 0;
}
