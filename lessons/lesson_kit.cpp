// The lesson kits' out-of-line parts: checks, references and closed-form counts.
#include <algorithm>
#include <cstdio>

#include "lessons/conv2d_kit.hpp"
#include "lessons/lesson.hpp"
#include "lessons/matmul_kit.hpp"
#include "lessons/stencil_kit.hpp"

namespace ts {
namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
std::string str(int64_t x) {
  return std::to_string(x);
}
int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
double say(std::string* formula, const std::string& f, double r) {
  if (formula) *formula = f;
  return r;
}
}  // namespace

namespace lesson_kit {

std::string tile_list(int max_threads) {
  std::vector<int> ok;
  for (int t : kTileWidths)
    if (t * t <= max_threads) ok.push_back(t);
  std::string s;
  for (size_t i = 0; i < ok.size(); ++i) {
    if (i) s += i + 1 == ok.size() ? " or " : ", ";
    s += std::to_string(ok[i]);
  }
  return s;
}

std::optional<std::string> check_side(const char* name, int value) {
  if (value < 1 || value > kMaxMatrixSide)
    return std::string(name) + " = " + std::to_string(value) + ": matrix sizes must be from 1 to " +
           std::to_string(kMaxMatrixSide);
  return std::nullopt;
}

std::string side_out_of_range(const char* name, int value) {
  return check_side(name, value).value_or("");
}

std::string length_out_of_range(const char*, int value) {
  return check_length(value).value_or("");
}

std::optional<std::string> check_tile(int t, const DeviceLimits& lim) {
  if (t < 1) return "tile " + std::to_string(t) + ": the tile width must be " + tile_list();
  if (int64_t(t) * t > lim.max_threads_per_block)
    return "tile " + std::to_string(t) + ": a block of " + std::to_string(t) + " x " +
           std::to_string(t) + " = " + std::to_string(int64_t(t) * t) + " threads exceeds the " +
           std::to_string(lim.max_threads_per_block) +
           " threads per block this device allows; use " + tile_list(lim.max_threads_per_block);
  for (int w : kTileWidths)
    if (w == t) return std::nullopt;
  return "tile " + std::to_string(t) + ": the kernels are compiled for tile widths " + tile_list() +
         " only (a shared array needs its size at compile time)";
}

std::vector<int> tile_values(const LessonInfo& v) {
  if (!v.tile_choices.empty()) return v.tile_choices;
  return {std::begin(kTileWidths), std::end(kTileWidths)};
}

std::optional<std::string> check_tile_choice(const LessonInfo& v, int tile) {
  std::string list;
  for (size_t i = 0; i < v.tile_choices.size(); ++i) {
    if (v.tile_choices[i] == tile) return std::nullopt;
    list += (i == 0                           ? ""
             : i + 1 == v.tile_choices.size() ? " or "
                                              : ", ") +
            std::to_string(v.tile_choices[i]);
  }
  return "tile " + std::to_string(tile) + ": " + v.id + " is compiled for block tiles " + list +
         " only (its shared arrays and register tiles need their sizes at compile time)";
}

std::optional<std::string> check_block_side(int side, const DeviceLimits& lim) {
  if (side >= 1 && int64_t(side) * side <= lim.max_threads_per_block) return std::nullopt;
  int most = 1;
  while ((most + 1) * (most + 1) <= lim.max_threads_per_block)
    ++most;
  return "block " + std::to_string(side) + ": the block side must be from 1 to " +
         std::to_string(most) + " (" + std::to_string(most) + " x " + std::to_string(most) +
         " threads; a block may have at most " + std::to_string(lim.max_threads_per_block) + ")";
}

std::optional<std::string> check_length(int length) {
  if (length < 1 || length > kMaxLength)
    return "length " + std::to_string(length) + ": the array length must be from 1 to " +
           std::to_string(kMaxLength);
  return std::nullopt;
}

std::optional<std::string> check_block_size(int block, const DeviceLimits& lim) {
  if (block < 1 || block > lim.max_threads_per_block)
    return "block " + std::to_string(block) + ": threads per block must be from 1 to " +
           std::to_string(lim.max_threads_per_block) + " (this device's limit)";
  return std::nullopt;
}

}  // namespace lesson_kit

namespace lessons::matmul_kit {

std::vector<float> reference(int m, int k, int n, const std::vector<float>& a,
                             const std::vector<float>& b) {
  if (a.size() != size_t(m) * k || b.size() != size_t(k) * n) return {};
  std::vector<float> c(size_t(m) * n, 0.0f);
  std::vector<double> row(n);
  for (int i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int kk = 0; kk < k; ++kk) {
      const double aik = a[size_t(i) * k + kk];
      const float* brow = &b[size_t(kk) * n];
      for (int j = 0; j < n; ++j)
        row[j] += aik * double(brow[j]);
    }
    for (int j = 0; j < n; ++j)
      c[size_t(i) * n + j] = float(row[j]);
  }
  return c;
}

ExpectedCounts padded_tile_counts(int m_, int k_, int n_, int tile) {
  ExpectedCounts c;
  const LaunchGeometry g = tiled_geometry(m_, n_, tile);
  const uint64_t threads = g.grid.count() * g.block.count();
  const uint64_t m = m_, k = k_, n = n_, t = uint64_t(tile), gx = g.grid.x, gy = g.grid.y;
  // A is read once per block column (gx times), B once per block row (gy
  // times): 2n/T loads per element of C when T divides n. Padding threads
  // store zeros into the tiles but load nothing.
  const uint64_t tiles = ceil_div(k, t);
  c.global_loads = gx * m * k + gy * k * n;
  c.global_stores = m * n;
  c.shared_stores = threads * tiles * 2;
  c.shared_loads = threads * tiles * 2 * t;
  c.barrier_arrivals = threads * tiles * 2;
  return c;
}

std::optional<Params> tile_with_warps(const Params& p, const Params& defaults, int warps) {
  Params q = p;
  q.tile = warps == 1 ? 4 : 8;  // 16 or 64 threads
  if (warps > 1)                // enough data that the second warp has work
    for (int Params::*f : {&Params::m, &Params::k, &Params::n})
      q.*f = std::max(q.*f, defaults.*f);
  return q;
}

double naive_loads(const Params& p, std::string* formula) {
  // A row of A and a column of B for every output element.
  const double r = 2.0 * double(p.n);
  return say(formula, "2N = 2*" + str(p.n) + " = " + num(r), r);
}

double row_loads(const Params& p, std::string* formula) {
  // Rows of A once per block column; B still N times per output.
  const int64_t n = p.n, t = std::max(p.tile, 1);
  const double r = double(n) + double(cdiv(n, t));
  return say(formula,
             "N + ceil(N/T) = " + str(n) + " + ceil(" + str(n) + "/" + str(t) + ") = " + num(r) +
                 " (rows of A in shared, B from global)",
             r);
}

double row_col_loads(const Params& p, std::string* formula) {
  const int64_t n = p.n, t = std::max(p.tile, 1);
  const double r = 2.0 * double(cdiv(n, t));
  return say(formula,
             "2*ceil(N/T) = 2*ceil(" + str(n) + "/" + str(t) + ") = " + num(r) +
                 " (rows of A and columns of B in shared)",
             r);
}

double tiled_square_loads(const Params& p, std::string* formula) {
  // One element of A and one of B per thread and tile phase: 2 ceil(N/T).
  const int64_t n = p.n, t = std::max(p.tile, 1);
  const double r = 2.0 * double(cdiv(n, t));
  return say(formula, "2*ceil(N/T) = 2*ceil(" + str(n) + "/" + str(t) + ") = " + num(r), r);
}

double tiled_exact_loads(const Params& p, std::string* formula) {
  const int64_t n = p.n, t = std::max(p.tile, 1);
  if (n % t == 0) return tiled_square_loads(p, formula);
  // No bounds checks: every thread of the ceil(N/T)^2 blocks loads in each of
  // the floor(N/T) phases, also those outside the matrix.
  const int64_t side = cdiv(n, t) * t, phases = n / t;
  const double r = 2.0 * double(phases) * double(side) * side / (double(n) * n);
  return say(formula,
             "2*floor(N/T)*(ceil(N/T)*T)^2/N^2 = 2*" + str(phases) + "*" + str(side) + "^2/" +
                 str(n) + "^2 = " + num(r) + " (no bounds checks: every thread loads)",
             r);
}

double tiled_rect_loads(const Params& p, std::string* formula) {
  // A block column reads its A rows once per block of them, a block row its B
  // columns: ceil(N/T) reads of each element of A, ceil(M/T) of B. Blocks
  // that hang over the edge count whole: padding threads load nothing, but
  // the block still exists.
  const int64_t m = std::max(p.m, 1), k = p.k, n = std::max(p.n, 1), t = std::max(p.tile, 1);
  const int64_t gx = cdiv(n, t), gy = cdiv(m, t);
  const double r = (double(gx) * m * k + double(gy) * k * n) / (double(m) * n);
  return say(formula,
             "K*ceil(N/T)/N + K*ceil(M/T)/M = " + str(k) + "*ceil(" + str(n) + "/" + str(t) + ")/" +
                 str(n) + " + " + str(k) + "*ceil(" + str(m) + "/" + str(t) + ")/" + str(m) +
                 " = " + num(r) + (n % t || m % t ? "" : " (2K/T)"),
             r);
}

}  // namespace lessons::matmul_kit

namespace lessons::stencil_kit {

std::vector<float> reference(const Params& p, const LessonInputs& in) {
  const std::vector<float>& x = in[1];
  if (x.empty()) return {};
  const int len = int(x.size());
  const int r = std::max(p.radius, 0);
  std::vector<float> out(len);
  for (int i = 0; i < len; ++i) {
    double sum = 0;
    for (int j = -r; j <= r; ++j)
      sum += x[std::clamp(i + j, 0, len - 1)];
    out[i] = float(sum / double(2 * r + 1));
  }
  return out;
}

std::string radius_out_of_range(const char*, int radius) {
  return "radius " + std::to_string(radius) + ": the radius must be from 0 to " +
         std::to_string(kMaxRadius);
}

std::optional<std::string> check(const Params& p, const DeviceLimits& lim, bool halo) {
  if (auto e = check_block_size(p.block, lim)) return e;
  if (halo && p.radius > p.block)
    return "radius " + std::to_string(p.radius) + " is larger than the block of " +
           std::to_string(p.block) + " threads: the first R threads of a block load the " +
           "halo cells, so the radius may be at most the block size (" + std::to_string(p.block) +
           ")";
  return std::nullopt;
}

ExpectedCounts halo_counts(const Params& p) {
  return halo_counts(p, 1);
}

ExpectedCounts halo_counts(const Params& p, int per_thread) {
  ExpectedCounts c;
  const LaunchGeometry g = span_geometry(p, per_thread);
  const uint64_t len = p.length, r = p.radius, blocks = g.grid.x, b = g.block.x;
  const uint64_t span = b * uint64_t(per_thread);
  c.global_stores = len;
  c.global_loads = blocks * (span + 2 * r);
  c.shared_stores = blocks * (span + 2 * r);
  c.shared_loads = len * (2 * r + 1);
  c.barrier_arrivals = blocks * b;
  return c;
}

std::optional<Params> halo_with_warps(const Params& p, const Params& defaults, int warps) {
  Params q = p;
  q.block = 32 * warps;
  q.radius = std::min(q.radius, q.block);
  if (warps > 1) q.length = std::max(q.length, defaults.length);
  return q;
}

double naive_loads(const Params& p, std::string* formula) {
  const double r = 2.0 * double(p.radius) + 1;
  return say(formula, "2R+1 = 2*" + str(p.radius) + "+1 = " + num(r), r);
}

double halo_loads(const Params& p, std::string* formula) {
  // Every block loads its B cells and 2R halo cells, also the last block
  // where it hangs over the end (clamped): 1 + 2R/B when B divides L.
  const int64_t r_ = p.radius, l = std::max(p.length, 1), b = std::max(p.block, 1);
  const double r = double(cdiv(l, b)) * double(b + 2 * r_) / double(l);
  return say(formula,
             "ceil(L/B)*(B+2R)/L = ceil(" + str(l) + "/" + str(b) + ")*(" + str(b) + "+2*" +
                 str(r_) + ")/" + str(l) + " = " + num(r) + (l % b ? "" : " (1 + 2R/B)"),
             r);
}

double span_loads(const Params& p, int per_thread, int halo, std::string* formula) {
  // Every block loads its span and H halo cells on each side, also the last
  // block where it hangs over the end (clamped): 1 + 2H/S when S divides L.
  const int64_t l = std::max(p.length, 1), s = std::max(p.block, 1) * int64_t(per_thread);
  const double r = double(cdiv(l, s)) * double(s + 2 * halo) / double(l);
  return say(formula,
             "ceil(L/S)*(S+2H)/L, S = " + str(per_thread) + "B = " + str(s) + ", H = " + str(halo) +
                 ": ceil(" + str(l) + "/" + str(s) + ")*(" + str(s) + "+2*" + str(halo) + ")/" +
                 str(l) + " = " + num(r) + (l % s ? "" : " (1 + 2H/S)"),
             r);
}

}  // namespace lessons::stencil_kit

namespace lessons::conv2d_kit {

ArrayTable quad_arrays(const Params& p, MaskIn mask, int steps) {
  const int stages = steps > 1 ? 2 : 1, w = mask_width(p.radius);
  ArrayInfo tile = shared_array("tile", stages * quad_side_rows(p), quad_side_cols(p));
  if (mask == MaskIn::Constant) return arrays(p, {tile});
  // The mask as a global input, copied into shared memory after the tile.
  ArrayTable t = {global_input("in", p.m, p.n, 6), global_input("mask", w, w, 7),
                  global_output("out", p.m, p.n), tile,
                  shared_array("mask_s", w, w, uint32_t(4 * tile.rows * tile.cols))};
  return t;
}

LaunchGeometry quad_geometry(const Params& p, MaskIn mask, int steps) {
  const int side = kQuadOutputs * p.tile, w = mask_width(p.radius);
  LaunchGeometry g = thread_tile_geometry(p, p.tile, side, side * std::max(steps, 1));
  g.static_shared_bytes = uint32_t(4 * (steps > 1 ? 2 : 1) * quad_side_rows(p) * quad_side_cols(p));
  if (mask == MaskIn::Shared) g.static_shared_bytes += uint32_t(4 * w * w);
  return g;
}

ExpectedCounts quad_counts(const Params& p, MaskIn mask, int steps) {
  ExpectedCounts c;
  const int side = kQuadOutputs * p.tile;
  const uint64_t tiles = ceil_div(uint64_t(std::max(p.n, 1)), uint64_t(side)) *
                         ceil_div(uint64_t(std::max(p.m, 1)), uint64_t(side));
  const uint64_t threads = tiles * uint64_t(p.tile) * uint64_t(p.tile);  // over all tiles
  const uint64_t w = uint64_t(mask_width(p.radius)), weights = w * w;
  const uint64_t blocks = quad_geometry(p, mask, steps).grid.count();
  c.global_loads = halo_tile_sum(p.m, side, p.radius) * span_sum(p.n, side, kQuadHalo, kQuadHalo);
  c.global_stores = uint64_t(p.m) * uint64_t(p.n);
  c.shared_stores = tiles * uint64_t(quad_side_rows(p)) * uint64_t(quad_side_cols(p));
  // A window row: its 4 + 2R used columns, each once; at R = 3 three whole float4s (as nvcc loads
  // them).
  const uint64_t row_words = p.radius == 3 ? 12 : 4 + 2 * uint64_t(p.radius);
  c.shared_loads = threads * (kQuadOutputs + 2 * uint64_t(p.radius)) * row_words;
  if (mask == MaskIn::Shared) {  // copied in by each block, read into registers once per thread
    c.global_loads += blocks * weights;
    c.shared_stores += blocks * weights;
    c.shared_loads += threads * weights;
  } else {  // read where it is used: per output row, every weight
    c.constant_loads = threads * kQuadOutputs * weights;
  }
  c.barrier_arrivals = threads;  // one barrier per output tile
  return c;
}

double quad_loads(const Params& p, MaskIn mask, int steps, std::string* formula) {
  const int side = kQuadOutputs * p.tile, w = mask_width(p.radius);
  const double pixels = double(p.m) * double(p.n);
  const double tiles =
      double(halo_tile_sum(p.m, side, p.radius) * span_sum(p.n, side, kQuadHalo, kQuadHalo));
  const std::string ratio =
      "(4T+2R)(4T+8)/(4T)^2 = " + std::to_string(quad_side_rows(p) * quad_side_cols(p)) + "/" +
      std::to_string(side * side);
  if (mask == MaskIn::Constant) return say_mean(formula, ratio, tiles / pixels);
  // Each block also copies the (2R + 1)^2 weights from global memory.
  const double blocks = double(quad_geometry(p, mask, steps).grid.count());
  const double mean = (tiles + blocks * w * w) / pixels;
  if (formula) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", mean);
    *formula = ratio +
               " inside the image, fewer near its edges, plus (2R+1)^2 = " + std::to_string(w * w) +
               " weights per block: mean = " + buf;
  }
  return mean;
}

}  // namespace lessons::conv2d_kit
}  // namespace ts
