// The puzzles' setups (engine/puzzles.hpp): arrays, launch, parameters,
// hidden sizes and CPU reference of each puzzle of assets/puzzles/.
#include "engine/puzzles.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "engine/lesson_file_config.hpp"
#include "engine/plain_cuda.hpp"  // generated: the source tree of this build

namespace ts::puzzles {
namespace {

using namespace lesson_kit;
using Ref = std::vector<float>;

// ---- Pieces the setups share ----

ParamDecl length_decl(int max, int value) {
  return {"length", "length", "elements of the arrays", 1, max, value};
}
ParamDecl side_decl(const char* name, int max, int value) {
  return {name, name, "a side of the matrices", 1, max, value};
}
ParamDecl radius_decl() {
  return {"radius", "radius", "neighbours on each side", 1, 4, 2};
}

uint32_t blocks_for(int count, int per_block) {
  return at_least_1(int64_t(ceil_div(uint64_t(std::max(count, 1)), uint64_t(per_block))));
}
// `block` threads per block, as many blocks as `count` elements need.
LaunchGeometry line_of_blocks(int count, int block, uint32_t shared_bytes = 0) {
  LaunchGeometry g;
  g.block = {uint32_t(block), 1, 1};
  g.grid = {blocks_for(count, block), 1, 1};
  g.static_shared_bytes = shared_bytes;
  return g;
}
// Blocks of side x side threads over a rows x cols matrix.
LaunchGeometry square_blocks(int rows, int cols, int side, uint32_t shared_bytes = 0) {
  LaunchGeometry g;
  g.block = {uint32_t(side), uint32_t(side), 1};
  g.grid = {blocks_for(cols, side), blocks_for(rows, side), 1};
  g.static_shared_bytes = shared_bytes;
  return g;
}
LaunchGeometry one_block(uint32_t x, uint32_t y = 1) {
  LaunchGeometry g;
  g.block = {x, y, 1};
  return g;
}

ArrayInfo vec_in(const char* name, int count, uint32_t stream) {
  return global_input(name, 1, count, stream);
}
ArrayInfo vec_out(const char* name, int count) {
  return global_output(name, 1, count);
}

// Counts: a student's kernel has none in closed form.
ExpectedCounts no_counts(const Params&) {
  return {};
}

// What every setup shares; the caller fills the puzzle's own.
LessonSpec spec(const char* title, const char* summary, std::vector<ParamDecl> params,
                ArrayTable (*arrays)(const Params&), LaunchGeometry (*geometry)(const Params&),
                Ref (*reference)(const Params&, const LessonInputs&),
                int (*sum_length)(const Params&) = one_term) {
  return {
      .title = title,
      .summary = summary,
      .params = std::move(params),
      .barriers = {},
      .arrays = arrays,
      .geometry = geometry,
      .check = no_check,
      .shared_advice = smaller_tile,
      .counts = no_counts,
      .reference = reference,
      .sum_length = sum_length,
  };
}

// a[i] + 10 over `count` elements.
Ref plus_ten(const std::vector<float>& a) {
  Ref out(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    out[i] = float(double(a[i]) + 10.0);
  return out;
}

// ---- The puzzles, in the order of the course ----

// 1. Map: one thread per element, one block.
LessonSpec map_spec() {
  return spec(
      "Puzzle 1: map", "out[i] = a[i] + 10, one thread per element.", {length_decl(1024, 8)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_out("out", p.length)};
      },
      [](const Params& p) { return one_block(uint32_t(p.length)); },
      [](const Params&, const LessonInputs& in) { return plus_ten(in[1]); });
}

// 2. Zip: two inputs.
LessonSpec zip_spec() {
  return spec(
      "Puzzle 2: zip", "out[i] = a[i] + b[i].", {length_decl(1024, 8)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_in("b", p.length, 2),
                          vec_out("out", p.length)};
      },
      [](const Params& p) { return one_block(uint32_t(p.length)); },
      [](const Params& p, const LessonInputs& in) {
        Ref out(size_t(p.length));
        for (size_t i = 0; i < out.size(); ++i)
          out[i] = float(double(in[1][i]) + double(in[2][i]));
        return out;
      });
}

// 3. Guards: 32 threads, fewer elements.
LessonSpec guards_spec() {
  return spec(
      "Puzzle 3: guards", "out[i] = a[i] + 10 with more threads than elements.",
      {length_decl(32, 5)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_out("out", p.length)};
      },
      [](const Params&) { return one_block(32); },
      [](const Params&, const LessonInputs& in) { return plus_ten(in[1]); });
}

// 4. Map 2D: one block of 8 x 8 threads over an n x n matrix.
LessonSpec map_2d_spec() {
  return spec(
      "Puzzle 4: 2D map", "out[r][c] = a[r][c] + 10 with an 8 x 8 block of threads.",
      {side_decl("n", 8, 5)},
      [](const Params& p) {
        return ArrayTable{global_input("a", p.n, p.n, 1), global_output("out", p.n, p.n)};
      },
      [](const Params&) { return one_block(8, 8); },
      [](const Params&, const LessonInputs& in) { return plus_ten(in[1]); });
}

// 5. Broadcast: a column and a row make a matrix.
LessonSpec broadcast_spec() {
  return spec(
      "Puzzle 5: broadcast", "out[r][c] = a[r] + b[c]: a column of m and a row of n.",
      {side_decl("m", 8, 3), side_decl("n", 8, 5)},
      [](const Params& p) {
        return ArrayTable{global_input("a", p.m, 1, 1), global_input("b", 1, p.n, 2),
                          global_output("out", p.m, p.n)};
      },
      [](const Params&) { return one_block(8, 8); },
      [](const Params& p, const LessonInputs& in) {
        Ref out(size_t(p.m) * size_t(p.n));
        for (int r = 0; r < p.m; ++r)
          for (int c = 0; c < p.n; ++c)
            out[size_t(r) * size_t(p.n) + size_t(c)] =
                float(double(in[1][size_t(r)]) + double(in[2][size_t(c)]));
        return out;
      });
}

// 6. Blocks: blocks of 8 threads.
LessonSpec blocks_spec() {
  return spec(
      "Puzzle 6: blocks", "out[i] = a[i] + 10 with blocks of 8 threads.", {length_decl(4096, 20)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_out("out", p.length)};
      },
      [](const Params& p) { return line_of_blocks(p.length, 8); },
      [](const Params&, const LessonInputs& in) { return plus_ten(in[1]); });
}

// 7. Blocks 2D: blocks of 8 x 8 threads over an n x n matrix.
LessonSpec blocks_2d_spec() {
  return spec(
      "Puzzle 7: 2D blocks", "out[r][c] = a[r][c] + 10 with blocks of 8 x 8 threads.",
      {side_decl("n", 256, 11)},
      [](const Params& p) {
        return ArrayTable{global_input("a", p.n, p.n, 1), global_output("out", p.n, p.n)};
      },
      [](const Params& p) { return square_blocks(p.n, p.n, 8); },
      [](const Params&, const LessonInputs& in) { return plus_ten(in[1]); });
}

constexpr int kShared1D = 64;  // the 1D shared-memory puzzles' block

// 8. Shared: each block's chunk reversed through shared memory.
LessonSpec shared_spec() {
  return spec(
      "Puzzle 8: shared memory", "Each block of 64 writes its chunk of a back reversed.",
      {length_decl(8192, 100)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_out("out", p.length),
                          shared_array("cache", 1, kShared1D)};
      },
      [](const Params& p) { return line_of_blocks(p.length, kShared1D, kShared1D * 4); },
      [](const Params& p, const LessonInputs& in) {
        Ref out(size_t(p.length));
        for (int start = 0; start < p.length; start += kShared1D) {
          const int count = std::min(kShared1D, p.length - start);
          for (int t = 0; t < count; ++t)
            out[size_t(start + t)] = in[1][size_t(start + count - 1 - t)];
        }
        return out;
      });
}

// 9. Pooling: the sum of an element and the two before it.
LessonSpec pooling_spec() {
  return spec(
      "Puzzle 9: pooling", "out[i] = a[i - 2] + a[i - 1] + a[i], each a read once per block.",
      {length_decl(8192, 100)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_out("out", p.length),
                          shared_array("cache", 1, kShared1D + 2)};
      },
      [](const Params& p) { return line_of_blocks(p.length, kShared1D, (kShared1D + 2) * 4); },
      [](const Params& p, const LessonInputs& in) {
        Ref out(size_t(p.length));
        for (int i = 0; i < p.length; ++i) {
          double s = 0;
          for (int j = std::max(0, i - 2); j <= i; ++j)
            s += in[1][size_t(j)];
          out[size_t(i)] = float(s);
        }
        return out;
      },
      [](const Params&) { return 3; });
}

// 10. Dot product: one block of 64 threads.
LessonSpec dot_spec() {
  return spec(
      "Puzzle 10: dot product", "out[0] = sum of a[i] * b[i], one block of 64 threads.",
      {length_decl(1 << 16, 100)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_in("b", p.length, 2), vec_out("out", 1),
                          shared_array("cache", 1, kShared1D)};
      },
      [](const Params&) {
        LaunchGeometry g = one_block(kShared1D);
        g.static_shared_bytes = kShared1D * 4;
        return g;
      },
      [](const Params& p, const LessonInputs& in) {
        double s = 0;
        for (size_t i = 0; i < size_t(p.length); ++i)
          s += double(in[1][i]) * double(in[2][i]);
        return Ref{float(s)};
      },
      [](const Params& p) { return p.length; });
}

// 11. 1D convolution: 2R + 1 weights, zero outside the array.
constexpr int kMaxRadius = 4;
LessonSpec conv1d_spec() {
  return spec(
      "Puzzle 11: 1D convolution",
      "out[i] = sum of a[i + j] * w[j + R] for j = -R .. R, zero outside a.",
      {length_decl(8192, 100), radius_decl()},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_in("w", 2 * p.radius + 1, 2),
                          vec_out("out", p.length),
                          shared_array("tile", 1, kShared1D + 2 * kMaxRadius)};
      },
      [](const Params& p) {
        return line_of_blocks(p.length, kShared1D, (kShared1D + 2 * kMaxRadius) * 4);
      },
      [](const Params& p, const LessonInputs& in) {
        Ref out(size_t(p.length));
        for (int i = 0; i < p.length; ++i) {
          double s = 0;
          for (int j = -p.radius; j <= p.radius; ++j)
            if (i + j >= 0 && i + j < p.length)
              s += double(in[1][size_t(i + j)]) * double(in[2][size_t(j + p.radius)]);
          out[size_t(i)] = float(s);
        }
        return out;
      },
      [](const Params& p) { return 2 * p.radius + 1; });
}

// 12. Prefix sum: each block of 64 scans its chunk (inclusive).
LessonSpec prefix_sum_spec() {
  return spec(
      "Puzzle 12: prefix sum", "out[i] = a[s] + ... + a[i], s the start of i's block of 64.",
      {length_decl(8192, 100)},
      [](const Params& p) {
        return ArrayTable{vec_in("a", p.length, 1), vec_out("out", p.length),
                          shared_array("buf", 2, kShared1D)};
      },
      [](const Params& p) { return line_of_blocks(p.length, kShared1D, 2 * kShared1D * 4); },
      [](const Params& p, const LessonInputs& in) {
        Ref out(size_t(p.length));
        double s = 0;
        for (int i = 0; i < p.length; ++i) {
          if (i % kShared1D == 0) s = 0;
          s += in[1][size_t(i)];
          out[size_t(i)] = float(s);
        }
        return out;
      },
      [](const Params&) { return kShared1D; });
}

// 13. Axis sum: one block of 64 per row of an m x n matrix.
LessonSpec axis_sum_spec() {
  return spec(
      "Puzzle 13: axis sum", "out[r] = sum of row r of a (m x n), one block of 64 per row.",
      {side_decl("m", 256, 3), side_decl("n", 4096, 50)},
      [](const Params& p) {
        return ArrayTable{global_input("a", p.m, p.n, 1), global_output("out", p.m, 1),
                          shared_array("cache", 1, kShared1D)};
      },
      [](const Params& p) {
        LaunchGeometry g;
        g.block = {kShared1D, 1, 1};
        g.grid = {uint32_t(std::max(p.m, 1)), 1, 1};
        g.static_shared_bytes = kShared1D * 4;
        return g;
      },
      [](const Params& p, const LessonInputs& in) {
        Ref out(size_t(p.m));
        for (size_t r = 0; r < size_t(p.m); ++r) {
          double s = 0;
          for (size_t c = 0; c < size_t(p.n); ++c)
            s += in[1][r * size_t(p.n) + c];
          out[r] = float(s);
        }
        return out;
      },
      [](const Params& p) { return p.n; });
}

// 14. Matrix multiply: tiles of 8 x 8 in shared memory.
constexpr int kMatTile = 8;
LessonSpec matmul_spec() {
  return spec(
      "Puzzle 14: matrix multiply", "C = A B (n x n) with 8 x 8 tiles in shared memory.",
      {side_decl("n", 128, 12)},
      [](const Params& p) {
        return ArrayTable{global_input("A", p.n, p.n, 1), global_input("B", p.n, p.n, 2),
                          global_output("C", p.n, p.n), shared_array("tileA", kMatTile, kMatTile),
                          shared_array("tileB", kMatTile, kMatTile, kMatTile * kMatTile * 4)};
      },
      [](const Params& p) {
        return square_blocks(p.n, p.n, kMatTile, 2 * kMatTile * kMatTile * 4);
      },
      [](const Params& p, const LessonInputs& in) {
        const size_t n = size_t(p.n);
        Ref out(n * n);
        for (size_t r = 0; r < n; ++r)
          for (size_t c = 0; c < n; ++c) {
            double s = 0;
            for (size_t k = 0; k < n; ++k)
              s += double(in[1][r * n + k]) * double(in[2][k * n + c]);
            out[r * n + c] = float(s);
          }
        return out;
      },
      [](const Params& p) { return p.n; });
}

// 15. Transpose: a 32 x 32 tile in shared memory, room for one padding column.
constexpr int kTransTile = 32;
LessonSpec transpose_spec() {
  return spec(
      "Puzzle 15: transpose without bank conflicts",
      "out = in transposed (n x n): coalesced both ways, no bank conflict.",
      {side_decl("n", 256, 40)},
      [](const Params& p) {
        return ArrayTable{global_input("in", p.n, p.n, 1), global_output("out", p.n, p.n),
                          shared_array("tile", kTransTile, kTransTile + 1)};
      },
      [](const Params& p) {
        return square_blocks(p.n, p.n, kTransTile, kTransTile * (kTransTile + 1) * 4);
      },
      [](const Params& p, const LessonInputs& in) {
        const size_t n = size_t(p.n);
        Ref out(n * n);
        for (size_t r = 0; r < n; ++r)
          for (size_t c = 0; c < n; ++c)
            out[c * n + r] = in[1][r * n + c];
        return out;
      });
}

// 16. Warp-shuffle reduction: blocks of 128 (4 warps), one sum per block.
constexpr int kShuffleBlock = 128;
LessonSpec warp_sum_spec() {
  return spec(
      "Puzzle 16: warp-shuffle reduction",
      "out[b] = the sum of block b's 128 elements, warps adding in registers.",
      {length_decl(1 << 16, 300)},
      [](const Params& p) {
        return ArrayTable{vec_in("in", p.length, 1),
                          vec_out("out", int(blocks_for(p.length, kShuffleBlock))),
                          shared_array("warp_sums", 1, kShuffleBlock / 32)};
      },
      [](const Params& p) { return line_of_blocks(p.length, kShuffleBlock, kShuffleBlock / 8); },
      [](const Params& p, const LessonInputs& in) {
        Ref out(blocks_for(p.length, kShuffleBlock));
        for (size_t b = 0; b < out.size(); ++b) {
          double s = 0;
          for (size_t i = b * kShuffleBlock;
               i < std::min(size_t(p.length), (b + 1) * kShuffleBlock); ++i)
            s += in[1][i];
          out[b] = float(s);
        }
        return out;
      },
      [](const Params&) { return kShuffleBlock; });
}

Params len(int length) {
  Params p;
  p.length = length;
  return p;
}
Params side(int n) {
  Params p;
  p.n = n;
  return p;
}
Params sides(int m, int n) {
  Params p;
  p.m = m, p.n = n;
  return p;
}
Params conv(int length, int radius) {
  Params p;
  p.length = length, p.radius = radius;
  return p;
}

const std::vector<PuzzleSetup>& table() {
  static const std::vector<PuzzleSetup> t = {
      // Each multi-block puzzle also at a size of at least four blocks along
      // each dimension with a partial last block, and at one several times
      // the statement's: a kernel that hard-codes its blocks or tiles fails.
      {"map", map_spec, {len(1), len(4), len(17), len(100), len(1000)}},
      {"zip", zip_spec, {len(1), len(5), len(32), len(77), len(999)}},
      {"guards", guards_spec, {len(1), len(5), len(17), len(32)}},
      {"map_2d", map_2d_spec, {side(1), side(3), side(5), side(8)}},
      {"broadcast", broadcast_spec, {sides(1, 1), sides(3, 5), sides(8, 2), sides(8, 8)}},
      {"blocks", blocks_spec, {len(1), len(9), len(20), len(37), len(64), len(101)}},
      {"blocks_2d", blocks_2d_spec, {side(1), side(9), side(17), side(24), side(37), side(59)}},
      {"shared", shared_spec, {len(1), len(37), len(64), len(100), len(128), len(293), len(517)}},
      {"pooling", pooling_spec, {len(1), len(3), len(64), len(100), len(150), len(293), len(517)}},
      {"dot", dot_spec, {len(1), len(37), len(64), len(200), len(1000), len(2049)}},
      {"conv1d",
       conv1d_spec,
       {conv(1, 1), conv(50, 2), conv(64, 3), conv(130, 4), conv(200, 1), conv(293, 3),
        conv(517, 2)}},
      {"prefix_sum",
       prefix_sum_spec,
       {len(1), len(37), len(64), len(100), len(130), len(293), len(517)}},
      {"axis_sum",
       axis_sum_spec,
       {sides(1, 1), sides(3, 50), sides(4, 64), sides(2, 200), sides(5, 293), sides(9, 150)}},
      {"matmul", matmul_spec, {side(1), side(5), side(8), side(17), side(20), side(37), side(61)}},
      {"transpose", transpose_spec, {side(1), side(31), side(45), side(64), side(131), side(200)}},
      {"warp_sum", warp_sum_spec, {len(1), len(100), len(128), len(300), len(1000), len(1537)}},
  };
  return t;
}

// The barriers' purposes: a student's barriers are theirs to explain.
constexpr const char* kBarrierPurposes[kMaxPuzzleBarriers] = {
    "your barrier 1", "your barrier 2", "your barrier 3", "your barrier 4",
    "your barrier 5", "your barrier 6", "your barrier 7", "your barrier 8"};

std::filesystem::path program_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

}  // namespace

LessonSpec setup(const char* id, const char* source_file) {
  const PuzzleSetup* s = find_setup(id ? id : "");
  if (!s)
    throw std::invalid_argument(std::string("puzzles::setup: no puzzle called '") + (id ? id : "") +
                                "' (`tilescope-cli puzzles` lists them)");
  std::string text;
  // Only a regular file of a lesson file's size is read: a FIFO or /dev/zero
  // given as a solution is refused by the load that follows, not read here.
  std::error_code ec;
  if (source_file && std::filesystem::is_regular_file(source_file, ec) &&
      std::filesystem::file_size(source_file, ec) <= kMaxLessonFileBytes) {
    std::ifstream in(source_file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  // A plain CUDA solution (.cu) writes __syncthreads(); a lesson header SYNCTHREADS(k).
  const std::string_view path = source_file ? source_file : "";
  const int barriers =
      int((is_plain_cuda_path(path) ? plain_cuda_barriers(text) : barrier_statements(text))
              .size()) -
      1;
  if (barriers > kMaxPuzzleBarriers)
    throw std::invalid_argument("puzzles::setup: a puzzle's kernel has at most " +
                                std::to_string(kMaxPuzzleBarriers) + " barriers, not " +
                                std::to_string(barriers));
  LessonSpec l = s->spec();
  for (int b = 0; b < barriers; ++b)
    l.barriers.push_back({kBarrierPurposes[b], kGuardsNothing});
  return l;
}

std::span<const PuzzleSetup> all_setups() {
  return table();
}

const PuzzleSetup* find_setup(std::string_view id) {
  for (const PuzzleSetup& s : table())
    if (id == s.id) return &s;
  return nullptr;
}

std::string puzzles_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("TILESCOPE_PUZZLES"); env && *env)
    return fs::is_directory(env, ec) ? std::string(env) : "";
  const fs::path installed = program_dir() / "../share/tilescope/puzzles";
  if (fs::is_directory(installed, ec)) return installed.lexically_normal().string();
  const fs::path tree = fs::path(lesson_file_config::kSourceInclude) / "assets" / "puzzles";
  if (fs::is_directory(tree, ec)) return tree.string();
  return "";
}

}  // namespace ts::puzzles
