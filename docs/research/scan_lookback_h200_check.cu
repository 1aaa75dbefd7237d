// scan_lookback_h200_check.cu: scan.decoupled_lookback's own header on the
// GPU without the whole build (issue 30, part 4): the kernel through
// engine/cuda/launch.cuh with the real recorders. Traced (DeviceTraceRec):
// every event kind counted against the lesson's closed form, output checked;
// untraced (PlainRec): outputs at odd sizes, again after 6 launches on the
// same memory; then the timing beside CUB's DeviceScan::InclusiveSum and a
// copy (30 launches, median, L2 flushed). From the repository root:
//
//   nvcc -std=c++20 -O3 -arch=sm_90 -lineinfo --expt-relaxed-constexpr -I. \
//     docs/research/scan_lookback_h200_check.cu -o check && ./check
//   compute-sanitizer --tool racecheck --racecheck-report all ./check race 1   (barrier 2 removed)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>
#include "engine/cuda/launch.cuh"
#include "engine/cuda/recorders.cuh"
#include "engine/cuda/trace_recorder.cuh"
#include "lessons/scan_decoupled_lookback.hpp"
using namespace ts;
namespace L = ts::lessons::scan_decoupled_lookback;
namespace K = ts::lessons::scan_single_pass_kit;
#define CK(...)                                                 \
  do {                                                          \
    cudaError_t e_ = (__VA_ARGS__);                             \
    if (e_ != cudaSuccess) {                                    \
      printf("%s: %s\n", #__VA_ARGS__, cudaGetErrorString(e_)); \
      exit(1);                                                  \
    }                                                           \
  } while (0)

struct Run {
  Params p;
  std::vector<float> x;
  std::vector<double> want;
  float *in, *out, *sums;
  int *ready, *epoch;
  KernelArgs a;
  LaunchGeometry g;
  Run(int n, int b) {
    p.length = n, p.block = b;
    x.resize(n);
    unsigned s = 7;
    for (auto& v : x)
      s = s * 1664525u + 1013904223u, v = float(int((s >> 16) % 9) - 4);
    double acc = 0;
    for (float v : x)
      want.push_back(acc += v);
    const int T = int(K::tile_count(p));
    CK(cudaMalloc(&in, 4 * size_t(n)));
    CK(cudaMalloc(&out, 4 * size_t(n)));
    CK(cudaMalloc(&sums, 8 * size_t(T)));
    CK(cudaMalloc(&ready, 8 * size_t(T)));
    CK(cudaMalloc(&epoch, 4));
    CK(cudaMemcpy(in, x.data(), 4 * size_t(n), cudaMemcpyHostToDevice));
    CK(cudaMemset(ready, 0, 8 * size_t(T)));
    CK(cudaMemset(epoch, 0, 4));
    CK(cudaMemset(sums, 0, 8 * size_t(T)));
    a.length = n, a.block = b;
    a.data[L::kIn] = in, a.count[L::kIn] = n;
    a.data[L::kOut] = out, a.count[L::kOut] = n;
    a.data[L::kSums] = sums, a.count[L::kSums] = 2 * T;
    a.data[L::kReady] = ready, a.count[L::kReady] = 2 * T;
    a.data[L::kEpoch] = epoch, a.count[L::kEpoch] = 1;
    g = K::geometry(p);
  }
  size_t wrong() {
    std::vector<float> got(x.size());
    CK(cudaMemcpy(got.data(), out, 4 * got.size(), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      bad += double(got[i]) != want[i];
    return bad;
  }
};

template <class F>
float time_it(F&& f, void* flush, size_t fb) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < 30; ++i) {
    cudaMemsetAsync(flush, i & 0xff, fb);
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float t;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void traced(int n, int b) {
  Run r(n, b);
  const ExpectedCounts want = K::counts(r.p);
  const unsigned long long cap =
      (want.total() + 64ull * r.g.grid.x * r.g.block.x + 31) / 32 * 32 * 2;
  DeviceTraceRec rec;
  CK(cudaMalloc(&rec.events, cap * sizeof(Event)));
  CK(cudaMemset(rec.events, 0xFF, cap * sizeof(Event)));
  unsigned long long* ctr;
  CK(cudaMalloc(&ctr, 16));
  CK(cudaMemset(ctr, 0, 16));
  rec.cursor = ctr, rec.dropped = ctr + 1, rec.capacity = cap, rec.chunk = 32;
  rec.barrier_mask = BarrierSet::all();
  CK(launch_lesson<L::Body, DeviceTraceRec>(r.g, rec, r.a));
  CK(cudaDeviceSynchronize());
  std::vector<uint64_t> w(cap * kEventWords);
  CK(cudaMemcpy(w.data(), rec.events, w.size() * 8, cudaMemcpyDeviceToHost));
  uint64_t n_kind[16] = {};
  for (unsigned long long slot = 0; slot < cap; ++slot) {
    const uint64_t w4 =
        w[(slot / kSlotBlock) * (kSlotBlock * kEventWords) + 4 * kSlotBlock + slot % kSlotBlock];
    const unsigned kind = unsigned((w4 >> 32) & 0xFF);
    if (kind < 16) ++n_kind[kind];
  }
  auto k = [&](EventKind e) { return (unsigned long long)n_kind[int(e)]; };
  printf(
      "traced n=%d B=%d wrong=%zu | GL %llu/%llu GS %llu/%llu SL %llu/%llu SS %llu/%llu BA "
      "%llu/%llu SH %llu/%llu GA %llu/%llu\n",
      n, b, r.wrong(), k(EventKind::GlobalLoad), (unsigned long long)want.global_loads,
      k(EventKind::GlobalStore), (unsigned long long)want.global_stores, k(EventKind::SharedLoad),
      (unsigned long long)want.shared_loads, k(EventKind::SharedStore),
      (unsigned long long)want.shared_stores, k(EventKind::BarrierArrive),
      (unsigned long long)want.barrier_arrivals, k(EventKind::WarpShuffle),
      (unsigned long long)want.warp_shuffles, k(EventKind::GlobalAtomic), 0ull);
}

int main(int argc, char** argv) {
  // `check race MASK`: one untraced launch at the defaults (4500, blocks of
  // 64) keeping the barriers in MASK, for compute-sanitizer racecheck.
  if (argc == 3 && std::string(argv[1]) == "race") {
    Run r(4500, 64);
    MaskRec rec;
    rec.barrier_mask = BarrierSet(unsigned(std::atoi(argv[2])));
    CK(launch_lesson<L::Body, MaskRec>(r.g, rec, r.a));
    CK(cudaDeviceSynchronize());
    std::printf("race mask %s: wrong %zu\n", argv[2], r.wrong());
    return 0;
  }
  traced(4500, 64);
  traced(70001, 32);
  traced(20001, 96);
  traced(100000, 1024);
  for (auto [n, b] :
       {std::pair{1, 32}, {7, 32}, {4500, 64}, {1000003, 256}, {1000003, 512}, {1 << 20, 1024}}) {
    Run r(n, b);
    CK(launch_lesson<L::Body, PlainRec>(r.g, PlainRec{}, r.a));
    CK(cudaDeviceSynchronize());
    size_t w1 = r.wrong();
    for (int i = 0; i < 5; ++i)
      CK(launch_lesson<L::Body, PlainRec>(r.g, PlainRec{}, r.a));
    CK(cudaDeviceSynchronize());
    printf("plain n=%d B=%d wrong %zu, after 6 launches %zu\n", n, b, w1, r.wrong());
  }
  const size_t fb = size_t(256) << 20;
  void* flush;
  CK(cudaMalloc(&flush, fb));
  void *cs, *cd;
  CK(cudaMalloc(&cs, fb));
  CK(cudaMalloc(&cd, fb));
  cudaMemset(cs, 0, fb);
  const float cms =
      time_it([&] { cudaMemcpyAsync(cd, cs, fb, cudaMemcpyDeviceToDevice); }, flush, fb);
  const double copy = 2.0 * fb / (cms * 1e-3) / 1e9;
  printf("copy %.1f GB/s\n", copy);
  for (int n : {1 << 24, 1 << 26}) {
    Run r(n, 512);
    size_t tb = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tb, r.in, r.out, n);
    void* tmp;
    CK(cudaMalloc(&tmp, tb));
    const float cub_ms =
        time_it([&] { cub::DeviceScan::InclusiveSum(tmp, tb, r.in, r.out, n); }, flush, fb);
    const size_t cw = r.wrong();
    for (int b : {256, 512, 1024}) {
      Run q(n, b);
      const float ms =
          time_it([&] { launch_prepared<L::Body, PlainRec>(q.g, PlainRec{}, q.a); }, flush, fb);
      printf(
          "n=%d lesson B=%d %.4f ms %.1f GB/s %.1f%% of copy (wrong %zu) | cub %.4f ms %.1f GB/s "
          "%.1f%% (wrong %zu)\n",
          n, b, ms, 8.0 * n / (ms * 1e-3) / 1e9, 100 * 8.0 * n / (ms * 1e-3) / 1e9 / copy,
          q.wrong(), cub_ms, 8.0 * n / (cub_ms * 1e-3) / 1e9,
          100 * 8.0 * n / (cub_ms * 1e-3) / 1e9 / copy, cw);
    }
  }
}
