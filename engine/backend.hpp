// Running a catalogue lesson: on the GPU (engine/cuda/cuda_backend.cu) or on the
// CPU simulator (engine/sim/sim_backend.cpp), from the same kernel source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "engine/reference.hpp"
#include "engine/sim/static_shared.hpp"
#include "model/trace.hpp"

namespace ts {

enum class BackendChoice : uint8_t { Auto, Cuda, Sim };

// The GPU this process can use, or why it cannot use one.
struct CudaStatus {
  bool usable = false;
  // When not usable: "no CUDA device", "driver too old (...)", "built without CUDA".
  std::string reason;
  std::string device_name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0, warp_size = 32;
  int max_threads_per_block = 0;
  int shared_per_block = 0, shared_per_block_optin = 0, shared_per_sm = 0;
  int registers_per_block = 0, registers_per_sm = 0;
  int l2_bytes = 0;
  uint64_t global_memory_bytes = 0;
  int clock_khz = 0, memory_clock_khz = 0, memory_bus_bits = 0;
  int driver_version = 0, runtime_version = 0;
  // No machine code for this GPU in the build: the driver compiles each
  // lesson's PTX the first time it runs (engine/cuda/cuda_backend.cu says so).
  bool jit = false;
  DeviceLimits limits() const;
};
// Probed once per process (thread-safe); cheap afterwards.
const CudaStatus& cuda_status();

// The simulator's model of a device (the limits it checks, the Memory panel's figures).
CudaStatus simulator_model();

struct RunRequest {
  std::string lesson_id;
  Params params;
  // The barriers kept; those beyond the lesson's are ignored.
  BarrierSet barrier_mask = BarrierSet::all();
  bool traced = true;  // record events (false: only outputs, e.g. repeated race runs)
  BackendChoice backend = BackendChoice::Auto;
  Schedule schedule;                   // simulator only
  uint64_t trace_capacity = 8u << 20;  // events (40 bytes each)
  uint64_t input_seed = 1;
  InputKind inputs = InputKind::SmallIntegers;
  int skew_ns = 0;  // GPU: sleep at DELAY_POINT in the warps of skew_warps
  uint32_t skew_warps = 0xAAAAAAAAu;
};

struct RunResult {
  bool ok = false;
  std::string error;  // why it did not run (bad parameters, CUDA error, ...), with what to do
  std::string backend_note;  // one line: "GPU: NVIDIA H100 ..." or "CPU simulator: no CUDA device"
  Trace trace;               // config, events (when traced), buffers (inputs and outputs)
  Verdict verdict;           // output against the CPU reference
  std::vector<std::string> faults;  // simulator: out-of-range accesses, with element and thread
  double kernel_ms = 0;             // GPU: the traced or untraced launch, from CUDA events
  // A lesson file's run: what its code printed (a kernel's printf), from the
  // lesson child's output, at most 64 KiB; never read as a result.
  std::string printed;
  // Simulator, lesson files: shared memory the kernel has that no traced
  // access reached (engine/sim/static_shared.hpp).
  std::vector<sim::UntracedShared> untraced_shared;
};

// This machine's physical memory in bytes: what the simulator records into.
uint64_t host_memory_bytes();
// nullopt when a trace of `capacity` events (40 bytes each) fits in half of
// `memory_bytes`; else why not, with both figures.
std::optional<std::string> check_trace_capacity(uint64_t capacity, uint64_t memory_bytes);
// nullopt when the simulator can run these parameters in reasonable time.
std::optional<std::string> check_simulator_steps(const LessonInfo& v, const Params& p);
// The bytes of the `__shared__` arrays the simulator will allocate for a
// lesson file's kernel (engine/sim/static_shared.hpp): 0 for a built-in
// lesson (its descriptor is checked against its kernels) or where unknown.
uint64_t simulator_static_shared(size_t lesson_index, const Params& p);
// nullopt when those arrays and the dynamic shared memory fit the device's
// shared memory per block; else a message naming the largest array and the limit.
std::optional<std::string> check_simulator_shared(size_t lesson_index, const Params& p,
                                                  const DeviceLimits& lim);

// Picks the backend, prepares the request for it (every check, once: see
// engine/prepare.hpp), runs, checks against the reference. Never throws.
RunResult run(const RunRequest& req);
// What run() would refuse `req` for, without running it (nullopt: it can run).
std::optional<std::string> check_run(const RunRequest& req);

// run() on the one backend named, for callers that must name one (tests comparing them).
RunResult run_cuda(const RunRequest& req);
RunResult run_simulator(const RunRequest& req);

}  // namespace ts
