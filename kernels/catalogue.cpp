// The catalogue table, parameter checks, launch geometry and the closed-form
// event counts of every variant.
#include "kernels/catalogue.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "kernels/stencil.hpp"

namespace ts {
namespace {

const std::vector<Variant>& table() {
  // Barrier lines are the lines of SYNCTHREADS(id) in the source_file header;
  // tests/test_catalogue.cpp reads the headers and checks every one.
  static const std::vector<Variant> variants = {
      {"matmul.naive_one_block",
       "Naive, one block",
       "One thread per element of C in a single block: fine up to 32 x 32, then a grid is needed.",
       Family::Matmul,
       "kernels/matmul_naive.hpp",
       "matmul_naive_one_block",
       kUsesN,
       Params{.n = 6},
       {},
       "matmul_naive_one_block",
       {}},
      {"matmul.naive_grid",
       "Naive, a grid of blocks",
       "One thread per element of C, blocks tiling C: every element of A and B is read n times "
       "from global memory.",
       Family::Matmul,
       "kernels/matmul_naive.hpp",
       "matmul_naive_grid",
       kUsesN | kUsesBlock,
       Params{.n = 10, .block = 4},
       {},
       "matmul_naive_grid",
       {}},
      {"matmul.row_shared",
       "Rows of A in shared memory",
       "Each block loads its rows of A into shared memory once; B is still read from global "
       "memory.",
       Family::Matmul,
       "kernels/matmul_row_shared.hpp",
       "matmul_row_shared",
       kUsesN | kUsesTile,
       Params{.n = 12, .tile = 8},
       {{1, 47,
         "the rows are loaded by every warp of the block: all in place before anyone reads"}},
       "matmul_row_shared",
       {{Buffer::TileA, "rowsA"}}},
      {"matmul.row_col_shared",
       "Rows of A and columns of B in shared memory",
       "Each block loads its rows of A and its columns of B once; the sums read shared memory "
       "only.",
       Family::Matmul,
       "kernels/matmul_row_shared.hpp",
       "matmul_row_col_shared",
       kUsesN | kUsesTile,
       Params{.n = 12, .tile = 8},
       {{1, 92, "rows and columns are loaded by every warp: all in place before anyone reads"}},
       "matmul_row_col_shared",
       {{Buffer::TileA, "rowsA"}, {Buffer::TileB, "colsB"}}},
      {"matmul.tiled_exact",
       "Tiled, exact multiples only",
       "The textbook tile loop with no bounds checks: right when n is a multiple of the tile, "
       "wrong (and out of range) when it is not.",
       Family::Matmul,
       "kernels/matmul_tiled.hpp",
       "matmul_tiled_exact",
       kUsesN | kUsesTile,
       Params{.n = 12, .tile = 8},
       {{1, 39, "both tiles complete before anyone reads them"},
        {2, 45, "everyone done with these tiles before the next ones overwrite them"}},
       "matmul_tiled_exact",
       {{Buffer::TileA, "tileA"}, {Buffer::TileB, "tileB"}}},
      {"matmul.tiled_square",
       "Tiled, square, with bounds checks",
       "Tiles of A and B in shared memory, zero padding where a tile hangs over the edge: each "
       "element is read n / TILE times instead of n.",
       Family::Matmul,
       "kernels/matmul_tiled.hpp",
       "matmul_tiled_square",
       kUsesN | kUsesTile,
       Params{.n = 12, .tile = 8},
       {{1, 76, "both tiles complete before anyone reads them"},
        {2, 82, "everyone done with these tiles before the next ones overwrite them"}},
       "matmul_tiled_square",
       {{Buffer::TileA, "tileA"}, {Buffer::TileB, "tileB"}}},
      {"matmul.tiled_rect",
       "Tiled, rectangular M x K times K x N",
       "The tiled multiply for any shapes, zero padding at every edge of A, B and C.",
       Family::Matmul,
       "kernels/matmul_tiled.hpp",
       "matmul_tiled_rect",
       kUsesM | kUsesK | kUsesN | kUsesTile,
       Params{.m = 10, .k = 12, .n = 14, .tile = 8},
       {{1, 113, "both tiles complete before anyone reads them"},
        {2, 119, "everyone done with these tiles before the next ones overwrite them"}},
       "matmul_tiled_rect",
       {{Buffer::TileA, "tileA"}, {Buffer::TileB, "tileB"}}},
      {"stencil.naive",
       "1D stencil, global memory only",
       "Each output averages its 2R + 1 neighbours, all read from global memory.",
       Family::Stencil,
       "kernels/stencil.hpp",
       "stencil_naive",
       kUsesLength | kUsesRadius | kUsesBlock,
       Params{.length = 150, .radius = 3, .block = 64},
       {},
       "stencil_naive",
       {}},
      {"stencil.shared",
       "1D stencil, shared memory with halo",
       "Each block loads its elements plus R halo cells on each side into a static shared array, "
       "clamping at the ends.",
       Family::Stencil,
       "kernels/stencil.hpp",
       "stencil_shared",
       kUsesLength | kUsesRadius | kUsesBlock,
       Params{.length = 150, .radius = 3, .block = 64},
       {{1, 71,
         "neighbours were loaded by other threads and warps: all in place before anyone reads"}},
       "stencil_shared",
       {{Buffer::StencilShared, "cache"}}},
      {"stencil.shared_dynamic",
       "1D stencil, extern __shared__ sized at launch",
       "The halo stencil with its shared array sized at launch, for any block size and radius "
       "that fit.",
       Family::Stencil,
       "kernels/stencil.hpp",
       "stencil_shared_dynamic",
       kUsesLength | kUsesRadius | kUsesBlock,
       Params{.length = 150, .radius = 3, .block = 64},
       {{1, 103,
         "neighbours were loaded by other threads and warps: all in place before anyone "
         "reads"}},
       "stencil_shared_dynamic",
       {{Buffer::StencilShared, "cache"}}},
  };
  return variants;
}

bool is(const Variant& v, const char* id) {
  return std::string_view(v.id) == id;
}
bool square(const Variant& v) {
  return v.family == Family::Matmul && !is(v, "matmul.tiled_rect");
}
uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// "2, 4, 8, 16 or 32": the compiled tile widths whose blocks fit `max_threads`.
std::string tile_list(int max_threads = 1 << 30) {
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

std::string bytes_text(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(uint64_t(1) << 30));
  else if (b >= (uint64_t(1) << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
  return buf;
}

// Shape of the matmul: (m, k, n), the square kernels use n for all three.
struct Mkn {
  int64_t m, k, n;
};
Mkn mkn(const Variant& v, const Params& p) {
  if (square(v)) return {p.n, p.n, p.n};
  return {p.m, p.k, p.n};
}

std::optional<std::string> check_side(const char* name, int value) {
  if (value < 1 || value > kMaxMatrixSide)
    return std::string(name) + " = " + std::to_string(value) + ": matrix sizes must be from 1 to " +
           std::to_string(kMaxMatrixSide);
  return std::nullopt;
}

std::optional<std::string> check_tile(const Params& p, const DeviceLimits& lim) {
  const int t = p.tile;
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

std::optional<std::string> check_shared(const Variant& v, const Params& p,
                                        const DeviceLimits& lim) {
  const LaunchGeometry g = geometry(v, p);
  const uint64_t bytes = uint64_t(g.dynamic_shared_bytes) + g.static_shared_bytes;
  if (bytes <= uint64_t(lim.max_shared_per_block)) return std::nullopt;
  std::string what =
      std::string(v.id) + " needs " + std::to_string(bytes) + " bytes of shared memory per block";
  std::string fix;
  if (is(v, "matmul.row_shared") || is(v, "matmul.row_col_shared")) {
    const int per_row = is(v, "matmul.row_shared") ? 1 : 2;
    const int64_t max_n = lim.max_shared_per_block / (int64_t(4) * p.tile * per_row);
    what += " (" + std::string(per_row == 1 ? "" : "2 x ") + std::to_string(p.tile) + " rows of " +
            std::to_string(p.n) + " floats)";
    fix = "use n <= " + std::to_string(max_n) + " with tile " + std::to_string(p.tile) +
          ", a smaller tile, or a tiled kernel, which needs only two tiles";
  } else if (v.family == Family::Stencil) {
    fix = "use a smaller block or radius";
  } else {
    fix = "use a smaller tile";
  }
  return what + ", over the " + std::to_string(lim.max_shared_per_block) +
         " bytes per block this device allows; " + fix;
}

}  // namespace

std::span<const Variant> catalogue() {
  return table();
}

const Variant* find_variant(const std::string& id) {
  for (const Variant& v : table())
    if (id == v.id) return &v;
  return nullptr;
}

std::string variant_ids() {
  std::string s;
  for (const Variant& v : table()) {
    if (!s.empty()) s += ", ";
    s += v.id;
  }
  return s;
}

std::optional<std::string> validate(const Variant& v, const Params& p, const DeviceLimits& lim) {
  if (v.family == Family::Matmul) {
    if (is(v, "matmul.tiled_rect")) {
      if (auto e = check_side("m", p.m)) return e;
      if (auto e = check_side("k", p.k)) return e;
    }
    if (auto e = check_side("n", p.n)) return e;
    const Mkn s = mkn(v, p);

    if (is(v, "matmul.naive_one_block")) {
      if (s.n * s.n > lim.max_threads_per_block) {
        int side = 1;
        while ((side + 1) * (side + 1) <= lim.max_threads_per_block)
          ++side;
        return "n = " + std::to_string(p.n) + ": one block of " + std::to_string(p.n) + " x " +
               std::to_string(p.n) + " = " + std::to_string(s.n * s.n) + " threads exceeds the " +
               std::to_string(lim.max_threads_per_block) +
               " threads a block may have, so one block computes at most " + std::to_string(side) +
               " x " + std::to_string(side) +
               "; a bigger matrix needs a grid of blocks (matmul.naive_grid)";
      }
    } else if (is(v, "matmul.naive_grid")) {
      if (p.block < 1 || int64_t(p.block) * p.block > lim.max_threads_per_block) {
        int side = 1;
        while ((side + 1) * (side + 1) <= lim.max_threads_per_block)
          ++side;
        return "block " + std::to_string(p.block) + ": the block side must be from 1 to " +
               std::to_string(side) + " (" + std::to_string(side) + " x " + std::to_string(side) +
               " threads; a block may have at most " + std::to_string(lim.max_threads_per_block) +
               ")";
      }
    } else {
      if (auto e = check_tile(p, lim)) return e;
    }
  } else {  // stencil
    if (p.length < 1 || p.length > kMaxLength)
      return "length " + std::to_string(p.length) + ": the array length must be from 1 to " +
             std::to_string(kMaxLength);
    if (p.block < 1 || p.block > lim.max_threads_per_block)
      return "block " + std::to_string(p.block) + ": threads per block must be from 1 to " +
             std::to_string(lim.max_threads_per_block) + " (this device's limit)";
    if (p.radius < 0 || p.radius > kMaxStencilRadius)
      return "radius " + std::to_string(p.radius) + ": the radius must be from 0 to " +
             std::to_string(kMaxStencilRadius);
    if (!is(v, "stencil.naive") && p.radius > p.block)
      return "radius " + std::to_string(p.radius) + " is larger than the block of " +
             std::to_string(p.block) + " threads: the first R threads of a block load the " +
             "halo cells, so the radius may be at most the block size (" + std::to_string(p.block) +
             ")";
    if (is(v, "stencil.shared")) {
      if (p.block > kernels::kStencilMaxBlock)
        return "block " + std::to_string(p.block) +
               ": the static shared array is sized for at "
               "most " +
               std::to_string(kernels::kStencilMaxBlock) + " threads per block";
      if (p.radius > kernels::kStencilMaxRadius)
        return "radius " + std::to_string(p.radius) +
               ": the static shared array is sized at compile time for a radius of at most " +
               std::to_string(kernels::kStencilMaxRadius) +
               "; use stencil.shared_dynamic (sized at launch) for more";
    }
  }
  if (auto e = check_shared(v, p, lim)) return e;

  uint64_t bytes = 0;
  for (const BufferShape& b : buffer_shapes(v, p))
    bytes += allocation_elements(v, p, b.id) * 4;
  if (bytes > lim.global_memory_bytes)
    return "the arrays need " + bytes_text(bytes) + " of memory, more than the " +
           bytes_text(lim.global_memory_bytes) + " available; use smaller sizes";
  return std::nullopt;
}

std::optional<std::string> validate_barrier_id(const Variant& v, int id) {
  const int count = int(v.barriers.size());
  if (id >= 1 && id <= count) return std::nullopt;
  std::string have;
  for (int i = 1; i <= count; ++i)
    have += (i == 1 ? "" : i == count ? " and " : ", ") + std::to_string(i);
  return "barrier " + std::to_string(id) + ": " + v.id + " has " +
         (count == 0
              ? std::string("no barriers")
              : std::to_string(count) + (count == 1 ? " barrier (" : " barriers (") + have + ")");
}

std::optional<std::string> validate_barrier_mask(const Variant& v, uint32_t mask) {
  const uint32_t all = all_barriers(v);
  const uint32_t extra = mask & ~all;
  // Bits beyond the variant's barriers may be all set (a "keep everything"
  // mask such as ~0u with some barriers cleared) or all clear; a mixture names
  // a barrier the kernel does not have.
  if (extra == 0 || extra == ~all) return std::nullopt;
  // Mostly set: the first cleared bit is a barrier someone tried to remove;
  // mostly clear: the first set bit is one someone tried to keep.
  const bool mostly_set = __builtin_popcount(extra) > 16;
  const uint32_t odd = mostly_set ? (~mask & ~all) : extra;
  return validate_barrier_id(v, __builtin_ctz(odd) + 1);
}

LaunchGeometry geometry(const Variant& v, const Params& p) {
  LaunchGeometry g;
  const auto u = [](int64_t x) { return uint32_t(std::max<int64_t>(x, 1)); };
  if (is(v, "matmul.naive_one_block")) {
    g.block = {u(p.n), u(p.n), 1};
  } else if (is(v, "matmul.naive_grid")) {
    const int b = std::max(p.block, 1);
    g.block = {u(b), u(b), 1};
    g.grid = {u(ceil_div(std::max(p.n, 1), b)), u(ceil_div(std::max(p.n, 1), b)), 1};
  } else if (v.family == Family::Matmul) {
    const int t = std::max(p.tile, 1);
    const Mkn s = mkn(v, p);
    g.block = {u(t), u(t), 1};
    g.grid = {u(ceil_div(std::max<int64_t>(s.n, 1), t)), u(ceil_div(std::max<int64_t>(s.m, 1), t)),
              1};
    if (is(v, "matmul.row_shared"))
      g.dynamic_shared_bytes =
          uint32_t(std::min<int64_t>(int64_t(4) * t * std::max(p.n, 0), 1u << 31));
    else if (is(v, "matmul.row_col_shared"))
      g.dynamic_shared_bytes =
          uint32_t(std::min<int64_t>(int64_t(8) * t * std::max(p.n, 0), 1u << 31));
    else
      g.static_shared_bytes = uint32_t(2 * 4 * t * t);
  } else {
    const int b = std::max(p.block, 1);
    g.block = {u(b), 1, 1};
    g.grid = {u(ceil_div(std::max(p.length, 1), b)), 1, 1};
    if (is(v, "stencil.shared"))
      g.static_shared_bytes = 4 * (kernels::kStencilMaxBlock + 2 * kernels::kStencilMaxRadius);
    else if (is(v, "stencil.shared_dynamic"))
      g.dynamic_shared_bytes = uint32_t(4 * (int64_t(b) + 2 * std::max(p.radius, 0)));
  }
  return g;
}

int warps_per_block(const Variant& v, const Params& p) {
  return int(ceil_div(geometry(v, p).block.count(), 32));
}

std::optional<Params> params_with_warps(const Variant& v, const Params& p, int warps) {
  if (v.barriers.empty() || warps < 1 || warps > 2) return std::nullopt;
  Params q = p;
  if (v.uses & kUsesTile) {
    q.tile = warps == 1 ? 4 : 8;  // 16 or 64 threads
  } else if (v.uses & kUsesBlock) {
    q.block = 32 * warps;
    q.radius = std::min(q.radius, q.block);
  } else {
    return std::nullopt;
  }
  if (warps > 1) {
    // Enough data that the second warp has work.
    for (auto [mine, def] : {std::pair{&q.m, v.defaults.m},
                             {&q.k, v.defaults.k},
                             {&q.n, v.defaults.n},
                             {&q.length, v.defaults.length}})
      *mine = std::max(*mine, def);
  }
  if (validate(v, q, DeviceLimits{})) return std::nullopt;
  return q;
}

ExpectedCounts expected_counts(const Variant& v, const Params& p) {
  ExpectedCounts c;
  const LaunchGeometry g = geometry(v, p);
  const uint64_t threads = g.grid.count() * g.block.count();
  if (v.family == Family::Matmul) {
    const Mkn s = mkn(v, p);
    const uint64_t m = s.m, k = s.k, n = s.n;
    if (is(v, "matmul.naive_one_block") || is(v, "matmul.naive_grid")) {
      // Each of the n^2 threads inside C reads a row of A and a column of B.
      c.global_loads = 2 * n * n * n;
      c.global_stores = n * n;
    } else if (is(v, "matmul.row_shared") || is(v, "matmul.row_col_shared")) {
      // Every block column loads all n rows of A once (each row: n elements);
      // with columns in shared memory, every block row loads all of B once.
      const uint64_t gx = g.grid.x, gy = g.grid.y;
      const bool cols = is(v, "matmul.row_col_shared");
      c.shared_stores = gx * n * n + (cols ? gy * n * n : 0);
      c.global_loads = gx * n * n + (cols ? gy * n * n : n * n * n);
      c.shared_loads = (cols ? 2 : 1) * n * n * n;
      c.global_stores = n * n;
      c.barrier_arrivals = threads;
    } else {
      const uint64_t t = uint64_t(p.tile);
      const uint64_t gx = g.grid.x, gy = g.grid.y;
      if (is(v, "matmul.tiled_exact")) {
        // No checks: every thread loads and stores, n / TILE tiles (rounded down).
        const uint64_t tiles = n / t;
        c.global_loads = threads * tiles * 2;
        c.global_stores = threads;
        c.shared_stores = threads * tiles * 2;
        c.shared_loads = threads * tiles * 2 * t;
        c.barrier_arrivals = threads * tiles * 2;
      } else {
        // A is read once per block column (gx times), B once per block row
        // (gy times): 2n/T loads per element of C when T divides n. Padding
        // threads store zeros into the tiles but load nothing.
        const uint64_t tiles = ceil_div(k, t);
        c.global_loads = gx * m * k + gy * k * n;
        c.global_stores = m * n;
        c.shared_stores = threads * tiles * 2;
        c.shared_loads = threads * tiles * 2 * t;
        c.barrier_arrivals = threads * tiles * 2;
      }
    }
  } else {
    const uint64_t len = p.length, r = p.radius, blocks = g.grid.x, b = g.block.x;
    c.global_stores = len;
    if (is(v, "stencil.naive")) {
      c.global_loads = len * (2 * r + 1);
    } else {
      // Every thread of every block loads its own cell (clamped past the end),
      // and the first R threads the 2R halo cells.
      c.global_loads = blocks * (b + 2 * r);
      c.shared_stores = blocks * (b + 2 * r);
      c.shared_loads = len * (2 * r + 1);
      c.barrier_arrivals = threads;
    }
  }
  return c;
}

std::vector<BufferShape> buffer_shapes(const Variant& v, const Params& p) {
  if (v.family == Family::Stencil)
    return {{Buffer::In, 1, p.length, false}, {Buffer::Out, 1, p.length, true}};
  const Mkn s = mkn(v, p);
  return {{Buffer::A, int(s.m), int(s.k), false},
          {Buffer::B, int(s.k), int(s.n), false},
          {Buffer::C, int(s.m), int(s.n), true}};
}

const char* source_name(const Variant& v, Buffer b) {
  for (const SharedArrayName& a : v.shared_arrays)
    if (a.id == b) return a.name;
  return to_string(b);
}

const char* source_name(const std::string& variant_id, Buffer b) {
  const Variant* v = find_variant(variant_id);
  return v ? source_name(*v, b) : to_string(b);
}

std::string element_name(const Variant& v, const Params& p, Buffer b, uint32_t element) {
  const std::string name = source_name(v, b);
  for (const BufferShape& s : shared_shapes(v, p))
    if (s.id == b && s.rows > 1 && s.cols > 0)
      return name + "[" + std::to_string(element / uint32_t(s.cols)) + "][" +
             std::to_string(element % uint32_t(s.cols)) + "]";
  return name + "[" + std::to_string(element) + "]";
}

std::vector<BufferShape> shared_shapes(const Variant& v, const Params& p) {
  if (is(v, "matmul.row_shared")) return {{Buffer::TileA, p.tile, p.n, false}};
  if (is(v, "matmul.row_col_shared"))
    return {{Buffer::TileA, p.tile, p.n, false}, {Buffer::TileB, p.n, p.tile, false}};
  if (v.family == Family::Matmul) {
    if (!(v.uses & kUsesTile)) return {};
    return {{Buffer::TileA, p.tile, p.tile, false}, {Buffer::TileB, p.tile, p.tile, false}};
  }
  if (is(v, "stencil.naive")) return {};
  return {{Buffer::StencilShared, 1, p.block + 2 * p.radius, false}};
}

KernelArgs kernel_args(const Variant& v, const Params& p) {
  KernelArgs a;
  if (v.family == Family::Matmul) {
    const Mkn s = mkn(v, p);
    a.m = int(s.m);
    a.k = int(s.k);
    a.n = int(s.n);
    a.a_count = int(s.m * s.k);
    a.b_count = int(s.k * s.n);
    a.c_count = int(s.m * s.n);
  } else {
    a.length = p.length;
    a.radius = p.radius;
    a.in_count = p.length;
    a.out_count = p.length;
  }
  return a;
}

uint64_t allocation_elements(const Variant& v, const Params& p, Buffer b) {
  uint64_t count = 0;
  for (const BufferShape& s : buffer_shapes(v, p))
    if (s.id == b) count = uint64_t(std::max(s.rows, 0)) * uint64_t(std::max(s.cols, 0));
  if (is(v, "matmul.tiled_exact") && p.tile > 0 && p.n > 0) {
    // Threads of the overhanging blocks index up to (R - 1) * n + R - 1 with
    // R = ceil(n / T) * T: an R x R allocation holds every such access.
    const uint64_t r = ceil_div(p.n, p.tile) * p.tile;
    count = std::max(count, r * r);
  }
  return count;
}

std::optional<std::string> validate_trace(const Variant& v, const Params& p, uint64_t capacity) {
  const uint64_t need = expected_counts(v, p).total();
  if (need <= capacity) return std::nullopt;
  return "the trace needs " + std::to_string(need) + " events (" + bytes_text(need * 40) +
         "), the trace buffer holds " + std::to_string(capacity) + " (" +
         bytes_text(capacity * 40) +
         "); use smaller sizes, a larger trace capacity, or an untraced run";
}

std::vector<NamedParam> used_params(uint32_t uses, const Params& p) {
  const struct {
    uint32_t bit;
    NamedParam param;
  } all[] = {{kUsesM, {"m", p.m}},
             {kUsesK, {"k", p.k}},
             {kUsesN, {"n", p.n}},
             {kUsesTile, {"tile", p.tile}},
             {kUsesLength, {"length", p.length}},
             {kUsesRadius, {"radius", p.radius}},
             {kUsesBlock, {"block", p.block}}};
  std::vector<NamedParam> out;
  for (const auto& a : all)
    if (uses & a.bit) out.push_back(a.param);
  return out;
}

std::string describe(uint32_t uses, const Params& p) {
  std::string s;
  for (const NamedParam& q : used_params(uses, p))
    s += (s.empty() ? "" : " ") + std::string(q.name) + "=" + std::to_string(q.value);
  return s;
}

std::string describe(const Variant& v, const Params& p) {
  return describe(v.uses, p);
}

}  // namespace ts
