#include "engine/sim/simulate.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace ts::sim {

void SimSink::fault(const char* what, Space space, ArraySlot buf, int index, int count, int line,
                    const ThreadBuiltins& who, bool misaligned) {
  ++fault_count;
  if (faults.size() < kMaxFaultMessages) {
    const auto& t = who.thread_idx;
    const auto& b = who.block_idx;
    const std::string name = arrays ? array_name(*arrays, buf) : "array " + std::to_string(buf);
    const std::string why =
        misaligned ? " (a 16-byte access needs an index that is a multiple of 4 and a 16-byte "
                     "aligned array: alignas(16) on a __shared__ one)"
                   : " (" + name + " has " + std::to_string(count) + " elements, 0.." +
                         std::to_string(count - 1) + ")";
    faults.push_back(std::string(misaligned ? "misaligned " : "out-of-range ") + to_string(space) +
                     " " + what + " of " + name + "[" + std::to_string(index) + "]" + why +
                     " by thread (" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " +
                     std::to_string(t.z) + ") of block (" + std::to_string(b.x) + ", " +
                     std::to_string(b.y) + ", " + std::to_string(b.z) + "), line " +
                     std::to_string(line) + "; not performed" +
                     (std::string(what).ends_with("load") ? ", read as 0" : ""));
  }
}

namespace {

struct LaunchContext {
  SimSink* sink;
  const KernelArgs* args;
  ThreadFn fn;
};

// Between the simulating OS thread and the one that watches it for a thread
// that never yields (FiberBlock::interrupt_if_stalled).
struct StallWatch {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  FiberBlock* fiber = nullptr;  // while run_launch's FiberBlock lives
};

void thread_entry(void* user, int thread) {
  auto* ctx = static_cast<LaunchContext*>(user);
  SimRec rec(*FiberBlock::active(), *ctx->sink, thread);
  ctx->fn(rec, *ctx->args);
}

void run_launch(const LaunchGeometry& geo, const KernelArgs& args, const SimOptions& opt,
                ThreadFn fn, SimResult& out, StallWatch& watch) {
  SimSink sink;
  sink.traced = opt.traced;
  sink.capacity = opt.traced ? opt.capacity : 0;
  sink.barrier_mask = opt.barrier_mask;
  sink.arrays = opt.arrays;
  if (opt.traced) sink.events.reserve(size_t(std::min(opt.reserve, opt.capacity)));

  // `extern __shared__`: one block's worth, zeroed once and reused by every
  // block like the static shared arrays.
  std::vector<std::max_align_t> dynamic_shared(
      (geo.dynamic_shared_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
  // Every byte: a max_align_t's value-initialisation may leave its padding
  // (beside the long double) as the heap had it.
  if (!dynamic_shared.empty())
    std::memset(static_cast<void*>(dynamic_shared.data()), 0,
                dynamic_shared.size() * sizeof(std::max_align_t));
  LaunchContext ctx{&sink, &args, fn};
  FiberBlock fiber;
  fiber.set_step_limit(opt.max_steps);
  struct Published {  // the watcher sees the FiberBlock only while it lives
    StallWatch& w;
    Published(StallWatch& watch, FiberBlock* f) : w(watch) {
      const std::lock_guard<std::mutex> lock(w.mutex);
      w.fiber = f;
    }
    ~Published() {
      const std::lock_guard<std::mutex> lock(w.mutex);
      w.fiber = nullptr;
    }
  } published(watch, &fiber);
  const Dim3 grid = geo.grid;
  for (uint32_t z = 0; z < grid.z && out.error.empty(); ++z)
    for (uint32_t y = 0; y < grid.y && out.error.empty(); ++y)
      for (uint32_t x = 0; x < grid.x && out.error.empty(); ++x) {
        sink.block_linear = x + y * grid.x + z * grid.x * grid.y;
        out.error = fiber.run_block(grid, geo.block, Dim3{x, y, z},
                                    dynamic_shared.empty() ? nullptr : dynamic_shared.data(),
                                    opt.schedule, &thread_entry, &ctx);
      }
  out.steps = fiber.clock();
  // Here, on the thread whose thread-local arrays the kernel used.
  if (opt.find_untraced_shared)
    out.untraced_shared = untraced_shared(reinterpret_cast<const void*>(fn), sink.shared_seen,
                                          dynamic_shared.empty() ? nullptr : dynamic_shared.data(),
                                          geo.dynamic_shared_bytes);
  out.events = std::move(sink.events);
  out.events_dropped = sink.events_dropped;
  out.fault_count = sink.fault_count;
  out.faults = std::move(sink.faults);
  if (out.fault_count > out.faults.size())
    out.faults.push_back("... and " + std::to_string(out.fault_count - out.faults.size()) +
                         " more out-of-range accesses");
  // Barrier divergence first: a bug in the kernel's structure, not an index.
  std::vector<std::string> diverged = fiber.take_divergences();
  if (diverged.size() > SimSink::kMaxFaultMessages) {
    const size_t more = diverged.size() - SimSink::kMaxFaultMessages;
    diverged.resize(SimSink::kMaxFaultMessages);
    diverged.push_back("... and " + std::to_string(more) +
                       " more blocks with a barrier divergence");
  }
  out.fault_count += diverged.size();
  out.faults.insert(out.faults.begin(), diverged.begin(), diverged.end());
}

// Until the launch is done: where the thread steps stand still for
// `seconds`, the running simulated thread is stopped (it never yields).
void watch_for_stalls(StallWatch& watch, std::thread& worker, double seconds) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(watch.mutex);
  uint64_t seen = ~uint64_t(0);
  Clock::time_point since = Clock::now();
  while (!watch.done) {
    watch.done_cv.wait_for(lock, std::chrono::milliseconds(100));
    if (watch.done || !watch.fiber || seconds <= 0) continue;
    const uint64_t progress = watch.fiber->progress();
    const Clock::time_point now = Clock::now();
    if (progress != seen) {
      seen = progress;
      since = now;
    } else if (const double still = std::chrono::duration<double>(now - since).count();
               still >= seconds) {
      watch.fiber->interrupt_if_stalled(worker.native_handle(), seen, still);
      since = now;
    }
  }
}

}  // namespace

SimResult simulate_launch(const LaunchGeometry& geometry, const KernelArgs& args,
                          const SimOptions& options, ThreadFn thread_fn) {
  SimResult out;
  if (geometry.grid.count() == 0 || geometry.block.count() == 0) {
    out.error = "empty launch: a grid and a block need at least one thread each";
    return out;
  }
  StallWatch watch;
  auto body = [&] {
    try {
      run_launch(geometry, args, options, thread_fn, out, watch);
    } catch (const std::bad_alloc&) {
      out.error = "the simulator ran out of memory (try a smaller size or trace capacity)";
    } catch (const std::exception& e) {
      out.error = std::string("the simulator failed: ") + e.what();
    }
    const std::lock_guard<std::mutex> lock(watch.mutex);
    watch.done = true;
    watch.done_cv.notify_all();
  };
  try {
    std::thread worker(body);
    watch_for_stalls(watch, worker, options.stall_seconds);
    worker.join();
  } catch (const std::system_error& e) {
    out.error = std::string("could not start the simulator's thread: ") + e.what();
  }
  return out;
}

}  // namespace ts::sim
