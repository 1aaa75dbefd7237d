// Replay memory per event: what building the replay model of a trace costs
// on top of the trace itself, at about 659 K events (64 x 64, tile 16) and
// 10 M events (160 x 160, tile 16), with all barriers (lockstep is exact) and
// with none under warp skew (lockstep is repaired: the costly path). Each size
// runs in its own process, so peak RSS belongs to that size alone.
//   ./build/dev/bench/bench_replay_memory [n ...]
// Prints, per trace: events, cells, the trace's bytes, the replay's held
// bytes (Replay::memory_bytes and RSS growth) and the peak while building,
// each also per event. Target: held <= 40 bytes per event, linear in events.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/memory_estimate.hpp"
#include "analysis/replay.hpp"
#include "engine/backend.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

namespace {

// VmRSS or VmHWM of this process, in bytes.
uint64_t status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string k = std::string(key) + ":";
  while (std::getline(f, line))
    if (line.rfind(k, 0) == 0) return std::strtoull(line.c_str() + k.size(), nullptr, 10) * 1024;
  return 0;
}

// Resets VmHWM to the current RSS (Linux >= 4.0).
void reset_peak() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

int measure(int n, bool racy) {
  ts::RunRequest req;
  req.lesson_id = picks::default_lesson().id;
  req.params.n = req.params.m = req.params.k = n;
  req.params.tile = 16;
  req.backend = ts::BackendChoice::Sim;
  req.trace_capacity = 64u << 20;
  if (racy) {
    req.barrier_mask = 0;
    req.schedule.kind = ts::ScheduleKind::WarpSkew;
  }
  ts::RunResult res = ts::run_simulator(req);
  if (!res.ok) {
    std::fprintf(stderr, "simulator run failed: %s\n", res.error.c_str());
    return 1;
  }
  auto trace = std::make_shared<const ts::Trace>(std::move(res.trace));
  res = ts::RunResult{};
  const uint64_t events = trace->events.size();
  const uint64_t before = status_kb("VmRSS");
  reset_peak();
  const auto t0 = std::chrono::steady_clock::now();
  ts::Replay r(trace);
  r.set_order(ts::ReplayOrder::Lockstep);
  r.seek(r.size() / 2);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t held = r.memory_bytes();
  const uint64_t rss = status_kb("VmRSS") - before, peak = status_kb("VmHWM") - before;
  const double e = double(std::max<uint64_t>(events, 1));
  std::printf(
      "n=%-4d %-22s %10llu events %8zu cells | trace %7.1f MB | replay held %7.1f MB "
      "(%5.1f B/event, RSS +%5.1f B/event) | build peak +%5.1f B/event | %6.0f ms%s\n",
      n, racy ? "no barriers, skew" : "all barriers, lockstep", (unsigned long long)events,
      r.cells().size(), double(events * sizeof(ts::Event)) / 1e6, double(held) / 1e6,
      double(held) / e, double(rss) / e, double(peak) / e, ms,
      r.lockstep_reordered() ? " (lockstep repaired)" : "");
  return held / e <= 40.0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i)
    sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {64, 160};  // ~659 K and ~10 M events
  int rc = 0;
  for (int n : sizes)
    for (bool racy : {false, true}) {
      if (n <= 0 || n % 16 != 0 || n > 256) {
        std::fprintf(stderr, "usage: bench_replay_memory [n ...]  (multiples of 16, <= 256)\n");
        return 2;
      }
      std::fflush(stdout);
      const pid_t pid = fork();
      if (pid == 0) {
        const int code = measure(n, racy);
        std::fflush(stdout);
        _exit(code);
      }
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 1;
    }
  std::printf(
      "memory estimate: held %llu B/event, window peak %llu B/event "
      "(analysis/memory_estimate.hpp)\n",
      (unsigned long long)ts::kHeldBytesPerEvent, (unsigned long long)ts::kWindowPeakBytesPerEvent);
  return rc;
}
