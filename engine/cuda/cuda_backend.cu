// The CUDA backend: runs a catalogue lesson on the GPU, traced (every access
// recorded) or untraced (what gets timed), and probes the device once.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/cuda/launch.cuh"
#include "engine/cuda/lesson_plugin.cuh"
#include "engine/cuda/recorders.cuh"
#include "engine/cuda/trace_recorder.cuh"
#include "engine/prepare.hpp"

namespace ts {

namespace {

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// A CUDA error as a sentence: what failed, CUDA's words, and what to do.
std::string cuda_error_text(const char* what, cudaError_t e) {
  std::string s =
      std::string(what) + " failed: " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
  switch (e) {
    case cudaErrorMemoryAllocation:
      return s + "; the GPU is out of memory: use smaller sizes or a smaller trace capacity";
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
      return s + "; the kernel touched memory it must not (a bug in the kernel)";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
      return s + "; rebuild with this GPU's architecture in -DTS_CUDA_ARCHITECTURES";
    case cudaErrorLaunchOutOfResources:
      return s +
             "; the block needs more registers or shared memory than the GPU has: use a "
             "smaller tile or block";
    default:
      return s;
  }
}

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

// Launches the lesson's body with recorder `rec`, through the lesson's own
// translation unit (engine/cuda/lesson_plugin.cuh). Returns the launch error.
template <class Rec>
cudaError_t launch(size_t lesson_index, const Params& p, const LaunchGeometry& g, const Rec& rec,
                   const KernelArgs& args) {
  const LessonCudaOps* ops = lesson_cuda_ops(lesson_index);
  if (!ops) return cudaErrorInvalidDeviceFunction;
  return cudaError_t(ops->launch(int(plugin_recorder<Rec>()), &rec, p, g, args));
}

// The smallest kernel: probing it tells whether this build has code for the
// GPU without loading any lesson's module (a PTX-only build would make the
// driver compile that lesson's kernels first).
__global__ void probe_kernel(int* out) {
  if (out) *out = 1;
}

// Does this build carry machine code that runs on compute capability
// major.minor? SASS for sm_XY runs on sm_XZ for Z >= Y; without it the
// driver compiles the PTX (TS_CUDA_SASS_ARCHS: engine/CMakeLists.txt).
bool has_machine_code_for(int major, int minor) {
  const std::string archs = TS_CUDA_SASS_ARCHS;  // "75,90a"
  size_t at = 0;
  while (at < archs.size()) {
    size_t end = archs.find(',', at);
    if (end == std::string::npos) end = archs.size();
    const std::string a = archs.substr(at, end - at);
    at = end + 1;
    if (a.size() < 2 || !std::isdigit(static_cast<unsigned char>(a[0]))) continue;
    const int code = std::atoi(a.c_str());
    const bool arch_specific = !std::isdigit(static_cast<unsigned char>(a.back()));
    if (code / 10 != major) continue;
    if (arch_specific ? code % 10 == minor : code % 10 <= minor) return true;
  }
  return false;
}

CudaStatus probe() {
  CudaStatus s;
  cudaDriverGetVersion(&s.driver_version);
  cudaRuntimeGetVersion(&s.runtime_version);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (s.driver_version == 0)
      s.reason = "no CUDA device (no NVIDIA driver is installed)";
    else if (e == cudaErrorInsufficientDriver)
      s.reason = "CUDA driver too old for this build (driver " + version_text(s.driver_version) +
                 ", runtime " + version_text(s.runtime_version) + "): update the NVIDIA driver";
    else if (e == cudaErrorNoDevice || e == cudaSuccess)
      s.reason = "no CUDA device";
    else
      s.reason = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return s;
  }
  cudaDeviceProp prop{};
  if (cudaError_t pe = cudaGetDeviceProperties(&prop, 0); pe != cudaSuccess) {
    s.reason = cuda_error_text("reading the GPU's properties", pe);
    cudaGetLastError();
    return s;
  }
  s.device_name = prop.name;
  s.cc_major = prop.major;
  s.cc_minor = prop.minor;
  s.sm_count = prop.multiProcessorCount;
  s.warp_size = prop.warpSize;
  s.max_threads_per_block = prop.maxThreadsPerBlock;
  s.shared_per_block = int(prop.sharedMemPerBlock);
  s.shared_per_block_optin = int(prop.sharedMemPerBlockOptin);
  s.shared_per_sm = int(prop.sharedMemPerMultiprocessor);
  s.registers_per_block = prop.regsPerBlock;
  s.registers_per_sm = prop.regsPerMultiprocessor;
  s.l2_bytes = prop.l2CacheSize;
  s.global_memory_bytes = prop.totalGlobalMem;
  s.memory_bus_bits = prop.memoryBusWidth;
  // CUDA 13 removed clockRate and memoryClockRate from cudaDeviceProp.
  cudaDeviceGetAttribute(&s.clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&s.memory_clock_khz, cudaDevAttrMemoryClockRate, 0);

  // Is there machine code (or PTX) in this build for this GPU?
  cudaFuncAttributes attr{};
  const cudaError_t fe = cudaFuncGetAttributes(&attr, &probe_kernel);
  if (fe != cudaSuccess) {
    s.reason = "this build has no kernels for " + s.device_name + " (compute capability " +
               std::to_string(s.cc_major) + "." + std::to_string(s.cc_minor) +
               "): rebuild with -DTS_CUDA_ARCHITECTURES=" + std::to_string(s.cc_major) +
               std::to_string(s.cc_minor);
    cudaGetLastError();
    return s;
  }
  s.usable = true;
  s.jit = !has_machine_code_for(s.cc_major, s.cc_minor);
  return s;
}

// The device buffer's field-major blocks (engine/cuda/recorders.cuh) back into
// Event records, in slot order, without the slots nobody wrote (Empty):
// slot order is each thread's program order.
void unpack_trace_blocks(const std::vector<uint64_t>& words, std::vector<Event>& out) {
  const size_t blocks = words.size() / (kSlotBlock * kEventWords);
  out.clear();
  out.reserve(blocks * kSlotBlock);
  for (size_t b = 0; b < blocks; ++b) {
    const uint64_t* block = words.data() + b * kSlotBlock * kEventWords;
    for (unsigned lane = 0; lane < kSlotBlock; ++lane) {
      uint64_t w[kEventWords];
      for (unsigned f = 0; f < kEventWords; ++f)
        w[f] = block[f * kSlotBlock + lane];
      Event e;
      std::memcpy(&e, w, sizeof e);
      if (e.kind != EventKind::Empty) out.push_back(e);
    }
  }
}

// "thread (3, 1) of block (2, 0) read A[130], outside its 100 elements (line 37)"
std::string fault_text(const Event& e, const LaunchGeometry& g, const Trace& t) {
  const uint32_t tx = e.thread % g.block.x, ty = e.thread / g.block.x;
  const uint32_t bx = e.block % g.grid.x, by = e.block / g.grid.x;
  uint64_t count = 0;
  if (const BufferData* b = t.buffer(e.array)) count = b->values.size();
  std::string s = "thread (" + std::to_string(tx) + ", " + std::to_string(ty) + ") of block (" +
                  std::to_string(bx) + ", " + std::to_string(by) + ") " +
                  (is_load(e.kind) ? "read " : "wrote ") + array_name(t.config.arrays, e.array) +
                  "[" + std::to_string(int32_t(e.element)) + "]";
  if (count) s += ", outside its " + std::to_string(count) + " elements";
  return s + " (line " + std::to_string(e.line) + ")";
}

}  // namespace

// The built-in lessons' GPU sides, in catalogue order: one translation unit
// each, and this table, generated by engine/CMakeLists.txt.
extern const LessonCudaOps* const kBuiltinLessonCudaOps[];
extern const size_t kBuiltinLessonCudaOpsCount;

const LessonCudaOps* lesson_cuda_ops(size_t lesson_index) {
  if (lesson_index < kBuiltinLessonCudaOpsCount) return kBuiltinLessonCudaOps[lesson_index];
  return runtime_cuda_ops(lesson_index);
}

const CudaStatus& cuda_status() {
  static CudaStatus status;
  static std::once_flag once;
  std::call_once(once, [] { status = probe(); });
  return status;
}

namespace {

// One launch of the run's kernel with the recorder it asks for: traced into
// `events` (and `counters`), untraced with the warps' skew, or plain.
cudaError_t launch_with_recorder(const PreparedRun& run, const DeviceBuffer& events,
                                 const DeviceBuffer& counters, uint64_t slots, unsigned chunk) {
  const RunRequest& req = run.request;
  if (req.traced) {
    DeviceTraceRec rec;
    rec.events = static_cast<uint64_t*>(events.ptr);
    rec.cursor = static_cast<unsigned long long*>(counters.ptr);
    rec.dropped = rec.cursor + 1;
    rec.capacity = slots;
    rec.chunk = chunk;
    rec.barrier_mask = req.barrier_mask;
    rec.skew_ns = req.skew_ns;
    rec.skew_warps = req.skew_warps;
    return launch(run.index, run.params, run.geometry, rec, run.args);
  }
  // Every barrier of the lesson and no skew: the timed kernel (PlainRec), so
  // that an untraced run, ncu and the compiled-code table see what is timed.
  if (req.skew_ns <= 0 && req.barrier_mask.keeps_all_of(int(run.lesson->barriers.size())))
    return launch(run.index, run.params, run.geometry, PlainRec{}, run.args);
  // Without skew, no stall code: racecheck sees the lesson's code (MaskRec).
  if (req.skew_ns <= 0) {
    MaskRec rec;
    rec.barrier_mask = req.barrier_mask;
    return launch(run.index, run.params, run.geometry, rec, run.args);
  }
  SkewRec rec;
  rec.barrier_mask = req.barrier_mask;
  rec.skew_ns = req.skew_ns;
  rec.skew_warps = req.skew_warps;
  return launch(run.index, run.params, run.geometry, rec, run.args);
}

// The recorded events into `t`: counts[0] slots reserved, counts[1] events dropped.
cudaError_t download_trace(const DeviceBuffer& events, const unsigned long long counts[2],
                           uint64_t slots, uint64_t capacity, Trace& t) {
  const uint64_t used = std::min<uint64_t>(counts[0], slots);
  const uint64_t blocks = (used + kSlotBlock - 1) / kSlotBlock;
  std::vector<uint64_t> words(blocks * kSlotBlock * kEventWords);
  if (!words.empty())
    if (cudaError_t e = cudaMemcpy(words.data(), events.ptr, words.size() * sizeof(uint64_t),
                                   cudaMemcpyDeviceToHost);
        e != cudaSuccess)
      return e;
  unpack_trace_blocks(words, t.events);
  const uint64_t needed = t.events.size() + counts[1];
  // The slack may have held more than the caller allowed: keep the first
  // `capacity` in slot order (for each thread, a prefix of its events).
  if (t.events.size() > capacity) t.events.resize(capacity);
  t.events_dropped = needed - t.events.size();
  return cudaSuccess;
}

// Out-of-range accesses (matmul.tiled_exact on a size that is not a
// multiple of its tile), described like the simulator describes them.
std::vector<std::string> out_of_range_faults(const Trace& t, const LaunchGeometry& g) {
  constexpr size_t kMaxFaults = 20;
  std::vector<std::string> out;
  size_t faults = 0;
  for (const Event& e : t.events) {
    if (!(e.flags & kFlagOutOfRange)) continue;
    if (faults++ < kMaxFaults) out.push_back(fault_text(e, g, t));
  }
  if (faults > kMaxFaults)
    out.push_back("... and " + std::to_string(faults - kMaxFaults) + " more out-of-range accesses");
  return out;
}

// A build without machine code for this GPU: the driver compiles a lesson's
// PTX when its module is first used (once per lesson and process; the
// driver's cache keeps the result for later processes). Said before the wait,
// timed, and the time reported with the run.
void load_from_ptx(const PreparedRun& run, const CudaStatus& st, RunResult& r) {
  static std::mutex mutex;
  static std::vector<bool> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  if (run.index < loaded.size() && loaded[run.index]) return;
  const LessonCudaOps* ops = lesson_cuda_ops(run.index);
  const void* kernel = ops ? ops->timed_kernel(run.params) : nullptr;
  if (!kernel) return;
  std::fprintf(stderr,
               "TileScope: this build has no machine code for %s (compute capability %d.%d): "
               "the driver is compiling %s's kernels from PTX (seconds; kept in its cache for "
               "later runs). A build for this GPU skips it: -DTS_CUDA_ARCHITECTURES=%d%d\n",
               st.device_name.c_str(), st.cc_major, st.cc_minor, run.lesson->id, st.cc_major,
               st.cc_minor);
  const auto start = std::chrono::steady_clock::now();
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, kernel);
  cudaGetLastError();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char text[96];
  std::snprintf(text, sizeof text, " (its kernels compiled from PTX for this GPU: %.1f s)", s);
  r.backend_note += text;
  if (loaded.size() <= run.index) loaded.resize(run.index + 1);
  loaded[run.index] = true;
}

// The run itself; `lost` is set when a CUDA error left the context unusable
// (a sticky error), so that the caller resets the device once every buffer
// of the run has been freed.
RunResult run_on_device(PreparedRun& run, bool& lost) {
  RunResult r;
  cudaGetLastError();  // a stale error of an earlier call must not fail this run
  const CudaStatus& st = cuda_status();
  if (!st.usable) {
    r.error = "the GPU cannot be used: " + st.reason + "; run on the CPU simulator instead";
    return r;
  }
  const RunRequest& req = run.request;
  r.backend_note = "GPU: " + st.device_name;
  if (st.jit) load_from_ptx(run, st, r);

  // A CUDA failure leaves this function through `fail`: the message, and the
  // non-sticky error state cleared so that the next run can try again.
  const auto fail = [&](const char* what, cudaError_t e) {
    r.ok = false;
    r.error = cuda_error_text(what, e);
    cudaGetLastError();
    // A sticky error fails every later call too, synchronisation included.
    lost = cudaDeviceSynchronize() != cudaSuccess;
    return r;
  };

  const LaunchGeometry g = run.geometry;
  KernelArgs& args = run.args;

  // The lesson's arrays, with the room allocation_elements asks for;
  // everything starts at zero, then the inputs are copied in.
  std::vector<DeviceBuffer> dev(run.globals.size());
  for (size_t i = 0; i < run.globals.size(); ++i) {
    const BufferData& b = run.globals[i];
    if (cudaError_t e = dev[i].allocate(run.allocation[i] * sizeof(float)); e != cudaSuccess)
      return fail("allocating the lesson's arrays on the GPU", e);
    if (cudaError_t e = cudaMemset(dev[i].ptr, 0, dev[i].bytes); e != cudaSuccess)
      return fail("clearing the lesson's arrays", e);
    if (!b.is_output) {
      std::vector<float> bits = b.values;  // in the element type the kernel reads
      values_to_element_bits(run.arrays[b.slot - 1].type, bits.data(), bits.size());
      if (cudaError_t e = cudaMemcpy(dev[i].ptr, bits.data(), bits.size() * sizeof(float),
                                     cudaMemcpyHostToDevice);
          e != cudaSuccess)
        return fail("copying the inputs to the GPU", e);
    }
    args.data[b.slot] = dev[i].ptr;
  }

  EventPair timing;
  if (cudaError_t e = cudaEventCreate(&timing.start); e != cudaSuccess)
    return fail("creating CUDA events", e);
  if (cudaError_t e = cudaEventCreate(&timing.stop); e != cudaSuccess)
    return fail("creating CUDA events", e);

  // Trace buffer, in slots: the events the caller allows, but no more than
  // the run needs (the closed-form count with every barrier; removing
  // barriers only removes events), plus the slots threads reserve and leave
  // unused at the end of their last chunk.
  const uint64_t expected = run.expected_events;
  const uint64_t threads = g.grid.count() * g.block.count();
  // A chunk of about one thread's events (at most kMaxChunk): few
  // reservations, and little left unused.
  const unsigned chunk = unsigned(
      std::clamp<uint64_t>((expected + threads - 1) / threads, 1, DeviceTraceRec::kMaxChunk));
  // Each thread leaves fewer than `chunk` slots unused, and a reservation
  // rounds up to whole blocks: with this slack every event up to the
  // capacity finds a slot. A run that will be truncated anyway gets a
  // bounded slack.
  uint64_t slack = threads * (chunk + kSlotBlock);
  if (expected > req.trace_capacity)
    slack = std::min<uint64_t>(slack, req.trace_capacity + (uint64_t(1) << 20));
  uint64_t wanted = std::min<uint64_t>(req.trace_capacity, expected);
  uint64_t slots = 0;
  DeviceBuffer events, counters;  // counters: [0] slots reserved, [1] events dropped
  unsigned long long counts[2] = {0, 0};
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (req.traced) {
      slots = (wanted + slack + kSlotBlock - 1) / kSlotBlock * kSlotBlock;
      if (events.ptr) {
        cudaFree(events.ptr);
        events.ptr = nullptr;
      }
      if (cudaError_t e = events.allocate(slots * sizeof(Event)); e != cudaSuccess)
        return fail("allocating the trace buffer", e);
      // 0xFF everywhere: EventKind::Empty marks a slot nobody wrote.
      if (cudaError_t e = cudaMemset(events.ptr, 0xFF, slots * sizeof(Event)); e != cudaSuccess)
        return fail("clearing the trace buffer", e);
      if (!counters.ptr)
        if (cudaError_t e = counters.allocate(sizeof counts); e != cudaSuccess)
          return fail("allocating the trace counters", e);
      if (cudaError_t e = cudaMemset(counters.ptr, 0, sizeof counts); e != cudaSuccess)
        return fail("clearing the trace counters", e);
    }
    // The outputs start at zero on every attempt.
    for (size_t i = 0; i < run.globals.size(); ++i)
      if (run.globals[i].is_output)
        if (cudaError_t e = cudaMemset(dev[i].ptr, 0, dev[i].bytes); e != cudaSuccess)
          return fail("clearing the outputs", e);

    cudaEventRecord(timing.start);
    const cudaError_t launch_err = launch_with_recorder(run, events, counters, slots, chunk);
    if (launch_err != cudaSuccess) return fail("launching the kernel", launch_err);
    cudaEventRecord(timing.stop);
    if (cudaError_t e = cudaEventSynchronize(timing.stop); e != cudaSuccess)
      return fail("running the kernel", e);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return fail("running the kernel", e);
    float ms = 0;
    cudaEventElapsedTime(&ms, timing.start, timing.stop);
    r.kernel_ms = ms;

    if (!req.traced) break;
    if (cudaError_t e = cudaMemcpy(counts, counters.ptr, sizeof counts, cudaMemcpyDeviceToHost);
        e != cudaSuccess)
      return fail("reading the trace counters", e);
    // More events than the closed form said (should not happen): run again
    // with the caller's full capacity rather than report a truncation that a
    // bigger buffer would have avoided.
    if (counts[1] == 0 || wanted >= req.trace_capacity) break;
    wanted = req.trace_capacity;
  }
  Trace& t = r.trace;
  t.config = run_config(run, st.device_name);
  t.config.skew_ns = req.skew_ns;
  t.config.skew_warps = req.skew_ns > 0 ? req.skew_warps : 0;
  t.capacity = req.traced ? req.trace_capacity : 0;

  if (req.traced)
    if (cudaError_t e = download_trace(events, counts, slots, req.trace_capacity, t);
        e != cudaSuccess)
      return fail("copying the trace to the host", e);

  for (size_t i = 0; i < run.globals.size(); ++i) {
    BufferData& b = run.globals[i];
    if (!b.is_output) continue;
    if (cudaError_t e = cudaMemcpy(b.values.data(), dev[i].ptr, b.values.size() * sizeof(float),
                                   cudaMemcpyDeviceToHost);
        e != cudaSuccess)
      return fail("copying the output to the host", e);
    element_bits_to_values(run.arrays[b.slot - 1].type, b.values.data(), b.values.size());
  }
  t.buffers = run.globals;

  r.faults = out_of_range_faults(t, g);
  r.verdict = run_verdict(run);
  r.ok = true;
  return r;
}

}  // namespace

RunResult run_prepared_on_gpu(PreparedRun& run) {
  bool lost = false;
  RunResult r = run_on_device(run, lost);
  if (lost) {
    // Every buffer of the run is freed by now; a reset gives the process a
    // fresh context, so the next run can use the GPU again.
    const cudaError_t e = cudaDeviceReset();
    cudaGetLastError();
    r.error += e == cudaSuccess ? "; the GPU was reset: run again"
                                : "; resetting the GPU failed too: restart TileScope";
  }
  return r;
}

}  // namespace ts
