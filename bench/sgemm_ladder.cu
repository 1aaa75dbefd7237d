// The SGEMM ladder's last three steps against cuBLAS, in one run: the lessons
// sgemm.double_buffer, sgemm.hopper and sgemm.sized at their tuned
// configurations (the last of their tile choices; sgemm.sized picks its block
// tile by n there), instantiated with PlainRec through the same headers and
// the same launch (engine/cuda/launch.cuh) as the performance panel, and
// cuBLAS SGEMM in CUBLAS_DEFAULT_MATH (FP32, no TF32).
// scripts/sgemm_ladder.sh builds and runs it.
//
//   sgemm_ladder [--sizes 1024,2048,4096] [--reps 15]
//
// Method, as the panel's sweep (engine/cuda/perf_cuda.cu): 2 warm-ups, then
// `reps` timed launches, each after a write of twice the L2 size (so every
// launch starts with a cold L2), CUDA events around the launch alone; the
// median. Inputs are integers in [-4, 4] (every partial sum exact in float),
// so each output must equal cuBLAS's exactly. Exit status: 0 when every
// output matched, 1 when one did not (or a CUDA error), 2 usage, 3 no GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/event_timer.cuh"
#include "engine/catalogue.hpp"
#include "engine/cuda/launch.cuh"
#include "engine/cuda/recorders.cuh"
#include "lessons/all_lessons.hpp"  // the registry entries (ids) of the lessons timed here

namespace {

struct Options {
  std::vector<int> sizes{1024, 2048, 4096};
  int reps = 15, warmup = 2;
};

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    v.push_back(std::atoi(p));
    const char* c = std::strchr(p, ',');
    if (!c) break;
    p = c + 1;
  }
  return v;
}

// One lesson at its tuned configuration: the last tile choice.
struct Step {
  const ts::LessonInfo* v;
  int tile;
  // Launches the lesson's PlainRec kernel on A, B -> C for p, as the panel does
  // (after the shared-memory opt-in, outside the timing).
  cudaError_t (*prepare)(const ts::Params&, const ts::LaunchGeometry&);
  cudaError_t (*launch)(const ts::Params&, const ts::LaunchGeometry&, const ts::KernelArgs&);
  // Registers and local bytes per thread (spills, local arrays; 0 when everything
  // fits in registers) of the kernel that runs for p.
  cudaFuncAttributes (*attributes)(const ts::Params&);
};

template <class Body>
cudaFuncAttributes attributes_of() {
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, ts::launch_body<Body, ts::PlainRec>) != cudaSuccess)
    fa.numRegs = -1;
  return fa;
}

// Lesson: the lesson's struct, whose visit() picks the Body the parameters
// select (every tile choice and, for sgemm.sized, the shape n selects), each
// instantiated here with PlainRec. Entry: the lesson's registry entry.
template <class Entry, class Lesson>
Step tuned_step(int tile) {
  Step s{ts::find_lesson(Entry::id), tile, nullptr, nullptr, nullptr};
  s.prepare = [](const ts::Params& p, const ts::LaunchGeometry& g) {
    cudaError_t e = cudaErrorInvalidValue;
    Lesson::visit(p, [&](auto body) { e = ts::prepare_launch<decltype(body), ts::PlainRec>(g); });
    return e;
  };
  s.launch = [](const ts::Params& p, const ts::LaunchGeometry& g, const ts::KernelArgs& args) {
    cudaError_t e = cudaErrorInvalidValue;
    Lesson::visit(p, [&](auto body) {
      e = ts::launch_prepared<decltype(body), ts::PlainRec>(g, ts::PlainRec{}, args);
    });
    return e;
  };
  s.attributes = [](const ts::Params& p) {
    cudaFuncAttributes fa{};
    fa.numRegs = -1;
    Lesson::visit(p, [&](auto body) { fa = attributes_of<decltype(body)>(); });
    return fa;
  };
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc)
      o.sizes = parse_list(argv[++i]);
    else if (a == "--reps" && i + 1 < argc)
      o.reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--sizes 1024,2048,4096] [--reps 15]\n", argv[0]);
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("sgemm_ladder: skipped: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  namespace db = ts::lessons::sgemm_double_buffer;
  namespace hop = ts::lessons::sgemm_hopper;
  namespace sized = ts::lessons::sgemm_sized;
  const Step steps[] = {tuned_step<db::Entry, db::Lesson>(128),
                        tuned_step<hop::Entry, hop::Lesson>(128),
                        tuned_step<sized::Entry, sized::Lesson>(128)};
  for (const Step& s : steps)
    if (s.v->tile_choices.back() != s.tile) {
      std::fprintf(stderr, "%s: the tuned tile is now %d, not %d: update bench/sgemm_ladder.cu\n",
                   s.v->id, s.v->tile_choices.back(), s.tile);
      return 1;
    }
  // The device's limits: shared memory with the opt-in the launch makes.
  ts::DeviceLimits lim;
  lim.max_threads_per_block = prop.maxThreadsPerBlock;
  lim.max_shared_per_block = int(prop.sharedMemPerBlockOptin);
  lim.global_memory_bytes = prop.totalGlobalMem;
  std::printf(
      "sgemm_ladder on %s (sm_%d%d, %d SMs): lessons (PlainRec) vs cuBLAS CUBLAS_DEFAULT_MATH"
      " (FP32), median of %d launches, L2 flushed before each\n",
      prop.name, prop.major, prop.minor, prop.multiProcessorCount, o.reps);
  for (const Step& s : steps)
    for (int n : o.sizes) {
      const ts::Params p{.n = n, .tile = s.tile};
      if (ts::check_lesson_limits(*s.v, p, lim)) continue;
      const ts::LaunchGeometry g = s.v->geometry(p);
      const cudaFuncAttributes fa = s.attributes(p);
      std::printf(
          "  %-20s step %2d, tile %d, n %5d: %u x %u blocks of %u threads, %u B shared, %d "
          "registers, %zu B local\n",
          s.v->id, s.v->ladder_step, s.tile, n, g.grid.x, g.grid.y, unsigned(g.block.count()),
          g.static_shared_bytes + g.dynamic_shared_bytes, fa.numRegs, fa.localSizeBytes);
    }

  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  EventTimer timer;
  bool all_ok = true;
  std::printf("%-22s %6s %10s %21s %9s %10s  %s\n", "kernel", "n", "ms", "[min max]", "TFLOP/s",
              "% cuBLAS", "check");

  for (int n : o.sizes) {
    const size_t elems = size_t(n) * n;
    std::vector<float> a(elems), b(elems), ref(elems), got(elems);
    uint64_t r = 0x9e3779b97f4a7c15ull ^ uint64_t(n);
    auto next = [&] {
      r ^= r << 13;
      r ^= r >> 7;
      r ^= r << 17;
      return float(int(r % 9) - 4);
    };
    for (auto& x : a)
      x = next();
    for (auto& x : b)
      x = next();
    float *A, *B, *C, *R;
    CHECK(cudaMalloc(&A, elems * 4));
    CHECK(cudaMalloc(&B, elems * 4));
    CHECK(cudaMalloc(&C, elems * 4));
    CHECK(cudaMalloc(&R, elems * 4));
    CHECK(cudaMemcpy(A, a.data(), elems * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, b.data(), elems * 4, cudaMemcpyHostToDevice));
    const float one = 1, zero = 0;
    auto gemm = [&] {
      // Row-major C = A B is column-major C^T = B^T A^T.
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, R, n);
    };
    gemm();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(ref.data(), R, elems * 4, cudaMemcpyDeviceToHost));
    const double flops = 2.0 * n * double(n) * n;
    const Times cublas = timer.time(gemm, o.warmup, o.reps);
    const double cublas_ms = cublas.median;
    auto row = [&](const char* name, const Times& t, const char* check) {
      std::printf("%-22s %6d %10.4f [%9.4f %9.4f] %9.2f %9.1f%%  %s\n", name, n, t.median, t.min,
                  t.max, flops / (t.median * 1e-3) / 1e12, 100.0 * cublas_ms / t.median, check);
    };
    row("cublas", cublas, "reference");

    for (const Step& s : steps) {
      const ts::Params p{.n = n, .tile = s.tile};
      if (auto e = ts::check_lesson_limits(*s.v, p, lim)) {
        std::printf("%-22s %6d  refused: %s\n", s.v->id, n, e->c_str());
        all_ok = false;
        continue;
      }
      const ts::LaunchGeometry g = s.v->geometry(p);
      ts::KernelArgs args;
      args.m = args.k = args.n = n;
      args.tile = s.tile;
      args.data[1] = A, args.data[2] = B, args.data[3] = C;
      args.count[1] = args.count[2] = args.count[3] = int(elems);
      CHECK(s.prepare(p, g));
      CHECK(cudaMemset(C, 0xFF, elems * 4));  // NaN: a cell the kernel skips cannot match
      CHECK(s.launch(p, g, args));
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(got.data(), C, elems * 4, cudaMemcpyDeviceToHost));
      size_t wrong = 0;
      for (size_t i = 0; i < elems; ++i)
        wrong += !(got[i] == ref[i]);  // integer sums: exact
      const Times t = timer.time([&] { CHECK(s.launch(p, g, args)); }, o.warmup, o.reps);
      char check[64];
      if (wrong)
        std::snprintf(check, sizeof check, "WRONG (%zu cells differ)", wrong);
      else
        std::snprintf(check, sizeof check, "ok");
      all_ok = all_ok && wrong == 0;
      row(s.v->id, t, check);
    }
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
    CHECK(cudaFree(R));
  }
  cublasDestroy(h);
  std::printf("%s\n", all_ok ? "all outputs equal cuBLAS's" : "SOME OUTPUTS ARE WRONG");
  return all_ok ? 0 : 1;
}
