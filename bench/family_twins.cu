// Plain twins of the last step of every bandwidth family: the same kernels as
// the lessons, written as a textbook writes them (no TileScope accessors, no
// TileScope code at all), each checked against a CPU reference and timed with
// CUDA events. scripts/twins_check.sh runs it next to `tilescope-cli bench`
// and prints, per kernel and size, the lesson's median time over its twin's:
// the accessors are free when the ratio is 1.
//
//   family_twins [--lengths 16777216,67108864] [--reps 15] [--csv out.csv]
//                [--block 256] [--radius 3] [--conv-tile 8] [--conv-radius 2]
//                [--only transpose_padded,...] [--as twin=lesson ...]
//
// Sizes are elements, as the sweep's --lengths: a 1D kernel's length, a 2D
// kernel's square of side floor(sqrt(length)). --as names the lesson a twin
// stands for in the CSV's `ours` column (the script passes them; this harness
// knows no lesson). Inputs are integers in [-4, 4] (every sum exact in float),
// as the sweep's. The histogram also runs on a uniform input (every bin as
// likely) and a skewed one (every element in one bin), rows of their own.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/event_timer.cuh"

// ---------------------------------------------------------------- the twins

constexpr int kTile = 32;  // the transposes' tile and block side

// Transpose through a padded 32 x 33 tile: column reads hit 32 different banks.
__global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * kTile + tx;
  int row = blockIdx.y * kTile + ty;
  if (row < rows && col < cols) tile[ty][tx] = in[row * cols + col];
  __syncthreads();
  col = blockIdx.y * kTile + tx;
  row = blockIdx.x * kTile + ty;
  if (row < cols && col < rows) out[row * rows + col] = tile[tx][ty];
}

// Transpose through a swizzled 32 x 32 tile: (r, c) is kept at column c ^ r.
__global__ void transpose_swizzled(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * kTile + tx;
  int row = blockIdx.y * kTile + ty;
  if (row < rows && col < cols) tile[ty][tx ^ ty] = in[row * cols + col];
  __syncthreads();
  col = blockIdx.y * kTile + tx;
  row = blockIdx.x * kTile + ty;
  if (row < cols && col < rows) out[row * rows + col] = tile[tx][ty ^ tx];
}

// One partial sum per block of 2 * blockDim.x elements: a first add while
// loading, a shared tree down to 64, warp 0 finishes with shuffles.
__global__ void reduce_warp_shuffle(const float* in, float* out, int length) {
  extern __shared__ float sdata[];
  const int block = blockDim.x, tid = threadIdx.x;
  const int i = blockIdx.x * (2 * block) + tid;
  float x = 0.0f;
  if (i < length) x = in[i];
  if (i + block < length) x += in[i + block];
  sdata[tid] = x;
  __syncthreads();
  for (int s = block / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
    for (int s = 16; s > 0; s >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, s);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

__host__ __device__ inline int clamp_index(int i, int length) {
  return i < 0 ? 0 : (i >= length ? length - 1 : i);
}

// The 1D stencil through a shared array with a halo of `radius` on each side.
constexpr int kMaxBlock = 1024, kMaxRadius = 64;
__global__ void stencil_shared(const float* in, float* out, int length, int radius) {
  __shared__ float cache[kMaxBlock + 2 * kMaxRadius];
  const int block = blockDim.x, tx = threadIdx.x;
  const int g = blockIdx.x * block + tx;
  const int s = tx + radius;
  cache[s] = in[clamp_index(g, length)];
  if (tx < radius) {
    cache[s - radius] = in[clamp_index(g - radius, length)];
    cache[s + block] = in[clamp_index(g + block, length)];
  }
  __syncthreads();
  if (g < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j)
      sum += cache[s + j];
    out[g] = sum / float(2 * radius + 1);
  }
}

// 2D convolution: a (T + 2R)^2 input tile with its halo in shared memory, the
// (2R + 1)^2 mask in constant memory.
constexpr int kMaxConvRadius = 3;
__constant__ float mask_c[(2 * kMaxConvRadius + 1) * (2 * kMaxConvRadius + 1)];

template <int T, int R>
__global__ void conv2d_tiled(const float* in, float* out, int rows, int cols) {
  constexpr int kSide = T + 2 * R, w = 2 * R + 1;
  __shared__ float tile[kSide][kSide];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * T + tx, row = blockIdx.y * T + ty;
  const int top = blockIdx.y * T - R, left = blockIdx.x * T - R;
  const int y_top = top + ty, y_bottom = top + ty + T + R;
  const int x_left = left + tx, x_right = left + tx + T + R;
  const auto inside = [&](int y, int x) { return y >= 0 && y < rows && x >= 0 && x < cols; };
  tile[ty + R][tx + R] = inside(row, col) ? in[row * cols + col] : 0.0f;
  if (ty < R) {
    tile[ty][tx + R] = inside(y_top, col) ? in[y_top * cols + col] : 0.0f;
    tile[ty + T + R][tx + R] = inside(y_bottom, col) ? in[y_bottom * cols + col] : 0.0f;
  }
  if (tx < R) {
    tile[ty + R][tx] = inside(row, x_left) ? in[row * cols + x_left] : 0.0f;
    tile[ty + R][tx + T + R] = inside(row, x_right) ? in[row * cols + x_right] : 0.0f;
  }
  if (ty < R && tx < R) {
    tile[ty][tx] = inside(y_top, x_left) ? in[y_top * cols + x_left] : 0.0f;
    tile[ty][tx + T + R] = inside(y_top, x_right) ? in[y_top * cols + x_right] : 0.0f;
    tile[ty + T + R][tx] = inside(y_bottom, x_left) ? in[y_bottom * cols + x_left] : 0.0f;
    tile[ty + T + R][tx + T + R] = inside(y_bottom, x_right) ? in[y_bottom * cols + x_right] : 0.0f;
  }
  __syncthreads();
  if (row < rows && col < cols) {
    float sum = 0.0f;
    for (int i = 0; i < w; ++i)
      for (int j = 0; j < w; ++j)
        sum += mask_c[i * w + j] * tile[ty + i][tx + j];
    out[row * cols + col] = sum;
  }
}

// 64 bins over [-4, 4]; values below go to bin 0, above to bin 63.
constexpr int kBins = 64;
__host__ __device__ inline int bin_of(float x) {
  const float t = (x + 4.0f) * (float(kBins) / 8.0f);
  if (!(t >= 1.0f)) return 0;
  if (t >= float(kBins - 1)) return kBins - 1;
  return int(t);
}

// Histogram: each block counts into its own shared bins, then adds them to
// the global ones (one global atomic per bin and block).
__global__ void histogram_shared(const float* in, unsigned* bins, int length) {
  __shared__ unsigned local[kBins];
  const int tx = threadIdx.x, block = blockDim.x;
  const int i = blockIdx.x * block + tx;
  for (int b = tx; b < kBins; b += block)
    local[b] = 0u;
  __syncthreads();
  if (i < length) atomicAdd(&local[bin_of(in[i])], 1u);
  __syncthreads();
  for (int b = tx; b < kBins; b += block)
    atomicAdd(&bins[b], local[b]);
}

// Blelloch's work-efficient exclusive scan of each block's 2 * blockDim.x
// elements, with one spare shared word after every 32 (no bank conflicts).
__host__ __device__ inline int padded(int i) {
  return i + (i >> 5);
}
__global__ void scan_blelloch(const float* in, float* out, int length) {
  extern __shared__ float temp[];
  const int block = blockDim.x, tid = threadIdx.x, n = 2 * block;
  const int base = blockIdx.x * n, a = tid, b = tid + block;
  float xa = 0.0f, xb = 0.0f;
  if (base + a < length) xa = in[base + a];
  if (base + b < length) xb = in[base + b];
  temp[padded(a)] = xa;
  temp[padded(b)] = xb;
  __syncthreads();
  int offset = 1;
  for (int d = n / 2; d > 0; d /= 2) {
    if (tid < d) {
      const int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      temp[padded(right)] += temp[padded(left)];
    }
    offset *= 2;
    __syncthreads();
  }
  if (tid == 0) temp[padded(n - 1)] = 0.0f;
  for (int d = 1; d < n; d *= 2) {
    offset /= 2;
    if (tid < d) {
      const int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      const float t = temp[padded(left)];
      temp[padded(left)] = temp[padded(right)];
      temp[padded(right)] += t;
    }
    __syncthreads();
  }
  if (base + a < length) out[base + a] = temp[padded(a)];
  if (base + b < length) out[base + b] = temp[padded(b)];
}

// ---------------------------------------------------------------- the harness

namespace {

struct Options {
  std::vector<int> lengths{1 << 24, 1 << 26};
  int reps = 15, warmup = 2;
  int block = 256, radius = 3, conv_tile = 8, conv_radius = 2;
  std::vector<std::string> only;
  std::map<std::string, std::string> as;  // twin -> the lesson it stands for
  std::string csv;
};

std::vector<std::string> split(const char* s) {
  std::vector<std::string> v;
  std::string cur;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!cur.empty()) v.push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  return v;
}

// Integers in [-4, 4] from a xorshift stream: exact in float sums.
std::vector<float> small_integers(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  uint64_t s = 0x9e3779b97f4a7c15ull ^ seed;
  for (float& x : v) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = float(int(s % 9) - 4);
  }
  return v;
}

// Device buffers that free themselves.
struct Dev {
  void* p = nullptr;
  explicit Dev(size_t bytes) { CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 4))); }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  float* f() const { return static_cast<float*>(p); }
  unsigned* u() const { return static_cast<unsigned*>(p); }
};

struct Row {
  std::string twin, label;
  int size = 0;
  std::string params;
  Times t;
  double bytes = 0;  // compulsory: inputs read once, outputs written once
  bool correct = false;
};

class Harness {
 public:
  explicit Harness(const Options& o) : o_(o) {}
  std::vector<Row> rows;

  bool wanted(const std::string& twin) const {
    return o_.only.empty() || std::find(o_.only.begin(), o_.only.end(), twin) != o_.only.end();
  }

  // Checks `launch`'s output with `correct`, then times it.
  void run(const std::string& twin, const std::string& label, int size, const std::string& params,
           double bytes, const std::function<void()>& launch,
           const std::function<bool()>& correct) {
    launch();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    Row r{twin, label, size, params, {}, bytes, correct()};
    r.t = timer_.time(launch, o_.warmup, o_.reps);
    const double gbps = r.bytes / (r.t.median * 1e-3) / 1e9;
    std::printf("%-22s %-10s %10d %-22s %9.4f %9.4f %9.4f %9.1f %s\n", twin.c_str(), label.c_str(),
                size, params.c_str(), r.t.median, r.t.min, r.t.max, gbps,
                r.correct ? "ok" : "WRONG");
    rows.push_back(r);
  }

  void transposes(int size) {
    const int side = int(std::floor(std::sqrt(double(size))));
    const size_t n = size_t(side) * side;
    const std::vector<float> h = small_integers(n, 5);
    Dev in(n * 4), out(n * 4);
    CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
    const dim3 block(kTile, kTile), grid((side + kTile - 1) / kTile, (side + kTile - 1) / kTile);
    auto correct = [&] {
      std::vector<float> got(n);
      CHECK(cudaMemcpy(got.data(), out.p, n * 4, cudaMemcpyDeviceToHost));
      for (size_t r = 0; r < size_t(side); ++r)
        for (size_t c = 0; c < size_t(side); ++c)
          if (got[c * side + r] != h[r * side + c]) return false;
      return true;
    };
    const std::string params = "m=n=" + std::to_string(side);
    for (int swizzled = 0; swizzled < 2; ++swizzled) {
      const std::string twin = swizzled ? "transpose_swizzled" : "transpose_padded";
      if (!wanted(twin)) continue;
      CHECK(cudaMemset(out.p, 0xFF, n * 4));
      run(
          twin, "plain", size, params, 8.0 * double(n),
          [&] {
            if (swizzled)
              transpose_swizzled<<<grid, block>>>(in.f(), out.f(), side, side);
            else
              transpose_padded<<<grid, block>>>(in.f(), out.f(), side, side);
          },
          correct);
    }
  }

  void reduction(int length) {
    if (!wanted("reduce_warp_shuffle")) return;
    const int B = o_.block, per = 2 * B, blocks = (length + per - 1) / per;
    const std::vector<float> h = small_integers(size_t(length), 4);
    Dev in(size_t(length) * 4), out(size_t(blocks) * 4);
    CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out.p, 0xFF, size_t(blocks) * 4));
    auto correct = [&] {
      std::vector<float> got(blocks);
      CHECK(cudaMemcpy(got.data(), out.p, size_t(blocks) * 4, cudaMemcpyDeviceToHost));
      for (int g = 0; g < blocks; ++g) {
        double sum = 0;
        for (int i = g * per; i < std::min(length, (g + 1) * per); ++i)
          sum += h[size_t(i)];
        if (double(got[g]) != sum) return false;
      }
      return true;
    };
    run(
        "reduce_warp_shuffle", "plain", length, "block=" + std::to_string(B),
        4.0 * (double(length) + blocks),
        [&] { reduce_warp_shuffle<<<blocks, B, B * 4>>>(in.f(), out.f(), length); }, correct);
  }

  void stencil(int length) {
    if (!wanted("stencil_shared")) return;
    const int B = o_.block, R = o_.radius, blocks = (length + B - 1) / B;
    const std::vector<float> h = small_integers(size_t(length), 4);
    Dev in(size_t(length) * 4), out(size_t(length) * 4);
    CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out.p, 0xFF, size_t(length) * 4));
    auto correct = [&] {
      std::vector<float> got(static_cast<size_t>(length));
      CHECK(cudaMemcpy(got.data(), out.p, size_t(length) * 4, cudaMemcpyDeviceToHost));
      for (int g = 0; g < length; ++g) {
        double sum = 0;
        for (int j = -R; j <= R; ++j)
          sum += h[size_t(clamp_index(g + j, length))];
        if (std::fabs(got[size_t(g)] - sum / (2 * R + 1)) > 1e-5 * (1 + std::fabs(sum)))
          return false;
      }
      return true;
    };
    run(
        "stencil_shared", "plain", length,
        "block=" + std::to_string(B) + " radius=" + std::to_string(R), 8.0 * double(length),
        [&] { stencil_shared<<<blocks, B>>>(in.f(), out.f(), length, R); }, correct);
  }

  template <int T, int R>
  void conv2d_at(int size, int side) {
    const size_t n = size_t(side) * side;
    const int w = 2 * R + 1;
    const std::vector<float> h = small_integers(n, 5), mask = small_integers(size_t(w * w), 7);
    Dev in(n * 4), out(n * 4);
    CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(mask_c, mask.data(), size_t(w * w) * 4));
    CHECK(cudaMemset(out.p, 0xFF, n * 4));
    auto correct = [&] {
      std::vector<float> got(n);
      CHECK(cudaMemcpy(got.data(), out.p, n * 4, cudaMemcpyDeviceToHost));
      for (int r = 0; r < side; ++r)
        for (int c = 0; c < side; ++c) {
          double sum = 0;
          for (int i = 0; i < w; ++i)
            for (int j = 0; j < w; ++j) {
              const int y = r - R + i, x = c - R + j;
              if (y >= 0 && y < side && x >= 0 && x < side)
                sum += double(mask[size_t(i * w + j)]) * h[size_t(y) * side + x];
            }
          if (double(got[size_t(r) * side + c]) != sum) return false;
        }
      return true;
    };
    const dim3 block(T, T), grid((side + T - 1) / T, (side + T - 1) / T);
    run(
        "conv2d_tiled", "plain", size,
        "m=n=" + std::to_string(side) + " tile=" + std::to_string(T) +
            " radius=" + std::to_string(R),
        8.0 * double(n) + 4.0 * w * w,
        [&] { conv2d_tiled<T, R><<<grid, block>>>(in.f(), out.f(), side, side); }, correct);
  }

  void conv2d(int size) {
    if (!wanted("conv2d_tiled")) return;
    const int side = int(std::floor(std::sqrt(double(size))));
    const bool ran = conv2d_if<8, 1>(size, side) || conv2d_if<8, 2>(size, side) ||
                     conv2d_if<8, 3>(size, side) || conv2d_if<16, 1>(size, side) ||
                     conv2d_if<16, 2>(size, side) || conv2d_if<16, 3>(size, side) ||
                     conv2d_if<32, 1>(size, side) || conv2d_if<32, 2>(size, side) ||
                     conv2d_if<32, 3>(size, side);
    if (!ran)
      std::fprintf(stderr,
                   "conv2d_tiled: tile %d radius %d not compiled (tiles 8, 16, 32; "
                   "radius 1 to 3)\n",
                   o_.conv_tile, o_.conv_radius);
  }
  template <int T, int R>
  bool conv2d_if(int size, int side) {
    if (o_.conv_tile != T || o_.conv_radius != R) return false;
    conv2d_at<T, R>(size, side);
    return true;
  }

  // The histogram on the sweep's kind of input (integers in [-4, 4]: 9 bins
  // hit), on a uniform one (every bin as likely) and on a skewed one (every
  // element in bin 40).
  void histogram(int length) {
    if (!wanted("histogram_shared")) return;
    const int B = o_.block, blocks = (length + B - 1) / B;
    Dev in(size_t(length) * 4), bins(kBins * 4);
    for (const char* input : {"small-integers", "uniform", "one-hot"}) {
      std::vector<float> h = small_integers(size_t(length), 6);
      if (std::string(input) == "uniform")
        for (size_t i = 0; i < h.size(); ++i)  // bin i % 64, at its centre
          h[i] = -4.0f + (float(i * 2654435761u % kBins) + 0.5f) * 8.0f / kBins;
      if (std::string(input) == "one-hot") std::fill(h.begin(), h.end(), 1.06f);
      CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
      // The bins start at zero for the checked launch; the timed ones add on
      // top (as the sweep times the lesson: no memset inside the timing).
      CHECK(cudaMemset(bins.p, 0, kBins * 4));
      auto launch = [&] { histogram_shared<<<blocks, B>>>(in.f(), bins.u(), length); };
      auto correct = [&] {
        std::vector<unsigned> got(kBins), want(kBins, 0u);
        CHECK(cudaMemcpy(got.data(), bins.p, kBins * 4, cudaMemcpyDeviceToHost));
        for (float x : h)
          ++want[size_t(bin_of(x))];
        return got == want;
      };
      run("histogram_shared", input, length, "block=" + std::to_string(B),
          4.0 * (double(length) + kBins), launch, correct);
    }
  }

  void scan(int length) {
    if (!wanted("scan_blelloch")) return;
    const int B = o_.block, per = 2 * B, blocks = (length + per - 1) / per;
    const std::vector<float> h = small_integers(size_t(length), 4);
    Dev in(size_t(length) * 4), out(size_t(length) * 4);
    CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out.p, 0xFF, size_t(length) * 4));
    auto correct = [&] {
      std::vector<float> got(static_cast<size_t>(length));
      CHECK(cudaMemcpy(got.data(), out.p, size_t(length) * 4, cudaMemcpyDeviceToHost));
      double run_sum = 0;
      for (int i = 0; i < length; ++i) {
        if (i % per == 0) run_sum = 0;
        if (double(got[size_t(i)]) != run_sum) return false;
        run_sum += h[size_t(i)];
      }
      return true;
    };
    const int shared = (padded(per - 1) + 1) * 4;
    run(
        "scan_blelloch", "plain", length, "block=" + std::to_string(B), 8.0 * double(length),
        [&] { scan_blelloch<<<blocks, B, shared>>>(in.f(), out.f(), length); }, correct);
  }

  void write_csv() const {
    if (o_.csv.empty()) return;
    FILE* f = std::fopen(o_.csv.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", o_.csv.c_str());
      std::exit(1);
    }
    // `ours`: the lesson this twin stands for (--as), else the twin's own name.
    std::fprintf(f, "ours,twin,input,size,params,ms_median,ms_min,ms_max,gbps,correct\n");
    for (const Row& r : rows) {
      const auto it = o_.as.find(r.twin);
      std::fprintf(f, "%s,%s,%s,%d,%s,%.6g,%.6g,%.6g,%.6g,%d\n",
                   it == o_.as.end() ? r.twin.c_str() : it->second.c_str(), r.twin.c_str(),
                   r.label.c_str(), r.size, r.params.c_str(), r.t.median, r.t.min, r.t.max,
                   r.bytes / (r.t.median * 1e-3) / 1e9, r.correct ? 1 : 0);
    }
    std::fclose(f);
  }

 private:
  const Options& o_;
  EventTimer timer_;
};

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--lengths 16777216,67108864] [--reps 15] [--csv out.csv] [--block 256]"
               " [--radius 3] [--conv-tile 8] [--conv-radius 2] [--only twin,...]"
               " [--as twin=lesson ...]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--lengths" && has) {
      o.lengths.clear();
      for (const std::string& s : split(argv[++i]))
        o.lengths.push_back(std::atoi(s.c_str()));
    } else if (a == "--reps" && has) {
      o.reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--csv" && has) {
      o.csv = argv[++i];
    } else if (a == "--block" && has) {
      o.block = std::atoi(argv[++i]);
    } else if (a == "--radius" && has) {
      o.radius = std::atoi(argv[++i]);
    } else if (a == "--conv-tile" && has) {
      o.conv_tile = std::atoi(argv[++i]);
    } else if (a == "--conv-radius" && has) {
      o.conv_radius = std::atoi(argv[++i]);
    } else if (a == "--only" && has) {
      o.only = split(argv[++i]);
    } else if (a == "--as" && has) {
      const std::string m = argv[++i];
      const size_t eq = m.find('=');
      if (eq == std::string::npos) return usage(argv[0]);
      o.as[m.substr(0, eq)] = m.substr(eq + 1);
    } else {
      return usage(argv[0]);
    }
  }
  for (int len : o.lengths)
    if (len < 1 || len > (1 << 30)) {
      std::fprintf(stderr, "length %d out of range: allowed 1 .. 2^30\n", len);
      return 2;
    }
  if (o.block < 64 || o.block > 1024 || (o.block & (o.block - 1)) != 0 || o.radius < 0 ||
      o.radius > std::min(o.block, kMaxRadius)) {
    std::fprintf(stderr,
                 "block must be a power of two in 64 .. 1024, radius 0 .. min(block, 64)\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("family_twins: skipped: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "family_twins on %s (sm_%d%d): plain twins of each family's last step, median of %d"
      " launches, L2 flushed before each\n",
      prop.name, prop.major, prop.minor, o.reps);
  std::printf("%-22s %-10s %10s %-22s %9s %9s %9s %9s %s\n", "twin", "input", "size", "params",
              "ms median", "ms min", "ms max", "GB/s", "check");
  Harness h(o);
  for (int len : o.lengths) {
    h.transposes(len);
    h.reduction(len);
    h.stencil(len);
    h.conv2d(len);
    h.histogram(len);
    h.scan(len);
  }
  h.write_csv();
  bool ok = true;
  for (const Row& r : h.rows)
    ok = ok && r.correct;
  return ok ? 0 : 1;
}
