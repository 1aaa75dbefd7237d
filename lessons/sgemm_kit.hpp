// What the SGEMM ladder's lessons share (lessons/sgemm_*.hpp): square n x n
// multiplies C = A x B, as the matmul family, where a block computes a whole
// BM x BN tile of C and every thread a register tile of it. The ladder's
// steps are ordered by LessonInfo::ladder_step; steps 2 and 3 are the matmul
// family's naive grid and tiled square.
//
// Steps from the register tiles on compute whole tiles with no bounds checks
// (bounds checks in the inner loops cost what the step is meant to win): they
// refuse an n that is not a multiple of their tiles, with a message.
#pragma once

#include <numeric>
#include <optional>
#include <string>
#include <vector>

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
inline std::optional<std::string> check_whole_tiles(const LessonInfo& v, int n, int bm, int bn,
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

// ---- Builder: a register-tiled step from its configuration and its text ----

// One compiled configuration as the launch and the tables see it: a block of
// `threads` computes a BM x BN tile of C, TM x TN outputs per thread, in k
// steps of BK; As (as_rows x as_cols floats, its stages included) then Bs
// (stages * BK x BN) in static shared memory, or with `dynamic` in one extern
// __shared__ array sized at launch (for more than the 48 KB static arrays may
// hold); double-buffered steps have 2 stages and one barrier per k step.
// A step without a branch in its loop may fetch and store tiles past the last
// k step and pass a barrier after it: `spare` says how many per block (tiles)
// and per thread (barriers).
struct Spare {
  int tile_loads = 0, tile_stores = 0, barriers = 0;
};
struct Layout {
  int bm, bn, bk;
  int tm, tn;  // outputs per thread along m and n
  int threads;
  int as_rows, as_cols;
  int stages = 1;
  bool dynamic = false;
  Spare spare = {};
};

inline ArrayTable layout_arrays(const Params& p, Layout l) {
  const int bs_rows = l.stages * l.bk;
  return matmul_kit::square_arrays(
      p, {shared_array("As", l.as_rows, l.as_cols),
          shared_array("Bs", bs_rows, l.bn, uint32_t(4 * l.as_rows * l.as_cols))});
}

// 1D blocks of the layout's threads, a block per BM x BN tile of C.
inline LaunchGeometry layout_geometry(const Params& p, Layout l) {
  LaunchGeometry g;
  g.block = {at_least_1(l.threads), 1, 1};
  g.grid = {at_least_1(p.n / l.bn), at_least_1(p.n / l.bm), 1};
  const uint32_t bytes = uint32_t(4 * (l.as_rows * l.as_cols + l.stages * l.bk * l.bn));
  (l.dynamic ? g.dynamic_shared_bytes : g.static_shared_bytes) = bytes;
  return g;
}

// Events (a float4 is 4): per k step a block loads BM x BK of A and BK x BN
// of B and stores both into shared memory; per k every thread reads TM values
// of As and TN of Bs; every thread reaches 2 barriers per k step (1 with two
// stages); plus the layout's spare tiles and barriers.
inline ExpectedCounts layout_counts(const Params& p, Layout l) {
  const uint64_t n = uint64_t(p.n), n3 = n * n * n;
  const uint64_t threads = n * n / uint64_t(l.tm * l.tn);
  const uint64_t blocks = (n / uint64_t(l.bm)) * (n / uint64_t(l.bn));
  const uint64_t tile = uint64_t(l.bk) * uint64_t(l.bm + l.bn);  // A's and B's elements of a k step
  ExpectedCounts c;
  c.global_loads = n3 / uint64_t(l.bn) + n3 / uint64_t(l.bm) + blocks * tile * l.spare.tile_loads;
  c.shared_stores = n3 / uint64_t(l.bn) + n3 / uint64_t(l.bm) + blocks * tile * l.spare.tile_stores;
  c.shared_loads = threads * n * uint64_t(l.tm + l.tn);
  c.global_stores = n * n;
  c.barrier_arrivals =
      threads * (uint64_t(l.stages == 2 ? 1 : 2) * (n / uint64_t(l.bk)) + l.spare.barriers);
  return c;
}

// A compiled block tile whose block fits the device and whose tiles divide n.
inline std::optional<std::string> check_layout(const LessonInfo& v, const Params& p,
                                               const DeviceLimits& lim, Layout l) {
  if (auto e = check_tile_choice(v, p.tile)) return e;
  if (l.threads > lim.max_threads_per_block)
    return "tile " + std::to_string(p.tile) + ": " + v.id + " needs " + std::to_string(l.threads) +
           " threads per block; this device allows " + std::to_string(lim.max_threads_per_block);
  return check_whole_tiles(v, p.n, l.bm, l.bn, l.bk);
}

// What a register-tiled step states: its text, its `tile` parameter, its
// barriers and its place on the ladder.
struct Step {
  const char* title;
  const char* summary;
  const char* tile_hint;  // the configurations, as the window's tooltip lists them
  int tile;               // the default block tile
  std::vector<BarrierInfo> barriers;
  int ladder_step;
  std::vector<int> tile_choices = {32, 64, 128};
};

// A whole register-tiled step from its layout for the run's parameters (L: the
// block tile, and for a step that picks its shape by n, the size) and its text.
template <Layout (*L)(const Params&)>
LessonSpec step_by_params(Step step) {
  return {
      .title = step.title,
      .summary = step.summary,
      .params = {side("n", "n (matrix size)", "A, B and C are n x n; a multiple of the tile", 64),
                 tile("block tile", step.tile_hint, step.tile, 32, 128)},
      .barriers = std::move(step.barriers),
      .arrays = [](const Params& p) { return layout_arrays(p, L(p)); },
      .geometry = [](const Params& p) { return layout_geometry(p, L(p)); },
      .check = [](const LessonInfo& v, const Params& p,
                  const DeviceLimits& lim) { return check_layout(v, p, lim, L(p)); },
      .shared_advice = smaller_tile,
      .counts = [](const Params& p) { return layout_counts(p, L(p)); },
      .reference = matmul_kit::square_reference,
      .sum_length = matmul_kit::square_sum_length,
      .metric = PerfMetric::Flops,
      .flops = matmul_kit::square_flops,
      .ladder = kLadder,
      .ladder_step = step.ladder_step,
      .tile_choices = std::move(step.tile_choices),
      .tests = {.larger = Params{.n = 64, .tile = 32}},
  };
}

template <Layout (*L)(int tile)>
Layout layout_of_tile(const Params& p) {
  return L(p.tile);
}

// A whole register-tiled step from its layout for a block tile (L) and its text.
template <Layout (*L)(int tile)>
LessonSpec step(Step step) {
  return step_by_params<layout_of_tile<L>>(std::move(step));
}

}  // namespace ts::lessons::sgemm_kit
