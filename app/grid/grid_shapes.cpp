// The grid's arrays as shapes (app/grid/grid_shapes.hpp).
#include "app/grid/grid_shapes.hpp"

#include <algorithm>

namespace ts::app {

namespace {

// The halo ring of a 2D shared array: its rows and columns beyond a 2D
// block's on every side, the same number all around (0: none).
int halo_ring(int rows, int cols, Dim3 block) {
  const int hx = cols - int(block.x), hy = rows - int(block.y);
  if (rows < 2 || block.y < 2 || hx != hy || hx <= 0 || hx % 2) return 0;
  return hx / 2;
}

// The arrays of the table, each in its group, at their own extent.
Shapes grouped(const Replay& r, uint32_t selected_block) {
  Shapes sh;
  const ArrayTable& table = r.trace().config.arrays;
  for (size_t i = 0; i < table.size(); ++i) {
    const ArraySlot slot = ArraySlot(i + 1);
    const ReplayArray* a = r.array(slot);
    if (!a || a->count() == 0) continue;
    ArrayShape p;
    p.id = slot;
    p.shared = a->shared;
    p.output = a->is_output;
    p.block = a->shared ? selected_block : 0;
    p.rows = p.data_rows = a->rows;
    p.cols = p.data_cols = a->cols;
    p.name = p.title = table[i].name;
    p.constant = table[i].space == Space::Constant;
    if (p.constant) p.title = p.name + " (constant)";
    (a->shared ? sh.shared : a->is_output ? sh.outputs : sh.inputs).push_back(p);
  }
  return sh;
}

// A multiply: two inputs whose shapes chain as (m x k)(k x n) into one m x n output.
void find_multiply(Shapes& sh) {
  if (sh.inputs.size() != 2 || sh.outputs.size() != 1) return;
  ArrayShape &x = sh.inputs[0], &y = sh.inputs[1];
  const ArrayShape& z = sh.outputs[0];
  auto chains = [&](const ArrayShape& a, const ArrayShape& b) {
    return a.data_cols == b.data_rows && a.data_rows == z.data_rows && b.data_cols == z.data_cols;
  };
  if (!chains(x, y) && chains(y, x)) std::swap(x, y);
  sh.multiply = chains(x, y);
  if (sh.multiply)
    sh.outputs[0].title = z.name + " = " + sh.inputs[0].name + " x " + sh.inputs[1].name;
}

// Square shared tiles (every 2D shared array t x t without its halo ring, or
// t x (t + a few): a tile padded against bank conflicts): t, else 0 or -1.
int square_tile(const Shapes& sh) {
  int tile = 0;
  for (const ArrayShape& p : sh.shared) {
    if (p.data_rows < 2 || p.data_cols < 2) continue;
    const int rows = p.data_rows - 2 * p.ring, cols = p.data_cols - 2 * p.ring;
    const int side = std::min(rows, cols);
    const int extra = std::max(rows, cols) - side;
    if (extra > std::max(1, side / 8) || (tile && tile != side)) return -1;
    tile = side;
  }
  return tile;
}

}  // namespace

int64_t ArrayShape::element_at(int row, int col) const {
  if (row < 0 || col < 0 || row >= rows || col >= cols) return -1;
  const int64_t e =
      wrap ? int64_t(row) * wrap + col - lead
           : (row < data_rows && col < data_cols ? int64_t(row) * data_cols + col : -1);
  return e >= 0 && e < int64_t(data_rows) * data_cols ? e : -1;
}

bool ArrayShape::cell_of(uint32_t e, int* row, int* col) const {
  if (wrap) {
    const int64_t at = int64_t(e) + lead;
    *row = int(at / wrap);
    *col = int(at % wrap);
  } else {
    if (data_cols <= 0) return false;
    *row = int(e / uint32_t(data_cols));
    *col = int(e % uint32_t(data_cols));
  }
  return *row < rows && *col < cols;
}

// The `halo` elements at each end of a 1D array, the `ring` around a 2D one.
bool ArrayShape::in_halo(int row, int col) const {
  if (halo) {
    const int64_t e = wrap ? element_at(row, col) : col;
    return e >= 0 && (e < halo || e >= int64_t(data_cols) - halo);
  }
  return ring && (row < ring || row >= data_rows - ring || col < ring || col >= data_cols - ring);
}

namespace {

// One wrapped array at `width`: a shared array with a halo leads with empty
// cells so that its first block element starts a row.
void wrap_at(ArrayShape& p, int width) {
  p.wrap = width;
  p.lead = p.halo ? (width - p.halo % width) % width : 0;
  const int64_t cells = int64_t(p.data_cols) + p.lead;
  p.cols = int(std::min<int64_t>(width, cells));
  p.rows = int((cells + width - 1) / width);
}

}  // namespace

std::vector<int> wrap_widths(const Shapes& sh) {
  bool any = false;
  int longest = 0;
  for (const auto* g : {&sh.inputs, &sh.shared, &sh.outputs})
    for (const ArrayShape& p : *g)
      if (p.wrap) any = true, longest = std::max(longest, p.data_cols);
  if (!any) return {};
  if (sh.pinned_wrap > 0) return {sh.pinned_wrap};
  if (sh.threads < 32 || sh.threads % 32) return {sh.threads};
  std::vector<int> out;
  // Up to a block (a row per block, as before), never wider than the longest array needs.
  for (int w = 32; w <= sh.threads; w *= 2)
    if (sh.threads % w == 0 && (out.empty() || w / 2 < longest)) out.push_back(w);
  return out;
}

Shapes rewrapped(const Shapes& sh, int width) {
  Shapes out = sh;
  for (auto* g : {&out.inputs, &out.shared, &out.outputs})
    for (ArrayShape& p : *g)
      if (p.wrap) wrap_at(p, width);
  return out;
}

Shapes grid_shapes(const Replay& r, uint32_t selected_block) {
  Shapes sh = grouped(r, selected_block);
  find_multiply(sh);
  // A 2D shared array larger than a 2D block by the same ring on every side
  // holds the block's cells and a halo around them (a convolution's input tile).
  const Dim3 bd = r.trace().config.geometry.block;
  for (ArrayShape& p : sh.shared)
    if (int ring = halo_ring(p.data_rows, p.data_cols, bd); ring > 0) {
      p.ring = ring;
      p.title = p.name + " (block + halo ring)";
    }
  // The global matrices are drawn in tiles of the shared tile, padded to whole
  // tiles where the tiles hang over; so a padded layout is drawn at the scale
  // of the plain one.
  const int tile = square_tile(sh);
  // 1D arrays (one row), outside a multiply, global and shared alike: wrapped
  // into rows of whole warps (wrap_widths). A 1D shared array longer than the
  // block by the same number of cells on both sides holds a halo there.
  const int threads = int(std::max(1u, bd.x) * std::max(1u, bd.y) * std::max(1u, bd.z));
  sh.threads = threads;
  bool wrapped = false;
  for (auto* group : {&sh.inputs, &sh.outputs})
    for (ArrayShape& p : *group) {
      if (p.constant) continue;
      if (!sh.multiply && p.data_rows == 1) {
        p.wrap = threads;
        wrapped = true;
      } else if (tile > 1) {
        p.rows = (p.data_rows + tile - 1) / tile * tile;
        p.cols = (p.data_cols + tile - 1) / tile * tile;
        p.tile = tile;
      }
    }
  for (ArrayShape& p : sh.shared) {
    if (!wrapped || p.data_rows != 1 || p.data_cols < 2) continue;
    p.wrap = threads;
    if (p.data_cols > threads && (p.data_cols - threads) % 2 == 0) {
      p.halo = (p.data_cols - threads) / 2;
      p.title = p.name + " (halo | block | halo)";
    }
  }
  const std::vector<int> widths = wrap_widths(sh);
  return widths.empty() ? sh : rewrapped(sh, widths.front());
}

const OutputOwners::Of* OutputOwners::of(ArraySlot slot) const {
  for (const Of& o : outputs)
    if (o.slot == slot) return &o;
  return nullptr;
}

void OutputOwners::build(uint64_t gen, const Trace& t, const Shapes& sh) {
  if (gen == generation) return;
  generation = gen;
  outputs.clear();
  const LaunchGeometry& g = t.config.geometry;
  const uint32_t bx = std::max(1u, g.block.x), by = std::max(1u, g.block.y);
  const uint32_t gx = std::max(1u, g.grid.x);
  threads = bx * by * std::max(1u, g.block.z);
  const uint64_t total =
      uint64_t(threads) * std::max(1u, g.grid.x) * std::max(1u, g.grid.y) * std::max(1u, g.grid.z);
  if (total > (1u << 26)) return;  // too big to index: the geometry it is
  for (const ArrayShape& p : sh.outputs) {
    Of o;
    o.slot = p.id;
    o.element.assign(size_t(total), -1);
    for (const Event& e : t.events) {
      if (e.kind != EventKind::GlobalStore || e.array != p.id) continue;
      const uint64_t i = uint64_t(e.block) * threads + e.thread;
      if (i >= total || o.element[i] >= 0) continue;
      o.element[i] = e.element;
      // Where the geometry puts this thread's cell.
      int64_t at = -1;
      if (p.wrap) {
        at = int64_t(e.block) * threads + e.thread;
      } else {
        const uint64_t row = (e.block / gx) * by + e.thread / bx;
        const uint64_t col = (e.block % gx) * bx + e.thread % bx;
        if (row < uint64_t(p.data_rows) && col < uint64_t(p.data_cols))
          at = int64_t(row * uint64_t(p.data_cols) + col);
      }
      o.geometric = o.geometric && at == int64_t(e.element);
    }
    outputs.push_back(std::move(o));
  }
}

bool OutputOwners::owner_cell(const ArrayShape& p, const Of& o, uint32_t b, uint32_t th, int* row,
                              int* col) const {
  const uint64_t i = uint64_t(b) * threads + th;
  if (th >= threads || i >= o.element.size() || o.element[i] < 0) return false;
  return p.cell_of(uint32_t(o.element[i]), row, col);
}

}  // namespace ts::app
