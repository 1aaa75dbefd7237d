// The grid's cell model (app/grid/grid_cells.hpp) without a window: lessons
// of the catalogue run on the simulator, replayed, and each cell asked what
// the grid shows there, as a user checks it: a value, written or wrong, a
// tile's padding hatched, an input element in shared memory, a halo.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "analysis/stale_reads.hpp"
#include "app/grid/grid_cells.hpp"
#include "engine/catalogue.hpp"

namespace ts::app {
namespace {

// A lesson run on the simulator and installed as the window installs it.
struct Screen {
  AppState s;
  Shapes shapes;
  Residency res;

  bool run(const LessonInfo& v, uint32_t barrier_mask = ~0u,
           InputKind inputs = InputKind::SmallIntegers) {
    RunRequest req;
    req.lesson_id = v.id;
    req.params = v.defaults;
    req.barrier_mask = barrier_mask;
    req.backend = BackendChoice::Sim;
    req.inputs = inputs;
    RunResult result = ts::run(req);
    if (!result.ok) return false;
    auto trace = std::make_shared<const Trace>(std::move(result.trace));
    s.result.trace = trace;
    s.result.verdict = result.verdict;
    std::sort(s.result.verdict.wrong_cells.begin(), s.result.verdict.wrong_cells.end());
    // As app/core/jobs.cpp installs a run: with the stale reads the grid colours.
    auto stale = std::make_shared<const StaleReadReport>(find_stale_reads(*trace, req.inputs, 512));
    s.replay = std::make_unique<Replay>(trace, std::move(stale));
    seek(0);
    return true;
  }
  void seek(uint64_t position) {
    s.replay->seek(position);
    shapes = grid_shapes(*s.replay, s.selection.block);
    res = residency(*s.replay, shapes, s.selection.block);
  }
  void seek_end() { seek(s.replay->size()); }
  ArrayCells cells(const ArrayShape& p) const { return array_cells(s, p, res, true); }
};

// The first lesson of the catalogue whose grid (at its defaults, at the end of
// the run) has what `wanted` asks for; nullptr when none has.
const LessonInfo* first_lesson(const std::function<bool(Screen&)>& wanted) {
  for (const LessonInfo& v : all_lessons()) {
    Screen sc;
    if (sc.run(v) && (sc.seek_end(), wanted(sc))) return &v;
  }
  return nullptr;
}

TEST(GridCells, TheDefaultLessonsOutputShowsItsValuesWrittenAtTheEnd) {
  Screen sc;
  ASSERT_TRUE(sc.run(default_lesson()));
  ASSERT_FALSE(sc.shapes.outputs.empty());
  const ArrayShape out = sc.shapes.outputs[0];  // a copy: seeking makes the shapes anew
  // Before the first event: nothing stored, nothing printed.
  for (const GridCell& c : sc.cells(out).cells)
    if (c.element >= 0) {
      EXPECT_EQ(c.role, CellRole::Plain);
      EXPECT_EQ(c.value, "");
    }
  sc.seek_end();
  const BufferData* data = sc.s.trace().output();
  ASSERT_NE(data, nullptr);
  ASSERT_TRUE(sc.s.result.verdict.correct);
  const ArrayCells cells = sc.cells(out);
  int checked = 0;
  for (int row = 0; row < out.rows; ++row)
    for (int col = 0; col < out.cols; ++col) {
      const GridCell& c = cells.at(row, col);
      if (c.element < 0) continue;
      EXPECT_EQ(c.role, CellRole::Written) << out.name << "[" << row << "][" << col << "]";
      EXPECT_EQ(c.value, format_value(data->values[size_t(c.element)]));
      ++checked;
    }
  EXPECT_EQ(checked, out.data_rows * out.data_cols);
  // Its hover names the cell and says its value.
  const CellHover h = cell_hover(sc.s, out, 0, 0);
  ASSERT_GE(h.lines.size(), 2u);
  EXPECT_EQ(h.lines[1].text, "value " + format_value(data->values[0]));
}

TEST(GridCells, ATileHangingOverTheMatrixIsHatchedPadding) {
  const LessonInfo* v = first_lesson([](Screen& sc) {
    for (const ArrayShape& p : sc.shapes.inputs)
      if (p.tile > 0 && p.rows > p.data_rows) return true;
    return false;
  });
  ASSERT_NE(v, nullptr) << "no lesson pads its matrices to whole tiles at its defaults";
  Screen sc;
  ASSERT_TRUE(sc.run(*v));
  sc.seek_end();
  for (const ArrayShape& p : sc.shapes.inputs) {
    if (p.rows <= p.data_rows) continue;
    const ArrayCells cells = sc.cells(p);
    const GridCell& over = cells.at(p.data_rows, 0);  // the first row past the matrix
    EXPECT_EQ(over.element, -1);
    EXPECT_EQ(over.role, CellRole::Padding);
    EXPECT_TRUE(over.hatched);
    EXPECT_EQ(cell_hover(sc.s, p, p.data_rows, 0).lines[0].text,
              "Outside the array: a tile hanging over the edge.");
    EXPECT_NE(cells.at(0, 0).role, CellRole::Padding);
  }
}

TEST(GridCells, AtTheFirstBarrierTheBlocksInputTileIsInSharedMemory) {
  // A multiply with shared tiles: at its first barrier the selected block's
  // tiles of A and B are loaded; those input cells say so, and the shared
  // cells hold the same values.
  const LessonInfo* v = first_lesson([](Screen& sc) {
    return sc.shapes.multiply && !sc.shapes.shared.empty() && !sc.s.lesson()->barriers.empty();
  });
  ASSERT_NE(v, nullptr);
  Screen sc;
  ASSERT_TRUE(sc.run(*v));
  const Replay& r = *sc.s.replay;
  uint64_t at = 0;
  for (uint64_t p = 1; p <= r.size() && !at; ++p)
    if (r.trace().events[r.event_at(p)].kind == EventKind::BarrierArrive) at = p;
  ASSERT_GT(at, 0u);
  // Every thread of block 0 at the barrier: seek on until one leaves it.
  sc.seek(at);
  while (sc.s.replay->position() < r.size() &&
         barrier_wait(r, 0).arrived < barrier_wait(r, 0).threads)
    sc.seek(sc.s.replay->position() + 1);
  const BarrierWait wait = barrier_wait(r, 0);
  ASSERT_TRUE(wait.active);
  EXPECT_EQ(wait.arrived, wait.threads);
  int resident = 0;
  for (const ArrayShape& p : sc.shapes.inputs)
    for (const GridCell& c : sc.cells(p).cells)
      resident += c.role == CellRole::Resident;
  EXPECT_GT(resident, 0);
  for (const ArrayShape& p : sc.shapes.shared) {
    const ArrayCells cells = sc.cells(p);
    EXPECT_EQ(cells.at(0, 0).role, CellRole::SharedLoaded) << p.name;
    EXPECT_NE(cells.at(0, 0).value, "") << p.name;
  }
  // The waiting marks: one per thread of block 0 whose output cell is drawn, all arrived.
  const std::vector<WaitMark> marks = wait_marks(sc.s, sc.shapes.outputs[0], OutputOwners{}, wait);
  EXPECT_FALSE(marks.empty());
  for (const WaitMark& m : marks)
    EXPECT_TRUE(m.arrived);
  // Block 0's part of the output is outlined from the top left corner.
  OutputOwners owners;
  owners.build(1, r.trace(), sc.shapes);
  const BlockOutline o = block_outline(sc.s, sc.shapes.outputs[0], owners);
  EXPECT_TRUE(o.any);
  EXPECT_EQ(o.r0, 0);
  EXPECT_EQ(o.c0, 0);
}

TEST(GridCells, AStencilsSharedArrayShowsItsHalo) {
  const LessonInfo* v = first_lesson([](Screen& sc) {
    for (const ArrayShape& p : sc.shapes.shared)
      if (p.halo > 0) return true;
    return false;
  });
  ASSERT_NE(v, nullptr) << "no lesson has a 1D shared array with a halo";
  Screen sc;
  ASSERT_TRUE(sc.run(*v));
  sc.seek_end();
  for (const ArrayShape& p : sc.shapes.shared) {
    if (p.halo <= 0) continue;
    const ArrayCells cells = sc.cells(p);
    // Wrapped into warp rows: the first block element starts a row, the left
    // halo ends the row above it.
    int row = 0, col = 0;
    ASSERT_TRUE(p.cell_of(uint32_t(p.halo), &row, &col));
    EXPECT_EQ(col, 0) << p.name;
    EXPECT_EQ(cells.at(row, col).role, CellRole::SharedLoaded);
    ASSERT_TRUE(p.cell_of(0, &row, &col));
    EXPECT_EQ(cells.at(row, col).role, CellRole::SharedHalo);
    ASSERT_TRUE(p.cell_of(uint32_t(p.data_cols - 1), &row, &col));
    EXPECT_EQ(cells.at(row, col).role, CellRole::SharedHalo);
  }
  // The input elements behind block 0's halo slots are coloured as halo.
  int halo = 0;
  for (const ArrayShape& p : sc.shapes.inputs)
    for (const GridCell& c : sc.cells(p).cells)
      halo += c.role == CellRole::ResidentHalo;
  EXPECT_GT(halo, 0);
}

// Issue 33, defect 7: padding is where a tile hangs over the input, whatever
// the input's values. With small integers a zero is common, with uniform
// inputs never; a shared cell is drawn as padding in the one exactly where it
// is in the other, at every barrier of block 0 (conv2d.double_buffer drew the
// zeros its prefetch stored after the barrier as padding).
TEST(GridCells, PaddingDoesNotDependOnTheInputsValues) {
  int compared = 0;
  for (const LessonInfo& v : all_lessons()) {
    Screen ints, uniform;
    if (!ints.run(v) || !uniform.run(v, ~0u, InputKind::Uniform)) continue;
    if (ints.shapes.shared.empty() || ints.s.replay->size() != uniform.s.replay->size()) continue;
    ++compared;
    for (uint64_t pos = 0;;) {
      const uint64_t next = ints.s.replay->barrier_step(pos, true, 0);
      if (next <= pos) break;
      pos = next;
      ints.seek(pos);
      uniform.seek(pos);
      for (size_t i = 0; i < ints.shapes.shared.size(); ++i) {
        const ArrayShape& p = ints.shapes.shared[i];
        const ArrayCells a = ints.cells(p), b = uniform.cells(uniform.shapes.shared[i]);
        for (size_t c = 0; c < a.cells.size(); ++c)
          ASSERT_EQ(a.cells[c].role == CellRole::SharedPadded,
                    b.cells[c].role == CellRole::SharedPadded)
              << v.id << " " << p.name << " element " << a.cells[c].element << " at position "
              << pos << ": padding with small integers "
              << (a.cells[c].role == CellRole::SharedPadded) << ", with uniform inputs "
              << (b.cells[c].role == CellRole::SharedPadded);
      }
    }
  }
  EXPECT_GT(compared, 10);
}

TEST(GridCells, WithoutItsBarriersALessonsWrongCellsAreMarkedWrongAtTheEnd) {
  // The first lesson whose output is wrong on the simulator with every barrier removed.
  for (const LessonInfo& v : all_lessons()) {
    if (v.barriers.empty()) continue;
    Screen sc;
    if (!sc.run(v, 0) || sc.s.result.verdict.wrong_cells.empty()) continue;
    sc.seek_end();
    const ArrayShape& out = sc.shapes.outputs[0];
    const ArrayCells cells = sc.cells(out);
    const auto& wrong = sc.s.result.verdict.wrong_cells;
    for (const GridCell& c : cells.cells) {
      if (c.element < 0) continue;
      const bool is_wrong = std::binary_search(wrong.begin(), wrong.end(), uint32_t(c.element));
      EXPECT_EQ(c.role == CellRole::Wrong, is_wrong) << v.id << " element " << c.element;
    }
    int row = 0, col = 0;
    ASSERT_TRUE(out.cell_of(wrong[0], &row, &col));
    const CellHover h = cell_hover(sc.s, out, row, col);
    ASSERT_FALSE(h.lines.empty());
    EXPECT_EQ(h.lines.back().style, HoverLine::Warning);
    EXPECT_EQ(h.lines.back().text, "wrong: differs from the CPU reference");
    return;
  }
  FAIL() << "no lesson is wrong on the simulator without its barriers";
}

}  // namespace
}  // namespace ts::app
