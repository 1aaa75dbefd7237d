// Naive matrix multiply in one block: every thread computes one element of C
// by walking a row of A and a column of B in global memory. Nothing is
// shared, so each element of A and of B is read from global memory n times
// (once by every thread that needs it): 2n loads per element of C.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_naive_one_block {

enum : ArraySlot { kA = 1, kB, kC };

// One block of n x n threads, one thread per element of C. A block may hold at
// most 1024 threads, so this only works up to 32 x 32: a bigger matrix needs a
// grid of blocks (the next lesson).
template <class Rec>
TS_DEVICE void matmul_naive_one_block(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  const int row = threadIdx.y;  // the thread's position in its block is its cell of C
  const int col = threadIdx.x;

  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += A[row * n + k] * B[k * n + col];  // two global loads per step
    }
    C[row * n + col] = sum;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, matmul_naive_one_block(rec, args));

// One block holds at most 32 x 32 threads: beyond that, the grid lesson.
inline std::optional<std::string> check_one_block(const Params& p, const DeviceLimits& lim) {
  if (auto e = lesson_kit::check_side("n", p.n)) return e;
  if (int64_t(p.n) * p.n <= lim.max_threads_per_block) return std::nullopt;
  int side = 1;
  while ((side + 1) * (side + 1) <= lim.max_threads_per_block)
    ++side;
  return "n = " + std::to_string(p.n) + ": one block of " + std::to_string(p.n) + " x " +
         std::to_string(p.n) + " = " + std::to_string(int64_t(p.n) * p.n) +
         " threads exceeds the " + std::to_string(lim.max_threads_per_block) +
         " threads a block may have, so one block computes at most " + std::to_string(side) +
         " x " + std::to_string(side) +
         "; a bigger matrix needs a grid of blocks (matmul.naive_grid)";
}

struct Lesson {
  static LessonSpec descriptor() {
    using namespace matmul_kit;
    return naive(
        "Naive, one block",
        "One thread per element of C in a single block: fine up to 32 x 32, then a grid is "
        "needed.",
        {square_n(6)},
        [](const Params& p) {
          LaunchGeometry g;
          g.block = {at_least_1(p.n), at_least_1(p.n), 1};
          return g;
        },
        check_params<check_one_block>, Params{.n = 6});
  }
};

}  // namespace ts::lessons::matmul_naive_one_block
