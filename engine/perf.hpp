// The performance sweep: honest timings of the untraced catalogue kernels
// against cuBLAS, a device-to-device copy and the FP32 peak, plus access
// counts from a trace (any backend, so also without a GPU).
//
// Three layers, as everywhere in TileScope:
//   run_perf_sweep()   engine/cuda/perf_cuda.cu (GPU) or engine/cuda/perf_stub.cpp (no CUDA)
//   PerfReport         plain data and derived metrics (engine/perf.cpp); save/load,
//                      CSV/JSON, compare, plot data (io/perf_report.hpp); access
//                      counts from a trace (analysis/perf_counts.hpp)
//   views              app/perf/view_performance.cpp and `tilescope-cli bench`
// No CUDA type appears here: the app and the CLI include it without nvcc.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/catalogue.hpp"
#include "model/trace.hpp"

namespace ts {

// What a library anchor (below) or a bandwidth lesson is timed on.
enum class LibraryInput : uint8_t {
  SmallIntegers,  // integers in [-4, 4], as the lessons' inputs (exact in float sums)
  UniformBins,    // a histogram's input with every bin as likely
  OneHotBin,      // a histogram's input with every element in one bin (skewed)
};
// Its name in reports and on the command line ("small-integers", "uniform", "one-hot"),
// and back (false for an unknown name).
const char* to_string(LibraryInput in);
bool parse_library_input(const std::string& name, LibraryInput& in);

// What to measure. Empty lists mean "the defaults" (see default_perf_config()).
struct PerfConfig {
  // Lesson ids, family names ("matmul", "stencil") or "all".
  std::vector<std::string> kernels;
  std::vector<int> matmul_sizes;     // n of an n x n x n multiply
  std::vector<int> stencil_lengths;  // elements of the stencil's array
  std::vector<int> tiles;            // tile widths (matmul); the naive grid's block side
  // Fixed for every lesson that reads them; 0: each lesson's own default
  // (a stencil's radius 3 and block of 64, a reduction's block of 128, ...).
  int stencil_radius = 0;
  int stencil_block = 0;
  int warmup = 2;  // untimed launches before the timed ones
  int reps = 10;   // timed launches; the median counts
  // Per kernel and size: fewer reps when the warm-up says the full count
  // would take longer than this (never fewer than 3).
  double max_seconds_per_point = 2.0;
  bool flush_l2 = true;  // write a buffer twice the L2 size before every timed launch
  bool with_cublas = true;
  bool with_copy = true;
  // The library anchors of every family with a selected bandwidth lesson (kLibraryAnchors).
  bool with_library = true;
  // The bandwidth lessons' inputs: their own (integers in [-4, 4]), or a
  // histogram's uniform or one-hot-bin input (library_input), so that a
  // histogram lesson is timed on what its library line is.
  LibraryInput bandwidth_input = LibraryInput::SmallIntegers;
  // Above this n the matmul outputs are checked against cuBLAS on the GPU
  // instead of the CPU double reference (n^3 on one core gets slow).
  int cpu_reference_max_n = 512;
  uint64_t input_seed = 1;
  // GPU memory the sweep may use for one size's buffers; 0: 90 % of what is free.
  uint64_t max_gpu_bytes = 0;
};
PerfConfig default_perf_config();
// Fills empty lists with the defaults: matmul 128..4096 (powers of two),
// stencil 2^16..2^26 (every second power), tiles 8, 16, 32.
PerfConfig resolved(const PerfConfig& c);
// Empty when the config can run; otherwise what is wrong and what is allowed.
std::optional<std::string> validate_perf_config(const PerfConfig& c);
// The catalogue lessons a config selects (unknown names are reported by validate_perf_config).
std::vector<const LessonInfo*> selected_lessons(const PerfConfig& c);
// One point of the sweep: the lesson's timed parameters (its defaults, or the
// `timed` value a declaration gives: a 1D lesson's block of 256) with its
// sizes scaled to `size` (and the sweep's tile). A multiply (Flops) runs
// n x n x n; a bandwidth lesson (Bytes) moves `size` elements: a 1D lesson as
// its length, a 2D one as a square of side sqrt(size). Its other parameters
// (a stencil's radius, a reduction's block) stay the lesson's, unless the
// config fixes them.
Params point_params(const LessonInfo& v, const PerfConfig& c, int size, int tile);
// Tiles a lesson is swept over: the config's for tile (or block side)
// lessons, one pass for the others. A lesson with its own tile choices (a
// ladder step's block tiles) runs its tuned one and those the config names.
std::vector<int> point_tiles(const LessonInfo& v, const PerfConfig& c);

// The GPU the sweep ran on and the ceilings measured in the same run.
struct PerfDevice {
  bool usable = false;
  std::string reason;  // when not usable: "no CUDA device", "built without CUDA", ...
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int clock_khz = 0;  // peak SM clock
  int fp32_cores_per_sm = 0;
  double fp32_peak_gflops = 0;  // sm_count * cores/SM * 2 (FMA) * clock
  int l2_bytes = 0;
  uint64_t global_memory_bytes = 0;
  int max_threads_per_sm = 0;
  double copy_gbps = 0;     // measured: device-to-device copy, (bytes read + written) / time
  uint64_t copy_bytes = 0;  // size of the copy that measured it
  std::string cublas_math;  // "CUBLAS_DEFAULT_MATH (FP32, no TF32)"
  std::string driver, runtime;
};

// Per kernel instantiation (lesson x tile), from cudaFuncGetAttributes and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor.
struct KernelAttributes {
  bool known = false;
  int registers = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  int local_bytes = 0;  // spills and local arrays per thread
  int threads_per_block = 0;
  int max_blocks_per_sm = 0;
  double occupancy = 0;  // resident threads per SM / max threads per SM, 0..1
};

enum class PerfStatus : uint8_t {
  Ok,       // correct output; the time counts
  Wrong,    // ran, but the output failed its check: the time is shown struck out, never counted
  Skipped,  // not run: parameters invalid for this lesson, or does not fit in GPU memory
  Error,    // a CUDA error during the run
};
const char* to_string(PerfStatus s);

// The references measured in the same run have these kernel names.
inline constexpr const char* kCublasId = "cublas.sgemm";
inline constexpr const char* kCopyId = "copy.d2d";

// A library routine timed beside a family's lessons, in the same run, at the
// same sizes: the family's "library" line (what the last step is measured
// against, next to the copy). Engine code: engine/cuda/library_anchors.cu.
struct LibraryAnchor {
  const char* id;      // the PerfResult's kernel: "cublas.sgeam"
  const char* family;  // the family whose lessons compute the same thing
  const char* title;   // for tables: "cuBLAS cublasSgeam"
  LibraryInput input;
  const char* note;  // what it computes, where that differs from the lessons
};
inline constexpr LibraryAnchor kLibraryAnchors[] = {
    {"cublas.sgeam", "transpose", "cuBLAS cublasSgeam", LibraryInput::SmallIntegers,
     "C = A^T, square"},
    {"cub.reduce_sum", "reduction", "CUB DeviceReduce::Sum", LibraryInput::SmallIntegers,
     "the whole sum (the lessons: one partial sum per block)"},
    {"cub.histogram_even", "histogram", "CUB DeviceHistogram::HistogramEven",
     LibraryInput::UniformBins, "uniform input: every bin as likely"},
    {"cub.histogram_even.skewed", "histogram", "CUB DeviceHistogram::HistogramEven",
     LibraryInput::OneHotBin, "skewed input: every element in one bin"},
    {"cub.inclusive_sum", "scan", "CUB DeviceScan::InclusiveSum", LibraryInput::SmallIntegers,
     "the whole array's inclusive scan, as scan.decoupled_lookback computes it (the earlier "
     "steps scan each block's segment)"},
    {"cudnn.conv2d", "conv2d", "cuDNN cudnnConvolutionForward", LibraryInput::SmallIntegers,
     "one image, one channel, FP32 (CUDNN_FMA_MATH), the fastest algorithm cudnnFind measures; "
     "cuDNN is opened at run time (libcudnn.so.9 or .8), the line is skipped without it"},
};
const LibraryAnchor* find_library_anchor(const std::string& id);
// The anchors of a family, in table order (none for most families: their line is the copy).
std::vector<const LibraryAnchor*> library_anchors_of(const std::string& family);
// The anchors a sweep runs: those of every family with a selected bandwidth
// lesson (when with_library), and those its kernels name.
std::vector<const LibraryAnchor*> selected_anchors(const PerfConfig& c);
// The histogram anchors' bins: the histogram lessons' 64 over [-4, 4).
inline constexpr int kAnchorBins = 64;
inline constexpr float kAnchorLow = -4.0f, kAnchorHigh = 4.0f;
// An anchor's input of n elements, deterministic in the seed. OneHotBin puts
// every element in bin kAnchorBins * 5 / 8 (40); UniformBins draws each
// element's bin at random and puts it at the bin's centre.
std::vector<float> library_input(LibraryInput kind, size_t n, uint64_t seed);
// What HistogramEven counts: `bins` equal bins over [lower, upper); values
// outside are not counted. The CPU check of the histogram anchors.
std::vector<uint32_t> histogram_even_counts(const std::vector<float>& x, int bins, float lower,
                                            float upper);

// One kernel at one size.
struct PerfResult {
  std::string kernel;                     // lesson id, kCublasId, kCopyId or a LibraryAnchor's id
  PerfMetric metric = PerfMetric::Flops;  // GFLOP/s (multiplies) or GB/s
  int tile = 0;                           // 0 when the kernel has no tile (or block side) parameter
  int size = 0;                           // n (matmul) or length (stencil, copy: elements)
  Params params;
  PerfStatus status = PerfStatus::Ok;
  std::string message;          // why skipped / failed / the verdict summary
  std::string checked_against;  // "CPU double reference" or "cuBLAS on the GPU"
  double max_abs_error = 0;
  int reps = 0;
  double ms_median = 0, ms_min = 0, ms_max = 0;
  // Work, in the units the metrics use.
  double flops = 0;  // 2 m n k for a multiply; (2R+1) adds + 1 multiply per stencil element
  double compulsory_bytes = 0;  // every input read once, every output written once
  // Derived (derive_metrics); 0 when not applicable or not counted.
  double gflops = 0, gbps = 0;
  double intensity = 0;  // flops / compulsory byte
  // flops / byte the kernel itself loads and stores in global memory (the
  // catalogue's closed form, which a trace's count equals; no cache assumed).
  // 0 when unknown (cuBLAS, the copy).
  double issued_intensity = 0;
  double pct_cublas = 0;  // of cuBLAS at the same size
  double pct_copy = 0;    // of the measured copy bandwidth
  double pct_peak = 0;    // of the FP32 peak
  KernelAttributes attrs;

  bool counted() const { return status == PerfStatus::Ok && ms_median > 0; }
  std::string label() const;  // "matmul.tiled_square T16"
};

struct PerfReport {
  std::string created;  // ISO 8601, local time
  std::string host;
  PerfDevice device;
  PerfConfig config;
  std::vector<PerfResult> results;
  bool cancelled = false;
  std::string error;               // the sweep could not run at all (no GPU, ...)
  std::vector<std::string> notes;  // "n = 65536 skipped: needs ...", method notes
};

// Flops and compulsory bytes of a lesson at a parameter set (m, k and n all
// set: what the sweep records).
double flop_count(PerfMetric f, const Params& p);
double compulsory_bytes(PerfMetric f, const Params& p);
// The same for a catalogue lesson at its own parameters: the square kernels
// read only n (a lesson's Params leave m and k at 0).
double flop_count(const LessonInfo& v, const Params& p);
double compulsory_bytes(const LessonInfo& v, const Params& p);
// Bytes the kernel loads from and stores to global memory, 4 per access, from
// the catalogue's closed form (equal to a traced run's count; no cache is
// assumed). 0 when the parameters cannot be counted (a tile or size of 0).
double issued_bytes(const LessonInfo& v, const Params& p);
// flops / issued bytes of a result (the roofline's second intensity); 0 when unknown.
double issued_intensity_of(const PerfResult& x);
// FP32 cores per SM for a compute capability (128 for sm_86 and newer, 64 for sm_80 and
// sm_7x, 128 for sm_6x except sm_60).
int fp32_cores_per_sm(int cc_major, int cc_minor);
double fp32_peak_gflops(int sm_count, int cores_per_sm, int clock_khz);
// Fills gflops, gbps, intensity and the percentages of every counted result
// (cuBLAS at the same n is the reference for % of cuBLAS).
void derive_metrics(PerfReport& r);

// Progress and cancellation, shared between the sweep and whoever watches it.
struct SweepControl {
  std::atomic<bool> cancel{false};
  std::atomic<int> done{0}, total{0};
  // Called from the sweep's thread after each result (may be empty).
  std::function<void(const PerfResult&)> on_result;
  // What runs now ("matmul.tiled_square T16 n=2048"), under the mutex.
  void set_current(std::string s) {
    std::lock_guard lock(mu);
    current = std::move(s);
  }
  std::string current_label() {
    std::lock_guard lock(mu);
    return current;
  }

 private:
  std::mutex mu;
  std::string current;
};

// Runs the whole sweep in the calling thread and returns the report (derived
// metrics filled). Never throws; without a GPU the report's device says why
// and `error` is set. A cancelled sweep keeps the results measured so far.
PerfReport run_perf_sweep(const PerfConfig& config, SweepControl* control = nullptr);

// The sweep in a background thread, for the app: start, watch, cancel, take.
class BackgroundSweep {
 public:
  BackgroundSweep() = default;
  ~BackgroundSweep();  // cancels and joins
  BackgroundSweep(const BackgroundSweep&) = delete;
  BackgroundSweep& operator=(const BackgroundSweep&) = delete;

  // False (and nothing started) when one is already running.
  bool start(const PerfConfig& config);
  void cancel();
  bool running() const { return running_.load(); }
  // 0..1, and what runs now.
  float progress() const;
  std::string current() const;
  // The results measured so far (also while running).
  std::vector<PerfResult> partial() const;
  // The finished report, once (empty while running or when already taken).
  std::optional<PerfReport> take();

 private:
  std::unique_ptr<SweepControl> control_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  mutable std::mutex mu_;
  std::vector<PerfResult> partial_;
  std::optional<PerfReport> report_;
};

}  // namespace ts
