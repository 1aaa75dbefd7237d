// CUDA-event timing for the standalone harnesses (bench/textbook_sgemm.cu,
// bench/family_twins.cu). No TileScope code: these harnesses are the
// independent side of a comparison.
//
// Method, the same as the performance panel's (written separately): warm-up
// launches, then `reps` launches, each after a write of twice the L2 size so
// that no launch starts with a warm cache; median with min and max.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

struct Times {
  double median = 0, min = 0, max = 0;
};

struct EventTimer {
  cudaEvent_t a, b;
  void* flush = nullptr;
  size_t flush_bytes = 0;
  EventTimer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    flush_bytes = size_t(l2) * 2;
    if (flush_bytes) CHECK(cudaMalloc(&flush, flush_bytes));
  }
  ~EventTimer() {
    if (flush) cudaFree(flush);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // `launch` enqueues one launch on the default stream.
  template <class F>
  Times time(F&& launch, int warmup, int reps) {
    for (int i = 0; i < warmup; ++i)
      launch();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    std::vector<float> ms;
    for (int i = 0; i < reps; ++i) {
      if (flush) CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes));
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      CHECK(cudaGetLastError());
      float x;
      CHECK(cudaEventElapsedTime(&x, a, b));
      ms.push_back(x);
    }
    std::sort(ms.begin(), ms.end());
    const size_t k = ms.size();
    Times t;
    t.median = k % 2 ? ms[k / 2] : 0.5 * (ms[k / 2 - 1] + ms[k / 2]);
    t.min = ms.front();
    t.max = ms.back();
    return t;
  }
};
