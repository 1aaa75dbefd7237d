// scan_lookback_h200_experiment.cu: how the single-pass scan's look-back was
// chosen (issue 30, part 4; numbers in docs/measurements.md, 2026-11-29). A
// plain CUDA copy of scan.decoupled_lookback's kernel (a warp scans 128
// consecutive floats per float4 load; the block's tile published as a total,
// then as an inclusive prefix after looking back K x blockDim tiles), with
// template knobs: ITEMS per thread, the reach K, and VARIANT, the flag
// protocol: 0 the lesson's (volatile poll, __threadfence, __ldcg, per tile),
// 1 ld.relaxed.gpu polls, 2 every wait first then one fence and the loads,
// 3 ld.acquire.gpu polls without a fence, 4 = 3 with st.release.gpu flags,
// 5 = 2 with st.release.gpu flags. Beside CUB's DeviceScan::InclusiveSum and
// a device-to-device copy, 30 timed launches each (median), 256 MiB written
// before each (L2 flushed); every output checked, also after the timed
// launches (the flags carry the launch's number: no reset between launches).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 scan_lookback_h200_experiment.cu -o lb && ./lb
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_scan.cuh>
#include <vector>

#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      exit(1);                                       \
    }                                                \
  } while (0)

__device__ __forceinline__ int ld_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ int ld_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(int* p, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
template <int ITEMS, int K, int VARIANT>
__global__ void scan_lb(const float* __restrict__ in, float* out, float* sums, int* ready,
                        int* epoch, int length) {
  __shared__ float warp_sum[2][32];
  const int B = blockDim.x;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, warps = B / 32;
  const int tiles = gridDim.x, tile = blockIdx.x;
  const int launch = epoch[0];
  constexpr int G = ITEMS / 4;                             // float4 groups per lane
  const int chunk = tile * B * ITEMS + warp * 32 * ITEMS;  // this warp's elements
  float4 r[G];
  float carry = 0.0f;
#pragma unroll
  for (int v = 0; v < G; ++v) {
    const int i = chunk + 128 * v + 4 * lane;
    float4 x;
    if (i + 4 <= length)
      x = __ldg(reinterpret_cast<const float4*>(in + i));
    else {
      x.x = i < length ? in[i] : 0.f;
      x.y = i + 1 < length ? in[i + 1] : 0.f;
      x.z = i + 2 < length ? in[i + 2] : 0.f;
      x.w = 0.f;
    }
    x.y += x.x;
    x.z += x.y;
    x.w += x.z;
    float s = x.w;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const float up = __shfl_up_sync(0xffffffffu, s, d);
      if (lane >= d) s += up;
    }
    float excl = __shfl_up_sync(0xffffffffu, s, 1);
    if (lane == 0) excl = 0.0f;
    const float gt = __shfl_sync(0xffffffffu, s, 31);
    const float off = carry + excl;
    r[v] = make_float4(x.x + off, x.y + off, x.z + off, x.w + off);
    carry += gt;
  }
  if (lane == 0) warp_sum[0][warp] = carry;
  __syncthreads();
  float before = 0.0f, total = 0.0f;
  for (int w = 0; w < warps; ++w) {
    if (w == warp) before = total;
    total += warp_sum[0][w];
  }
  if (tid == 0) {
    sums[tile] = total;
    if (VARIANT >= 4)
      st_release(ready + tile, launch + 1);
    else {
      __threadfence();
      *(volatile int*)(ready + tile) = launch + 1;
    }
  }
  float mine = 0.0f;
  // 0 volatile+fence each; 1 relaxed.gpu+fence each; 2 relaxed.gpu waits, one
  // fence, loads; 3 acquire.gpu each, no fence; 4 = 3 + release stores; 5 = 2 + release stores
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const int q = tile - K * B + j * B + tid;
    if (q >= 0) {
      const int at = (tid == 0 && j == 0 ? tiles : 0) + q;
      if (VARIANT == 0) {
        while (*(volatile int*)(ready + at) < launch + 1) {
        }
        __threadfence();
        mine += __ldcg(sums + at);
      } else if (VARIANT == 1) {
        while (ld_relaxed(ready + at) < launch + 1) {
        }
        __threadfence();
        mine += __ldcg(sums + at);
      } else if (VARIANT == 2 || VARIANT == 5) {
        while (ld_relaxed(ready + at) < launch + 1) {
        }
      } else {
        while (ld_acquire(ready + at) < launch + 1) {
        }
        mine += __ldcg(sums + at);
      }
    }
  }
  if (VARIANT == 2 || VARIANT == 5) {
    __threadfence();
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const int q = tile - K * B + j * B + tid;
      if (q >= 0) mine += __ldcg(sums + (tid == 0 && j == 0 ? tiles : 0) + q);
    }
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, d);
  if (lane == 0) warp_sum[1][warp] = mine;
  __syncthreads();
  float prefix = 0.0f;
  for (int w = 0; w < warps; ++w)
    prefix += warp_sum[1][w];
  if (tid == 0) {
    sums[tiles + tile] = prefix + total;
    if (VARIANT >= 4)
      st_release(ready + tiles + tile, launch + 1);
    else {
      __threadfence();
      *(volatile int*)(ready + tiles + tile) = launch + 1;
    }
    if (tile == tiles - 1) epoch[0] = launch + 1;
  }
  const float run = prefix + before;
#pragma unroll
  for (int v = 0; v < G; ++v) {
    const int i = chunk + 128 * v + 4 * lane;
    const float4 o = make_float4(r[v].x + run, r[v].y + run, r[v].z + run, r[v].w + run);
    if (i + 4 <= length)
      *reinterpret_cast<float4*>(out + i) = o;
    else {
      if (i < length) out[i] = o.x;
      if (i + 1 < length) out[i + 1] = o.y;
      if (i + 2 < length) out[i + 2] = o.z;
    }
  }
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    cudaEventCreate(&a);
    cudaEventCreate(&b);
  }
};

template <class F>
float time_it(F&& f, void* flush, size_t flush_bytes, int reps = 30) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    cudaMemsetAsync(flush, i & 0xff, flush_bytes);
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float x;
    cudaEventElapsedTime(&x, a, b);
    ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <int ITEMS, int K, int VARIANT>
void run_lb(int B, int n, const float* din, float* dout, float* sums, int* ready, int* epoch,
            const std::vector<double>& want, void* flush, size_t fb, double copy_gbps) {
  const int tiles = (n + B * ITEMS - 1) / (B * ITEMS);
  CK(cudaMemset(ready, 0, 2 * 4 * size_t(tiles)));
  CK(cudaMemset(epoch, 0, 4));
  CK(cudaMemset(dout, 0xff, 4 * size_t(n)));
  auto f = [&] { scan_lb<ITEMS, K, VARIANT><<<tiles, B>>>(din, dout, sums, ready, epoch, n); };
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> got(n);
  CK(cudaMemcpy(got.data(), dout, 4 * size_t(n), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (int i = 0; i < n; ++i)
    bad += double(got[i]) != want[i];
  const float ms = time_it(f, flush, fb);
  // again after many launches: the epoch must keep it right
  CK(cudaMemcpy(got.data(), dout, 4 * size_t(n), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    bad += double(got[i]) != want[i];
  const double gbps = 8.0 * n / (ms * 1e-3) / 1e9;
  printf("lb K=%d V=%d B=%4d items=%2d n=%9d  %.4f ms  %7.1f GB/s  %5.1f%% of copy  wrong %zu\n", K,
         VARIANT, B, ITEMS, n, ms, gbps, 100 * gbps / copy_gbps, bad);
}

int main() {
  const size_t flush_bytes = size_t(256) << 20;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  // copy
  const size_t cb = size_t(256) << 20;
  void *cs, *cd;
  CK(cudaMalloc(&cs, cb));
  CK(cudaMalloc(&cd, cb));
  cudaMemset(cs, 0, cb);
  const float cms =
      time_it([&] { cudaMemcpyAsync(cd, cs, cb, cudaMemcpyDeviceToDevice); }, flush, flush_bytes);
  const double copy_gbps = 2.0 * cb / (cms * 1e-3) / 1e9;
  printf("copy %.1f GB/s\n", copy_gbps);
  for (int n : {1 << 26, 1 << 24}) {
    std::vector<float> h(n);
    unsigned s = 12345;
    for (int i = 0; i < n; ++i) {
      s = s * 1664525u + 1013904223u;
      h[i] = float(int((s >> 16) % 9) - 4);
    }
    std::vector<double> want(n);
    double acc = 0;
    for (int i = 0; i < n; ++i)
      want[i] = acc += h[i];
    float *din, *dout, *sums;
    int *ready, *epoch;
    CK(cudaMalloc(&din, 4 * size_t(n)));
    CK(cudaMalloc(&dout, 4 * size_t(n)));
    CK(cudaMalloc(&sums, 4 * size_t(n)));
    CK(cudaMalloc(&ready, 4 * size_t(n)));
    CK(cudaMalloc(&epoch, 4));
    CK(cudaMemcpy(din, h.data(), 4 * size_t(n), cudaMemcpyHostToDevice));
    // CUB
    size_t tb = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tb, din, dout, n);
    void* tmp;
    CK(cudaMalloc(&tmp, tb));
    CK(cudaMemset(dout, 0xff, 4 * size_t(n)));
    cub::DeviceScan::InclusiveSum(tmp, tb, din, dout, n);
    CK(cudaDeviceSynchronize());
    std::vector<float> got(n);
    CK(cudaMemcpy(got.data(), dout, 4 * size_t(n), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int i = 0; i < n; ++i)
      bad += double(got[i]) != want[i];
    const float ms =
        time_it([&] { cub::DeviceScan::InclusiveSum(tmp, tb, din, dout, n); }, flush, flush_bytes);
    const double g = 8.0 * n / (ms * 1e-3) / 1e9;
    printf("cub n=%9d %.4f ms %7.1f GB/s %5.1f%% of copy wrong %zu\n", n, ms, g,
           100 * g / copy_gbps, bad);
    for (int B : {256, 512}) {
      run_lb<16, 4, 0>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
      run_lb<16, 4, 1>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
      run_lb<16, 4, 2>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
      run_lb<16, 4, 3>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
      run_lb<16, 4, 4>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
      run_lb<16, 4, 5>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
      run_lb<16, 2, 5>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
      run_lb<16, 8, 5>(B, n, din, dout, sums, ready, epoch, want, flush, flush_bytes, copy_gbps);
    }
    cudaFree(din), cudaFree(dout), cudaFree(sums), cudaFree(ready), cudaFree(epoch), cudaFree(tmp);
  }
}
