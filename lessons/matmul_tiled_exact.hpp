// Tiled matrix multiply, the textbook loop: each block loads a TILE x TILE
// tile of A and of B into shared memory, multiplies them, and moves on along
// the shared dimension. Every element of A and B is read from global memory
// n / TILE times instead of n times.
//
// Square n x n matrices, n a multiple of TILE -- and nothing checks that it
// is. The tile loop runs n / TILE times (rounding down) and no index is
// checked, as in many tutorials. When n is not a multiple of TILE the last,
// partial tile is never added (every sum comes out short), and the threads of
// the blocks that hang over the edge read past the end of a row (into the next
// row) or past the end of the matrix, and write C where they should not. The
// trace marks each out-of-range access; the next lesson is the fix.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_tiled_exact {

enum : ArraySlot { kA = 1, kB, kC, kTileA, kTileB };

template <int TILE, class Rec>
TS_DEVICE void matmul_tiled_exact(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, kTileA);
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, kTileB);

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;

  float sum = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {             // rounds down: a partial last tile is dropped
    tileA[ty][tx] = A[row * n + t * TILE + tx];    // no check: row may be past the last row
    tileB[ty][tx] = B[(t * TILE + ty) * n + col];  // no check: col may be past the last column
    SYNCTHREADS(1);                                // both tiles complete before anyone reads them

    for (int kk = 0; kk < TILE; ++kk) {
      sum += tileA[ty][kk] * tileB[kk][tx];
      DELAY_POINT(kk == TILE / 2);
    }
    SYNCTHREADS(2);  // everyone done with these tiles before the next ones overwrite them
  }
  C[row * n + col] = sum;  // no check: threads outside C write into other cells
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int TILE>
TS_KERNEL_BODY(Body, (matmul_tiled_exact<TILE>(rec, args)));

// No checks: every thread loads and stores, n / TILE tiles (rounded down).
inline ExpectedCounts exact_counts(const Params& p) {
  const LaunchGeometry g = matmul_kit::tiled_geometry(p.n, p.n, p.tile);
  const uint64_t threads = g.grid.count() * g.block.count();
  const uint64_t t = uint64_t(p.tile), tiles = uint64_t(p.n) / t;
  ExpectedCounts c;
  c.global_loads = threads * tiles * 2;
  c.global_stores = threads;
  c.shared_stores = threads * tiles * 2;
  c.shared_loads = threads * tiles * 2 * t;
  c.barrier_arrivals = threads * tiles * 2;
  return c;
}

// Threads of the overhanging blocks index up to (R - 1) * n + R - 1 with
// R = ceil(n / T) * T: an R x R allocation holds every such access.
inline uint64_t overhang_allocation(const Params& p, ArraySlot slot) {
  const uint64_t count = uint64_t(p.n) * uint64_t(p.n);
  if (slot > kC || p.tile <= 0 || p.n <= 0) return count;
  const uint64_t r = lesson_kit::ceil_div(p.n, p.tile) * p.tile;
  return std::max(count, r * r);
}

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return lesson_kit::visit_tile(p.tile, [&]<int T>() { f(Body<T>{}); });
  }

  static LessonSpec descriptor() {
    using namespace matmul_kit;
    LessonSpec s = tiled<Sides::Square>(
        "Tiled, exact multiples only",
        "The textbook tile loop with no bounds checks: right when n is a multiple of the tile, "
        "wrong (and out of range) when it is not.",
        {{"both tiles complete before anyone reads them", kGuardsRaw},
         {"everyone done with these tiles before the next ones overwrite them", kGuardsWar}});
    s.counts = exact_counts;
    s.allocation = overhang_allocation;
    s.loads_per_output = tiled_exact_loads;
    s.tests = {.wrong_by_design = [](const Params& p) { return p.n % p.tile != 0; },
               .larger = Params{.n = 32, .tile = 8}};
    return s;
  }
};

}  // namespace ts::lessons::matmul_tiled_exact
