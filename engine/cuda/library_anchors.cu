// The library anchors on the GPU (engine/cuda/library_anchors.hpp): cuBLAS
// cublasSgeam for the transposes, CUB (the toolkit's CCCL, header-only)
// DeviceReduce::Sum for the reductions and DeviceHistogram::HistogramEven for
// the histograms, on a uniform and on a skewed input.
#include "engine/cuda/library_anchors.hpp"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdio>

#include "engine/cuda/cublas_loader.hpp"
#include "engine/cuda/launch.cuh"

namespace ts::perf_detail {

namespace {

std::string cuda_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

std::string mib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", bytes / 1048576.0);
  return b;
}

// A point under way: its result, and what ends it early.
struct AnchorRun {
  PerfResult x;
  LibraryInput input = LibraryInput::SmallIntegers;
  PerfResult skip(const std::string& why) {
    x.status = PerfStatus::Skipped;
    x.message = why;
    return x;
  }
  PerfResult error(const std::string& what, cudaError_t e) {
    cudaGetLastError();
    x.status = PerfStatus::Error;
    x.message = what + " failed: " + cuda_text(e);
    return x;
  }
};

// Uploads `in` to `dev` (allocated first).
cudaError_t upload(DeviceBuffer& dev, const std::vector<float>& in) {
  if (const cudaError_t e = dev.allocate(in.size() * 4); e != cudaSuccess) return e;
  return cudaMemcpy(dev.ptr, in.data(), in.size() * 4, cudaMemcpyHostToDevice);
}

// One checked launch, then the timing: the result, or nullopt when cancelled.
std::optional<PerfResult> check_and_time(AnchorRun& r, const AnchorContext& c,
                                         const std::function<cudaError_t()>& launch,
                                         const std::function<bool(std::string*)>& correct) {
  cudaError_t e = launch();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return r.error("the checked launch", e);
  std::string why;
  const bool ok = correct(&why);
  const std::string label = r.x.kernel + " n=" + std::to_string(r.x.size);
  const Timing t = c.time(label, launch);
  if (t.cancelled) return std::nullopt;
  if (!t.ok) {
    r.x.status = PerfStatus::Error;
    r.x.message = "timed launch failed: " + t.error;
    return r.x;
  }
  r.x.reps = t.reps;
  r.x.ms_median = t.median;
  r.x.ms_min = t.min;
  r.x.ms_max = t.max;
  r.x.status = ok ? PerfStatus::Ok : PerfStatus::Wrong;
  r.x.message = ok ? "correct (exact)" : "output wrong, time not counted: " + why;
  return r.x;
}

// out (side x side) = in^T, row-major, with cublasSgeam: `in` read
// column-major is in^T, so C = op(A) with op = T is `in` itself, written
// column-major: read back row-major, that is in^T.
std::optional<PerfResult> sgeam_point(AnchorRun& r, const AnchorContext& c) {
  const int side = int(std::floor(std::sqrt(double(r.x.size))));
  const size_t n = size_t(side) * size_t(side);
  r.x.params.m = r.x.params.n = side;
  r.x.compulsory_bytes = 8.0 * double(n);
  if (!c.cublas) return r.skip("cuBLAS could not be loaded: " + cublas_api().error);
  if (8.0 * double(n) > c.budget_bytes) return r.skip("does not fit: needs " + mib(8.0 * n));
  const std::vector<float> in = library_input(r.input, n, c.seed);
  DeviceBuffer din, dout;
  if (cudaError_t e = upload(din, in); e != cudaSuccess) return r.error("allocation", e);
  if (cudaError_t e = dout.allocate(n * 4); e != cudaSuccess) return r.error("allocation", e);
  cudaMemset(dout.ptr, 0xFF, n * 4);
  const float one = 1.0f, zero = 0.0f;
  auto launch = [&] {
    // B is C (beta = 0, not read), as cuBLAS allows with ldb == ldc.
    const cublasStatus_t s =
        cublas_api().sgeam(c.cublas, CUBLAS_OP_T, CUBLAS_OP_N, side, side, &one, din.f(), side,
                           &zero, dout.f(), side, dout.f(), side);
    return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
  };
  auto correct = [&](std::string* why) {
    std::vector<float> got(n);
    cudaMemcpy(got.data(), dout.ptr, n * 4, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < size_t(side); ++i)
      for (size_t j = 0; j < size_t(side); ++j)
        if (got[j * side + i] != in[i * side + j]) {
          *why = "out[" + std::to_string(j) + "][" + std::to_string(i) + "] != in[" +
                 std::to_string(i) + "][" + std::to_string(j) + "]";
          return false;
        }
    return true;
  };
  return check_and_time(r, c, launch, correct);
}

// The sum of all `size` elements (one float) with CUB.
std::optional<PerfResult> reduce_point(AnchorRun& r, const AnchorContext& c) {
  const int len = r.x.size;
  r.x.params.length = len;
  r.x.flops = double(len);
  r.x.compulsory_bytes = 4.0 * double(len) + 4.0;
  if (4.0 * double(len) > c.budget_bytes) return r.skip("does not fit: needs " + mib(4.0 * len));
  const std::vector<float> in = library_input(r.input, size_t(len), c.seed);
  DeviceBuffer din, dout, temp;
  size_t temp_bytes = 0;
  if (cudaError_t e = upload(din, in); e != cudaSuccess) return r.error("allocation", e);
  if (cudaError_t e = dout.allocate(4); e != cudaSuccess) return r.error("allocation", e);
  cub::DeviceReduce::Sum(nullptr, temp_bytes, din.f(), dout.f(), len);
  if (cudaError_t e = temp.allocate(temp_bytes); e != cudaSuccess) return r.error("allocation", e);
  auto launch = [&] {
    return cub::DeviceReduce::Sum(temp.ptr, temp_bytes, din.f(), dout.f(), len);
  };
  auto correct = [&](std::string* why) {
    double want = 0;
    for (float v : in)
      want += v;
    float got = 0;
    cudaMemcpy(&got, dout.ptr, 4, cudaMemcpyDeviceToHost);
    if (double(got) == want) return true;  // integer inputs: every partial sum exact
    *why = "sum " + std::to_string(got) + ", want " + std::to_string(want);
    return false;
  };
  return check_and_time(r, c, launch, correct);
}

// The lessons' 64 bins over [-4, 4) with CUB, on the anchor's input.
std::optional<PerfResult> histogram_point(AnchorRun& r, const AnchorContext& c) {
  const int len = r.x.size;
  r.x.params.length = len;
  r.x.compulsory_bytes = 4.0 * double(len) + 4.0 * kAnchorBins;
  if (4.0 * double(len) > c.budget_bytes) return r.skip("does not fit: needs " + mib(4.0 * len));
  const std::vector<float> in = library_input(r.input, size_t(len), c.seed);
  DeviceBuffer din, dbins, temp;
  size_t temp_bytes = 0;
  if (cudaError_t e = upload(din, in); e != cudaSuccess) return r.error("allocation", e);
  if (cudaError_t e = dbins.allocate(kAnchorBins * 4); e != cudaSuccess)
    return r.error("allocation", e);
  unsigned* bins = static_cast<unsigned*>(dbins.ptr);
  cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, din.f(), bins, kAnchorBins + 1,
                                      kAnchorLow, kAnchorHigh, len);
  if (cudaError_t e = temp.allocate(temp_bytes); e != cudaSuccess) return r.error("allocation", e);
  auto launch = [&] {
    return cub::DeviceHistogram::HistogramEven(temp.ptr, temp_bytes, din.f(), bins, kAnchorBins + 1,
                                               kAnchorLow, kAnchorHigh, len);
  };
  auto correct = [&](std::string* why) {
    std::vector<uint32_t> got(kAnchorBins);
    cudaMemcpy(got.data(), bins, kAnchorBins * 4, cudaMemcpyDeviceToHost);
    const std::vector<uint32_t> want =
        histogram_even_counts(in, kAnchorBins, kAnchorLow, kAnchorHigh);
    for (int b = 0; b < kAnchorBins; ++b)
      if (got[size_t(b)] != want[size_t(b)]) {
        *why = "bin " + std::to_string(b) + ": " + std::to_string(got[size_t(b)]) + ", want " +
               std::to_string(want[size_t(b)]);
        return false;
      }
    return true;
  };
  return check_and_time(r, c, launch, correct);
}

}  // namespace

std::optional<PerfResult> copy_point(size_t free_bytes, const TimeLaunch& time) {
  // A copy large enough to leave the L2 far behind.
  size_t bytes = size_t(256) << 20;
  while (bytes > (size_t(8) << 20) && 2 * bytes + (size_t(64) << 20) > free_bytes)
    bytes /= 2;
  AnchorRun r;
  r.x.kernel = kCopyId;
  r.x.metric = PerfMetric::Bytes;
  r.x.size = int(bytes / sizeof(float));
  r.x.params.length = r.x.size;
  r.x.compulsory_bytes = 2.0 * double(bytes);  // read once, written once
  r.x.checked_against = "none (cudaMemcpy)";
  DeviceBuffer src, dst;
  if (src.allocate(bytes) != cudaSuccess || dst.allocate(bytes) != cudaSuccess)
    return r.skip("not enough free GPU memory for the copy reference (" + mib(2.0 * bytes) + ")");
  cudaMemset(src.ptr, 0, bytes);
  const Timing t = time("copy.d2d " + mib(double(bytes)), [&] {
    return cudaMemcpyAsync(dst.ptr, src.ptr, bytes, cudaMemcpyDeviceToDevice);
  });
  if (t.cancelled) return std::nullopt;
  if (!t.ok) {
    r.x.status = PerfStatus::Error;
    r.x.message = "copy failed: " + t.error;
    return r.x;
  }
  r.x.status = PerfStatus::Ok;
  r.x.reps = t.reps;
  r.x.ms_median = t.median;
  r.x.ms_min = t.min;
  r.x.ms_max = t.max;
  return r.x;
}

std::optional<PerfResult> library_anchor_point(const LibraryAnchor& a, int size,
                                               const AnchorContext& c) {
  AnchorRun r;
  r.x.kernel = a.id;
  r.x.metric = PerfMetric::Bytes;
  r.x.size = size;
  r.x.checked_against = "CPU (exact: integer or bin-centre inputs)";
  r.input = a.input;
  const std::string family = a.family;
  if (family == "transpose") return sgeam_point(r, c);
  if (family == "reduction") return reduce_point(r, c);
  if (family == "histogram") return histogram_point(r, c);
  return r.skip(std::string("no GPU code for the anchor ") + a.id);
}

}  // namespace ts::perf_detail
