// The grid's register and warp tiles and 16-byte accesses in the real window
// (scripted, on a private Xvfb): the followed thread's stores outlined (white
// on the dark theme) and its warp's in purple, with the legend line; a hand-made
// trace where each thread stores a 2 x 2 tile; a hand-made float4 load drawn
// as 32 lane accesses of four cells each, with "32 loads of 16 bytes".
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>

#include "engine/catalogue.hpp"
#include "io/trace_file.hpp"

#include "tests/app/private_x_server.hpp"
#include "tests/app/window_shot.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// The default lesson (square tiles, two barriers).
static std::string default_id() {
  return picks::default_lesson().id;
}

namespace {

namespace fs = std::filesystem;
using ts::app_test::out_dir;
using ts::app_test::Rgb;
using ts::app_test::x_display;

using ts::app_test::Shot;
using ts::app_test::take_shot;

Shot take(const std::string& name, const std::string& args) {
  return take_shot(name, args + " --size 1600x900 --theme dark --focus-grid");
}

const nlohmann::json* array(const Shot& s, const std::string& buffer) {
  for (const auto& a : s.cells["arrays"])
    if (a["buffer"] == buffer && a["shared"] == false) return &a;
  return nullptr;
}

std::vector<nlohmann::json> marks(const Shot& s, const std::string& plot, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == plot && m["kind"] == kind) out.push_back(m);
  return out;
}

bool near(Rgb a, Rgb b, int tol = 40) {
  return std::abs(a[0] - b[0]) <= tol && std::abs(a[1] - b[1]) <= tol &&
         std::abs(a[2] - b[2]) <= tol;
}

// Whether a pixel of colour c lies within 3 px of the horizontal cell line
// above row `row`, in the middle of column `col` of array a.
bool line_above(const Shot& s, const nlohmann::json& a, int row, int col, Rgb c) {
  const double cw = a["cell_w"].get<double>(), ch = a["cell_h"].get<double>();
  const int x = int(a["x"].get<double>() + (col + 0.5) * cw);
  const int y = int(a["y"].get<double>() + row * ch);
  for (int dy = -3; dy <= 3; ++dy)
    if (near(s.at(x, y + dy), c)) return true;
  return false;
}
// The same for the vertical line left of column `col`, in the middle of row `row`.
bool line_left(const Shot& s, const nlohmann::json& a, int row, int col, Rgb c) {
  const double cw = a["cell_w"].get<double>(), ch = a["cell_h"].get<double>();
  const int x = int(a["x"].get<double>() + col * cw);
  const int y = int(a["y"].get<double>() + (row + 0.5) * ch);
  for (int dx = -3; dx <= 3; ++dx)
    if (near(s.at(x + dx, y), c)) return true;
  return false;
}

constexpr Rgb kPurple = {204, 121, 167};  // the warp tile (app/grid/register_tile.cpp)

TEST(AppRegisterTile, TiledSquareThreadAndItsWarpOutlined) {
  // n = 16, tile 8: block (1, 1) is block 3; thread (3, 1) = 11 stores C[9][11];
  // its warp 0 stores rows 8..11, columns 8..15.
  const Shot s = take("tiles_tiled", "--lesson " + default_id() +
                                         " --n 16 --tile 8 --backend sim "
                                         "--select-block 3 --select-thread 11 --position end");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  const auto legend = marks(s, "grid", "tiles");
  ASSERT_EQ(legend.size(), 1u);
  EXPECT_EQ(legend[0]["label"], "thread (3, 1): register tile 1 x 1 = 1 output; warp 0 tile 4 x 8");
  const nlohmann::json* C = array(s, "C");
  ASSERT_NE(C, nullptr);
  // The warp tile's border in purple: above row 8 and row 12, left of column 8.
  for (int col : {8, 11, 15}) {
    EXPECT_TRUE(line_above(s, *C, 8, col, kPurple)) << "top, column " << col;
    EXPECT_TRUE(line_above(s, *C, 12, col, kPurple)) << "bottom, column " << col;
  }
  for (int row : {8, 10, 11})
    EXPECT_TRUE(line_left(s, *C, row, 8, kPurple)) << "left, row " << row;
  // Not inside it, and not around the other warp's rows.
  EXPECT_FALSE(line_above(s, *C, 10, 12, kPurple));
  EXPECT_FALSE(line_above(s, *C, 14, 12, kPurple));
  EXPECT_FALSE(line_left(s, *C, 13, 8, kPurple));
}

// matmul.naive_grid's shapes (n = 16, blocks of 8 x 8) with hand-made events:
// each thread (tx, ty) of block 0 stores C[2ty .. 2ty+1][2tx .. 2tx+1].
fs::path two_by_two_trace() {
  using namespace ts;
  const LessonInfo& v = picks::ladder_step(2);
  Trace t;
  Params p = v.defaults;
  p.n = 16, p.block = 8;
  t.config.lesson_id = v.id;
  t.config.params = p;
  t.config.geometry = geometry(v, p);
  t.config.arrays = arrays(v, p);
  for (size_t i = 0; i < t.config.arrays.size(); ++i) {
    const ArrayInfo& a = t.config.arrays[i];
    t.buffers.push_back({ArraySlot(i + 1), a.rows, a.cols, a.role == ArrayRole::Output,
                         std::vector<float>(size_t(a.rows * a.cols), 1.0f)});
  }
  const ArraySlot C = 3;
  uint16_t instr[64] = {};
  uint64_t clock = 0;
  for (uint32_t i = 0; i < 2; ++i)
    for (uint32_t j = 0; j < 2; ++j)
      for (int th = 0; th < 64; ++th) {
        Event e{};
        e.kind = EventKind::GlobalStore, e.array = C, e.line = 30, e.thread = uint16_t(th);
        e.element = (2 * uint32_t(th / 8) + i) * 16 + 2 * uint32_t(th % 8) + j;
        e.instr = instr[th]++, e.value = 1.0f, e.clock = e.globaltimer = ++clock;
        t.events.push_back(e);
      }
  t.capacity = t.events.size();
  const fs::path path = out_dir() / "two_by_two.tstrace";
  std::string err;
  EXPECT_TRUE(save_trace(t, path.string(), &err)) << err;
  return path;
}

TEST(AppRegisterTile, TwoByTwoStoresAreOneRegisterTile) {
  const fs::path trace = two_by_two_trace();
  const Shot s = take("tiles_2x2", trace.string() + " --select-thread 11 --position end");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  const auto legend = marks(s, "grid", "tiles");
  ASSERT_EQ(legend.size(), 1u);
  EXPECT_EQ(legend[0]["label"],
            "thread (3, 1): register tile 2 x 2 = 4 outputs; warp 0 tile 8 x 16");
  const nlohmann::json* C = array(s, "C");
  ASSERT_NE(C, nullptr);
  // Thread 11's cells: rows 2, 3, columns 6, 7; outlined in white (the selection's
  // colour on the dark theme), just inside the cells.
  const Rgb white = {255, 255, 255};
  const double cw = (*C)["cell_w"].get<double>(), ch = (*C)["cell_h"].get<double>();
  auto white_near = [&](double x, double y) {
    for (int d = -4; d <= 4; ++d)
      if (near(s.at(int(x), int(y + d)), white, 30)) return true;
    return false;
  };
  const double x0 = (*C)["x"].get<double>(), y0 = (*C)["y"].get<double>();
  // The tile's top side runs across both columns, also over the line between them.
  for (double f : {6.5, 7.0, 7.5})
    EXPECT_TRUE(white_near(x0 + f * cw, y0 + 2 * ch + 3)) << f;
  for (double f : {6.5, 7.0, 7.5})
    EXPECT_TRUE(white_near(x0 + f * cw, y0 + 4 * ch - 3)) << f;
  // Its warp: threads 0..31, rows 0..7, every column: purple above row 8, none above row 4.
  for (int col : {0, 7, 15}) {
    EXPECT_TRUE(line_above(s, *C, 8, col, kPurple)) << col;
    EXPECT_FALSE(line_above(s, *C, 4, col, kPurple)) << col;
  }
}

// The same shapes; the 32 lanes of warp 0 load A[4l .. 4l+3] as float4.
fs::path float4_trace() {
  using namespace ts;
  const LessonInfo& v = picks::ladder_step(2);
  Trace t;
  Params p = v.defaults;
  p.n = 16, p.block = 8;
  t.config.lesson_id = v.id;
  t.config.params = p;
  t.config.geometry = geometry(v, p);
  t.config.arrays = arrays(v, p);
  for (size_t i = 0; i < t.config.arrays.size(); ++i) {
    const ArrayInfo& a = t.config.arrays[i];
    t.buffers.push_back({ArraySlot(i + 1), a.rows, a.cols, a.role == ArrayRole::Output,
                         std::vector<float>(size_t(a.rows * a.cols), 1.0f)});
  }
  uint16_t instr[32] = {};
  uint64_t clock = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (uint32_t j = 0; j < 4; ++j) {
      Event e{};
      e.kind = EventKind::GlobalLoad, e.array = 1, e.line = 30, e.thread = uint16_t(lane);
      e.element = uint32_t(4 * lane) + j, e.flags = width_flags(16), e.instr = instr[lane]++;
      e.value = 1.0f, e.clock = e.globaltimer = ++clock;
      t.events.push_back(e);
    }
  t.capacity = t.events.size();
  const fs::path path = out_dir() / "float4.tstrace";
  std::string err;
  EXPECT_TRUE(save_trace(t, path.string(), &err)) << err;
  return path;
}

TEST(AppRegisterTile, Float4LoadIsDrawnAsOneAccessOfFourCellsPerLane) {
  const fs::path trace = float4_trace();
  const Shot s = take("float4", trace.string() + " --memory coalescing --position access:1");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  const auto legend = marks(s, "memory", "legend");
  ASSERT_EQ(legend.size(), 1u);
  const std::string caption = legend[0]["label"];
  EXPECT_NE(caption.find("32 loads of 16 bytes"), std::string::npos) << caption;
  EXPECT_NE(caption.find("16 sectors (ideal 16)"), std::string::npos) << caption;
  const nlohmann::json* A = array(s, "A");
  ASSERT_NE(A, nullptr);
  const double cw = (*A)["cell_w"].get<double>(), x0 = (*A)["x"].get<double>();
  const double y0 = (*A)["y"].get<double>(), ch = (*A)["cell_h"].get<double>();
  // One box per lane, around its four cells: lane l at row l / 4, columns 4 (l % 4) ...
  const auto lanes = marks(s, "coalescing", "lane");
  ASSERT_EQ(lanes.size(), 32u);
  for (const auto& m : lanes) {
    const int lane = std::stoi(m["label"].get<std::string>().substr(5));
    const double x = m["x"].get<double>(), y = m["y"].get<double>(), w = m["w"].get<double>();
    EXPECT_NEAR((x - x0) / cw, 4 * (lane % 4), 0.5) << lane;
    EXPECT_NEAR((y - y0) / ch, lane / 4, 0.5) << lane;
    EXPECT_NEAR(w / cw, 4, 0.5) << lane;  // four cells wide, less the inset
  }
}

}  // namespace
