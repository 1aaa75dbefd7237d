// Who waits at a barrier (app/core/barrier_wait.hpp).
#include "app/core/barrier_wait.hpp"

#include <algorithm>
#include <cstdio>

namespace ts::app {

BarrierWait barrier_wait(const Replay& r, uint32_t block) {
  BarrierWait w;
  const Trace& t = r.trace();
  const Dim3 b = t.config.geometry.block;
  w.threads = std::max(1u, b.x) * std::max(1u, b.y) * std::max(1u, b.z);
  w.at_barrier.assign(w.threads, 0);
  // Each thread's last applied event, found walking back from the position.
  std::vector<uint8_t> seen(w.threads, 0);
  uint32_t found = 0;
  int32_t arrive_index = -1;
  for (uint64_t p = r.position(); p > 0 && found < w.threads; --p) {
    const uint32_t i = r.event_at(p);
    const Event& e = t.events[i];
    if (e.block != block || e.thread >= w.threads || seen[e.thread]) continue;
    seen[e.thread] = 1;
    ++found;
    if (e.kind == EventKind::BarrierArrive) {
      w.at_barrier[e.thread] = 1;
      ++w.arrived;
      if (arrive_index < 0) arrive_index = int32_t(i);
    }
  }
  if (arrive_index < 0) return w;
  w.active = true;
  const Event& e = t.events[uint32_t(arrive_index)];
  w.line = e.line;
  w.phase = r.phase_of(uint32_t(arrive_index));
  w.barrier = e.barrier;
  char buf[128];
  if (w.barrier > 0)
    std::snprintf(buf, sizeof buf, "%u of %u threads at barrier %d (line %u)", w.arrived, w.threads,
                  w.barrier, w.line);
  else
    std::snprintf(buf, sizeof buf, "%u of %u threads at the barrier on line %u", w.arrived,
                  w.threads, w.line);
  w.text = buf;
  return w;
}

}  // namespace ts::app
