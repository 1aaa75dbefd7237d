// What recording costs on the GPU: the tiled multiply (64 x 64, tile 16 by
// default) untraced and traced, kernel time from CUDA events (median of the
// repeats), and the end-to-end time of a traced run: allocate, launch,
// download, compact, check, then decode into per-thread streams.
// Targets (issue 2): traced <= 5x untraced; end to end < 100 ms.
//
//   ./build/headless/bench/bench_gpu_trace [lesson] [n] [tile] [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/counters.hpp"
#include "analysis/decode.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string lesson_id = argc > 1 ? argv[1] : picks::default_lesson().id;
  const int n = argc > 2 ? std::atoi(argv[2]) : 64;
  const int tile = argc > 3 ? std::atoi(argv[3]) : 16;
  const int repeats = std::max(argc > 4 ? std::atoi(argv[4]) : 21, 1);

  const ts::CudaStatus& st = ts::cuda_status();
  if (!st.usable) {
    std::printf("bench_gpu_trace: skipped: no CUDA device (%s)\n", st.reason.c_str());
    return 0;
  }
  ts::RunRequest req;
  req.lesson_id = lesson_id;
  req.params = {.n = n, .tile = tile};
  req.backend = ts::BackendChoice::Cuda;

  // Warm-up: module load, first allocations.
  req.traced = false;
  ts::RunResult r = ts::run_cuda(req);
  if (!r.ok) {
    std::printf("bench_gpu_trace: %s\n", r.error.c_str());
    return 1;
  }
  req.traced = true;
  r = ts::run_cuda(req);

  std::vector<double> untraced_ms, traced_ms, record_ms, decode_ms, total_ms;
  size_t events = 0;
  bool correct = true;
  for (int i = 0; i < repeats; ++i) {
    req.traced = false;
    r = ts::run_cuda(req);
    correct = correct && r.ok && r.verdict.correct;
    untraced_ms.push_back(r.kernel_ms);

    req.traced = true;
    const double t0 = now_ms();
    r = ts::run_cuda(req);
    const double t1 = now_ms();
    const ts::DecodedTrace d = ts::decode(r.trace);
    const ts::Counters c = ts::count_accesses(r.trace);
    const double t2 = now_ms();
    correct = correct && r.ok && r.verdict.correct && !r.trace.truncated() && !d.blocks.empty();
    (void)c;
    events = r.trace.events.size();
    traced_ms.push_back(r.kernel_ms);
    record_ms.push_back(t1 - t0);
    decode_ms.push_back(t2 - t1);
    total_ms.push_back(t2 - t0);
  }
  const double u = median(untraced_ms), t = median(traced_ms);
  std::printf("device: %s\n", st.device_name.c_str());
  std::printf("%s n=%d tile=%d, %d repeats (medians), %zu events (%.1f MB), outputs %s\n",
              lesson_id.c_str(), n, tile, repeats, events, events * 40 / 1e6,
              correct ? "correct" : "WRONG");
  std::printf("kernel untraced      %8.4f ms\n", u);
  std::printf("kernel traced        %8.4f ms   (%.1fx untraced; target <= 5x)\n", t,
              u > 0 ? t / u : 0.0);
  std::printf("record+download      %8.2f ms   (run_cuda, traced: alloc, launch, copy, verdict)\n",
              median(record_ms));
  std::printf("decode+counters      %8.2f ms\n", median(decode_ms));
  std::printf("end to end           %8.2f ms   (target < 100 ms)\n", median(total_ms));
  return correct ? 0 : 1;
}
