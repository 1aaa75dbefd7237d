// Issue 33: projector-ready in every step. A lecturer opens a lecture or a
// lesson at the sizes a hall projects (1280 x 720 with text at 28 and 32,
// 1600 x 900 at 22, 1920 x 1080 at 18) and every picture must read from the
// back: cells of 20 px or more with values, or the grid zoomed to what the
// moment is about (and saying so); captions in a strip of their own, never
// cut and never over the grid; values that grow with the text; a stale read
// that says what it read and what it should have. One test per numbered
// defect of the issue; each failed before its fix. Runs tilescope on a
// private Xvfb and reads its --cells-json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "io/lecture_file.hpp"
#include "tests/app/screen_boxes.hpp"
#include "tests/app/window_shot.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ts::app_test::box;
using ts::app_test::Box;
using ts::app_test::distance;
using ts::app_test::inside;
using ts::app_test::intersects;
using ts::app_test::out_dir;
using ts::app_test::rgb;
using ts::app_test::Rgb;
using ts::app_test::Shot;
using ts::app_test::take_shot;

struct Size {
  const char* size;
  int font;
};
// The sizes a lecture hall projects, with the text size a lecturer picks there.
constexpr Size kHall[] = {{"1280x720", 28}, {"1280x720", 32}, {"1600x900", 22}, {"1920x1080", 18}};

std::string tag(const Size& z) {
  return std::string(z.size) + "_f" + std::to_string(z.font);
}
std::string size_args(const Size& z) {
  return " --size " + std::string(z.size) + " --font-size " + std::to_string(z.font);
}

Box cells_box(const json& a) {
  return {a["x"].get<double>(), a["y"].get<double>(),
          a["cols"].get<double>() * a["cell_w"].get<double>(),
          a["rows"].get<double>() * a["cell_h"].get<double>()};
}

// Legible from the back of a hall: every array at 20 px or more with values
// printed; where the grid zoomed to the moment's subject, that subject drawn
// inside the grid's room. The caption strip, where there is one, apart.
void expect_legible(const json& j, const std::string& where) {
  ASSERT_TRUE(j.is_object()) << where;
  ASSERT_FALSE(j["arrays"].empty()) << where << ": no grid";
  const Box grid = box(j["grid_rect"]);
  EXPECT_TRUE(j["layout"]["values_readable"].get<bool>()) << where;
  for (const json& a : j["arrays"])
    EXPECT_GE(a["cell_w"].get<double>(), 20.0) << where << ": " << a["buffer"];
  const json& z = j["auto_zoom"];
  if (z["active"].get<bool>()) {
    EXPECT_TRUE(inside(box(z["box"]), grid))
        << where << ": zoomed to " << z["what"] << " at " << z["box"] << ", room " << grid.x << ","
        << grid.y << " " << grid.w << "x" << grid.h;
  } else {
    for (const json& a : j["arrays"])
      EXPECT_TRUE(inside(cells_box(a), grid)) << where << ": " << a["buffer"] << " off the room";
  }
  const Box strip = box(j["strip"]);
  if (strip.w > 0) {
    EXPECT_FALSE(intersects(strip, grid)) << where << ": strip over the grid";
    for (const json& a : j["arrays"])
      EXPECT_FALSE(intersects(strip, cells_box(a)) && inside(cells_box(a), grid))
          << where << ": strip over " << a["buffer"];
  }
}

json read_json(const fs::path& p) {
  std::ifstream f(p);
  if (!f) return json();
  return json::parse(f, nullptr, false);
}

std::vector<fs::path> shipped_lectures() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(std::string(TS_SOURCE_DIR) + "/assets/lectures"))
    if (e.path().extension() == ts::kLectureExtension) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Every step of one lecture (one process, --all-steps), as opened: no --present.
std::vector<json> lecture_steps(const fs::path& file, const Size& z, size_t steps,
                                const std::string& prefix) {
  const std::string name = prefix + file.stem().string() + "_" + tag(z);
  const fs::path d = out_dir();
  const std::string cmd = "DISPLAY=" + ts::app_test::x_display() + " " + TS_TILESCOPE_EXE +
                          " --lecture " + file.string() + " --all-steps --theme dark" +
                          size_args(z) + " --screenshot " + (d / (name + ".png")).string() +
                          " --cells-json " + (d / (name + ".json")).string() +
                          " --force --exit > " + (d / (name + ".log")).string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << name << ": see " << (d / (name + ".log"));
  std::vector<json> out;
  for (size_t k = 1; k <= steps; ++k)
    out.push_back(read_json(d / (name + "_step" + std::to_string(k) + ".json")));
  return out;
}

// Defect 1: the race lab and the tiled multiply drew no grid, 2 px cells or
// cut captions at 1280 x 720 unless P was pressed.
TEST(Projector, Defect1EveryLectureStepIsPresenterReadyAtEveryHallSize) {
  const std::vector<fs::path> files = shipped_lectures();
  ASSERT_GE(files.size(), 2u);
  for (const fs::path& f : files) {
    std::string err;
    const auto lecture = ts::load_lecture(f.string(), &err);
    ASSERT_TRUE(lecture) << err;
    for (const Size& z : kHall) {
      const std::vector<json> steps = lecture_steps(f, z, lecture->steps.size(), "hall_");
      for (size_t k = 0; k < steps.size(); ++k) {
        const json& j = steps[k];
        const std::string where =
            f.stem().string() + " " + tag(z) + " step " + std::to_string(k + 1);
        ASSERT_TRUE(j.is_object()) << where;
        EXPECT_TRUE(j["layout"]["presenter"].get<bool>()) << where;
        expect_legible(j, where);
        // The caption: in its band, every line of it, the band apart from the grid.
        const Box band = box(j["lecture"]["band"]);
        EXPECT_GT(band.h, 40) << where;
        EXPECT_LE(j["lecture"]["caption_bottom"].get<double>(), band.y + band.h + 1)
            << where << ": the caption is cut";
        EXPECT_FALSE(intersects(band, box(j["grid_rect"]))) << where;
      }
    }
  }
}

// Defect 2: at the stale read the grid said nothing of the value; the stale
// cell was vermillion among orange tiles, one colour to a deuteranope.
// Colour-blind vision (Machado et al. 2009, severity 1) of an sRGB colour.
Rgb simulate(Rgb c, const double m[3][3]) {
  auto lin = [](int v) {
    const double x = v / 255.0;
    return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
  };
  auto enc = [](double x) {
    x = std::clamp(x, 0.0, 1.0);
    return int(
        std::lround(255 * (x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055)));
  };
  const double r = lin(c[0]), g = lin(c[1]), b = lin(c[2]);
  return {enc(m[0][0] * r + m[0][1] * g + m[0][2] * b),
          enc(m[1][0] * r + m[1][1] * g + m[1][2] * b),
          enc(m[2][0] * r + m[2][1] * g + m[2][2] * b)};
}
constexpr double kProtan[3][3] = {{0.152286, 1.052583, -0.204868},
                                  {0.114503, 0.786281, 0.099216},
                                  {-0.003882, -0.048116, 1.051998}};
constexpr double kDeutan[3][3] = {{0.367322, 0.860646, -0.227968},
                                  {0.280085, 0.672501, 0.047413},
                                  {-0.011820, 0.042940, 0.968881}};
constexpr double kTritan[3][3] = {{1.255528, -0.076749, -0.178779},
                                  {-0.078411, 0.930809, 0.147602},
                                  {0.004733, 0.691367, 0.303900}};

std::string value_text(double v) {
  char b[32];
  if (std::isfinite(v) && std::fabs(v) < 1e6 && v == std::round(v))
    std::snprintf(b, sizeof b, "%d", int(v));
  else
    std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

TEST(Projector, Defect2TheStaleReadSaysWhatItReadAndWhatItShouldHave) {
  const ts::LessonInfo& v = ts::default_lesson();
  ASSERT_GE(v.barriers.size(), 2u);
  for (const int font : {28, 32}) {
    const std::string name = "stale_720_f" + std::to_string(font);
    const Shot s = take_shot(
        name, "--present --theme dark --no-barrier " + std::to_string(v.barriers.back().id) +
                  " --position stale --size 1280x720 --font-size " + std::to_string(font));
    ASSERT_EQ(s.rc, 0) << s.log;
    const json& j = s.cells;
    ASSERT_EQ(j["callouts"].size(), 1u) << name << ": no label at the stale read";
    const json& c = j["callouts"][0];
    std::smatch m;
    const std::string text = c["text"];
    ASSERT_TRUE(std::regex_match(text, m, std::regex("read (\\S+), expected (\\S+)"))) << text;
    EXPECT_EQ(m[1].str(), value_text(j["last_event"]["value"].get<double>())) << text;
    EXPECT_NE(m[1].str(), m[2].str()) << text;
    EXPECT_EQ(c["element"], j["last_event"]["element"]);
    // Big enough to see, inside the grid's room, apart from the strip.
    const Box cell = box(c["cell"]), label = box(c["box"]), grid = box(j["grid_rect"]);
    EXPECT_GE(cell.w, 20.0) << name;
    EXPECT_TRUE(inside(cell, grid)) << name;
    EXPECT_TRUE(inside(label, grid)) << name;
    EXPECT_FALSE(intersects(label, box(j["strip"]))) << name;
    expect_legible(j, name);
    // The label and the cell in the stale colour, apart from the tiles' orange
    // for normal, protanope, deuteranope and tritanope eyes.
    const Rgb stale = rgb(j["palette"]["stale"]), tile = rgb(j["palette"]["loaded"]);
    EXPECT_LT(distance(rgb(c["fill"]), stale), 2);
    EXPECT_LT(distance(s.at(int(label.x + 3), int(label.y + label.h / 2)), stale), 24) << name;
    EXPECT_LT(distance(s.at(int(cell.x + cell.w * 0.2), int(cell.y + cell.h * 0.2)), stale), 24)
        << name;
    EXPECT_GE(distance(stale, tile), 100);
    for (const auto* cvd : {kProtan, kDeutan, kTritan})
      EXPECT_GE(distance(simulate(stale, cvd), simulate(tile, cvd)), 80)
          << "stale " << json(stale) << " and tile " << json(tile) << " look alike";
  }
}

// Defect 3: with the panels at 1280 x 720 and a projector font the grid was
// 2-7 px; the window now presents, and the grid reads.
TEST(Projector, Defect3APanelsWindowWithAProjectorFontPresents) {
  for (const int font : {28, 32}) {
    const std::string name = "panels_present_f" + std::to_string(font);
    const Shot s = take_shot(name,
                             "--theme dark --position barrier:1 --size 1280x720 "
                             "--font-size " +
                                 std::to_string(font));
    ASSERT_EQ(s.rc, 0) << s.log;
    EXPECT_TRUE(s.cells["layout"]["presenter"].get<bool>()) << name;
    EXPECT_TRUE(s.cells["layout"]["presenter_auto"].get<bool>()) << name;
    expect_legible(s.cells, name);
  }
  // The text a laptop uses keeps the panels.
  const Shot laptop = take_shot("panels_laptop", "--theme dark --size 1600x900 --font-size 18");
  ASSERT_EQ(laptop.rc, 0) << laptop.log;
  EXPECT_FALSE(laptop.cells["layout"]["presenter"].get<bool>());
}

// Defect 3, the grid focus: --focus-grid (G) with a projector's text drew
// 5 px cells without values at 1280 x 720; it asked for the grid and got the
// whole of it, too small to read. Now it reads at every hall size, zoomed to
// the moment's subject where the whole grid cannot be legible (and says so);
// the window stays out of presenter mode, the timeline in view.
TEST(Projector, Defect3BTheGridFocusReadsAtEveryHallSize) {
  const ts::LessonInfo& v = ts::default_lesson();
  ASSERT_FALSE(v.barriers.empty());
  const std::string last = std::to_string(v.barriers.back().id);
  const struct {
    const char* tag;
    std::string args;
  } moments[] = {{"load", "--position barrier:1"},
                 {"stale", "--no-barrier " + last + " --position stale"},
                 {"end", "--position end"}};
  for (const Size& z : kHall)
    for (const auto& m : moments) {
      const std::string name = std::string("focus_") + m.tag + "_" + tag(z);
      const Shot s = take_shot(name, "--theme dark --focus-grid " + m.args + size_args(z));
      ASSERT_EQ(s.rc, 0) << name << ": " << s.log;
      const json& j = s.cells;
      EXPECT_TRUE(j["layout"]["focus_grid"].get<bool>()) << name;
      EXPECT_FALSE(j["layout"]["presenter"].get<bool>()) << name;
      EXPECT_GT(box(j["slots"]["bottom"]).h, 0) << name << ": the timeline hidden";
      expect_legible(j, name);
      if (j["auto_zoom"]["active"].get<bool>())
        EXPECT_FALSE(j["auto_zoom"]["what"].get<std::string>().empty()) << name;
    }
}

// Zoomed to the subject, the arrays' titles were cut off at the room's top
// edge (the subject filled the room): a hall saw blocks of numbers without
// names. Every array with cells in view names itself inside the room or
// the titles' line above it.
void expect_titles_in_view(const json& j, const std::string& where) {
  const Box grid = box(j["grid_rect"]);
  const double band = j["auto_zoom"].value("title_band", 0.0);
  const Box titled{grid.x, grid.y - band, grid.w, grid.h + band};
  for (const json& a : j["arrays"]) {
    const Box c = cells_box(a);
    const double cell = a["cell_w"].get<double>();
    const double w = std::min(c.x + c.w, grid.x + grid.w) - std::max(c.x, grid.x);
    const double h = std::min(c.y + c.h, grid.y + grid.h) - std::max(c.y, grid.y);
    if (w < 2 * cell || h < 2 * cell) continue;  // a sliver at the edge
    bool named = false;
    for (const json& m : j["plot_marks"])
      if (m["plot"] == "grid" && m["kind"] == "title" && m["label"] == a["buffer"]) {
        const Box t = box(m);
        named |= t.w > 0 && inside(t, titled) && t.x < c.x + c.w && t.x + t.w > c.x;
      }
    EXPECT_TRUE(named) << where << ": " << a["buffer"] << " in view without its title";
  }
}

// On the tiled multiply's race steps every racing cell had a ring of its own:
// dozens side by side. One ring per group of racing cells, none over another.
void expect_hazard_groups(const json& j, const std::string& where, int* hazard_steps) {
  size_t racing = 0;
  for (const json& m : j["marks"])
    racing += m["owner"] == "races" && m["style"] == 2;
  std::vector<Box> rings;
  for (const json& m : j["plot_marks"])
    if (m["plot"] == "grid" && m["kind"] == "hazards") rings.push_back(box(m));
  if (racing == 0) {
    EXPECT_TRUE(rings.empty()) << where;
    return;
  }
  ++*hazard_steps;
  EXPECT_FALSE(rings.empty()) << where << ": " << racing << " racing cells, no ring";
  EXPECT_LE(rings.size(), std::max<size_t>(4, racing / 8))
      << where << ": " << rings.size() << " rings for " << racing << " racing cells";
  for (size_t a = 0; a < rings.size(); ++a)
    for (size_t b = a + 1; b < rings.size(); ++b)
      EXPECT_FALSE(intersects(rings[a], rings[b])) << where << ": rings over each other";
}

TEST(Projector, ZoomedStepsKeepTheirTitlesAndRingRacesByGroup) {
  const fs::path file = fs::path(TS_SOURCE_DIR) / "assets/lectures/race_lab.tslecture";
  std::string err;
  const auto lecture = ts::load_lecture(file.string(), &err);
  ASSERT_TRUE(lecture) << err;
  int zoomed = 0, hazard_steps = 0;
  for (const Size& z : {Size{"1280x720", 28}, Size{"1280x720", 32}, Size{"1920x1080", 18}}) {
    const std::vector<json> steps = lecture_steps(file, z, lecture->steps.size(), "titles_");
    for (size_t k = 0; k < steps.size(); ++k) {
      const json& j = steps[k];
      const std::string where = "race_lab " + tag(z) + " step " + std::to_string(k + 1);
      ASSERT_TRUE(j.is_object()) << where;
      zoomed += j["auto_zoom"]["active"].get<bool>();
      expect_titles_in_view(j, where);
      expect_hazard_groups(j, where, &hazard_steps);
    }
  }
  EXPECT_GT(zoomed, 1);
  EXPECT_GT(hazard_steps, 0);
  // The grid focus zooms the same way (Defect3B): its titles too.
  const ts::LessonInfo& v = ts::default_lesson();
  for (const int font : {28, 32}) {
    const std::string name = "focus_titles_f" + std::to_string(font);
    const Shot s = take_shot(name, "--theme dark --focus-grid --no-barrier " +
                                       std::to_string(v.barriers.front().id) +
                                       " --schedule skew --position stale --size 1280x720 "
                                       "--font-size " +
                                       std::to_string(font));
    ASSERT_EQ(s.rc, 0) << s.log;
    expect_titles_in_view(s.cells, name);
  }
}

// Defect 4: values were about 8 px tall at any text size.
// The rows of a cell whose pixels differ from the cell's fill: the digits' height.
int ink_rows(const Shot& s, const Box& c) {
  const Rgb fill = s.at(int(c.x + 2), int(c.y + 2));
  int rows = 0;
  for (int y = int(c.y + 2); y < int(c.y + c.h - 2); ++y) {
    bool ink = false;
    for (int x = int(c.x + 2); x < int(c.x + c.w - 2) && !ink; ++x)
      ink = distance(s.at(x, y), fill) > 90;
    rows += ink;
  }
  return rows;
}

TEST(Projector, Defect4ValuesGrowWithTheTextSize) {
  double px18 = 0;
  for (const int font : {18, 28, 32}) {
    const std::string name = "values_f" + std::to_string(font);
    const Shot s = take_shot(name,
                             "--present --theme dark --position end --size 1280x720 "
                             "--font-size " +
                                 std::to_string(font));
    ASSERT_EQ(s.rc, 0) << s.log;
    const json& j = s.cells;
    expect_legible(j, name);
    // The output's values at the end, measured in the picture.
    const json* out = nullptr;
    for (const json& a : j["arrays"])
      if (a["buffer"] == j["last_store"]["buffer"]) out = &a;
    ASSERT_NE(out, nullptr);
    double value_px = 0;
    for (const json& g : j["grid_cells"])
      if (g["buffer"] == (*out)["buffer"]) value_px = g["value_px"].get<double>();
    EXPECT_GE(value_px, 0.4 * font) << name;
    const double cw = (*out)["cell_w"].get<double>();
    const Box first{(*out)["x"].get<double>(), (*out)["y"].get<double>(), cw, cw};
    EXPECT_GE(ink_rows(s, first), int(0.28 * font)) << name << ": digits too short";
    if (font == 18) px18 = value_px;
    if (font == 32) EXPECT_GT(value_px, px18) << "the values did not grow with the text";
  }
}

// A lesson whose arrays are all one-dimensional (the reductions, histograms,
// scans and stencils): picked by what it has, never by name.
bool all_1d(const ts::LessonInfo& v) {
  const auto table = ts::arrays(v, v.defaults);
  if (table.empty()) return false;
  for (const ts::ArrayInfo& a : table)
    if (a.rows > 1 && a.space != ts::Space::Constant) return false;
  return true;
}

// Defect 5: 1D arrays were 9 px cells at 1280 with 40-70 % of the room empty,
// a shared 1D array a 1-2 px line, and zooming showed an empty grid.
TEST(Projector, Defect5OneDimensionalLessonsWrapIntoWarpRowsOfLegibleCells) {
  int lessons = 0;
  for (const ts::LessonInfo& v : ts::all_lessons()) {
    if (!all_1d(v)) continue;
    ++lessons;
    const std::string name = "oned_" + std::string(v.id);
    const Shot s = take_shot(name, "--lesson " + std::string(v.id) +
                                       " --present --theme dark --position end --size 1280x720 "
                                       "--font-size 28");
    ASSERT_EQ(s.rc, 0) << s.log;
    expect_legible(s.cells, name);
    for (const json& a : s.cells["arrays"]) {
      const int cols = a["cols"], data = a["data_cols"];
      // Whole warps to a row (a shorter array: its own length).
      if (data >= 32) EXPECT_EQ(cols % 32, 0) << name << " " << a["buffer"] << ": " << cols;
    }
  }
  EXPECT_GT(lessons, 10);
}

TEST(Projector, Defect5ZoomingAOneDimensionalLessonKeepsItsArraysInView) {
  const ts::LessonInfo* v = nullptr;
  for (const ts::LessonInfo& each : ts::all_lessons())
    if (!v && all_1d(each)) v = &each;
  ASSERT_NE(v, nullptr);
  const Shot s = take_shot("oned_zoom", "--lesson " + std::string(v->id) +
                                            " --present --theme dark --size 1280x720 "
                                            "--font-size 28 --keys plus,plus,plus");
  ASSERT_EQ(s.rc, 0) << s.log;
  const Box grid = box(s.cells["grid_rect"]);
  double shown = 0;  // the share of the room the arrays' cells cover
  for (const json& a : s.cells["arrays"]) {
    const Box c = cells_box(a);
    const double w = std::min(c.x + c.w, grid.x + grid.w) - std::max(c.x, grid.x);
    const double h = std::min(c.y + c.h, grid.y + grid.h) - std::max(c.y, grid.y);
    if (w > 0 && h > 0) shown += w * h;
  }
  EXPECT_GT(shown, 0.3 * grid.w * grid.h) << "zoomed into an empty room";
}

// Defect 9: the race lab's volatile step and its __syncwarp fix looked the
// same; the strip now says what racecheck finds, the grid marks the cells.
TEST(Projector, Defect9TheWarpRaceAndItsFixDifferOnScreen) {
  const fs::path file = fs::path(TS_SOURCE_DIR) / "assets/lectures/race_lab.tslecture";
  std::string err;
  const auto lecture = ts::load_lecture(file.string(), &err);
  ASSERT_TRUE(lecture) << err;
  const Size z{"1280x720", 28};
  const std::vector<json> steps = lecture_steps(file, z, lecture->steps.size(), "warp_race_");
  // The steps whose lesson has a warp-scope barrier: with it and without it.
  int with_hazards = 0, without = 0;
  for (size_t k = 0; k < steps.size(); ++k) {
    const ts::LessonInfo* v = ts::find_lesson(lecture->steps[k].request.lesson_id);
    ASSERT_NE(v, nullptr);
    const json& j = steps[k];
    ASSERT_TRUE(j.is_object());
    const std::string facts = j["lecture"]["facts"];
    EXPECT_FALSE(facts.empty()) << "step " << k + 1;
    int hazard_marks = 0;
    for (const json& m : j["marks"])
      hazard_marks += m["owner"] == "races";
    const bool racecheck_quiet = facts.find("racecheck: no hazards") != std::string::npos;
    if (!racecheck_quiet && facts.find("racecheck:") != std::string::npos) {
      ++with_hazards;
      EXPECT_GT(hazard_marks, 0) << "step " << k + 1 << ": hazards said, none marked";
    } else if (racecheck_quiet) {
      ++without;
      EXPECT_EQ(hazard_marks, 0) << "step " << k + 1;
    }
  }
  EXPECT_GT(with_hazards, 0);
  EXPECT_GT(without, 0);
}

}  // namespace
