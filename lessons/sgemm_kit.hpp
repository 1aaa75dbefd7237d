// What the SGEMM ladder's lessons share (lessons/sgemm_*.hpp): square n x n
// multiplies C = A x B, as the matmul family, where a block computes a whole
// BM x BN tile of C and every thread a register tile of it. The ladder's
// steps are ordered by Variant::ladder_step; steps 2 and 3 are the matmul
// family's naive grid and tiled square.
//
// Steps from the register tiles on compute whole tiles with no bounds checks
// (bounds checks in the inner loops cost what the step is meant to win): they
// refuse an n that is not a multiple of their tiles, with a message.
#pragma once

#include <numeric>
#include <optional>
#include <string>

#include "lessons/lesson.hpp"
#include "lessons/matmul_kit.hpp"

namespace ts::lessons::sgemm_kit {

using namespace ts::lesson_kit;

inline constexpr const char* kLadder = "sgemm";
inline constexpr const char* kFamily = "sgemm";
inline constexpr const char* kFamilyTitle = "SGEMM ladder (FP32, no tensor cores)";

// n is a matrix side and a multiple of every tile size in `multiples` (the
// block tile's sides, the k step): "n = 100: sgemm.blocktile_2d computes whole
// 64 x 64 tiles of C with no bounds checks; use a multiple of 64 (64, 128, 192, ...)".
inline std::optional<std::string> check_whole_tiles(const Variant& v, int n, int bm, int bn,
                                                    int bk) {
  if (auto e = check_side("n", n)) return e;
  const int m = std::lcm(std::lcm(bm, bn), bk);
  if (n % m == 0) return std::nullopt;
  return "n = " + std::to_string(n) + ": " + v.id + " computes whole " + std::to_string(bm) +
         " x " + std::to_string(bn) + " tiles of C (k steps of " + std::to_string(bk) +
         ") with no bounds checks; use a multiple of " + std::to_string(m) + " (" +
         std::to_string(m) + ", " + std::to_string(2 * m) + ", " + std::to_string(3 * m) + ", ...)";
}

// Calls f(BodyOf<T>{}) for the compiled block tile T that equals `tile`, one
// of Tiles (a step's tile_choices); false for any other.
template <template <int> class BodyOf, int... Tiles, class F>
bool visit_block_tile(int tile, F&& f) {
  return ((tile == Tiles ? (f(BodyOf<Tiles>{}), true) : false) || ...);
}

}  // namespace ts::lessons::sgemm_kit
