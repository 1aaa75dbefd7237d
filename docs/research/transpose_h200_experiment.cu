// tpose.cu (round 2): what makes cublasSgeam's transpose faster than transpose.vectorized?
// Round 1 (tpose.v1): 64 x 64 tiles (geam: 64 x 64 per block of 256 threads, ncu) beat geam by
// 5 %; column-major block order helps the 32 x 32 tile; cache hints hurt. Round 2: the lesson-
// shaped 64 x 64 kernel (wide_tile: 16 x 16 threads, float4, bounds checks as the lesson), block
// orders for it, taller tiles, and non-square shapes of 2^26 elements.
// Plain transpose variants (tile shape, threads per block, float/float2/float4,
// cache hints, block order), cublasSgeam (C = A^T) and the copy, timed in the
// same run, interleaved rep by rep (every variant's k-th rep runs before any
// variant's (k+1)-th), L2 flushed (256 MiB written) before every timed launch.
// Every output is checked on the CPU, also at odd shapes (40x48, 37x45, 33x100 ...).
//
//   nvcc -O3 -std=c++20 -arch=sm_90 -lineinfo tpose.cu -o tpose -lcublas && ./tpose
//   ./tpose --geam-only     (one geam launch at 8192^2, for ncu's launch statistics)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)
#define CB(x)                                                           \
  do {                                                                  \
    cublasStatus_t s_ = (x);                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                  \
      std::printf("%s:%d %s: cublas %d\n", __FILE__, __LINE__, #x, s_); \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

// ---------------------------------------------------------------- vectors and hints
template <int V>
struct VecT;
template <>
struct VecT<1> {
  using T = float;
};
template <>
struct VecT<2> {
  using T = float2;
};
template <>
struct VecT<4> {
  using T = float4;
};

// HINT 0: __ldg load, plain store; 1: __ldcs load, __stcs store (evict-first both);
// 2: __ldg load, __stcs store; 3: __ldcs load, plain store.
template <int HINT, class T>
__device__ __forceinline__ T ld(const T* p) {
  if constexpr (HINT == 1 || HINT == 3)
    return __ldcs(p);
  else
    return __ldg(p);
}
template <int HINT, class T>
__device__ __forceinline__ void st(T* p, T v) {
  if constexpr (HINT == 1 || HINT == 2)
    __stcs(p, v);
  else
    *p = v;
}
__device__ __forceinline__ float& el(float& v, int) {
  return v;
}
__device__ __forceinline__ float& el(float2& v, int e) {
  return (&v.x)[e];
}
__device__ __forceinline__ float& el(float4& v, int e) {
  return (&v.x)[e];
}

// ---------------------------------------------------------------- block order
// ORDER 0: blockIdx.x walks the tiles of a row of `in` (as the lessons);
// ORDER 1: blockIdx.x walks a column of tiles; ORDER G >= 2: bands of G tile
// rows, each band walked column by column (a 1D grid).
template <int ORDER>
__device__ __forceinline__ void tile_of_block(int tiles_x, int tiles_y, int& tx, int& ty) {
  if constexpr (ORDER == 0) {
    tx = blockIdx.x, ty = blockIdx.y;
  } else if constexpr (ORDER == 1) {
    ty = blockIdx.x, tx = blockIdx.y;
  } else {
    const int b = blockIdx.x;
    const int per_band = ORDER * tiles_x;
    const int band = b / per_band, in_band = b % per_band;
    const int band_rows = min(ORDER, tiles_y - band * ORDER);
    ty = band * ORDER + in_band % band_rows;
    tx = in_band / band_rows;
  }
}

// ---------------------------------------------------------------- the kernel family
// out (cols x rows) = in (rows x cols)^T through a padded TR x (TC + 1) tile.
// NT threads; a thread loads V consecutive floats of a row of in per pass and
// stores V consecutive floats of a row of out (V rows of one tile column).
template <int TR, int TC, int NT, int V, int HINT, int ORDER>
__global__ void __launch_bounds__(NT)
    tpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  using Vec = typename VecT<V>::T;
  __shared__ float tile[TR][TC + 1];
  constexpr int QC = TC / V, RSTEP = NT / QC, LP = TR / RSTEP;
  constexpr int QR = TR / V, CSTEP = NT / QR, SP = TC / CSTEP;
  static_assert(NT % QC == 0 && TR % RSTEP == 0 && NT % QR == 0 && TC % CSTEP == 0);
  int bx, by;
  tile_of_block<ORDER>((cols + TC - 1) / TC, (rows + TR - 1) / TR, bx, by);
  const int t = threadIdx.x;
  const int row0 = by * TR, col0 = bx * TC;
  const bool aligned = (cols % V == 0) && (rows % V == 0);
  {
    const int r0 = t / QC, q = t % QC, col = col0 + q * V;
    if (aligned) {
      Vec v[LP];
#pragma unroll
      for (int p = 0; p < LP; ++p) {
        const int row = row0 + r0 + p * RSTEP;
        if (row < rows && col < cols)
          v[p] = ld<HINT>(reinterpret_cast<const Vec*>(in + size_t(row) * cols + col));
      }
#pragma unroll
      for (int p = 0; p < LP; ++p)
#pragma unroll
        for (int e = 0; e < V; ++e)
          tile[r0 + p * RSTEP][q * V + e] = el(v[p], e);
    } else {
      for (int p = 0; p < LP; ++p)
        for (int e = 0; e < V; ++e) {
          const int row = row0 + r0 + p * RSTEP;
          if (row < rows && col + e < cols)
            tile[r0 + p * RSTEP][q * V + e] = in[size_t(row) * cols + col + e];
        }
    }
  }
  __syncthreads();
  {
    const int c0 = t / QR, s = t % QR, ocol = row0 + s * V;
#pragma unroll
    for (int p = 0; p < SP; ++p) {
      const int c = c0 + p * CSTEP, orow = col0 + c;
      if (orow >= cols) continue;
      if (aligned) {
        if (ocol < rows) {
          Vec w;
#pragma unroll
          for (int e = 0; e < V; ++e)
            el(w, e) = tile[s * V + e][c];
          st<HINT>(reinterpret_cast<Vec*>(out + size_t(orow) * rows + ocol), w);
        }
      } else {
        for (int e = 0; e < V; ++e)
          if (ocol + e < rows) out[size_t(orow) * rows + ocol + e] = tile[s * V + e][c];
      }
    }
  }
}

// A float4 copy, 4 float4 per thread in flight: the ceiling a kernel can reach.
__global__ void __launch_bounds__(256)
    copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n4) {
  const size_t base = size_t(blockIdx.x) * 1024 + threadIdx.x;
  float4 v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (base + k * 256 < n4) v[k] = __ldg(a + base + k * 256);
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (base + k * 256 < n4) b[base + k * 256] = v[k];
}

// ---------------------------------------------------------------- the variant table

struct Variant {
  std::string name;
  std::function<void(const float*, float*, int, int)> launch;
  int regs = 0, blocks_per_sm = 0, threads = 0;
  bool is_transpose = true;
};

template <int TR, int TC, int NT, int V, int HINT, int ORDER>
Variant make(const char* note = "") {
  Variant v;
  char b[160];
  std::snprintf(b, sizeof b, "t%dx%d n%d v%d h%d o%d%s%s", TR, TC, NT, V, HINT, ORDER,
                *note ? " " : "", note);
  v.name = b;
  auto k = tpose<TR, TC, NT, V, HINT, ORDER>;
  cudaFuncAttributes a;
  CK(cudaFuncGetAttributes(&a, k));
  v.regs = a.numRegs;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v.blocks_per_sm, k, NT, 0));
  v.threads = NT;
  v.launch = [k](const float* in, float* out, int rows, int cols) {
    const int tx = (cols + TC - 1) / TC, ty = (rows + TR - 1) / TR;
    if (ORDER == 0)
      k<<<dim3(tx, ty), NT>>>(in, out, rows, cols);
    else if (ORDER == 1)
      k<<<dim3(ty, tx), NT>>>(in, out, rows, cols);
    else
      k<<<dim3(tx * ty), NT>>>(in, out, rows, cols);
  };
  return v;
}

// ---------------------------------------------------------------- the candidate lesson kernel
// As the lesson would write it: a block of 16 x 16 threads moves a padded 64 x 65 tile; thread
// (tx, ty) loads columns 4tx .. 4tx + 3 of rows ty, ty + 16, ty + 32, ty + 48 (four float4s in
// flight), stores them into the tile one by one, and later writes four float4s of out. COLS:
// blockIdx.x walks down a column of tiles (COLS = 1) or along a row (0).
template <int COLS>
__global__ void __launch_bounds__(256)
    wide_tile(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int T = 64, BR = 16, P = T / BR;
  __shared__ float tile[T][T + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int bx = COLS ? blockIdx.y : blockIdx.x, by = COLS ? blockIdx.x : blockIdx.y;
  int col = bx * T + 4 * tx;
  if (cols % 4 == 0) {
    float4 v[P] = {};
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int row = by * T + ty + p * BR;
      if (row < rows && col < cols)
        v[p] = __ldg(reinterpret_cast<const float4*>(&in[row * cols + col]));
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int r = ty + p * BR, row = by * T + r;
      if (row >= rows || col >= cols) continue;
      tile[r][4 * tx] = v[p].x;
      tile[r][4 * tx + 1] = v[p].y;
      tile[r][4 * tx + 2] = v[p].z;
      tile[r][4 * tx + 3] = v[p].w;
    }
  } else {
    for (int p = 0; p < P; ++p)
      for (int e = 0; e < 4; ++e) {
        const int r = ty + p * BR, row = by * T + r;
        if (row < rows && col + e < cols) tile[r][4 * tx + e] = in[row * cols + col + e];
      }
  }
  __syncthreads();
  col = by * T + 4 * tx;
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const int c = ty + p * BR, row = bx * T + c;
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

template <int COLS>
Variant make_wide(const char* name) {
  Variant v;
  v.name = name;
  auto k = wide_tile<COLS>;
  cudaFuncAttributes a;
  CK(cudaFuncGetAttributes(&a, k));
  v.regs = a.numRegs;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v.blocks_per_sm, k, 256, 0));
  v.threads = 256;
  v.launch = [k](const float* in, float* out, int rows, int cols) {
    const int tx = (cols + 63) / 64, ty = (rows + 63) / 64;
    k<<<COLS ? dim3(ty, tx) : dim3(tx, ty), dim3(16, 16)>>>(in, out, rows, cols);
  };
  return v;
}

std::vector<Variant> variants() {
  std::vector<Variant> v;
  v.push_back(make<32, 32, 128, 4, 0, 0>("= vectorized"));
  v.push_back(make_wide<0>("wide_tile (lesson-shaped) o0"));
  v.push_back(make_wide<1>("wide_tile (lesson-shaped) o1"));
  v.push_back(make<64, 64, 256, 4, 0, 0>());
  v.push_back(make<64, 64, 256, 4, 0, 1>());
  v.push_back(make<64, 64, 128, 4, 0, 0>());
  v.push_back(make<64, 64, 512, 4, 0, 0>());
  v.push_back(make<64, 64, 256, 1, 0, 0>());
  v.push_back(make<32, 32, 128, 4, 0, 1>());
  v.push_back(make<64, 32, 128, 4, 0, 1>());
  v.push_back(make<128, 32, 256, 4, 0, 0>());
  v.push_back(make<128, 64, 512, 4, 0, 0>());
  v.push_back(make<64, 128, 512, 4, 0, 0>());
  return v;
}

// ---------------------------------------------------------------- checks
std::vector<float> input(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = float(int64_t(i % 16777213));  // distinct, exact
  return x;
}

bool is_transpose(const std::vector<float>& in, const std::vector<float>& out, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (out[size_t(c) * rows + r] != in[size_t(r) * cols + c]) return false;
  return true;
}

void geam(cublasHandle_t h, const float* in, float* out, int rows, int cols) {
  const float one = 1.0f, zero = 0.0f;
  // in (rows x cols, row-major) is A (cols x rows, column-major, lda = cols);
  // C = A^T (rows x cols, column-major, ldc = rows) is out (cols x rows) row-major.
  CB(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out,
                 rows));
}

struct Stat {
  double med, mn, mx;
};
Stat stat(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t k = v.size();
  return {k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]), v.front(), v.back()};
}

int main(int argc, char** argv) {
  cublasHandle_t h;
  CB(cublasCreate(&h));
  if (argc > 1 && std::strcmp(argv[1], "--geam-only") == 0) {
    const int side = 8192;
    const size_t n = size_t(side) * side;
    float *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    std::vector<float> x = input(n);
    CK(cudaMemcpy(a, x.data(), n * 4, cudaMemcpyHostToDevice));
    geam(h, a, b, side, side);
    CK(cudaDeviceSynchronize());
    std::printf("geam-only done\n");
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  std::vector<Variant> vs = variants();

  // Correctness at odd and small shapes, every variant and geam.
  const int shapes[][2] = {{40, 48}, {37, 45},  {33, 100},  {100, 33}, {1, 7},
                           {64, 64}, {130, 68}, {257, 129}, {48, 40},  {2048, 1024}};
  int bad = 0;
  {
    float *a, *b;
    CK(cudaMalloc(&a, 2048 * 1024 * 4));
    CK(cudaMalloc(&b, 2048 * 1024 * 4));
    for (auto& s : shapes) {
      const int rows = s[0], cols = s[1];
      const size_t n = size_t(rows) * cols;
      std::vector<float> x = input(n), y(n);
      CK(cudaMemcpy(a, x.data(), n * 4, cudaMemcpyHostToDevice));
      for (size_t i = 0; i <= vs.size(); ++i) {
        CK(cudaMemset(b, 0xFF, n * 4));
        if (i < vs.size())
          vs[i].launch(a, b, rows, cols);
        else
          geam(h, a, b, rows, cols);
        CK(cudaGetLastError());
        CK(cudaMemcpy(y.data(), b, n * 4, cudaMemcpyDeviceToHost));
        if (!is_transpose(x, y, rows, cols)) {
          ++bad;
          std::printf("WRONG at %dx%d: %s\n", rows, cols,
                      i < vs.size() ? vs[i].name.c_str() : "geam");
        }
      }
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  std::printf("odd shapes: %zu kernels x %zu shapes, %d wrong\n", vs.size() + 1,
              sizeof shapes / sizeof shapes[0], bad);

  // The flush buffer: 256 MiB written before every timed launch.
  const size_t flush_bytes = size_t(256) << 20;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int reps = 21;

  const int shapes_timed[][2] = {{4096, 4096}, {8192, 8192}, {4096, 16384}, {16384, 4096}};
  for (auto& shape : shapes_timed) {
    const int rows = shape[0], cols = shape[1];
    const size_t n = size_t(rows) * cols;
    float *a, *b;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    std::vector<float> x = input(n), y(n);
    CK(cudaMemcpy(a, x.data(), n * 4, cudaMemcpyHostToDevice));
    // The rows: copy (memcpy), copy4 (kernel), geam, the variants.
    struct Row {
      std::string name;
      std::function<void()> run;
      bool transpose;
      int regs, bps, nt;
      std::vector<float> ms;
      bool ok = true;
    };
    std::vector<Row> rowsv;
    rowsv.push_back({"copy: cudaMemcpy D2D",
                     [&] { CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); }, false, 0,
                     0, 0});
    rowsv.push_back({"copy: float4 kernel",
                     [&] {
                       const size_t n4 = n / 4;
                       copy4<<<unsigned((n4 + 1023) / 1024), 256>>>(
                           reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b), n4);
                     },
                     false, 0, 0, 256});
    rowsv.push_back({"cublasSgeam C = A^T", [&] { geam(h, a, b, rows, cols); }, true, 0, 0, 0});
    for (Variant& v : vs)
      rowsv.push_back({v.name, [&, rows, cols] { v.launch(a, b, rows, cols); }, true, v.regs,
                       v.blocks_per_sm, v.threads});
    // Warm-up and check of every row.
    for (Row& r : rowsv) {
      CK(cudaMemset(b, 0xFF, n * 4));
      r.run();
      r.run();
      CK(cudaDeviceSynchronize());
      CK(cudaGetLastError());
      CK(cudaMemcpy(y.data(), b, n * 4, cudaMemcpyDeviceToHost));
      r.ok = r.transpose ? is_transpose(x, y, rows, cols) : (y == x);
    }
    for (int k = 0; k < reps; ++k)
      for (Row& r : rowsv) {
        CK(cudaMemsetAsync(flush, k & 0xff, flush_bytes));
        CK(cudaEventRecord(e0));
        r.run();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        r.ms.push_back(ms);
      }
    const double bytes = 8.0 * double(n);
    const double copy_gbs = bytes / stat(rowsv[0].ms).med / 1e6;
    const double geam_gbs = bytes / stat(rowsv[2].ms).med / 1e6;
    std::printf(
        "\n%d x %d (%zu elements), %d reps interleaved; GB/s = 8 bytes per element / median\n",
        rows, cols, n, reps);
    std::printf("%-34s %4s %4s %5s %9s %9s %9s %8s %6s %6s %s\n", "kernel", "reg", "b/SM", "thr",
                "ms med", "ms min", "ms max", "GB/s", "%copy", "%geam", "check");
    for (Row& r : rowsv) {
      const Stat s = stat(r.ms);
      const double gbs = bytes / s.med / 1e6;
      std::printf("%-34s %4d %4d %5d %9.4f %9.4f %9.4f %8.1f %6.1f %6.1f %s\n", r.name.c_str(),
                  r.regs, r.bps, r.nt, s.med, s.mn, s.mx, gbs, 100 * gbs / copy_gbs,
                  100 * gbs / geam_gbs, r.ok ? "ok" : "WRONG");
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  std::printf(
      "\nnames: tRxC = tile rows x cols of in; nN threads; vV floats per access; h hint "
      "(0 ldg/plain, 1 ldcs/stcs, 2 ldg/stcs, 3 ldcs/plain); o order (0 x along a row of "
      "tiles, 1 along a column, G>=2 bands of G tile rows walked by columns)\n");
  cublasDestroy(h);
  return bad ? 1 : 0;
}
