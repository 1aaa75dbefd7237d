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

// When two tiles do not fit: "use a smaller tile".
inline SharedAdvice smaller_tile(const Params&, const DeviceLimits&) {
  return {"", "use a smaller tile"};
}

}  // namespace ts::lessons::matmul_kit
