// Scripted screenshots of the real window, checked pixel by pixel: the tile
// being loaded has its highlight colour, padding is hatched, the output cell
// written last shows its (correct) value. Runs tilescope on a private Xvfb.
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include "analysis/replay.hpp"
#include "engine/backend.hpp"
#include "engine/reference.hpp"

#include "tests/app/private_x_server.hpp"
#include "tests/app/window_shot.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// The default lesson (square tiles, two barriers).
static std::string default_id() {
  return picks::default_lesson().id;
}
// A halo in a fixed-size shared array.
static std::string halo_shared_id() {
  return picks::halo_lesson(picks::Halo::StaticShared).id;
}
// Rectangular matrices with a tile.
static std::string rect_id() {
  return picks::rectangular_tiled_lesson().id;
}

namespace {

namespace fs = std::filesystem;
using ts::app_test::Rgb;

using ts::app_test::Shot;
using ts::app_test::take_shot;

using ts::app_test::out_dir;
using ts::app_test::x_display;

int run_app(const std::string& args, const fs::path& log) {
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb (" << TS_XVFB << ") did not start";
    return -1;
  }
  const std::string cmd =
      "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " " + args + " > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Shot take(const std::string& name, const std::string& args, const std::string& size = "1600x900") {
  return take_shot(name, args + " --size " + size + " --theme dark");
}

const nlohmann::json* array(const Shot& s, const std::string& buffer, bool shared) {
  for (const auto& a : s.cells["arrays"])
    if (a["buffer"] == buffer && a["shared"] == shared) return &a;
  return nullptr;
}

Rgb palette(const Shot& s, const char* key) {
  const auto& c = s.cells["palette"][key];
  return {c[0].get<int>(), c[1].get<int>(), c[2].get<int>()};
}

bool near(Rgb a, Rgb b, int tol = 6) {
  return std::abs(a[0] - b[0]) <= tol && std::abs(a[1] - b[1]) <= tol &&
         std::abs(a[2] - b[2]) <= tol;
}

// A pixel inside cell (row, col), centred and a fifth of the way down: clear
// of grid and tile lines, of outlines and of the value printed in the middle.
// Element e of a 1D array wrapped into rows (its "wrap" and "lead" in the map).
Rgb element_pixel(const Shot& s, const nlohmann::json& a, int e);

Rgb cell_pixel(const Shot& s, const nlohmann::json& a, int row, int col) {
  const double x = a["x"].get<double>() + (col + 0.5) * a["cell_w"].get<double>();
  const double y = a["y"].get<double>() + (row + 0.2) * a["cell_h"].get<double>();
  return s.at(int(std::lround(x)), int(std::lround(y)));
}

Rgb element_pixel(const Shot& s, const nlohmann::json& a, int e) {
  const int wrap = std::max(1, a.value("wrap", 0)), at = e + a.value("lead", 0);
  return cell_pixel(s, a, at / wrap, at % wrap);
}

TEST(AppScreenshot, LoadedTileHighlightedAndPaddingHatched) {
  // Block (2, 2) of a 10 x 10 multiply with 4 x 4 tiles, all threads at the
  // first barrier: its tile of A is rows 8..11, columns 0..3; rows 10 and 11
  // do not exist, so half of its tileA is zero padding.
  const Shot s = take("loaded", "--lesson " + default_id() +
                                    " --n 10 --tile 4 --backend sim "
                                    "--order lockstep --select-block 8 --position barrier:1");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  ASSERT_GT(s.w, 0);
  const nlohmann::json* A = array(s, "A", false);
  const nlohmann::json* tileA = array(s, "tileA", true);
  ASSERT_NE(A, nullptr);
  ASSERT_NE(tileA, nullptr);
  EXPECT_EQ((*tileA)["block"], 8);
  EXPECT_GE((*A)["cell_w"].get<double>(), 10.0) << "cells too small to read";
  const Rgb loaded = palette(s, "loaded"), cell = palette(s, "cell");
  // The selected block's tile of A: loaded colour.
  for (int r : {8, 9})
    for (int c : {0, 1, 2, 3}) {
      const Rgb p = cell_pixel(s, *A, r, c);
      EXPECT_TRUE(near(p, loaded))
          << "A[" << r << "][" << c << "] is " << p[0] << "," << p[1] << "," << p[2];
    }
  // A cell of A that no block of the grid holds now (columns 4.. are the next tile): not
  // highlighted.
  const Rgb other = cell_pixel(s, *A, 9, 6);
  EXPECT_FALSE(near(other, loaded));
  // Padding: tileA rows 2 and 3 are hatched padding; rows 0 and 1 hold loaded values.
  const Rgb padded = palette(s, "padded");
  for (int c = 0; c < 4; ++c) {
    EXPECT_TRUE(near(cell_pixel(s, *tileA, 0, c), loaded)) << "tileA[0][" << c << "]";
    int pad = 0, hatch = 0, total = 0;
    const double cw = (*tileA)["cell_w"].get<double>(), ch = (*tileA)["cell_h"].get<double>();
    const int x0 = int((*tileA)["x"].get<double>() + c * cw),
              y0 = int((*tileA)["y"].get<double>() + 3 * ch);
    for (int y = y0 + 3; y < y0 + int(ch) - 3; ++y)
      for (int x = x0 + 3; x < x0 + int(cw) - 3; ++x) {
        const Rgb p = s.at(x, y);
        ++total;
        if (near(p, padded, 10))
          ++pad;
        else if (!near(p, cell, 10) && !near(p, loaded, 10))
          ++hatch;
      }
    EXPECT_GT(pad, total / 4) << "tileA[3][" << c << "] should show the padding colour";
    EXPECT_GT(hatch, total / 10) << "tileA[3][" << c << "] should be hatched";
  }
  // The matrix's own padding (row 10 of A is outside the 10 x 10 matrix).
  int pad = 0;
  for (int c = 0; c < 12; ++c)
    pad += near(cell_pixel(s, *A, 10, c), padded, 10) ? 1 : 0;
  EXPECT_GT(pad, 0);
}

TEST(AppScreenshot, LastWrittenOutputCellShowsItsValue) {
  const Shot s = take("end", "--lesson " + default_id() +
                                 " --n 10 --tile 4 --backend sim "
                                 "--order lockstep --position end");
  ASSERT_EQ(s.rc, 0);
  ASSERT_TRUE(s.cells.contains("last_store"));
  const auto& ls = s.cells["last_store"];
  EXPECT_EQ(ls["buffer"], "C");
  const uint32_t e = ls["element"].get<uint32_t>();
  // The value the replay shows is the correct one: compute it independently.
  const ts::LessonInfo* v = &picks::default_lesson();
  ASSERT_NE(v, nullptr);
  ts::Params p = v->defaults;
  p.n = 10;
  p.tile = 4;
  const auto inputs = ts::make_inputs(*v, p, ts::InputKind::SmallIntegers, 1);
  const ts::BufferData want = ts::reference_output(*v, p, inputs);
  ASSERT_LT(e, want.values.size());
  EXPECT_FLOAT_EQ(ls["value"].get<float>(), want.values[e]);

  const nlohmann::json* C = array(s, "C", false);
  ASSERT_NE(C, nullptr);
  const int cols = (*C)["data_cols"].get<int>();
  const int row = int(e) / cols, col = int(e) % cols;
  const Rgb written = palette(s, "written");
  // The cell is filled with the written colour (behind its outline, inside)...
  const double cw = (*C)["cell_w"].get<double>(), ch = (*C)["cell_h"].get<double>();
  const int x0 = int((*C)["x"].get<double>() + col * cw),
            y0 = int((*C)["y"].get<double>() + row * ch);
  int fill = 0, text = 0, total = 0;
  for (int y = y0 + 4; y < y0 + int(ch) - 4; ++y)
    for (int x = x0 + 4; x < x0 + int(cw) - 4; ++x) {
      const Rgb q = s.at(x, y);
      ++total;
      if (near(q, written, 12)) ++fill;
      // Text is drawn dark or light on the green: far from it in brightness.
      else if (std::abs((q[0] + q[1] + q[2]) - (written[0] + written[1] + written[2])) > 150)
        ++text;
    }
  EXPECT_GT(fill, total / 3) << "C[" << row << "][" << col << "] is not filled as written";
  EXPECT_GT(text, 4) << "C[" << row << "][" << col << "] shows no value";
  // And an unwritten region does not exist at the end: every data cell of C is written.
  for (int r = 0; r < 10; r += 3)
    for (int c = 0; c < 10; c += 3)
      EXPECT_TRUE(near(cell_pixel(s, *C, r, c), written, 12)) << r << "," << c;
}

TEST(AppScreenshot, StencilHaloCellsHaveTheirOwnColour) {
  const Shot s = take("stencil", "--lesson " + halo_shared_id() +
                                     " --backend sim --order lockstep "
                                     "--select-block 1 --position barrier:1");
  ASSERT_EQ(s.rc, 0);
  const nlohmann::json* sh = array(s, "cache", true);  // the kernel's name for its shared array
  ASSERT_NE(sh, nullptr) << s.cells.dump();
  const int radius = 3, block = 64;  // the lesson's defaults
  const int n = (*sh)["data_cols"].get<int>();
  const Rgb halo = palette(s, "halo"), loaded = palette(s, "shared_loaded");
  // Wrapped into warp rows: the first block element starts a row, the left
  // halo ends the row above (issue 33).
  for (int c = 0; c < radius; ++c) {
    EXPECT_TRUE(near(element_pixel(s, *sh, c), halo)) << "left halo " << c;
    EXPECT_TRUE(near(element_pixel(s, *sh, n - 1 - c), halo)) << "right halo " << c;
  }
  EXPECT_EQ(((*sh)["lead"].get<int>() + radius) % (*sh)["wrap"].get<int>(), 0);
  EXPECT_TRUE(near(element_pixel(s, *sh, radius + 1), loaded));
  // In: block 1 is elements 64..127. Its halo comes from elements 61..63 and
  // 128..130: halo-coloured there too, while the block's own elements have
  // the loaded colour.
  const nlohmann::json* in = array(s, "in", false);
  ASSERT_NE(in, nullptr) << s.cells.dump();
  const Rgb block_cell = palette(s, "loaded");
  for (int c = 0; c < radius; ++c) {
    EXPECT_TRUE(near(element_pixel(s, *in, block - 1 - c), halo)) << "In[" << block - 1 - c << "]";
    EXPECT_TRUE(near(element_pixel(s, *in, 2 * block + c), halo)) << "In[" << 2 * block + c << "]";
  }
  for (int c = 0; c < block; c += 7)
    EXPECT_TRUE(near(element_pixel(s, *in, block + c), block_cell)) << c;
  EXPECT_FALSE(near(element_pixel(s, *in, 0), halo));  // not loaded by block 1
}

TEST(AppScreenshot, BadInputGivesAMessageNotACrash) {
  const fs::path d = out_dir();
  const fs::path bad = d / "corrupt.tstrace";
  {
    std::ofstream f(bad, std::ios::binary);
    f << "TSTRACE this is not a trace";
  }
  const int rc = run_app(bad.string() + " --screenshot " + (d / "bad.png").string() + " --exit",
                         d / "bad.log");
  EXPECT_EQ(rc, 1);  // a clean refusal, not a signal
  std::ifstream log(d / "bad.log");
  const std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(text.find("Cannot open"), std::string::npos) << text;
  // Parameters out of range are refused with validate()'s reason, as a usage
  // error (2) before any window opens, like tilescope-cli's.
  const int rc2 = run_app("--lesson " + default_id() + " --tile 64 --screenshot " +
                              (d / "bad2.png").string() + " --exit",
                          d / "bad2.log");
  EXPECT_EQ(rc2, 2);
  std::ifstream log2(d / "bad2.log");
  const std::string text2((std::istreambuf_iterator<char>(log2)), {});
  EXPECT_NE(text2.find("tile"), std::string::npos) << text2;
}

TEST(AppScreenshot, TimelineLanesStayInViewOnA720pProjector) {
  // 1280 x 720: the transport wraps onto a second row; the timeline's slot
  // grows so that the warp lanes (phases as coloured bars) are still drawn.
  const Shot s = take("small", "--lesson " + default_id() + " --position 500", "1280x720");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  ASSERT_EQ(s.h, 720);
  const auto& lanes = s.cells["timeline_lanes"];
  const double x = lanes["x"].get<double>(), y = lanes["y"].get<double>(),
               w = lanes["w"].get<double>(), h = lanes["h"].get<double>();
  ASSERT_GT(w, 200) << s.cells.dump();
  ASSERT_GT(h, 8);
  EXPECT_LE(y + h, 720.0);
  // Along the middle of the first lane, most pixels are a phase colour
  // (drawn at alpha 220 over the background).
  const Rgb bg = palette(s, "background");
  auto blend = [&](Rgb c) {
    Rgb o;
    for (int i = 0; i < 3; ++i)
      o[size_t(i)] = (c[size_t(i)] * 220 + bg[size_t(i)] * 35) / 255;
    return o;
  };
  const Rgb a = blend(palette(s, "phase_a")), b = blend(palette(s, "phase_b"));
  const int row = int(y + std::min(h, 20.0) * 0.5);
  int phase = 0, samples = 0;
  for (int i = 1; i < 40; ++i) {
    const Rgb q = s.at(int(x + w * i / 40.0), row);
    ++samples;
    if (near(q, a, 16) || near(q, b, 16)) ++phase;
  }
  EXPECT_GT(phase, samples / 2) << phase << " of " << samples;
}

TEST(AppScreenshot, GridOnlyViewGivesBigCellsOnA720pProjector) {
  // 1280 x 720 with every panel (a side tab asked for keeps them): the
  // multiply's cells are small. Grid focus (G, --focus-grid) hides the side
  // panels, lays A, B and C out in a row, and the cells must grow enough to
  // print values, all inside the window.
  const std::string lesson = "--lesson " + default_id() + " --position 500";
  const Shot all = take("panels720", lesson + " --tab Narration", "1280x720");
  const Shot focus = take("focus720", lesson + " --focus-grid", "1280x720");
  ASSERT_EQ(all.rc, 0);
  ASSERT_EQ(focus.rc, 0);
  EXPECT_FALSE(all.cells["layout"]["focus_grid"].get<bool>());
  const nlohmann::json* c_all = array(all, "C", false);
  const nlohmann::json* c_focus = array(focus, "C", false);
  ASSERT_NE(c_all, nullptr);
  ASSERT_NE(c_focus, nullptr);
  const double small = (*c_all)["cell_w"].get<double>(), big = (*c_focus)["cell_w"].get<double>();
  EXPECT_GE(big, 1.4 * small) << small << " -> " << big;
  EXPECT_GE(big, 20.0);
  for (const auto& a : focus.cells["arrays"]) {
    EXPECT_LE(a["x"].get<double>() + a["cols"].get<double>() * a["cell_w"].get<double>(), 1280.0);
    EXPECT_LE(a["y"].get<double>() + a["rows"].get<double>() * a["cell_h"].get<double>(), 720.0);
  }
  // A, B and C side by side: one row.
  const nlohmann::json* a = array(focus, "A", false);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ((*a)["y"].get<double>(), (*c_focus)["y"].get<double>());
  EXPECT_LT((*a)["x"].get<double>(), (*c_focus)["x"].get<double>());
}

// Every array's cells inside the window.
void expect_inside(const Shot& s) {
  for (const auto& a : s.cells["arrays"]) {
    EXPECT_GE(a["x"].get<double>(), 0.0);
    EXPECT_LE(a["x"].get<double>() + a["cols"].get<double>() * a["cell_w"].get<double>(),
              double(s.w));
    EXPECT_LE(a["y"].get<double>() + a["rows"].get<double>() * a["cell_h"].get<double>(),
              double(s.h));
  }
}

TEST(AppScreenshot, DefaultLessonPrintsValuesOnA720pLaptop) {
  // The default lesson in the default layout at 1280 x 720: the panels would
  // leave 9 px cells, so the window picks grid focus itself and the cells are
  // big enough for values (20 px at the default text size).
  const Shot s = take("default720", "--backend sim", "1280x720");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  EXPECT_EQ(s.cells["variant"], default_id());
  const nlohmann::json* C = array(s, "C", false);
  ASSERT_NE(C, nullptr);
  EXPECT_GE((*C)["cell_w"].get<double>(), 20.0);
  EXPECT_TRUE(s.cells["layout"]["values_readable"].get<bool>());
  EXPECT_TRUE(s.cells["layout"]["focus_grid"].get<bool>());
  expect_inside(s);
}

TEST(AppScreenshot, ABiggerFontNeverMakesTheMatricesSmaller) {
  const std::string args = "--lesson " + default_id() + " --backend sim --position 500";
  const Shot small = take("font13", args + " --font-size 13", "1920x1080");
  const Shot big = take("font28", args + " --font-size 28", "1920x1080");
  ASSERT_EQ(small.rc, 0);
  ASSERT_EQ(big.rc, 0);
  const nlohmann::json* c13 = array(small, "C", false);
  const nlohmann::json* c28 = array(big, "C", false);
  ASSERT_NE(c13, nullptr);
  ASSERT_NE(c28, nullptr);
  EXPECT_GE((*c28)["cell_w"].get<double>(), (*c13)["cell_w"].get<double>());
  EXPECT_TRUE(big.cells["layout"]["values_readable"].get<bool>());
  expect_inside(big);
}

TEST(AppScreenshot, GridTakesTheWidthOfA720pWindowAtPositionsFromTheLayoutRules) {
  // Not read from the app's map: grid focus gives the grid the whole width,
  // A, B and C in a row, each about a quarter of it. So a fifth of the way
  // across (inside A) and half way (inside B), 40 % down, there are cells, not
  // the background; with the side panels there, the first was the Lesson panel.
  const Shot s = take("rules720", "--backend sim", "1280x720");
  ASSERT_EQ(s.rc, 0);
  const Rgb bg = palette(s, "background");
  for (const double fx : {0.15, 0.5}) {
    const int x0 = int(s.w * fx), y0 = int(s.h * 0.4);
    int background = 0, total = 0;
    for (int y = y0 - 4; y <= y0 + 4; ++y)
      for (int x = x0 - 4; x <= x0 + 4; ++x) {
        ++total;
        if (near(s.at(x, y), bg, 3)) ++background;
      }
    EXPECT_LT(background, total / 5) << "at " << x0 << "," << y0;
  }
}

// The threads of `block` whose last event at `position` (lockstep order) is a
// barrier arrival: computed here from the trace, not by the app.
std::vector<uint32_t> threads_at_barrier(const ts::Replay& r, uint64_t position, uint32_t block,
                                         uint32_t threads) {
  std::vector<int> last(threads, -1);
  for (uint64_t p = 1; p <= position; ++p) {
    const ts::Event& e = r.trace().events[r.event_at(p)];
    if (e.block == block) last[e.thread] = int(e.kind);
  }
  std::vector<uint32_t> at;
  for (uint32_t t = 0; t < threads; ++t)
    if (last[t] == int(ts::EventKind::BarrierArrive)) at.push_back(t);
  return at;
}

TEST(AppScreenshot, ThreadsWaitingAtABarrierAreCountedAndMarked) {
  // The default lesson (8 x 8 = 64 threads a block) part-way through the
  // arrivals at barrier 1 of block 0: some threads wait, the others not yet.
  ts::RunRequest req;
  const ts::LessonInfo* v = &picks::default_lesson();
  ASSERT_NE(v, nullptr);
  req.lesson_id = v->id;
  req.params = v->defaults;
  req.barrier_mask = ts::all_barriers(*v);
  req.backend = ts::BackendChoice::Sim;
  ts::RunResult res = ts::run(req);
  ASSERT_TRUE(res.ok) << res.error;
  auto trace = std::make_shared<const ts::Trace>(std::move(res.trace));
  ts::Replay r(trace);
  r.set_order(ts::ReplayOrder::Lockstep);
  const uint32_t threads = 64;
  uint64_t pos = 0;
  std::vector<uint32_t> want;
  for (uint64_t p = 1; p <= r.size() && pos == 0; ++p) {
    const ts::Event& e = trace->events[r.event_at(p)];
    if (e.block != 0 || e.kind != ts::EventKind::BarrierArrive) continue;
    want = threads_at_barrier(r, p, 0, threads);
    if (want.size() >= 12 && want.size() < threads) pos = p;
  }
  ASSERT_GT(pos, 0u);
  const Shot s = take("waiting", "--backend sim --order lockstep --select-block 0 --position " +
                                     std::to_string(pos));
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  const auto& w = s.cells["barrier_wait"];
  ASSERT_TRUE(w["active"].get<bool>()) << w.dump();
  EXPECT_EQ(w["threads"], threads);
  EXPECT_EQ(w["arrived"].get<size_t>(), want.size());
  EXPECT_EQ(w["barrier"], 1);
  EXPECT_EQ(w["arrived_threads"].get<std::vector<uint32_t>>(), want);
  EXPECT_EQ(w["text"], std::to_string(want.size()) + " of 64 threads at barrier 1 (line " +
                           std::to_string(v->barriers[0].line) + ")");
  // The marks: a full triangle in the top-left corner of the C cell a waiting
  // thread computes, an empty one where the thread has not arrived.
  const nlohmann::json* C = array(s, "C", false);
  ASSERT_NE(C, nullptr);
  const double cell = (*C)["cell_w"].get<double>();
  const double size = std::clamp(cell * 0.45, 4.0, 16.0);
  const Rgb barrier = palette(s, "barrier");
  auto mark_pixel = [&](uint32_t t) {  // block 0: thread (x, y) computes C[y][x]
    const double x = (*C)["x"].get<double>() + (t % 8) * cell + 2 + size * 0.5;
    const double y = (*C)["y"].get<double>() + (t / 8) * cell + 2 + size * 0.3;
    return s.at(int(std::lround(x)), int(std::lround(y)));
  };
  int full = 0, empty = 0;
  for (uint32_t t = 0; t < threads; ++t) {
    const bool waits = std::find(want.begin(), want.end(), t) != want.end();
    const bool marked = near(mark_pixel(t), barrier, 20);
    EXPECT_EQ(marked, waits) << "thread " << t;
    (waits ? full : empty) += marked == waits;
  }
  EXPECT_EQ(full, int(want.size()));
  EXPECT_EQ(empty, int(threads - want.size()));
}

TEST(AppScreenshot, ChosenHazardJumpsToItsSecondAccessAndMarksTheCell) {
  // Barrier 2 removed, warps skewed: hazards between warps. --hazard 0 does
  // what a click on the first listed hazard does.
  const Shot s = take("hazard", "--lesson " + default_id() +
                                    " --n 12 --tile 8 --barriers 1 --backend sim "
                                    "--schedule skew --tab Races --hazard 0");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  // The race panel's marks: the hazard cell as written and as read.
  const nlohmann::json* write = nullptr;
  const nlohmann::json* read = nullptr;
  for (const auto& m : s.cells["marks"]) {
    if (m["owner"] != "races") continue;
    if (m["style"] == 0) write = &m;  // MarkStyle::Write
    if (m["style"] == 1) read = &m;   // MarkStyle::Read
  }
  ASSERT_NE(write, nullptr) << s.cells["marks"].dump();
  ASSERT_NE(read, nullptr) << s.cells["marks"].dump();
  EXPECT_EQ((*write)["element"], (*read)["element"]);
  EXPECT_EQ((*write)["buffer"], (*read)["buffer"]);
  const std::string buf = (*read)["buffer"];
  EXPECT_TRUE(buf == "tileA" || buf == "tileB") << buf;
  // The replay stands right after the second access: a shared load of that
  // cell by the followed thread, in the block whose shared memory is shown.
  ASSERT_TRUE(s.cells.contains("last_event"));
  const auto& e = s.cells["last_event"];
  EXPECT_EQ(e["buffer"], (*read)["buffer"]);
  EXPECT_EQ(e["element"], (*read)["element"]);
  EXPECT_EQ(e["block"], (*read)["block"]);
  EXPECT_EQ(e["thread"], s.cells["selected_thread"]);
  EXPECT_EQ(e["block"], s.cells["selected_block"]);
  // Between warps (an error, not a within-warp warning): the reader is not in warp 0 of the writer.
  EXPECT_NE(e["thread"].get<int>() / 32, 0) << "expected the first hazard to cross warps";
  // The shared array of that block is on screen for the marks to be seen.
  const nlohmann::json* tile = array(s, buf, true);
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ((*tile)["block"], e["block"]);
}

}  // namespace

namespace {

bool hint_has(const Shot& s, const std::string& words) {
  for (const auto& line : s.cells["race_hint"])
    if (line.get<std::string>().find(words) != std::string::npos) return true;
  return false;
}

}  // namespace

// What a removed barrier can show with the run on screen, in the Verdict and
// Races panels, and the one click to the run that shows it.
TEST(AppScreenshot, RaceHintSaysWhatTheRemovedBarrierCanShow) {
  // One warp per block, every barrier removed: right output, the race latent.
  const Shot one = take("hint_one_warp",
                        "--n 10 --tile 4 --barriers none --backend sim --position end --tab Races");
  ASSERT_EQ(one.rc, 0) << "tilescope failed; see its log in " << out_dir();
  EXPECT_TRUE(hint_has(one, "One warp per block: here the race is latent"))
      << one.cells["race_hint"];
  EXPECT_TRUE(hint_has(one, "[Two warps per block (tile 8)]")) << one.cells["race_hint"];
  EXPECT_FALSE(hint_has(one, "[One warp per block")) << "already one warp";

  // The defaults (two warps) in lockstep: right by luck, so the hint offers skew.
  const Shot lockstep =
      take("hint_lockstep", "--barriers none --schedule lockstep --backend sim --tab Races");
  ASSERT_EQ(lockstep.rc, 0);
  EXPECT_TRUE(hint_has(lockstep, "[Run with warp skew]")) << lockstep.cells["race_hint"];
  EXPECT_TRUE(hint_has(lockstep, "[One warp per block (tile 4)]"));

  // The defaults under the window's default schedule (warp skew): the race
  // bites, so there is nothing to explain, only the one-warp comparison.
  const Shot skew = take("hint_skew", "--barriers 1 --backend sim --tab Races");
  ASSERT_EQ(skew.rc, 0);
  EXPECT_FALSE(hint_has(skew, "happened to be right")) << skew.cells["race_hint"];
  EXPECT_FALSE(hint_has(skew, "[Run with warp skew]"));
  EXPECT_TRUE(hint_has(skew, "[One warp per block (tile 4)]"));

  // Every barrier kept: no hint at all.
  const Shot kept = take("hint_kept", "--backend sim --tab Races");
  ASSERT_EQ(kept.rc, 0);
  EXPECT_TRUE(kept.cells["race_hint"].empty()) << kept.cells["race_hint"];
}

// The grid lays arrays out from the trace's table, by shape and role: two
// inputs that chain as (m x k)(k x n) into an m x n output are a multiply (A
// left of C on C's rows, B above C on its columns, whatever the sizes), 1D
// arrays are stacked in data-flow order with a shared array's halo hanging
// out on both sides of the block's cells.
TEST(AppScreenshot, ArraysAreLaidOutFromTheirShapes) {
  const Shot m = take("shapes_rect", "--lesson " + rect_id() +
                                         " --m 6 --k 10 --n 14 --tile 4 "
                                         "--backend sim --position 0");
  ASSERT_EQ(m.rc, 0);
  const nlohmann::json *A = array(m, "A", false), *B = array(m, "B", false),
                       *C = array(m, "C", false);
  ASSERT_TRUE(A && B && C) << m.cells.dump();
  const double cell = (*C)["cell_w"];
  EXPECT_EQ((*A)["data_rows"], 6);
  EXPECT_EQ((*B)["data_cols"], 14);
  EXPECT_DOUBLE_EQ((*A)["y"].get<double>(), (*C)["y"].get<double>());  // A on C's rows
  EXPECT_DOUBLE_EQ((*B)["x"].get<double>(), (*C)["x"].get<double>());  // B on C's columns
  EXPECT_LT((*A)["x"].get<double>() + (*A)["cols"].get<double>() * cell, (*C)["x"].get<double>());
  EXPECT_LT((*B)["y"].get<double>() + (*B)["rows"].get<double>() * cell, (*C)["y"].get<double>());
  // Padded to whole tiles of the shared arrays' side (4): 6 x 10 drawn as 8 x 12.
  EXPECT_EQ((*A)["rows"], 8);
  EXPECT_EQ((*A)["cols"], 12);
  EXPECT_NE(array(m, "tileA", true), nullptr);
  EXPECT_NE(array(m, "tileB", true), nullptr);

  const Shot s = take("shapes_stencil", "--lesson " + halo_shared_id() +
                                            " --length 100 --radius 2 "
                                            "--block 32 --backend sim --position 0");
  ASSERT_EQ(s.rc, 0);
  const nlohmann::json *in = array(s, "in", false), *out = array(s, "out", false),
                       *cache = array(s, "cache", true);
  ASSERT_TRUE(in && out && cache) << s.cells.dump();
  const double c = (*in)["cell_w"];
  EXPECT_EQ((*in)["cols"], 32);  // one warp (the block's 32 threads) per row
  EXPECT_EQ((*in)["rows"], 4);   // 100 elements: 4 rows
  EXPECT_EQ((*cache)["data_cols"], 36);
  EXPECT_LT((*in)["y"].get<double>(), (*cache)["y"].get<double>());
  EXPECT_LT((*cache)["y"].get<double>(), (*out)["y"].get<double>());
  EXPECT_DOUBLE_EQ((*in)["x"].get<double>(), (*out)["x"].get<double>());
  // The shared array wrapped too, in the columns of in: its left halo of 2
  // ends the row above the block's first element (30 empty cells before it).
  EXPECT_DOUBLE_EQ((*cache)["x"].get<double>(), (*in)["x"].get<double>());
  EXPECT_EQ((*cache)["lead"], 30);
  EXPECT_EQ((*cache)["rows"], 3);
  (void)c;
}
