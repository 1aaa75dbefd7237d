// Matrix multiply with a block's rows of A kept in shared memory. A block
// computes a TILE x TILE patch of C; all its threads need the same TILE rows
// of A, so the block reads them from global memory once and every thread then
// reads them from shared memory.
//
// The whole rows must fit: TILE * n floats, sized at launch with `extern
// __shared__`. That is what limits this kernel, and why the tiled kernels walk
// along the rows in tiles instead.
//
// A tutorial version of this kernel indexes the rows with the tile width and
// waits with __syncwarp(). Both are wrong: a row has n elements, not TILE, and
// the threads that load an element and the threads that read it are in
// different warps, so only a barrier of the whole block (__syncthreads) makes
// the loads visible before they are used.
#pragma once

#include "lessons/access.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::matmul_row_shared {

enum : ArraySlot { kA = 1, kB, kC, kRowsA };

// C = A x B, n x n, any n whose TILE rows fit in shared memory.
template <int TILE, class Rec>
TS_DEVICE void matmul_row_shared(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n)
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)

  // The block's TILE rows of A, n floats each: TILE * n * sizeof(float) bytes at launch.
  TS_EXTERN_SHARED(float, rows_mem);
  SharedArray<float, Rec> rowsA(rec, rows_mem, TILE * n, kRowsA);  // (TILE, n)

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * TILE + tx;           // 0 .. TILE * TILE - 1
  const int first_row = blockIdx.y * TILE;  // the block's first row of C (and of A)
  const int row = first_row + ty;           // the row of C this thread computes
  const int col = blockIdx.x * TILE + tx;   // the column of C this thread computes
  const int rows = n - first_row < TILE ? n - first_row : TILE;  // rows that exist

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // Every thread of the block helps, consecutive threads taking consecutive
  // elements (coalesced reads): thread tid loads elements tid, tid + TILE*TILE, ...
  for (int i = tid; i < rows * n; i += TILE * TILE) {
    rowsA[i] = A[first_row * n + i];
  }
  SYNCTHREADS(1);  // the rows come from every warp of the block: all loaded before anyone reads

  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
      sum += rowsA[ty * n + k] * B[k * n + col];  // A from shared memory, B still from global
    }
    C[row * n + col] = sum;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int TILE>
TS_KERNEL_BODY(Body, (matmul_row_shared<TILE>(rec, args)));

struct Lesson {
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return lesson_kit::visit_tile(p.tile, [&]<int T>() { f(Body<T>{}); });
  }

  static LessonSpec descriptor() {
    using namespace matmul_kit;
    return {
        .title = "Rows of A in shared memory",
        .summary =
            "Each block loads its rows of A into shared memory once; B is still read from "
            "global memory.",
        .params = {side("n", "n (matrix size)", "A, B and C are n x n", 12),
                   tile("tile width", "tile width: 2, 4, 8, 16 or 32 (tile x tile threads per block)", 8)},
        .barriers = {{"the rows are loaded by every warp of the block: all in place before anyone reads", kGuardsRaw}},
        .arrays =
            [](const Params& p) { return square_arrays(p, {shared_array("rowsA", p.tile, p.n)}); },
        .geometry =
            [](const Params& p) {
              LaunchGeometry g = tiled_geometry(p.n, p.n, p.tile);
              g.dynamic_shared_bytes = uint32_t(
                  std::min<int64_t>(int64_t(4) * std::max(p.tile, 1) * std::max(p.n, 0), 1u << 31));
              return g;
            },
        .check = [](const Variant&, const Params& p, const DeviceLimits& lim) -> std::optional<std::string> {
          if (auto e = check_side("n", p.n)) return e;
          return check_tile(p.tile, lim);
        },
        .shared_advice =
            [](const Params& p, const DeviceLimits& lim) {
              const int64_t max_n = lim.max_shared_per_block / (int64_t(4) * p.tile);
              return SharedAdvice{
                  " (" + std::to_string(p.tile) + " rows of " + std::to_string(p.n) + " floats)",
                  "use n <= " + std::to_string(max_n) + " with tile " + std::to_string(p.tile) +
                      ", a smaller tile, or a tiled kernel, which needs only two tiles"};
            },
        .counts =
            [](const Params& p) {
              // Every block column loads all n rows of A once (each row: n
              // elements); B comes from global memory in every sum.
              const LaunchGeometry g = tiled_geometry(p.n, p.n, p.tile);
              const uint64_t n = p.n, gx = g.grid.x;
              ExpectedCounts c;
              c.shared_stores = gx * n * n;
              c.global_loads = gx * n * n + n * n * n;
              c.shared_loads = n * n * n;
              c.global_stores = n * n;
              c.barrier_arrivals = g.grid.count() * g.block.count();
              return c;
            },
        .reference = square_reference,
        .sum_length = square_sum_length,
        .with_warps = tile_with_warps,
        .loads_per_output = row_loads,
        .metric = PerfMetric::Flops,
        .flops = square_flops,
        .tests = {.larger = Params{.n = 16, .tile = 8}, .padded = Params{.n = 20, .tile = 8}},
    };
  }
};

}  // namespace ts::lessons::matmul_row_shared
