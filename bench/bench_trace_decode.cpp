// Host-side cost of a trace: decode, counters, save, load and Chrome export
// of a 64 x 64 tiled multiply, tile 16 (about 330,000 events), recorded on the
// simulator. Prints one line per stage (median of 5 runs).
//   build/bench/bench_trace_decode
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <sstream>
#include <vector>

#include "analysis/counters.hpp"
#include "analysis/decode.hpp"
#include "engine/backend.hpp"
#include "io/chrome_export.hpp"
#include "io/trace_file.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

namespace {

double median_ms(const std::function<void()>& f) {
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[2];
}

}  // namespace

int main() {
  ts::RunRequest req;
  req.lesson_id = picks::default_lesson().id;
  req.params.n = 64;
  req.params.tile = 16;
  req.backend = ts::BackendChoice::Sim;
  const ts::RunResult r = ts::run(req);
  if (!r.ok) {
    std::fprintf(stderr, "run failed: %s\n", r.error.c_str());
    return 1;
  }
  const ts::Trace& t = r.trace;
  std::printf("trace: %zu events (%.1f MB)\n", t.events.size(),
              double(t.events.size() * sizeof(ts::Event)) / 1e6);
  const auto path = (std::filesystem::temp_directory_path() / "bench_trace.tstrace").string();
  std::string err;
  size_t sink = 0;
  std::printf("decode         %8.2f ms\n", median_ms([&] { sink += ts::decode(t).blocks.size(); }));
  std::printf("count_accesses %8.2f ms\n",
              median_ms([&] { sink += ts::count_accesses(t).global_loads(); }));
  std::printf("serialize      %8.2f ms\n",
              median_ms([&] { sink += ts::serialize_trace(t).size(); }));
  std::printf("save_trace     %8.2f ms\n",
              median_ms([&] { sink += ts::save_trace(t, path, &err); }));
  std::printf("load_trace     %8.2f ms\n",
              median_ms([&] { sink += ts::load_trace(path, &err)->events.size(); }));
  std::printf("chrome export  %8.2f ms  (to memory)\n", median_ms([&] {
                std::ostringstream out;
                ts::write_chrome_trace(t, out);
                sink += out.str().size();
              }));
  std::filesystem::remove(path);
  return sink ? 0 : 1;
}
