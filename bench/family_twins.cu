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
// likely: the sweep's --input uniform, value for value) and a skewed one
// (every element in one bin), rows of their own.
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

#include "bench/stencil_twins.cuh"

// 64 bins over [-4, 4]; values below (and NaN) go to bin 0, above to bin 63.
constexpr int kBins = 64;
__host__ __device__ inline int bin_of(float x) {
  const float t = (x + 4.0f) * (float(kBins) / 8.0f);
  return int(fminf(fmaxf(t, 0.0f), float(kBins - 1)));
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

// Histogram, many elements per thread: each block counts into its own shared
// bins, at most 1024 blocks walking the input a grid apart, two float4s in
// flight per thread, plain increments (ATOMS.POPC.INC: the hardware combines
// the lanes of a warp on one counter), one global atomic per bin and block.
constexpr int kHistInFlight = 2, kHistQuadsPerThread = 2, kHistMaxBlocks = 1024;
__global__ void histogram_grid_stride(const float* __restrict__ in, unsigned* bins, int length) {
  __shared__ unsigned local[kBins];
  const int tx = threadIdx.x, block = blockDim.x;
  for (int b = tx; b < kBins; b += block)
    local[b] = 0u;
  __syncthreads();
  const int quads = length / 4, stride = gridDim.x * block;
  const int first = blockIdx.x * block + tx;
  for (int q = first; q < quads; q += kHistInFlight * stride) {
    float4 v[kHistInFlight];  // float4 q: elements 4q .. 4q + 3, one 16-byte load
#pragma unroll
    for (int u = 0; u < kHistInFlight; ++u)
      v[u] = q + u * stride < quads ? *reinterpret_cast<const float4*>(&in[4 * (q + u * stride)])
                                    : make_float4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < kHistInFlight; ++u) {
      if (q + u * stride >= quads) break;
      atomicAdd(&local[bin_of(v[u].x)], 1u);
      atomicAdd(&local[bin_of(v[u].y)], 1u);
      atomicAdd(&local[bin_of(v[u].z)], 1u);
      atomicAdd(&local[bin_of(v[u].w)], 1u);
    }
  }
  if (4 * quads + first < length) atomicAdd(&local[bin_of(in[4 * quads + first])], 1u);
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

// ---------------------------------------------------------------- the last steps: transpose,
// reduction (issue 23: the current last step of each of these two families; their own block, so
// that other families' twins merge beside them)

// Transpose with float4 loads and stores through a padded T x T tile (T = 32:
// transpose.vectorized; T = 64: transpose.large_tile, the last step): a block
// of T/4 x 16 threads; each thread loads four neighbours of a row of in, T/16
// times, and stores four neighbours of a row of out (four rows of one column
// of the tile), T/16 times. Rows whose length is not a multiple of 4 are not
// 16-byte aligned: there the thread moves its four elements one by one. The
// float4s come through the read-only cache (__ldg), as the lessons' do.
constexpr int kBlockRows = 16;
template <int T>
__global__ void transpose_float4(const float* in, float* out, int rows, int cols) {
  constexpr int kPasses = T / kBlockRows;
  __shared__ float tile[T][T + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * T + 4 * tx;
  if (cols % 4 == 0) {
    float4 v[kPasses] = {};
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int row = blockIdx.y * T + ty + p * kBlockRows;
      if (row < rows && col < cols)
        v[p] = __ldg(reinterpret_cast<const float4*>(&in[row * cols + col]));
    }
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int r = ty + p * kBlockRows, row = blockIdx.y * T + r;
      if (row >= rows || col >= cols) continue;
      tile[r][4 * tx] = v[p].x;
      tile[r][4 * tx + 1] = v[p].y;
      tile[r][4 * tx + 2] = v[p].z;
      tile[r][4 * tx + 3] = v[p].w;
    }
  } else {
    for (int p = 0; p < kPasses; ++p)
      for (int e = 0; e < 4; ++e) {
        const int r = ty + p * kBlockRows, row = blockIdx.y * T + r;
        if (row < rows && col + e < cols) tile[r][4 * tx + e] = in[row * cols + col + e];
      }
  }
  __syncthreads();
  col = blockIdx.y * T + 4 * tx;
#pragma unroll
  for (int p = 0; p < kPasses; ++p) {
    const int c = ty + p * kBlockRows, row = blockIdx.x * T + c;
    if (row >= cols) continue;
    if (rows % 4 == 0 && col < rows) {
      *reinterpret_cast<float4*>(&out[row * rows + col]) = make_float4(
          tile[4 * tx][c], tile[4 * tx + 1][c], tile[4 * tx + 2][c], tile[4 * tx + 3][c]);
    } else if (rows % 4 != 0) {
      for (int e = 0; e < 4; ++e)
        if (col + e < rows) out[row * rows + col + e] = tile[4 * tx + e][c];
    }
  }
}

// The whole sum in one launch: each thread adds float4s a grid apart, four
// loaded before it adds any; the block's sums go down a shared tree to 64,
// warp 0 finishes with shuffles, and thread 0 adds the block's sum into
// out[0] with one atomicAdd (out starts at zero). B == blockDim.x. The
// float4s come through the read-only cache (__ldg), as the lesson's do.
constexpr int kUnroll = 4;
template <int B>
__global__ void reduce_single_pass(const float* in, float* out, int length) {
  extern __shared__ float sdata[];
  const int tid = threadIdx.x;
  const int quads = length / 4, stride = gridDim.x * B, first = blockIdx.x * B + tid;
  float sum = 0.0f;
  for (int q = first; q < quads; q += kUnroll * stride) {  // q counts float4s
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      v[u] = q + u * stride < quads
                 ? __ldg(reinterpret_cast<const float4*>(&in[4 * (q + u * stride)]))
                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  if (4 * quads + first < length) sum += in[4 * quads + first];  // the last 0 to 3 elements
  sdata[tid] = sum;
  __syncthreads();
#pragma unroll
  for (int s = B / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, s);
    if (tid == 0) atomicAdd(out, v);
  }
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

// SplitMix64's output for state x (a stateless hash): the uniform histogram
// input is the sweep's, value for value.
uint64_t splitmix64_hash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
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

  // Both convolution twins' CPU check: every output against the exact sum
  // (integer inputs and mask, zero outside the image).
  static bool conv2d_matches(const Dev& out, const std::vector<float>& h,
                             const std::vector<float>& mask, int side, int R) {
    const size_t n = size_t(side) * side;
    const int w = 2 * R + 1;
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
    auto correct = [&] { return conv2d_matches(out, h, mask, side, R); };
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

  // The stencil's last step (float4s, a register window) at the --radius (1 to 4).
  void stencil_vec(int length) {
    if (!wanted("stencil_vectorized")) return;
    const bool ran = stencil_vec_if<1>(length) || stencil_vec_if<2>(length) ||
                     stencil_vec_if<3>(length) || stencil_vec_if<4>(length);
    if (!ran)
      std::fprintf(stderr, "stencil_vectorized: radius %d not compiled (1 to 4)\n", o_.radius);
  }
  template <int R>
  bool stencil_vec_if(int length) {
    if (o_.radius != R) return false;
    const int B = o_.block, span = 8 * B, blocks = (length + span - 1) / span;
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
    const size_t shared = size_t(span + 8) * 4;
    run(
        "stencil_vectorized", "plain", length,
        "block=" + std::to_string(B) + " radius=" + std::to_string(R), 8.0 * double(length),
        [&] { stencil_vectorized<R><<<blocks, B, shared>>>(in.f(), out.f(), length); }, correct);
    return true;
  }

  // The conv2d family's last step (double buffered) at its timed tile, T = 16,
  // and the --conv-radius.
  void conv2d_db(int size) {
    if (!wanted("conv2d_double_buffer")) return;
    const int side = int(std::floor(std::sqrt(double(size))));
    const bool ran =
        conv2d_db_if<1>(size, side) || conv2d_db_if<2>(size, side) || conv2d_db_if<3>(size, side);
    if (!ran)
      std::fprintf(stderr, "conv2d_double_buffer: radius %d not compiled (1 to 3)\n",
                   o_.conv_radius);
  }
  template <int R>
  bool conv2d_db_if(int size, int side) {
    if (o_.conv_radius != R) return false;
    constexpr int T = 16, kSteps = 4;
    const size_t n = size_t(side) * side;
    const int w = 2 * R + 1;
    const std::vector<float> h = small_integers(n, 5), mask = small_integers(size_t(w * w), 7);
    Dev in(n * 4), out(n * 4);
    CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(mask_c, mask.data(), size_t(w * w) * 4));
    CHECK(cudaMemset(out.p, 0xFF, n * 4));
    auto correct = [&] { return conv2d_matches(out, h, mask, side, R); };
    const dim3 block(T, T),
        grid((side + 4 * T - 1) / (4 * T), (side + 4 * T * kSteps - 1) / (4 * T * kSteps));
    run(
        "conv2d_double_buffer", "plain", size,
        "m=n=" + std::to_string(side) + " tile=16 radius=" + std::to_string(R),
        8.0 * double(n) + 4.0 * w * w,
        [&] { conv2d_double_buffer<T, R><<<grid, block>>>(in.f(), out.f(), side, side); }, correct);
    return true;
  }

  // The histograms (step 2's shared bins per block, and the last step's
  // grid stride) on the sweep's kind of input (integers in [-4, 4]: 9 bins
  // hit), on a uniform one (every bin as likely) and on a skewed one (every
  // element in bin 40).
  void histogram(int length) {
    const bool shared = wanted("histogram_shared"), grid_stride = wanted("histogram_grid_stride");
    if (!shared && !grid_stride) return;
    const int B = o_.block, blocks = (length + B - 1) / B;
    const int quads = length / 4, per_block = B * kHistQuadsPerThread;
    const int gs_blocks =
        std::max(1, std::min((quads + per_block - 1) / per_block, kHistMaxBlocks));
    Dev in(size_t(length) * 4), bins(kBins * 4);
    for (const char* input : {"small-integers", "uniform", "one-hot"}) {
      std::vector<float> h = small_integers(size_t(length), 6);
      if (std::string(input) == "uniform") {  // a random bin per element, at its centre:
        // the sweep's --input uniform (engine/library_anchors.cpp) for the array in slot 1
        const uint64_t base = splitmix64_hash(1 ^ 0x4C1B0000ull);
        for (size_t i = 0; i < h.size(); ++i)
          h[i] = -4.0f + (float(splitmix64_hash(base + i) % kBins) + 0.5f) * 8.0f / kBins;
      }
      if (std::string(input) == "one-hot") std::fill(h.begin(), h.end(), 1.06f);
      CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
      // The bins start at zero for the checked launch; the timed ones add on
      // top (as the sweep times the lesson: no memset inside the timing).
      CHECK(cudaMemset(bins.p, 0, kBins * 4));
      auto correct = [&] {
        std::vector<unsigned> got(kBins), want(kBins, 0u);
        CHECK(cudaMemcpy(got.data(), bins.p, kBins * 4, cudaMemcpyDeviceToHost));
        for (float x : h)
          ++want[size_t(bin_of(x))];
        return got == want;
      };
      if (shared)
        run(
            "histogram_shared", input, length, "block=" + std::to_string(B),
            4.0 * (double(length) + kBins),
            [&] { histogram_shared<<<blocks, B>>>(in.f(), bins.u(), length); }, correct);
      CHECK(cudaMemset(bins.p, 0, kBins * 4));
      if (grid_stride)
        run(
            "histogram_grid_stride", input, length, "block=" + std::to_string(B),
            4.0 * (double(length) + kBins),
            [&] { histogram_grid_stride<<<gs_blocks, B>>>(in.f(), bins.u(), length); }, correct);
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

  // ---- the last steps of the transpose and reduction families (issue 23)

  // transpose_vectorized: the 32 x 32 tile; transpose_large_tile: the 64 x 64 one.
  void transpose_last(int size) {
    transpose_float4_at<32>("transpose_vectorized", size);
    transpose_float4_at<64>("transpose_large_tile", size);
  }
  template <int T>
  void transpose_float4_at(const std::string& twin, int size) {
    if (!wanted(twin)) return;
    const int side = int(std::floor(std::sqrt(double(size))));
    const size_t n = size_t(side) * side;
    const std::vector<float> h = small_integers(n, 5);
    Dev in(n * 4), out(n * 4);
    CHECK(cudaMemcpy(in.p, h.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out.p, 0xFF, n * 4));
    const dim3 block(T / 4, kBlockRows), grid((side + T - 1) / T, (side + T - 1) / T);
    auto correct = [&] {
      std::vector<float> got(n);
      CHECK(cudaMemcpy(got.data(), out.p, n * 4, cudaMemcpyDeviceToHost));
      for (size_t r = 0; r < size_t(side); ++r)
        for (size_t c = 0; c < size_t(side); ++c)
          if (got[c * side + r] != h[r * side + c]) return false;
      return true;
    };
    run(
        twin, "plain", size, "m=n=" + std::to_string(side), 8.0 * double(n),
        [&] { transpose_float4<T><<<grid, block>>>(in.f(), out.f(), side, side); }, correct);
  }

  // The grid of the grid-stride steps: 8 elements per thread, at most 8192 blocks.
  void reduction_last(int length) {
    if (!wanted("reduce_single_pass")) return;
    const int B = o_.block;
    const int blocks = int(std::min<int64_t>((int64_t(length) + 8 * B - 1) / (8 * B), 8192));
    const std::vector<float> h = small_integers(size_t(length), 4);
    Dev in(size_t(length) * 4), out(4);
    CHECK(cudaMemcpy(in.p, h.data(), size_t(length) * 4, cudaMemcpyHostToDevice));
    // out[0] starts at zero for the checked launch; the timed ones add on
    // top, as the sweep times the lesson (no memset inside the timing).
    CHECK(cudaMemset(out.p, 0, 4));
    auto correct = [&] {
      float got = 0;
      CHECK(cudaMemcpy(&got, out.p, 4, cudaMemcpyDeviceToHost));
      double sum = 0;
      for (float x : h)
        sum += x;
      return double(got) == sum;  // integers: every partial sum exact in float
    };
    auto launch = [&] {
      const size_t shared = size_t(B) * 4;
      switch (B) {
        case 64:
          reduce_single_pass<64><<<blocks, 64, shared>>>(in.f(), out.f(), length);
          break;
        case 128:
          reduce_single_pass<128><<<blocks, 128, shared>>>(in.f(), out.f(), length);
          break;
        case 256:
          reduce_single_pass<256><<<blocks, 256, shared>>>(in.f(), out.f(), length);
          break;
        case 512:
          reduce_single_pass<512><<<blocks, 512, shared>>>(in.f(), out.f(), length);
          break;
        default:
          reduce_single_pass<1024><<<blocks, 1024, shared>>>(in.f(), out.f(), length);
      }
    };
    run("reduce_single_pass", "plain", length, "block=" + std::to_string(B),
        4.0 * (double(length) + 1), launch, correct);
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
    h.stencil_vec(len);
    h.conv2d(len);
    h.conv2d_db(len);
    h.histogram(len);
    h.scan(len);
    h.transpose_last(len);  // the last steps (issue 23)
    h.reduction_last(len);
  }
  h.write_csv();
  bool ok = true;
  for (const Row& r : h.rows)
    ok = ok && r.correct;
  return ok ? 0 : 1;
}
