// Research prototype for issue 13 (the SGEMM ladder), NOT built by the project:
// the shape the ladder's last steps can take. Pure FP32 FMA, no tensor cores.
// Block tile BM x BN x BK, warp tile WM x WN, thread tile TM x TN (in float4
// groups), A stored transposed in shared memory (As[k][m]), float4 global
// and shared loads, two shared stages (one barrier per stage). Requires sizes
// that are multiples of the tiles.
//
// Measured 2026-11-23 on an NVIDIA H100 80GB HBM3 (driver 580.159.04, CUDA
// 13.0), `nvcc -O3 -std=c++17 -arch=sm_90 sgemm_h100_prototype.cu -lcublas`,
// medians of 15 launches, cuBLAS CUBLAS_DEFAULT_MATH in the same run
// (n = 4096: cuBLAS 2.671 ms, 51.5 TFLOP/s):
//   128x256x8,  warp 64x64, thread 8x16, 256 threads: 2.942 ms, 46.7 TFLOP/s, 90.8 % of cuBLAS
//   128x128x8,  warp 64x32, thread 8x8,  256 threads: 3.422 ms, 40.2 TFLOP/s, 78.1 %
//   128x128x16, warp 64x32, thread 8x8,  256 threads: 4.371 ms, 31.4 TFLOP/s, 61.1 %
//   256x128x8,  warp 64x64, thread 16x8, 256 threads: 4.047 ms, 34.0 TFLOP/s, 66.0 %
//   64x128x8,   warp 32x64, thread 8x8,  128 threads: 3.660 ms, 37.6 TFLOP/s, 73.0 %
// n = 2048 (cuBLAS 0.349 ms, 49.3 TFLOP/s): 128x256x8 92.0 %, 128x128x8 80.5 %.
// A second run (same day, same machine) with other shapes, n = 4096:
//   128x256x8, warp 64x64, thread 8x16: 90.9 % again (2.941 ms vs cuBLAS 2.672 ms)
//   128x256x8, warp 32x128, thread 8x16: 89.7 %; warp 64x64, thread 16x8: 87.4 %
//   256x128x8, warp 64x64, thread 8x16: 67.2 % (the tall block is slow here)
//   64x256x8 and 128x128x8 with 128 threads, thread 8x16: 77.3 % and 76.5 %
// Outputs equal cuBLAS's exactly (inputs are multiples of 1/8).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      exit(1);                                       \
    }                                                \
  } while (0)

// C = A * B, row-major, M x K times K x N. Requires multiples of the tiles.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int THREADS>
__global__ void __launch_bounds__(THREADS)
    sgemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
          float* __restrict__ C) {
  constexpr int WARPS_N = BN / WN;
  static_assert(THREADS == (BM / WM) * (BN / WN) * 32, "threads");
  // Each warp: WM x WN, lanes arranged 8 (rows) x 4 (cols) ... simple layout:
  // lane tile: rows lane/ (WN/TN) , cols lane % (WN/TN)
  constexpr int LANES_N = WN / TN;  // lanes across
  constexpr int LANES_M = 32 / LANES_N;
  static_assert(LANES_M * TM == WM, "warp tile rows");
  __shared__ __align__(16) float As[2][BK][BM];  // transposed: As[k][m]
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int lm = lane / LANES_N, ln = lane % LANES_N;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  A += size_t(row0) * K;
  B += col0;
  C += size_t(row0) * N + col0;
  // Loading: A tile BM x BK as float4 along k; B tile BK x BN as float4 along n.
  constexpr int A_F4 = BM * BK / 4, B_F4 = BK * BN / 4;
  float4 ra[(A_F4 + THREADS - 1) / THREADS], rb[(B_F4 + THREADS - 1) / THREADS];
  auto load_global = [&](int k0) {
#pragma unroll
    for (int i = 0; i < (A_F4 + THREADS - 1) / THREADS; ++i) {
      int idx = tid + i * THREADS;
      int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
      ra[i] = *reinterpret_cast<const float4*>(A + size_t(r) * K + k0 + c);
    }
#pragma unroll
    for (int i = 0; i < (B_F4 + THREADS - 1) / THREADS; ++i) {
      int idx = tid + i * THREADS;
      int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
      rb[i] = *reinterpret_cast<const float4*>(B + size_t(k0 + r) * N + c);
    }
  };
  auto store_shared = [&](int s) {
#pragma unroll
    for (int i = 0; i < (A_F4 + THREADS - 1) / THREADS; ++i) {
      int idx = tid + i * THREADS;
      int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
      As[s][c + 0][r] = ra[i].x;
      As[s][c + 1][r] = ra[i].y;
      As[s][c + 2][r] = ra[i].z;
      As[s][c + 3][r] = ra[i].w;
    }
#pragma unroll
    for (int i = 0; i < (B_F4 + THREADS - 1) / THREADS; ++i) {
      int idx = tid + i * THREADS;
      int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
      *reinterpret_cast<float4*>(&Bs[s][r][c]) = rb[i];
    }
  };
  float acc[TM][TN] = {};
  float a[TM], b[TN];
  load_global(0);
  store_shared(0);
  __syncthreads();
  int s = 0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    const bool more = k0 + BK < K;
    if (more) load_global(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      // rows of this thread: split TM into TM/4 groups of 4 spaced by LANES_M*4
#pragma unroll
      for (int g = 0; g < TM / 4; ++g) {
        float4 v =
            *reinterpret_cast<const float4*>(&As[s][kk][wm * WM + g * (WM / (TM / 4)) + lm * 4]);
        a[g * 4 + 0] = v.x;
        a[g * 4 + 1] = v.y;
        a[g * 4 + 2] = v.z;
        a[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < TN / 4; ++g) {
        float4 v =
            *reinterpret_cast<const float4*>(&Bs[s][kk][wn * WN + g * (WN / (TN / 4)) + ln * 4]);
        b[g * 4 + 0] = v.x;
        b[g * 4 + 1] = v.y;
        b[g * 4 + 2] = v.z;
        b[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) {
      store_shared(s ^ 1);
      __syncthreads();
      s ^= 1;
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    int r = wm * WM + (i / 4) * (WM / (TM / 4)) + lm * 4 + (i % 4);
#pragma unroll
    for (int g = 0; g < TN / 4; ++g) {
      int c = wn * WN + g * (WN / (TN / 4)) + ln * 4;
      *reinterpret_cast<float4*>(C + size_t(r) * N + c) =
          make_float4(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
    }
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int THREADS>
float run(int n, const float* A, const float* B, float* C, const float* ref, const char* name,
          float cublas_ms) {
  dim3 grid(n / BN, n / BM), block(THREADS);
  auto k = sgemm<BM, BN, BK, WM, WN, TM, TN, THREADS>;
  for (int i = 0; i < 3; ++i)
    k<<<grid, block>>>(n, n, n, A, B, C);
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int r = 0; r < 15; ++r) {
    cudaEventRecord(e0);
    k<<<grid, block>>>(n, n, n, A, B, C);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  float med = ms[ms.size() / 2];
  std::vector<float> h(size_t(n) * n), hr(size_t(n) * n);
  cudaMemcpy(h.data(), C, h.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(hr.data(), ref, hr.size() * 4, cudaMemcpyDeviceToHost);
  double maxerr = 0;
  for (size_t i = 0; i < h.size(); i += 997)
    maxerr = fmax(maxerr, fabs(h[i] - hr[i]));
  double tf = 2.0 * n * n * double(n) / (med * 1e-3) / 1e12;
  printf("%-28s n=%d  %.3f ms  %.1f TFLOP/s  %.1f%% of cuBLAS  maxerr %.2e\n", name, n, med, tf,
         100.0 * cublas_ms / med, maxerr);
  return med;
}

int main() {
  for (int n : {2048, 4096}) {
    size_t bytes = size_t(n) * n * 4;
    float *A, *B, *C, *R;
    CK(cudaMalloc(&A, bytes));
    CK(cudaMalloc(&B, bytes));
    CK(cudaMalloc(&C, bytes));
    CK(cudaMalloc(&R, bytes));
    std::vector<float> h(size_t(n) * n);
    srand(1);
    for (auto& x : h)
      x = float(rand() % 17 - 8) / 8.0f;
    cudaMemcpy(A, h.data(), bytes, cudaMemcpyHostToDevice);
    for (auto& x : h)
      x = float(rand() % 17 - 8) / 8.0f;
    cudaMemcpy(B, h.data(), bytes, cudaMemcpyHostToDevice);
    cublasHandle_t hd;
    cublasCreate(&hd);
    cublasSetMathMode(hd, CUBLAS_DEFAULT_MATH);
    float one = 1, zero = 0;
    // row-major C = A B  <=> column-major C^T = B^T A^T
    for (int i = 0; i < 3; ++i)
      cublasSgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, R, n);
    cudaDeviceSynchronize();
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> ms;
    for (int r = 0; r < 15; ++r) {
      cudaEventRecord(e0);
      cublasSgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, R, n);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float t;
      cudaEventElapsedTime(&t, e0, e1);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    float cb = ms[ms.size() / 2];
    printf("cuBLAS                       n=%d  %.3f ms  %.1f TFLOP/s\n", n, cb,
           2.0 * n * n * double(n) / (cb * 1e-3) / 1e12);
    run<128, 128, 8, 64, 32, 8, 8, 256>(n, A, B, C, R, "128x128x8 w64x32 t8x8", cb);
    run<128, 128, 16, 64, 32, 8, 8, 256>(n, A, B, C, R, "128x128x16 w64x32 t8x8", cb);
    run<128, 256, 8, 64, 64, 8, 16, 256>(n, A, B, C, R, "128x256x8 w64x64 t8x16", cb);
    run<256, 128, 8, 64, 64, 16, 8, 256>(n, A, B, C, R, "256x128x8 w64x64 t16x8", cb);
    run<128, 128, 8, 32, 64, 8, 8, 256>(n, A, B, C, R, "128x128x8 w32x64 t8x8", cb);
    run<64, 128, 8, 32, 64, 8, 8, 128>(n, A, B, C, R, "64x128x8 w32x64 t8x8", cb);
    cublasDestroy(hd);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(R);
  }
}
