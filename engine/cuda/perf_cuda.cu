// The GPU timing harness of the performance panel and `tilescope-cli bench`.
//
// What it measures, and how (issue 5):
//   - the UNTRACED instantiation of every selected catalogue lesson (PlainRec:
//     plain loads and stores, barriers as in the source), launched through the
//     lesson's own translation unit (LessonCudaOps::launch_timed: the kernel
//     wrapper of engine/cuda/launch.cuh, the one the traced runs use too);
//   - cuBLAS SGEMM at the same n, and a device-to-device copy for bandwidth;
//   - CUDA events around each launch: warm-up, then `reps` timed launches,
//     median with min and max; before every timed launch a buffer twice the L2
//     size is written, so that even n = 128 does not time a warm cache;
//   - every kernel's output is checked before its time counts: against the CPU
//     double reference up to n = cpu_reference_max_n, above that against
//     cuBLAS's output (integer inputs in [-4, 4] make both sums exact in float,
//     so the check is exact too). A wrong kernel is still timed, marked "wrong"
//     and never counted;
//   - NVTX ranges around every timed launch, named "<lesson> T<tile> n=<size>",
//     so Nsight Systems shows them by name.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/backend.hpp"
#include "engine/lesson_plugin_cuda.hpp"
#include "engine/perf.hpp"
#include "engine/reference.hpp"

#include "engine/cuda/cublas_loader.hpp"
#include "engine/cuda/launch.cuh"
#include "engine/cuda/library_anchors.hpp"
#include "engine/cuda/perf_timing.hpp"
#include "engine/prepare.hpp"

namespace ts {

namespace perf_detail {

std::string cuda_msg(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

std::string human_bytes(double b) {
  char buf[64];
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f GiB", b / (1024.0 * 1024 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  return buf;
}

using DevBuf = DeviceBuffer;  // engine/cuda/launch.cuh

// Everything one sweep holds on the device.
class Harness {
 public:
  Harness(const PerfConfig& c, SweepControl* ctl) : cfg_(c), ctl_(ctl) {}
  ~Harness() {
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (cublas_) cublas_api().destroy(cublas_);
  }

  bool cancelled() const { return ctl_ && ctl_->cancel.load(); }

  // Probes the device; false (with report.device.reason) when there is none.
  bool open(PerfDevice& d) {
    // The engine's probe tells "no driver" from "driver too old" from "no device".
    if (const CudaStatus& st = cuda_status(); !st.usable) {
      d.usable = false;
      d.reason = st.reason;
      return false;
    }
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      d.usable = false;
      if (e == cudaErrorInsufficientDriver)
        d.reason = "the NVIDIA driver is too old for this CUDA runtime (" + cuda_msg(e) + ")";
      else if (e == cudaErrorNoDevice || count == 0 || e == cudaErrorInitializationError)
        d.reason = "no CUDA device";
      else
        d.reason = "no usable CUDA device (" + cuda_msg(e) + ")";
      cudaGetLastError();
      return false;
    }
    if ((e = cudaSetDevice(0)) != cudaSuccess) {
      d.reason = "cannot use CUDA device 0 (" + cuda_msg(e) + ")";
      return false;
    }
    cudaDeviceProp p{};
    if ((e = cudaGetDeviceProperties(&p, 0)) != cudaSuccess) {
      d.reason = "cannot read the device's properties (" + cuda_msg(e) + ")";
      return false;
    }
    d.usable = true;
    d.name = p.name;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sm_count = p.multiProcessorCount;
    cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, 0);
    d.fp32_cores_per_sm = fp32_cores_per_sm(p.major, p.minor);
    d.fp32_peak_gflops = fp32_peak_gflops(d.sm_count, d.fp32_cores_per_sm, d.clock_khz);
    d.l2_bytes = p.l2CacheSize;
    d.global_memory_bytes = p.totalGlobalMem;
    d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    int v = 0;
    cudaDriverGetVersion(&v);
    d.driver = std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
    cudaRuntimeGetVersion(&v);
    d.runtime = std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
    limits_.max_threads_per_block = p.maxThreadsPerBlock;
    limits_.max_shared_per_block = int(p.sharedMemPerBlockOptin);
    limits_.global_memory_bytes = p.totalGlobalMem;
    max_threads_per_sm_ = p.maxThreadsPerMultiProcessor;

    if (cudaEventCreate(&start_) != cudaSuccess || cudaEventCreate(&stop_) != cudaSuccess) {
      d.usable = false;
      d.reason = "cannot create CUDA events";
      return false;
    }
    const CublasApi& blas = cublas_api();
    if (!blas.error.empty()) {
      d.cublas_math = "unavailable: " + blas.error;
    } else if (blas.create(&cublas_) != CUBLAS_STATUS_SUCCESS) {
      cublas_ = nullptr;
      d.cublas_math = "unavailable (cublasCreate failed)";
    } else {
      // FP32 throughout: the default math mode does not use TF32 tensor cores
      // unless NVIDIA_TF32_OVERRIDE=1 forces it, which we report.
      blas.set_math_mode(cublas_, CUBLAS_DEFAULT_MATH);
      d.cublas_math = "CUBLAS_DEFAULT_MATH (FP32, no TF32)";
      if (const char* o = std::getenv("NVIDIA_TF32_OVERRIDE"); o && std::string(o) == "1")
        d.cublas_math = "CUBLAS_DEFAULT_MATH with NVIDIA_TF32_OVERRIDE=1 (TF32!)";
    }
    // Twice the L2, so that writing it evicts everything a kernel left there.
    if (cfg_.flush_l2 && p.l2CacheSize > 0) {
      if (flush_.allocate(size_t(p.l2CacheSize) * 2) != cudaSuccess) flush_.reset();
    }
    return true;
  }

  const DeviceLimits& limits() const { return limits_; }
  bool have_cublas() const { return cublas_ != nullptr; }
  cublasHandle_t cublas() const { return cublas_; }
  size_t free_bytes() const {
    size_t f = 0, t = 0;
    cudaMemGetInfo(&f, &t);
    return f;
  }
  // What one size may allocate: 90 % of the free memory, or the config's cap.
  double budget_bytes() const {
    double b = 0.9 * double(free_bytes());
    if (cfg_.max_gpu_bytes > 0) b = std::min(b, double(cfg_.max_gpu_bytes));
    return b;
  }
  // A sticky error (illegal address, ...) leaves the context unusable.
  bool context_alive() {
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return true;
    dead_ = cuda_msg(e);
    return false;
  }
  const std::string& dead_reason() const { return dead_; }

  // Warm-up, then timed launches of `launch` (which enqueues one launch on
  // the default stream and returns its launch error).
  template <class Launch>
  Timing time(const std::string& label, Launch&& launch) {
    Timing t;
    auto fail = [&](cudaError_t e) {
      t.ok = false;
      t.error = cuda_msg(e);
      cudaGetLastError();
      return t;
    };
    cudaError_t e;
    // The first warm-up is timed as well, to size the number of reps.
    float first_ms = 0;
    for (int w = 0; w < std::max(1, cfg_.warmup); ++w) {
      if (w == 0) cudaEventRecord(start_);
      if ((e = launch()) != cudaSuccess) return fail(e);
      if (w == 0) cudaEventRecord(stop_);
      if ((e = cudaDeviceSynchronize()) != cudaSuccess) return fail(e);
      if (w == 0) cudaEventElapsedTime(&first_ms, start_, stop_);
      if (cancelled()) {
        t.cancelled = true;
        return t;
      }
    }
    int reps = cfg_.reps;
    if (first_ms > 0 && first_ms * 1e-3 * reps > cfg_.max_seconds_per_point)
      reps = std::max(3, int(cfg_.max_seconds_per_point / (first_ms * 1e-3)));
    reps = std::min(reps, cfg_.reps);
    std::vector<float> ms;
    ms.reserve(reps);
    for (int i = 0; i < reps; ++i) {
      if (flush_.ptr) cudaMemsetAsync(flush_.ptr, i & 0xff, flush_.bytes);
      nvtxRangePushA(label.c_str());
      cudaEventRecord(start_);
      e = launch();
      cudaEventRecord(stop_);
      nvtxRangePop();
      if (e != cudaSuccess) return fail(e);
      if ((e = cudaEventSynchronize(stop_)) != cudaSuccess) return fail(e);
      float x = 0;
      cudaEventElapsedTime(&x, start_, stop_);
      ms.push_back(x);
      if (cancelled()) {
        t.cancelled = true;
        return t;
      }
    }
    if ((e = cudaGetLastError()) != cudaSuccess) return fail(e);
    t.ok = true;
    t.reps = int(ms.size());
    t.median = median_of(ms);
    t.min = *std::min_element(ms.begin(), ms.end());
    t.max = *std::max_element(ms.begin(), ms.end());
    return t;
  }

  // Row-major C (m x n) = A (m x k) x B (k x n) with column-major cuBLAS:
  // C^T = B^T A^T, so B comes first.
  cudaError_t sgemm(const float* A, const float* B, float* C, int m, int k, int n) {
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t s = cublas_api().sgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A,
                                          k, &zero, C, n);
    return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
  }

  // `kernel`: the lesson's timed kernel (LessonCudaOps::timed_kernel).
  KernelAttributes attributes(const void* kernel, const LaunchGeometry& g) {
    KernelAttributes a;
    cudaFuncAttributes fa{};
    if (!kernel || cudaFuncGetAttributes(&fa, kernel) != cudaSuccess) {
      cudaGetLastError();
      return a;
    }
    a.known = true;
    a.registers = fa.numRegs;
    a.static_shared_bytes = int(fa.sharedSizeBytes);
    a.dynamic_shared_bytes = int(g.dynamic_shared_bytes);
    a.local_bytes = int(fa.localSizeBytes);
    a.threads_per_block = int(g.block.count());
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, a.threads_per_block,
                                                      g.dynamic_shared_bytes) == cudaSuccess) {
      a.max_blocks_per_sm = blocks;
      if (max_threads_per_sm_ > 0)
        a.occupancy = double(blocks) * a.threads_per_block / double(max_threads_per_sm_);
    } else {
      cudaGetLastError();
    }
    return a;
  }

  cudaError_t copy(void* dst, const void* src, size_t bytes) {
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
  }

 private:
  PerfConfig cfg_;
  SweepControl* ctl_;
  DeviceLimits limits_;
  int max_threads_per_sm_ = 0;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  DevBuf flush_;
  std::string dead_;
};

std::string now_iso() {
  char buf[32];
  std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

struct Sweep {
  const PerfConfig& cfg;
  SweepControl* ctl;
  PerfReport& rep;
  Harness& h;
  bool stop = false;  // cancelled, or the context died

  void emit(PerfResult x) {
    rep.results.push_back(x);
    if (ctl) {
      ctl->done++;
      if (ctl->on_result) ctl->on_result(rep.results.back());
    }
  }
  void skip_point(const LessonInfo& v, int size, int tile, const std::string& why) {
    PerfResult x;
    x.kernel = v.id;
    x.metric = v.metric;
    x.tile = tile;
    x.size = size;
    x.params = point_params(v, cfg, size, tile);
    x.status = PerfStatus::Skipped;
    x.message = why;
    x.flops = flop_count(v, x.params);
    x.compulsory_bytes = compulsory_bytes(v, x.params);
    emit(x);
  }
  bool check_cancel() {
    if (ctl && ctl->cancel.load()) {
      rep.cancelled = true;
      stop = true;
    }
    return stop;
  }
  void died(const std::string& what) {
    stop = true;
    rep.error = "CUDA error during " + what + ": " + h.dead_reason() +
                ". The GPU context is unusable, so the sweep stopped; the results so far are kept.";
  }

  // Times one catalogue lesson at one point and checks its output, through
  // the lesson's own translation unit (engine/cuda/lesson_plugin.cuh); false
  // when this build has no untraced kernel for its parameters.
  bool run_lesson(const LessonInfo& v, const Params& p, int size, int tile, KernelArgs args,
                  float* out_dev, size_t out_count, const BufferData& want,
                  const std::string& checked_against) {
    const LessonCudaOps* found = lesson_cuda_ops(*lesson_index(v.id));
    if (!found || !found->timed_kernel(p)) return false;
    const LessonCudaOps& ops = *found;
    PerfResult x;
    x.kernel = v.id;
    x.metric = v.metric;
    x.tile = tile;
    x.size = size;
    x.params = p;
    x.flops = flop_count(v, p);
    x.compulsory_bytes = compulsory_bytes(v, p);
    x.checked_against = checked_against;
    const LaunchGeometry g = geometry(v, p);
    // The shared-memory opt-in first: the occupancy query depends on it.
    cudaError_t e = cudaError_t(ops.prepare_timed(p, g, args));
    x.attrs = h.attributes(ops.timed_kernel(p), g);
    const std::string label = std::string(v.id) + (tile ? " T" + std::to_string(tile) : "") +
                              " n=" + std::to_string(size);
    if (ctl) ctl->set_current(label);

    const ArrayTable table = arrays(v, p);
    const ArrayInfo* out_info = array_at(table, want.slot);
    const ElemType out_type = out_info ? out_info->type : ElemType::F32;
    if (e == cudaSuccess) {
      // NaN everywhere first, so that a cell the kernel never writes is wrong.
      // Outputs the kernel adds to with atomics (a histogram's bins, a
      // single-pass reduction's sum) start at zero, as before any real launch.
      const bool adds_into = out_type != ElemType::F32 || expected_counts(v, p).global_atomics > 0;
      cudaMemset(out_dev, adds_into ? 0 : 0xFF, out_count * sizeof(float));
      e = cudaError_t(ops.launch_timed(p, g, args));
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
    }
    if (e != cudaSuccess) {
      x.status = PerfStatus::Error;
      x.message = "launch failed: " + cuda_msg(e);
      cudaGetLastError();
      emit(x);
      if (!h.context_alive()) died(label);
      return true;
    }
    BufferData got;
    got.slot = want.slot;
    got.rows = want.rows;
    got.cols = want.cols;
    got.is_output = true;
    got.values.resize(out_count);
    cudaMemcpy(got.values.data(), out_dev, out_count * sizeof(float), cudaMemcpyDeviceToHost);
    element_bits_to_values(out_type, got.values.data(), got.values.size());
    const Verdict verdict = check_output(v, p, got, want);
    x.max_abs_error = verdict.max_abs_error;
    const bool correct = verdict.checked && verdict.correct;

    Timing t = h.time(label, [&] { return cudaError_t(ops.launch_timed(p, g, args)); });
    if (t.cancelled) {
      check_cancel();
      return true;  // an unfinished point is not reported
    }
    if (!t.ok) {
      x.status = PerfStatus::Error;
      x.message = "timed launch failed: " + t.error;
      emit(x);
      if (!h.context_alive()) died(label);
      return true;
    }
    x.reps = t.reps;
    x.ms_median = t.median;
    x.ms_min = t.min;
    x.ms_max = t.max;
    if (correct) {
      x.status = PerfStatus::Ok;
      x.message = verdict.summary();
    } else {
      x.status = PerfStatus::Wrong;
      x.message = "output wrong, time not counted: " + verdict.summary();
    }
    emit(x);
    return true;
  }

  void copy_reference() {
    if (ctl) ctl->set_current("copy");
    std::optional<PerfResult> x = copy_point(h.free_bytes(), timer());
    if (!x) {
      check_cancel();
      return;
    }
    if (x->counted()) {
      rep.device.copy_gbps = x->compulsory_bytes / (x->ms_median * 1e-3) / 1e9;
      rep.device.copy_bytes = uint64_t(x->compulsory_bytes / 2);
    }
    emit(*x);
  }

  // The library anchors at `size` elements (engine/cuda/library_anchors.cu).
  void library_points(const std::vector<const LibraryAnchor*>& anchors, int size) {
    for (const LibraryAnchor* a : anchors) {
      if (check_cancel()) return;
      if (ctl) ctl->set_current(std::string(a->id) + " n=" + std::to_string(size));
      const AnchorContext c{h.cublas(), h.budget_bytes(), cfg.input_seed, timer(),
                            family_radius(a->family, size)};
      std::optional<PerfResult> x = library_anchor_point(*a, size, c);
      if (!x) {
        check_cancel();
        return;
      }
      emit(*x);
      if (x->status == PerfStatus::Error && !h.context_alive()) return died(a->id);
    }
  }
  // The radius the family's first lesson is timed at (the sweep's --radius,
  // or the lesson's own): the conv2d library line convolves with it.
  int family_radius(const std::string& family, int size) const {
    for (const LessonInfo& v : all_lessons())
      if (family == v.family && (v.uses & kUsesRadius)) return point_params(v, cfg, size, 0).radius;
    return cfg.stencil_radius;
  }
  TimeLaunch timer() {
    return [this](const std::string& label, const std::function<cudaError_t()>& launch) {
      return h.time(label, launch);
    };
  }

  // cuBLAS at n (A and B on the device, R its output): the reference time, and
  // the reference output above the CPU reference's sizes (`want`, `against`).
  // False when the sweep was cancelled.
  bool cublas_point(int n, const DevBuf& A, const DevBuf& B, const DevBuf& R, const LessonInfo& gen,
                    const Params& gp, bool cpu_ref, BufferData& want, std::string& against) {
    const size_t elems = size_t(n) * n;
    if (ctl) ctl->set_current(std::string(kCublasId) + " n=" + std::to_string(n));
    PerfResult x;
    x.kernel = kCublasId;
    x.metric = PerfMetric::Flops;
    x.size = n;
    x.params.m = x.params.k = x.params.n = n;
    x.flops = flop_count(PerfMetric::Flops, x.params);
    x.compulsory_bytes = compulsory_bytes(PerfMetric::Flops, x.params);
    cudaMemset(R.ptr, 0xFF, elems * 4);
    cudaError_t e = h.sgemm(A.f(), B.f(), R.f(), n, n, n);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    BufferData got;
    got.slot = want.slot;
    got.rows = got.cols = n;
    got.is_output = true;
    got.values.resize(elems);
    if (e == cudaSuccess)
      e = cudaMemcpy(got.values.data(), R.ptr, elems * 4, cudaMemcpyDeviceToHost);
    bool correct = e == cudaSuccess;
    if (cpu_ref && correct) {
      const Verdict ver = check_output(gen, gp, got, want);
      correct = ver.checked && ver.correct;
      x.max_abs_error = ver.max_abs_error;
      x.checked_against = against;
      x.message = ver.summary();
    } else if (correct) {
      want = got;  // cuBLAS is the reference for the kernels at this n
      against = "cuBLAS on the GPU (exact: integer inputs)";
      x.checked_against = "itself (the reference at this size)";
    }
    if (cfg.with_cublas && e == cudaSuccess) {
      Timing t = h.time(std::string(kCublasId) + " n=" + std::to_string(n),
                        [&] { return h.sgemm(A.f(), B.f(), R.f(), n, n, n); });
      if (t.cancelled) {
        check_cancel();
        return false;
      }
      x.reps = t.reps;
      x.ms_median = t.median;
      x.ms_min = t.min;
      x.ms_max = t.max;
      x.status = !t.ok ? PerfStatus::Error : correct ? PerfStatus::Ok : PerfStatus::Wrong;
      if (!t.ok) x.message = "cuBLAS failed: " + t.error;
      emit(x);
    } else if (e != cudaSuccess && cfg.with_cublas) {
      x.status = PerfStatus::Error;
      x.message = "cuBLAS failed: " + cuda_msg(e);
      emit(x);
    }
    return true;
  }

  void matmul_size(const std::vector<const LessonInfo*>& vs, int n) {
    if (check_cancel()) return;
    const size_t elems = size_t(n) * n;
    // A padding of 32 rows and columns: the exact-multiples kernel reads and
    // writes past the end when n is not a multiple; it must hit our memory.
    const size_t padded = size_t(n + 32) * size_t(n + 32);
    const double need = 4.0 * double(padded) * 4;  // A, B, C, reference C
    const double budget = h.budget_bytes();
    auto skip_all = [&](const std::string& why) {
      if (cfg.with_cublas) {
        PerfResult x;
        x.kernel = kCublasId;
        x.size = n;
        x.params.m = x.params.k = x.params.n = n;
        x.status = PerfStatus::Skipped;
        x.message = why;
        emit(x);
      }
      for (const LessonInfo* v : vs)
        for (int t : point_tiles(*v, cfg))
          skip_point(*v, n, t, why);
    };
    if (need > budget) {
      const std::string why = "n = " + std::to_string(n) + " does not fit in GPU memory: needs " +
                              human_bytes(need) + ", " + human_bytes(budget) +
                              " available to the sweep; skipped";
      rep.notes.push_back(why);
      skip_all(why);
      return;
    }
    DevBuf A, B, C, R;
    if (A.allocate(padded * 4) || B.allocate(padded * 4) || C.allocate(padded * 4) ||
        R.allocate(padded * 4)) {
      const std::string why = "n = " + std::to_string(n) + ": cudaMalloc of " + human_bytes(need) +
                              " failed (out of GPU memory); skipped";
      rep.notes.push_back(why);
      skip_all(why);
      return;
    }
    cudaMemset(A.ptr, 0, padded * 4);
    cudaMemset(B.ptr, 0, padded * 4);

    // Inputs from the catalogue's generator: small integers, exact in float sums.
    // Every multiply lesson fills A and B from the same streams: the first one's.
    const LessonInfo& gen = *vs.front();
    Params gp = point_params(gen, cfg, n, 16);
    if (ctl) ctl->set_current("inputs n=" + std::to_string(n));
    std::vector<BufferData> inputs = make_inputs(gen, gp, InputKind::SmallIntegers, cfg.input_seed);
    // A multiply's two inputs, in slot order.
    const BufferData* a_in = inputs.size() == 2 ? &inputs[0] : nullptr;
    const BufferData* b_in = inputs.size() == 2 ? &inputs[1] : nullptr;
    if (!a_in || !b_in || a_in->values.size() != elems || b_in->values.size() != elems) {
      rep.notes.push_back("n = " + std::to_string(n) + ": the input generator gave no A and B of " +
                          std::to_string(elems) + " elements; skipped");
      skip_all("no inputs");
      return;
    }
    cudaMemcpy(A.ptr, a_in->values.data(), elems * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(B.ptr, b_in->values.data(), elems * 4, cudaMemcpyHostToDevice);

    // The reference output: the CPU in double for small n, cuBLAS above.
    BufferData want;
    std::string against;
    const bool cpu_ref = n <= cfg.cpu_reference_max_n;
    if (cpu_ref) {
      if (ctl) ctl->set_current("CPU reference n=" + std::to_string(n));
      want = reference_output(gen, gp, inputs);
      against = "CPU double reference";
    }
    if (h.have_cublas())
      if (!cublas_point(n, A, B, R, gen, gp, cpu_ref, want, against)) return;
    if (want.values.empty()) {
      // No CPU reference and no cuBLAS: the kernels cannot be checked, so none counts.
      if (ctl) ctl->set_current("CPU reference n=" + std::to_string(n));
      want = reference_output(gen, gp, inputs);
      against = "CPU double reference";
    }
    inputs.clear();

    for (const LessonInfo* v : vs) {
      for (int tile : point_tiles(*v, cfg)) {
        if (check_cancel()) return;
        const Params p = point_params(*v, cfg, n, tile);
        if (auto err = validate(*v, p, h.limits())) {
          skip_point(*v, n, tile, *err);
          continue;
        }
        // A lesson that reaches past its arrays by design (allocation) is
        // timed only where it does not: sizes that are multiples of the tile.
        if (v->allocation && tile > 0 && n % tile != 0) {
          skip_point(
              *v, n, tile,
              "the exact-multiples kernel is timed only where n is a multiple of the tile (" +
                  std::to_string(n) + " % " + std::to_string(tile) + " != 0)");
          continue;
        }
        KernelArgs args = kernel_args(*v, p);
        args.data[1] = A.f();
        args.data[2] = B.f();
        args.data[3] = C.f();
        if (!run_lesson(*v, p, n, tile, args, C.f(), elems, want, against))
          skip_point(*v, n, tile, "no untraced instantiation for this tile in this build");
        if (stop) return;
      }
    }
  }

  // A bandwidth lesson (stencils, transposes, reductions, ...) at `size`
  // elements: its own arrays (engine/prepare.hpp), inputs and CPU reference.
  void bandwidth_point(const std::vector<const LessonInfo*>& vs, int size) {
    // The CPU reference is computed once for the lessons that share one
    // reference function at the same parameters (the transposes, the
    // stencils); lessons of a family that compute something else at the
    // same parameters (a reduction that adds two elements per thread has half
    // the outputs) have their own function and get their own reference.
    std::vector<float> (*want_of)(const Params&, const LessonInputs&) = nullptr;
    Params want_params;
    BufferData want;
    for (const LessonInfo* v : vs) {
      if (check_cancel()) return;
      const Params p = point_params(*v, cfg, size, 0);
      RunRequest req;
      req.lesson_id = v->id;
      req.params = p;
      req.traced = false;
      req.input_seed = cfg.input_seed;
      PreparedRun run;
      const RunTarget gpu{BackendKind::Cuda, h.limits(), h.limits().global_memory_bytes};
      if (auto err = prepare_run(req, gpu, run)) {
        skip_point(*v, size, 0, *err);
        continue;
      }
      double need = 0;
      for (uint64_t n : run.allocation)
        need += 4.0 * double(n);
      if (need > h.budget_bytes()) {
        skip_point(*v, size, 0,
                   "does not fit in GPU memory: needs " + human_bytes(need) + ", " +
                       human_bytes(h.budget_bytes()) + " available to the sweep");
        continue;
      }
      if (cfg.bandwidth_input != LibraryInput::SmallIntegers)  // --input: a histogram's kind
        for (BufferData& b : run.globals)
          if (!b.is_output) b.values = library_input(cfg.bandwidth_input, b.values.size(), b.slot);
      std::vector<DeviceBuffer> dev(run.globals.size());
      float* out_dev = nullptr;
      size_t out_count = 0;
      bool ok = true;
      for (size_t i = 0; i < run.globals.size() && ok; ++i) {
        const BufferData& b = run.globals[i];
        // A byte array's inputs packed as the kernel reads them (engine/prepare.hpp).
        std::vector<float> bytes;
        if (!b.is_output && run.arrays[b.slot - 1].type == ElemType::U8) {
          bytes = b.values;
          values_to_element_bits(ElemType::U8, bytes.data(), bytes.size());
        }
        const std::vector<float>& in = bytes.empty() ? b.values : bytes;
        ok = dev[i].allocate(run.allocation[i] * 4) == cudaSuccess &&
             cudaMemset(dev[i].ptr, 0, dev[i].bytes) == cudaSuccess &&
             (b.is_output || cudaMemcpy(dev[i].ptr, in.data(), in.size() * 4,
                                        cudaMemcpyHostToDevice) == cudaSuccess);
        run.args.data[b.slot] = dev[i].ptr;
        if (b.is_output && !out_dev) out_dev = dev[i].f(), out_count = b.values.size();
      }
      if (!ok || !out_dev) {
        skip_point(*v, size, 0, "cudaMalloc failed (out of GPU memory)");
        continue;
      }
      if (want_of != v->reference || !(want_params == p)) {
        if (ctl)
          ctl->set_current("CPU reference " + std::string(v->family) + " " + describe(*v, p));
        std::vector<BufferData> inputs;
        for (const BufferData& b : run.globals)
          if (!b.is_output) inputs.push_back(b);
        want = reference_output(*v, p, inputs);
        want_of = v->reference;
        want_params = p;
      }
      if (!run_lesson(*v, p, size, 0, run.args, out_dev, out_count, want, "CPU double reference"))
        skip_point(*v, size, 0, "no untraced instantiation in this build");
      if (stop) return;
    }
  }
};

}  // namespace perf_detail

PerfReport run_perf_sweep(const PerfConfig& config, SweepControl* control) {
  using namespace perf_detail;
  PerfReport rep;
  rep.config = resolved(config);
  rep.created = now_iso();
  rep.host = host_name();
  const PerfConfig& cfg = rep.config;
  if (auto err = validate_perf_config(cfg)) {
    rep.error = *err;
    rep.device.reason = "not run: " + *err;
    return rep;
  }
  Harness h(cfg, control);
  if (!h.open(rep.device)) {
    rep.error = "no CUDA device: " + rep.device.reason +
                ". Timings need an NVIDIA GPU; access counts come from the simulator.";
    return rep;
  }

  std::vector<const LessonInfo*> mm, st;
  for (const LessonInfo* v : selected_lessons(cfg))
    (v->metric == PerfMetric::Flops ? mm : st).push_back(v);
  bool want_cublas = cfg.with_cublas, want_copy = cfg.with_copy;
  for (const auto& k : cfg.kernels) {
    want_cublas = want_cublas || k == kCublasId;
    want_copy = want_copy || k == kCopyId;
  }
  if (mm.empty()) want_cublas = false;

  const std::vector<const LibraryAnchor*> anchors = selected_anchors(cfg);
  int total = want_copy ? 1 : 0;
  total += int(anchors.size() * cfg.stencil_lengths.size());
  for (const LessonInfo* v : mm)
    total += int(point_tiles(*v, cfg).size() * cfg.matmul_sizes.size());
  if (want_cublas) total += int(cfg.matmul_sizes.size());
  total += int(st.size() * cfg.stencil_lengths.size());
  if (control) {
    control->total = total;
    control->done = 0;
  }

  rep.notes.push_back(
      "method: CUDA events around each launch; " + std::to_string(cfg.warmup) + " warm-up, up to " +
      std::to_string(cfg.reps) + " timed launches, median with min and max; " +
      (cfg.flush_l2 ? "L2 flushed (a buffer of twice its size written) before every timed launch; "
                    : "L2 not flushed; ") +
      "every output checked before its time counts (CPU double reference up to n = " +
      std::to_string(cfg.cpu_reference_max_n) + ", cuBLAS above)");

  PerfConfig run_cfg = cfg;
  run_cfg.with_cublas = want_cublas;
  Sweep s{run_cfg, control, rep, h};
  if (want_copy) s.copy_reference();
  if (!mm.empty())
    for (int n : cfg.matmul_sizes) {
      if (s.stop) break;
      s.matmul_size(mm, n);
    }
  for (const LibraryAnchor* a : anchors)
    rep.notes.push_back(std::string("library line ") + a->id + " (" + a->family + "): " + a->title +
                        ", " + a->note);
  if (!st.empty() || !anchors.empty())
    for (int len : cfg.stencil_lengths) {
      if (s.stop) break;
      if (!st.empty()) s.bandwidth_point(st, len);
      if (!s.stop) s.library_points(anchors, len);
    }
  s.check_cancel();
  if (control) control->set_current(rep.cancelled ? "cancelled" : "done");
  derive_metrics(rep);
  return rep;
}

}  // namespace ts
