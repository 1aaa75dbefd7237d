// What the matrix-multiply lessons share: their arrays, the CPU reference,
// the closed-form counts of the tiled loop, and the checks of a tile width.
// C (m x n) = A (m x k) x B (k x n), row-major; square lessons use n for all three.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"

namespace ts::lessons::matmul_kit {

using namespace ts::lesson_kit;

// The global arrays A, B, C in slots 1, 2, 3 (inputs in streams 1 and 2),
// then the shared ones the lesson adds.
inline ArrayTable arrays(int m, int k, int n, std::vector<ArrayInfo> shared = {}) {
  ArrayTable t = {global_input("A", m, k, 1), global_input("B", k, n, 2), global_output("C", m, n)};
  for (ArrayInfo& s : shared)
    t.push_back(std::move(s));
  return t;
}

// C = A x B in double, rounded to float.
std::vector<float> reference(int m, int k, int n, const std::vector<float>& a,
                             const std::vector<float>& b);

// 2 m n k floating-point operations (a multiply and an add per term).
inline double flops(int m, int k, int n) {
  return 2.0 * double(m) * double(n) * double(k);
}

// The square lessons' shape and work.
inline ArrayTable square_arrays(const Params& p, std::vector<ArrayInfo> shared = {}) {
  return arrays(p.n, p.n, p.n, std::move(shared));
}
inline std::vector<float> square_reference(const Params& p, const LessonInputs& in) {
  return reference(p.n, p.n, p.n, in[1], in[2]);
}
inline int square_sum_length(const Params& p) {
  return p.n;
}
inline double square_flops(const Params& p) {
  return flops(p.n, p.n, p.n);
}

// A grid of TILE x TILE blocks over C (m x n).
inline LaunchGeometry tiled_geometry(int m, int n, int tile) {
  LaunchGeometry g;
  const int t = tile < 1 ? 1 : tile;
  g.block = {at_least_1(t), at_least_1(t), 1};
  g.grid = {at_least_1(int64_t(ceil_div(uint64_t(n < 1 ? 1 : n), t))),
            at_least_1(int64_t(ceil_div(uint64_t(m < 1 ? 1 : m), t))), 1};
  return g;
}

// The tiled lessons' two static __shared__ TILE x TILE tiles. The compiler
// places them; we assume declaration order, packed: tileB right after tileA's
// TILE * TILE floats (ncu's bank conflicts agree on the H100).
inline std::vector<ArrayInfo> two_tiles(int tile) {
  const uint32_t tile_b = uint32_t(4 * std::max(tile, 0) * std::max(tile, 0));
  return {shared_array("tileA", tile, tile), shared_array("tileB", tile, tile, tile_b)};
}
// The tiled launch over C (m x n) with those two tiles as static shared memory.
inline LaunchGeometry two_tile_geometry(int m, int n, int tile) {
  LaunchGeometry g = tiled_geometry(m, n, tile);
  g.static_shared_bytes = uint32_t(2 * 4 * std::max(tile, 1) * std::max(tile, 1));
  return g;
}

// The tiled loop with zero padding (tiled_square, tiled_rect): A is read
// once per block column, B once per block row; every thread stores into
// both tiles, reads 2 * TILE shared values and reaches both barriers per tile.
ExpectedCounts padded_tile_counts(int m, int k, int n, int tile);

// Tile lessons: 1 or 2 warps per block is tile 4 or 8; sizes grow to the
// defaults where a second warp would otherwise be idle.
std::optional<Params> tile_with_warps(const Params& p, const Params& defaults, int warps);

// The textbook's global loads per output element ("2*ceil(N/T) = ...").
double naive_loads(const Params& p, std::string* formula);         // 2N
double row_loads(const Params& p, std::string* formula);           // N + ceil(N/T)
double row_col_loads(const Params& p, std::string* formula);       // 2 ceil(N/T)
double tiled_square_loads(const Params& p, std::string* formula);  // 2 ceil(N/T)
double tiled_exact_loads(const Params& p, std::string* formula);   // every thread loads
double tiled_rect_loads(const Params& p, std::string* formula);    // K ceil(N/T)/N + ...

// ---- Builders: a whole lesson from what it states ----

// The parameters the square lessons declare.
inline ParamDecl square_n(int value) {
  return side("n", "n (matrix size)", "A, B and C are n x n", value);
}
inline ParamDecl tile_width(int value) {
  return tile("tile width", "tile width: 2, 4, 8, 16 or 32 (tile x tile threads per block)", value);
}

// n is a matrix side and tile a compiled width that fits the device.
inline std::optional<std::string> check_n_and_tile(const Params& p, const DeviceLimits& lim) {
  if (auto e = check_side("n", p.n)) return e;
  return check_tile(p.tile, lim);
}

// The naive loop: each of the n^2 threads inside C reads a row of A and a column of B.
inline ExpectedCounts naive_counts(const Params& p) {
  const uint64_t n = p.n;
  ExpectedCounts c;
  c.global_loads = 2 * n * n * n;
  c.global_stores = n * n;
  return c;
}

using CheckHook = std::optional<std::string> (*)(const LessonInfo&, const Params&,
                                                 const DeviceLimits&);

// A naive square lesson: one thread per element of C, A and B from global
// memory only; the lesson gives its launch and its limits.
inline LessonSpec naive(const char* title, const char* summary, std::vector<ParamDecl> params,
                        LaunchGeometry (*geometry)(const Params&), CheckHook check, Params larger) {
  return {
      .title = title,
      .summary = summary,
      .params = std::move(params),
      .arrays = [](const Params& p) { return square_arrays(p); },
      .geometry = geometry,
      .check = check,
      .shared_advice = smaller_tile,
      .counts = naive_counts,
      .reference = square_reference,
      .sum_length = square_sum_length,
      .loads_per_output = naive_loads,
      .metric = PerfMetric::Flops,
      .flops = square_flops,
      .tests = {.larger = larger},
  };
}

// What a staging lesson keeps in dynamic shared memory: its block's rows of
// A (TILE x n floats), or those and its columns of B (n x TILE more).
enum class Staged { Rows, RowsAndColumns };

template <Staged S>
inline constexpr int kStagedCopies = S == Staged::Rows ? 1 : 2;

// The staged arrays: rowsA, then colsB TILE * n floats after it in the one extern array.
template <Staged S>
ArrayTable staged_arrays(const Params& p) {
  std::vector<ArrayInfo> shared = {shared_array("rowsA", p.tile, p.n)};
  if (S == Staged::RowsAndColumns)
    shared.push_back(shared_array("colsB", p.n, p.tile,
                                  uint32_t(4 * int64_t(std::max(p.tile, 0)) * std::max(p.n, 0))));
  return square_arrays(p, std::move(shared));
}

template <Staged S>
LaunchGeometry staged_geometry(const Params& p) {
  LaunchGeometry g = tiled_geometry(p.n, p.n, p.tile);
  g.dynamic_shared_bytes = uint32_t(std::min<int64_t>(
      int64_t(4 * kStagedCopies<S>) * std::max(p.tile, 1) * std::max(p.n, 0), 1u << 31));
  return g;
}

template <Staged S>
SharedAdvice staged_advice(const Params& p, const DeviceLimits& lim) {
  constexpr int copies = kStagedCopies<S>;
  const int64_t max_n = lim.max_shared_per_block / (int64_t(4 * copies) * p.tile);
  return SharedAdvice{std::string(copies == 2 ? " (2 x " : " (") + std::to_string(p.tile) +
                          " rows of " + std::to_string(p.n) + " floats)",
                      "use n <= " + std::to_string(max_n) + " with tile " + std::to_string(p.tile) +
                          ", a smaller tile, or a tiled kernel, which needs only two tiles"};
}

// Every block column loads all n rows of A once (each row: n elements), every
// block row all of B once where B is staged too; else B comes from global
// memory in every sum.
template <Staged S>
ExpectedCounts staged_counts(const Params& p) {
  const LaunchGeometry g = tiled_geometry(p.n, p.n, p.tile);
  const uint64_t n = p.n, gx = g.grid.x, gy = g.grid.y;
  const bool columns = S == Staged::RowsAndColumns;
  ExpectedCounts c;
  c.shared_stores = gx * n * n + (columns ? gy * n * n : 0);
  c.global_loads = gx * n * n + (columns ? gy * n * n : n * n * n);
  c.shared_loads = uint64_t(kStagedCopies<S>) * n * n * n;
  c.global_stores = n * n;
  c.barrier_arrivals = g.grid.count() * g.block.count();
  return c;
}

// A staging lesson: n x n, tile x tile blocks, one barrier after the loads.
template <Staged S>
LessonSpec staged(const char* title, const char* summary, BarrierInfo loaded) {
  return {
      .title = title,
      .summary = summary,
      .params = {square_n(12), tile_width(8)},
      .barriers = {loaded},
      .arrays = staged_arrays<S>,
      .geometry = staged_geometry<S>,
      .check = check_params<check_n_and_tile>,
      .shared_advice = staged_advice<S>,
      .counts = staged_counts<S>,
      .reference = square_reference,
      .sum_length = square_sum_length,
      .with_warps = tile_with_warps,
      .loads_per_output = S == Staged::Rows ? row_loads : row_col_loads,
      .metric = PerfMetric::Flops,
      .flops = square_flops,
      .tests = {.larger = Params{.n = 16, .tile = 8}, .padded = Params{.n = 20, .tile = 8}},
  };
}

// The two-tile loop's shape: square (n for m, k and n) or rectangular.
enum class Sides { Square, Rect };

template <Sides S>
inline int rows_of_c(const Params& p) {
  return S == Sides::Square ? p.n : p.m;
}
template <Sides S>
inline int inner(const Params& p) {
  return S == Sides::Square ? p.n : p.k;
}

inline std::optional<std::string> check_mkn_and_tile(const Params& p, const DeviceLimits& lim) {
  if (auto e = check_side("m", p.m)) return e;
  if (auto e = check_side("k", p.k)) return e;
  return check_n_and_tile(p, lim);
}

// A two-tile lesson (tileA, tileB of TILE x TILE, static shared memory) with
// zero padding at the edges; the lesson states its text and its barriers.
template <Sides S>
LessonSpec tiled(const char* title, const char* summary, std::vector<BarrierInfo> barriers) {
  constexpr bool square = S == Sides::Square;
  return {
      .title = title,
      .summary = summary,
      .params =
          square
              ? std::vector<ParamDecl>{square_n(12), tile_width(8)}
              : std::vector<ParamDecl>{side("m", "m (rows of A, C)", "rows of A and C", 10),
                                       side("k", "k (shared dimension)", "columns of A, rows of B",
                                            12),
                                       side("n", "n (columns of B, C)", "columns of B and C", 14),
                                       tile_width(8)},
      .barriers = std::move(barriers),
      .arrays =
          [](const Params& p) {
            return arrays(rows_of_c<S>(p), inner<S>(p), p.n, two_tiles(p.tile));
          },
      .geometry = [](const Params& p) { return two_tile_geometry(rows_of_c<S>(p), p.n, p.tile); },
      .check = check_params<(square ? check_n_and_tile : check_mkn_and_tile)>,
      .shared_advice = smaller_tile,
      .counts =
          [](const Params& p) {
            return padded_tile_counts(rows_of_c<S>(p), inner<S>(p), p.n, p.tile);
          },
      .reference =
          [](const Params& p, const LessonInputs& in) {
            return reference(rows_of_c<S>(p), inner<S>(p), p.n, in[1], in[2]);
          },
      .sum_length = inner<S>,
      .with_warps = tile_with_warps,
      .loads_per_output = square ? tiled_square_loads : tiled_rect_loads,
      .metric = PerfMetric::Flops,
      .flops = [](const Params& p) { return flops(rows_of_c<S>(p), inner<S>(p), p.n); },
      .tests = square ? TestFacts{.larger = Params{.n = 32, .tile = 8},
                                  .padded = Params{.n = 20, .tile = 8}}
                      : TestFacts{.larger = Params{.m = 16, .k = 24, .n = 32, .tile = 8},
                                  .padded = Params{.m = 12, .k = 20, .n = 18, .tile = 8}},
  };
}

}  // namespace ts::lessons::matmul_kit
