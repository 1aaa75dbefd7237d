// Presenter mode and the grid's own zoom (issue 19): on a 1280 x 720
// projector every array of the default lesson keeps cells of 20 px with
// values at any text size from 18 to 32; lecture captions, narration and
// quiz questions take a strip of their own and never cover the grid, at any
// step of every shipped lecture; + / - / 0 zoom the grid apart from the font.
// Runs tilescope on a private Xvfb and reads its --cells-json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <sys/wait.h>

#include "engine/catalogue.hpp"
#include "io/lecture_file.hpp"
#include "tests/app/private_x_server.hpp"
#include "tests/app/screen_boxes.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ts::app_test::box;
using ts::app_test::Box;
using ts::app_test::intersects;
using ts::app_test::out_dir;
using ts::app_test::x_display;

int run(const std::string& args, const std::string& name) {
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb did not start";
    return -1;
  }
  const fs::path log = out_dir() / (name + ".log");
  const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " " + args +
                          " --theme dark --exit > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

json read_json(const fs::path& p) {
  std::ifstream f(p);
  if (!f) return json();
  return json::parse(f, nullptr, false);
}

json shot(const std::string& name, const std::string& args) {
  const fs::path d = out_dir();
  const fs::path json_path = d / (name + ".json");
  fs::remove(json_path);
  const int rc = run(args + " --screenshot " + (d / (name + ".png")).string() + " --cells-json " +
                         json_path.string(),
                     name);
  EXPECT_EQ(rc, 0) << name << ": see " << (d / (name + ".log"));
  return read_json(json_path);
}

// The visible part of an array's cells (inside the grid's room).
Box cells_box(const json& a) {
  return {a["x"].get<double>(), a["y"].get<double>(),
          a["cols"].get<double>() * a["cell_w"].get<double>(),
          a["rows"].get<double>() * a["cell_h"].get<double>()};
}

TEST(Presenter, DefaultLessonHas20PxCellsWithValuesAtEveryFontOn720p) {
  const ts::LessonInfo& v = ts::default_lesson();
  std::set<std::string> names;
  for (const auto& a : ts::arrays(v, v.defaults))
    names.insert(a.name);
  ASSERT_FALSE(names.empty());
  for (const int font : {18, 22, 28, 32}) {
    const std::string name = "present720_f" + std::to_string(font);
    const json j =
        shot(name, "--backend sim --present --size 1280x720 --font-size " + std::to_string(font));
    ASSERT_TRUE(j.is_object()) << name;
    EXPECT_TRUE(j["layout"]["presenter"].get<bool>()) << name;
    EXPECT_TRUE(j["layout"]["values_readable"].get<bool>()) << name;
    std::set<std::string> drawn;
    const Box grid = box(j["grid_rect"]);
    ASSERT_GT(grid.w, 0) << name;
    // Zoomed to the moment's subject (a projector's text asks for bigger
    // digits than the whole grid gives): that subject inside the room.
    const bool zoomed = j["auto_zoom"]["active"].get<bool>();
    if (zoomed) {
      const Box z = box(j["auto_zoom"]["box"]);
      EXPECT_GE(z.x, grid.x - 1) << name;
      EXPECT_LE(z.x + z.w, grid.x + grid.w + 1) << name;
    }
    for (const auto& a : j["arrays"]) {
      drawn.insert(a["buffer"].get<std::string>());
      EXPECT_GE(a["cell_w"].get<double>(), 20.0) << name << " " << a["buffer"];
      if (zoomed) continue;
      // Fitted: every cell inside the grid's room and the window.
      const Box c = cells_box(a);
      EXPECT_GE(c.x, grid.x - 1) << name << " " << a["buffer"];
      EXPECT_GE(c.y, grid.y - 1) << name << " " << a["buffer"];
      EXPECT_LE(c.x + c.w, grid.x + grid.w + 1) << name << " " << a["buffer"];
      EXPECT_LE(c.y + c.h, grid.y + grid.h + 1) << name << " " << a["buffer"];
    }
    EXPECT_EQ(drawn, names) << name;
    // The narration has its own strip, beside or below the grid.
    const Box strip = box(j["strip"]);
    EXPECT_GT(strip.w * strip.h, 0) << name;
    EXPECT_FALSE(intersects(strip, grid)) << name;
  }
}

// Every step of every shipped lecture, in one process per lecture and size
// (--all-steps): the caption's band is drawn, and it touches neither the
// grid's room nor any array's cells.
void check_lecture_steps(const fs::path& file, const std::string& size, bool present) {
  std::string err;
  const auto lecture = ts::load_lecture(file.string(), &err);
  ASSERT_TRUE(lecture) << err;
  const std::string name = file.stem().string() + "_" + size + (present ? "_present" : "");
  const fs::path d = out_dir();
  const int rc =
      run("--lecture " + file.string() + " --all-steps --size " + size +
              (present ? " --present" : "") + " --screenshot " + (d / (name + ".png")).string() +
              " --cells-json " + (d / (name + ".json")).string(),
          name);
  ASSERT_EQ(rc, 0) << name << ": see " << (d / (name + ".log"));
  for (size_t k = 1; k <= lecture->steps.size(); ++k) {
    const std::string where = name + " step " + std::to_string(k);
    const json j = read_json(d / (name + "_step" + std::to_string(k) + ".json"));
    ASSERT_TRUE(j.is_object()) << where;
    ASSERT_EQ(j["lecture"]["step"], int(k)) << where;
    const Box band = box(j["lecture"]["band"]), grid = box(j["grid_rect"]);
    EXPECT_GT(band.w, 100) << where;
    EXPECT_GT(band.h, 40) << where;
    EXPECT_GT(grid.w, 0) << where;
    EXPECT_FALSE(intersects(band, grid))
        << where << ": caption " << j["lecture"]["band"] << " grid " << j["grid_rect"];
    for (const auto& a : j["arrays"])
      EXPECT_FALSE(intersects(band, cells_box(a))) << where << ": caption over " << a["buffer"];
  }
}

TEST(Presenter, NoLectureCaptionCoversTheGridAtAnyStepOrSize) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(std::string(TS_SOURCE_DIR) + "/assets/lectures"))
    if (e.path().extension() == ts::kLectureExtension) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 2u);
  for (const fs::path& f : files) {
    for (const char* size : {"1280x720", "1600x900", "1920x1080"})
      check_lecture_steps(f, size, false);
    check_lecture_steps(f, "1280x720", true);
  }
}

TEST(Presenter, GridZoomIsApartFromTheFont) {
  // In presenter mode at 1280 x 720 the cells are as big at text size 32 as
  // at 18, give or take the titles (in G they fell from 20 px to 2 px).
  const json f18 = shot("present_f18", "--backend sim --present --size 1280x720 --font-size 18");
  const json f32 = shot("present_f32", "--backend sim --present --size 1280x720 --font-size 32");
  ASSERT_TRUE(f18.is_object() && f32.is_object());
  const double c18 = f18["arrays"][0]["cell_w"].get<double>();
  const double c32 = f32["arrays"][0]["cell_w"].get<double>();
  EXPECT_GE(c32, 0.9 * c18) << c18 << " -> " << c32;
  // + zooms the grid, not the text; 0 fits it again; P turns presenter mode on.
  // (The first 0: the whole grid fitted, the zoom to the moment's subject a
  // projector's text gets in the grid focus turned off.)
  const std::string base = "--backend sim --focus-grid --size 1280x720 --font-size 28";
  const json fit = shot("zoom_fit", base + " --keys 0");
  const json in = shot("zoom_in", base + " --keys 0,plus,plus");
  const json back = shot("zoom_back", base + " --keys 0,plus,plus,0");
  const json p = shot("zoom_p", base + " --keys 0,p");
  ASSERT_TRUE(fit.is_object() && in.is_object() && back.is_object() && p.is_object());
  const double cf = fit["arrays"][0]["cell_w"].get<double>();
  EXPECT_GE(in["arrays"][0]["cell_w"].get<double>(), 1.4 * cf);
  EXPECT_GT(in["layout"]["grid_zoom"].get<double>(), 1.4);
  EXPECT_EQ(in["layout"]["font"], fit["layout"]["font"]);
  EXPECT_EQ(box(in["grid_rect"]).w, box(fit["grid_rect"]).w);  // the room stays; the cells grow
  EXPECT_EQ(back["arrays"][0]["cell_w"].get<double>(), cf);
  EXPECT_EQ(back["layout"]["grid_zoom"].get<double>(), 1.0);
  EXPECT_TRUE(p["layout"]["presenter"].get<bool>());
  EXPECT_GE(p["arrays"][0]["cell_w"].get<double>(), cf);
}

}  // namespace

namespace {

// A lesson's layouts (the grid's layout toggle: a plain and a padded tile)
// are one kernel with another shared array: its global matrices are drawn at
// one scale, so that the picture compares the layouts and not the zoom.
TEST(Presenter, LayoutVariantsOfALessonAreDrawnAtOneScale) {
  std::map<std::string, std::vector<const ts::LessonInfo*>> groups;
  for (const ts::LessonInfo& v : ts::all_lessons())
    if (v.layout_group && v.layout_label) groups[v.layout_group].push_back(&v);
  ASSERT_FALSE(groups.empty());
  for (const auto& [group, sibs] : groups) {
    std::map<std::string, double> cell;  // global array -> cell size of the first layout
    for (const ts::LessonInfo* v : sibs) {
      const std::string name = "layout_" + std::string(v->id);
      const json j = shot(name, "--backend sim --lesson " + std::string(sibs.front()->id) +
                                    " --layout \"" + v->layout_label + "\" --size 1600x900");
      ASSERT_TRUE(j.is_object()) << name;
      EXPECT_EQ(j["variant"], v->id);
      for (const auto& a : j["arrays"]) {
        if (a["shared"].get<bool>()) continue;
        const std::string buf = a["buffer"].get<std::string>();
        const double c = a["cell_w"].get<double>();
        if (!cell.count(buf)) cell[buf] = c;
        EXPECT_EQ(c, cell[buf]) << group << ": " << v->id << " draws " << buf << " at " << c
                                << " px, " << sibs.front()->id << " at " << cell[buf];
      }
    }
  }
}

}  // namespace

namespace {

// A lecture step can ask for presenter mode ("panels": "present"): the grid
// alone with 20 px cells at 1280 x 720, the caption below or beside it.
TEST(Presenter, LectureStepTurnsPresenterModeOn) {
  const fs::path file = out_dir() / "present.tslecture";
  {
    std::ofstream f(file);
    f << R"({"title": "Presenter", "steps": [{"lesson": ")" << ts::default_lesson().id
      << R"(", "position": "phase:1", "panels": "present", "caption": "From the script."}]})";
  }
  const json j =
      shot("lecture_present", "--lecture " + file.string() + " --size 1280x720 --font-size 28");
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["layout"]["presenter"].get<bool>());
  EXPECT_FALSE(intersects(box(j["lecture"]["band"]), box(j["grid_rect"])));
  for (const auto& a : j["arrays"])
    EXPECT_GE(a["cell_w"].get<double>(), 20.0) << a["buffer"];
}

}  // namespace

// Defect 1 without presenter mode: at 1280 x 720 with a large font the side
// panels left the grid's legend alone on screen (the pane drew no cell, so the
// automatic grid focus never decided). The window now chooses the grid focus
// and every array is drawn, the hint pointing to the zoom and to P.
TEST(Presenter, WithThePanelsALargeFontStillShowsEveryArrayOn720p) {
  for (int font : {28, 32}) {
    const std::string name = "panels_720_font" + std::to_string(font);
    const json j = shot(name, "--size 1280x720 --font-size " + std::to_string(font));
    ASSERT_TRUE(j.is_object()) << name;
    // The grid alone: the focus, or (issue 33) presenter mode where even the
    // focus leaves cells under 16 px at a projector's text size.
    EXPECT_TRUE(j["layout"]["focus_grid"].get<bool>() || j["layout"]["presenter"].get<bool>())
        << name << ": the app chose no focus";
    ASSERT_GE(j["arrays"].size(), 5u) << name;  // A, B, C, tileA, tileB
    for (const json& a : j["arrays"]) {
      EXPECT_GE(a["cell_w"].get<double>(), 4.0) << name << ": " << a.dump();
      EXPECT_GT(a["rows"].get<int>(), 0) << name;
    }
  }
}
