// The library anchors on the GPU (engine/cuda/library_anchors.hpp): cuBLAS
// cublasSgeam for the transposes, CUB (the toolkit's CCCL, header-only)
// DeviceReduce::Sum for the reductions, DeviceScan::InclusiveSum for the
// scans and DeviceHistogram::HistogramEven for the histograms, on a uniform
// and on a skewed input; cuDNN's
// cudnnConvolutionForward for the 2D convolutions (opened at run time).
#include "engine/cuda/library_anchors.hpp"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cmath>
#include <cstdio>

#include "engine/cuda/cublas_loader.hpp"
#include "engine/cuda/cudnn_loader.hpp"
#include "engine/cuda/launch.cuh"
#include "lessons/conv2d_kit.hpp"

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

// out[i] = in[0] + .. + in[i] over all `size` elements with CUB: what the
// single-pass scan lesson computes (its temporary storage, the look-back's
// tile status, is allocated once, outside the timing, as the lesson's is).
std::optional<PerfResult> scan_point(AnchorRun& r, const AnchorContext& c) {
  const int len = r.x.size;
  r.x.params.length = len;
  r.x.flops = double(len);
  r.x.compulsory_bytes = 8.0 * double(len);
  if (8.0 * double(len) > c.budget_bytes) return r.skip("does not fit: needs " + mib(8.0 * len));
  const std::vector<float> in = library_input(r.input, size_t(len), c.seed);
  DeviceBuffer din, dout, temp;
  size_t temp_bytes = 0;
  if (cudaError_t e = upload(din, in); e != cudaSuccess) return r.error("allocation", e);
  if (cudaError_t e = dout.allocate(size_t(len) * 4); e != cudaSuccess)
    return r.error("allocation", e);
  cudaMemset(dout.ptr, 0xFF, size_t(len) * 4);
  cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, din.f(), dout.f(), len);
  if (cudaError_t e = temp.allocate(temp_bytes); e != cudaSuccess) return r.error("allocation", e);
  auto launch = [&] {
    return cub::DeviceScan::InclusiveSum(temp.ptr, temp_bytes, din.f(), dout.f(), len);
  };
  auto correct = [&](std::string* why) {
    std::vector<float> got(static_cast<size_t>(len));
    cudaMemcpy(got.data(), dout.ptr, size_t(len) * 4, cudaMemcpyDeviceToHost);
    double want = 0;  // integer inputs: every prefix exact in float too
    for (size_t i = 0; i < got.size(); ++i)
      if (double(got[i]) != (want += in[i])) {
        *why = "out[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", want " +
               std::to_string(want);
        return false;
      }
    return true;
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

// cuDNN's handle and descriptors, destroyed with the point.
struct CudnnConv {
  const CudnnApi& api = cudnn_api();
  CudnnApi::Handle handle = nullptr;
  CudnnApi::Desc x = nullptr, y = nullptr, w = nullptr, conv = nullptr;
  std::string error;
  bool check(CudnnApi::Status s, const char* what) {
    if (s != 0 && error.empty())
      error = std::string(what) + " failed: " + (api.error_string ? api.error_string(s) : "?");
    return s == 0;
  }
  ~CudnnConv() {
    if (conv) api.destroy_conv(conv);
    if (w) api.destroy_filter(w);
    if (y) api.destroy_tensor(y);
    if (x) api.destroy_tensor(x);
    if (handle) api.destroy(handle);
  }
  // One image, one channel, side x side, the mask (2R + 1)^2, zero padding R,
  // the mask not flipped (cuDNN's cross-correlation: the lessons' sum), FP32 FMA.
  bool set_up(int side, int r) {
    const int width = 2 * r + 1;
    return check(api.create(&handle), "cudnnCreate") &&
           check(api.create_tensor(&x), "cudnnCreateTensorDescriptor") &&
           check(api.create_tensor(&y), "cudnnCreateTensorDescriptor") &&
           check(api.create_filter(&w), "cudnnCreateFilterDescriptor") &&
           check(api.create_conv(&conv), "cudnnCreateConvolutionDescriptor") &&
           check(api.set_tensor_4d(x, CudnnApi::kNchw, CudnnApi::kFloat, 1, 1, side, side),
                 "cudnnSetTensor4dDescriptor") &&
           check(api.set_tensor_4d(y, CudnnApi::kNchw, CudnnApi::kFloat, 1, 1, side, side),
                 "cudnnSetTensor4dDescriptor") &&
           check(api.set_filter_4d(w, CudnnApi::kFloat, CudnnApi::kNchw, 1, 1, width, width),
                 "cudnnSetFilter4dDescriptor") &&
           check(api.set_conv_2d(conv, r, r, 1, 1, 1, 1, CudnnApi::kCrossCorrelation,
                                 CudnnApi::kFloat),
                 "cudnnSetConvolution2dDescriptor") &&
           check(api.set_conv_math(conv, CudnnApi::kFmaMath), "cudnnSetConvolutionMathType");
  }
};

// The conv2d lessons' convolution of a square image, with cuDNN: the fastest
// algorithm cudnnFindConvolutionForwardAlgorithm measures whose workspace fits.
std::optional<PerfResult> cudnn_conv_point(AnchorRun& r, const AnchorContext& c) {
  const int side = int(std::floor(std::sqrt(double(r.x.size)))), radius = c.radius;
  const size_t n = size_t(side) * size_t(side);
  const int width = 2 * radius + 1;
  r.x.params.m = r.x.params.n = side;
  r.x.params.radius = radius;
  r.x.flops = 2.0 * double(n) * width * width;
  r.x.compulsory_bytes = 8.0 * double(n) + 4.0 * width * width;
  if (radius < 1 || radius > lessons::conv2d_kit::kMaxRadius)
    return r.skip("radius " + std::to_string(radius) + ": the conv2d lessons' radius is 1 to 3");
  if (!cudnn_api().error.empty()) return r.skip(cudnn_api().error);
  if (8.0 * double(n) > c.budget_bytes) return r.skip("does not fit: needs " + mib(8.0 * n));
  const std::vector<float> image = library_input(r.input, n, c.seed);
  const std::vector<float> mask = library_input(r.input, size_t(width * width), c.seed + 1);
  DeviceBuffer din, dmask, dout, work;
  if (cudaError_t e = upload(din, image); e != cudaSuccess) return r.error("allocation", e);
  if (cudaError_t e = upload(dmask, mask); e != cudaSuccess) return r.error("allocation", e);
  if (cudaError_t e = dout.allocate(n * 4); e != cudaSuccess) return r.error("allocation", e);
  cudaMemset(dout.ptr, 0xFF, n * 4);
  CudnnConv cv;
  if (!cv.set_up(side, radius)) return r.skip("cuDNN: " + cv.error);
  CudnnApi::AlgoPerf found[8] = {};
  int count = 0;
  if (!cv.check(cv.api.find_forward(cv.handle, cv.x, cv.w, cv.conv, cv.y, 8, &count, found),
                "cudnnFindConvolutionForwardAlgorithm"))
    return r.skip("cuDNN: " + cv.error);
  const CudnnApi::AlgoPerf* best = nullptr;
  for (int i = 0; i < count && !best; ++i)
    if (found[i].status == 0 && double(found[i].memory) + 8.0 * double(n) <= c.budget_bytes)
      best = &found[i];
  if (!best) return r.skip("cuDNN found no algorithm for this convolution within the memory");
  const int algo = best->algo;
  if (best->memory)
    if (cudaError_t e = work.allocate(best->memory); e != cudaSuccess)
      return r.error("allocation", e);
  const float one = 1.0f, zero = 0.0f;
  auto launch = [&] {
    const CudnnApi::Status s =
        cv.api.forward(cv.handle, &one, cv.x, din.ptr, cv.w, dmask.ptr, cv.conv, algo, work.ptr,
                       best->memory, &zero, cv.y, dout.ptr);
    return s == 0 ? cudaSuccess : cudaErrorUnknown;
  };
  auto correct = [&](std::string* why) {
    Params p;
    p.m = p.n = side;
    p.radius = radius;
    const LessonInputs in{{nullptr, &image, &mask}};
    const std::vector<float> want = lessons::conv2d_kit::reference(p, in);
    std::vector<float> got(n);
    cudaMemcpy(got.data(), dout.ptr, n * 4, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < n; ++i)  // integer inputs: exact, but an FFT algorithm rounds
      if (!(std::fabs(got[i] - want[i]) <= 1e-3f * (1.0f + std::fabs(want[i])))) {
        *why = "out[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", want " +
               std::to_string(want[i]);
        return false;
      }
    return true;
  };
  std::optional<PerfResult> x = check_and_time(r, c, launch, correct);
  if (x && x->status == PerfStatus::Ok)
    x->message =
        "correct (within 1e-3 of the CPU reference), cuDNN algorithm " + std::to_string(algo);
  return x;
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
  if (family == "scan") return scan_point(r, c);
  if (family == "conv2d") return cudnn_conv_point(r, c);
  return r.skip(std::string("no GPU code for the anchor ") + a.id);
}

}  // namespace ts::perf_detail
