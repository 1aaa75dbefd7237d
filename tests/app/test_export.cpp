// Export the replay (--record): the GIF, MP4 and PNG sequence it writes are
// decoded here (giflib, Debian's ffmpeg, stb) and checked against what
// --record said (frame count, size) and against a --screenshot of the window
// at the last frame's position (one pixel of a cell of tileA). Bad paths give
// a message and exit status 1. Runs tilescope on a private Xvfb.
#include <gif_lib.h>
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "tests/app/private_x_server.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// The default lesson (square tiles, two barriers).
static std::string default_id() {
  return picks::default_lesson().id;
}

namespace {

namespace fs = std::filesystem;
using ts::app_test::out_dir;
using ts::app_test::x_display;
using Rgb = std::array<int, 3>;

// The first phase of the default tiled multiply, 10 frames, at 1280x720.
const std::string kLesson =
    "--lesson " + default_id() + " --backend sim --size 1280x720 --theme dark";
const std::string kRange = "--to phase:1 --fps 10 --duration 1";

struct AppRun {
  int rc = -1;
  std::string log;
};

AppRun run_app(const std::string& args, const std::string& name) {
  AppRun r;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb (" << TS_XVFB << ") did not start";
    return r;
  }
  const fs::path log = out_dir() / (name + ".log");
  const std::string cmd =
      "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " " + args + " > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream f(log);
  std::stringstream ss;
  ss << f.rdbuf();
  r.log = ss.str();
  return r;
}

struct Reported {
  int frames = 0, w = 0, h = 0;
};
// "wrote FILE: N frames, WxH, S s"
Reported reported(const std::string& log) {
  Reported r;
  std::smatch m;
  if (std::regex_search(log, m, std::regex(R"(: (\d+) frames, (\d+)x(\d+), [0-9.]+ s)")))
    r.frames = std::stoi(m[1]), r.w = std::stoi(m[2]), r.h = std::stoi(m[3]);
  return r;
}

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> px;
  Rgb at(int x, int y) const {
    // A window that wrote no image (it failed) has no pixels to compare.
    if (x < 0 || y < 0 || x >= w || y >= h || px.size() < size_t(w) * size_t(h) * 3) {
      ADD_FAILURE() << "pixel (" << x << ", " << y << ") outside a " << w << "x" << h << " image";
      return {-1, -1, -1};
    }
    const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3;
    return {px[i], px[i + 1], px[i + 2]};
  }
};

Image load_png(const fs::path& p) {
  Image im;
  int n = 0;
  unsigned char* d = stbi_load(p.string().c_str(), &im.w, &im.h, &n, 3);
  if (d) {
    im.px.assign(d, d + size_t(im.w) * size_t(im.h) * 3);
    stbi_image_free(d);
  }
  return im;
}

// The window at the last frame's position (phase:1), and a point inside cell
// (0, 0) of tileA, clear of the value printed in its middle.
struct Reference {
  Image shot;
  nlohmann::json cells;
  int x = 0, y = 0;
};
const Reference& reference() {
  static Reference ref = [] {
    Reference r;
    const fs::path png = out_dir() / "ref.png", json = out_dir() / "ref.json";
    const AppRun run = run_app(kLesson + " --position phase:1 --screenshot " + png.string() +
                                   " --cells-json " + json.string() + " --exit",
                               "ref");
    EXPECT_EQ(run.rc, 0) << run.log;
    r.shot = load_png(png);
    std::ifstream f(json);
    const auto cells = nlohmann::json::parse(f, nullptr, false);
    r.cells = cells;
    if (cells.is_object())
      for (const auto& a : cells["arrays"])
        if (a["buffer"] == "tileA" && a["shared"] == true) {
          r.x = int(a["x"].get<double>() + a["cell_w"].get<double>() * 0.2);
          r.y = int(a["y"].get<double>() + a["cell_h"].get<double>() * 0.2);
        }
    EXPECT_GT(r.x, 0) << "tileA not in the cells map";
    return r;
  }();
  return ref;
}

int distance(Rgb a, Rgb b) {
  return std::max({std::abs(a[0] - b[0]), std::abs(a[1] - b[1]), std::abs(a[2] - b[2])});
}

TEST(Export, GifHasTheReportedFramesAndTheWindowsPixels) {
  const Reference& ref = reference();
  const fs::path gif = out_dir() / "phase.gif";
  const AppRun run =
      run_app(kLesson + " --record " + gif.string() + " " + kRange + " --exit", "gif");
  ASSERT_EQ(run.rc, 0) << run.log;
  const Reported rep = reported(run.log);
  EXPECT_EQ(rep.frames, 10)
      << run.log;  // 1 s at 10 fps: the first at the start, the last at phase:1
  int err = 0;
  GifFileType* g = DGifOpenFileName(gif.string().c_str(), &err);
  ASSERT_NE(g, nullptr) << GifErrorString(err);
  ASSERT_EQ(DGifSlurp(g), GIF_OK) << GifErrorString(g->Error);
  EXPECT_EQ(g->ImageCount, rep.frames);
  EXPECT_EQ(g->SWidth, rep.w);
  EXPECT_EQ(g->SHeight, rep.h);
  EXPECT_EQ(rep.w, ref.shot.w);
  EXPECT_EQ(rep.h, ref.shot.h);
  auto pixel = [&](int frame, int x, int y) -> Rgb {
    const SavedImage& im = g->SavedImages[frame];
    const ColorMapObject* map = im.ImageDesc.ColorMap ? im.ImageDesc.ColorMap : g->SColorMap;
    const GifColorType c =
        map->Colors[im.RasterBits[size_t(y) * size_t(im.ImageDesc.Width) + size_t(x)]];
    return {c.Red, c.Green, c.Blue};
  };
  ASSERT_GT(g->ImageCount, 1);
  // The last frame is the window at phase:1 (256 colours: within a palette step).
  const Rgb want = ref.shot.at(ref.x, ref.y);
  const Rgb last = pixel(g->ImageCount - 1, ref.x, ref.y);
  EXPECT_LE(distance(last, want), 12) << "GIF " << last[0] << "," << last[1] << "," << last[2]
                                      << " window " << want[0] << "," << want[1] << "," << want[2];
  // The first is the start, before the tile was loaded: the frames step.
  EXPECT_GT(distance(pixel(0, ref.x, ref.y), want), 40);
  DGifCloseFile(g, &err);
}

TEST(Export, Mp4DecodesToTheReportedFramesAndTheWindowsPixels) {
  if (std::system("command -v ffmpeg > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "ffmpeg is not installed (apt-get install ffmpeg): the MP4 export is untested";
  const Reference& ref = reference();
  const fs::path mp4 = out_dir() / "phase.mp4";
  const AppRun run =
      run_app(kLesson + " --record " + mp4.string() + " " + kRange + " --exit", "mp4");
  ASSERT_EQ(run.rc, 0) << run.log;
  const Reported rep = reported(run.log);
  EXPECT_EQ(rep.frames, 10) << run.log;
  const fs::path raw = out_dir() / "phase.rgb";
  ASSERT_EQ(std::system(("ffmpeg -loglevel error -y -i " + mp4.string() +
                         " -f rawvideo -pix_fmt rgb24 " + raw.string())
                            .c_str()),
            0);
  const size_t frame_bytes = size_t(rep.w) * size_t(rep.h) * 3;
  ASSERT_GT(frame_bytes, 0u);
  std::ifstream f(raw, std::ios::binary);
  std::vector<unsigned char> all((std::istreambuf_iterator<char>(f)),
                                 std::istreambuf_iterator<char>());
  ASSERT_EQ(all.size() % frame_bytes, 0u);
  EXPECT_EQ(int(all.size() / frame_bytes), rep.frames);
  ASSERT_GE(all.size(), frame_bytes * 2);
  auto pixel = [&](int frame, int x, int y) -> Rgb {
    const size_t i = size_t(frame) * frame_bytes + (size_t(y) * size_t(rep.w) + size_t(x)) * 3;
    return {all[i], all[i + 1], all[i + 2]};
  };
  const int last_frame = int(all.size() / frame_bytes) - 1;
  const Rgb want = ref.shot.at(ref.x, ref.y);
  const Rgb last = pixel(last_frame, ref.x, ref.y);
  // YUV 4:2:0 and H.264's rounding: a few levels off.
  EXPECT_LE(distance(last, want), 16) << "MP4 " << last[0] << "," << last[1] << "," << last[2]
                                      << " window " << want[0] << "," << want[1] << "," << want[2];
  EXPECT_GT(distance(pixel(0, ref.x, ref.y), want), 40);
}

TEST(Export, PngSequenceIsTheWindowFrameByFrame) {
  const Reference& ref = reference();
  const fs::path dir = out_dir() / "seq";
  fs::create_directories(dir);
  const AppRun run = run_app(
      kLesson + " --record " + (dir / "phase.png").string() + " " + kRange + " --exit", "png");
  ASSERT_EQ(run.rc, 0) << run.log;
  const Reported rep = reported(run.log);
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir))
    files += e.path().extension() == ".png";
  EXPECT_EQ(files, rep.frames);
  EXPECT_EQ(rep.frames, 10);
  // PNG is lossless: the last frame is the screenshot at phase:1, pixel for pixel.
  const Image last = load_png(dir / "phase_0009.png");
  ASSERT_GT(last.w, 0) << "no last frame";
  ASSERT_EQ(last.w, ref.shot.w);
  ASSERT_EQ(last.h, ref.shot.h);
  EXPECT_EQ(last.at(ref.x, ref.y), ref.shot.at(ref.x, ref.y));
  size_t differ = 0;
  for (size_t i = 0; i < last.px.size(); ++i)
    differ += last.px[i] != ref.shot.px[i];
  EXPECT_LT(differ, last.px.size() / 1000) << "bytes that differ from the screenshot";
}

nlohmann::json load_json(const fs::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f, nullptr, false);
}

// The controls' colours (menu bar, tabs, buttons, input frames) over the
// background, as the cells map gives them.
std::vector<Rgb> chrome_colours(const nlohmann::json& cells) {
  std::vector<Rgb> c;
  if (cells.is_object() && cells.contains("chrome_colours"))
    for (const auto& [name, v] : cells["chrome_colours"].items())
      c.push_back({v[0].get<int>(), v[1].get<int>(), v[2].get<int>()});
  return c;
}

// Pixels within one level of one of those colours.
size_t chrome_pixels(const Image& im, const std::vector<Rgb>& colours) {
  size_t n = 0;
  for (int y = 0; y < im.h; ++y)
    for (int x = 0; x < im.w; ++x) {
      const Rgb p = im.at(x, y);
      for (const Rgb& c : colours)
        if (distance(p, c) <= 1) {
          ++n;
          break;
        }
    }
  return n;
}

struct Box {
  double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
};
// Where the arrays are in a cells map.
Box arrays_box(const nlohmann::json& cells) {
  Box b;
  for (const auto& a : cells["arrays"]) {
    const double x = a["x"].get<double>(), y = a["y"].get<double>();
    b.x0 = std::min(b.x0, x), b.y0 = std::min(b.y0, y);
    b.x1 = std::max(b.x1, x + a["cell_w"].get<double>() * a["cols"].get<int>());
    b.y1 = std::max(b.y1, y + a["cell_h"].get<double>() * a["rows"].get<int>());
  }
  return b;
}

size_t bytes_differing(const Image& a, const Image& b) {
  if (a.px.size() != b.px.size()) return a.px.size() + b.px.size();
  size_t n = 0;
  for (size_t i = 0; i < a.px.size(); ++i)
    n += a.px[i] != b.px[i];
  return n;
}

// A slide (--panels) as a screenshot and its cells map, at --position `at`.
struct Slide {
  Image shot;
  nlohmann::json cells;
};
Slide slide(const std::string& panels, const std::string& at, const std::string& name,
            const std::string& extra = "") {
  Slide s;
  const fs::path png = out_dir() / (name + ".png"), json = out_dir() / (name + ".json");
  const AppRun run =
      run_app(kLesson + " --position " + at + " --panels " + panels + " " + extra +
                  " --screenshot " + png.string() + " --cells-json " + json.string() + " --exit",
              name);
  EXPECT_EQ(run.rc, 0) << run.log;
  s.shot = load_png(png);
  s.cells = load_json(json);
  return s;
}

// The frames of a PNG sequence, in order.
std::vector<Image> frames_of(const fs::path& dir, const std::string& stem, int n) {
  std::vector<Image> f;
  for (int i = 0; i < n; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "%s_%04d.png", stem.c_str(), i);
    f.push_back(load_png(dir / name));
  }
  return f;
}

TEST(Export, GridIsTheGridAloneInEveryFrame) {
  // The window itself: its menu, tab bars and buttons are found by their colours.
  const Reference& ref = reference();
  const std::vector<Rgb> chrome = chrome_colours(ref.cells);
  ASSERT_EQ(chrome.size(), 5u) << "no chrome_colours in the cells map";
  EXPECT_GT(chrome_pixels(ref.shot, chrome), 2000u) << "the window's controls are not found";
  const Slide grid = slide("grid", "phase:1", "slide_grid");
  const fs::path dir = out_dir() / "seq_grid";
  fs::create_directories(dir);
  const AppRun run = run_app(
      kLesson + " --record " + (dir / "g.png").string() + " " + kRange + " --panels grid --exit",
      "grid");
  ASSERT_EQ(run.rc, 0) << run.log;
  const Reported rep = reported(run.log);
  ASSERT_EQ(rep.frames, 10) << run.log;
  // The grid has the whole frame: the window's size, nothing beside it.
  EXPECT_EQ(rep.w, 1280);
  EXPECT_EQ(rep.h, 720);
  const std::vector<Image> frames = frames_of(dir, "g", rep.frames);
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_EQ(frames[i].w, 1280) << "frame " << i;
    ASSERT_EQ(frames[i].h, 720) << "frame " << i;
    EXPECT_EQ(chrome_pixels(frames[i], chrome), 0u)
        << "frame " << i << " has pixels of a menu, tab, button or input";
  }
  // The last frame is the slide at phase:1, whose arrays are all in the frame.
  EXPECT_LT(bytes_differing(frames.back(), grid.shot), frames.back().px.size() / 1000);
  ASSERT_TRUE(grid.cells.is_object());
  EXPECT_EQ(grid.cells["arrays"].size(), ref.cells["arrays"].size());
  const Box b = arrays_box(grid.cells);
  EXPECT_GE(b.x0, 0);
  EXPECT_GE(b.y0, 0);
  EXPECT_LE(b.x1, 1280);
  EXPECT_LE(b.y1, 720);
  // The grid gets the room: its arrays span most of the slide's width or height.
  EXPECT_TRUE(b.x1 - b.x0 > 0.75 * 1280 || b.y1 - b.y0 > 0.75 * 720)
      << b.x0 << "," << b.y0 << " .. " << b.x1 << "," << b.y1;
  EXPECT_EQ(grid.cells["timeline_lanes"]["w"].get<double>(), 0) << "no timeline on a grid slide";
}

TEST(Export, GridTimelineIsTheGridOverTheLanes) {
  const Reference& ref = reference();
  const std::vector<Rgb> chrome = chrome_colours(ref.cells);
  const Slide s = slide("grid+timeline", "40", "slide_timeline");
  const fs::path dir = out_dir() / "seq_timeline";
  fs::create_directories(dir);
  const AppRun run = run_app(kLesson + " --record " + (dir / "t.png").string() +
                                 " --to 40 --fps 5 --duration 1 --panels grid+timeline --exit",
                             "timeline");
  ASSERT_EQ(run.rc, 0) << run.log;
  const Reported rep = reported(run.log);
  ASSERT_EQ(rep.frames, 5) << run.log;
  EXPECT_EQ(rep.w, 1280);
  EXPECT_EQ(rep.h, 720);
  const std::vector<Image> frames = frames_of(dir, "t", rep.frames);
  for (size_t i = 0; i < frames.size(); ++i)
    EXPECT_EQ(chrome_pixels(frames[i], chrome), 0u)
        << "frame " << i << " has pixels of a menu, tab, button or input (the transport?)";
  EXPECT_LT(bytes_differing(frames.back(), s.shot), frames.back().px.size() / 1000);
  // The lanes under the arrays, across the slide.
  ASSERT_TRUE(s.cells.is_object());
  const auto& lanes = s.cells["timeline_lanes"];
  EXPECT_GT(lanes["h"].get<double>(), 20);
  EXPECT_GT(lanes["w"].get<double>(), 1280 * 0.8);
  EXPECT_GE(lanes["y"].get<double>(), arrays_box(s.cells).y1);
  EXPECT_LE(lanes["y"].get<double>() + lanes["h"].get<double>(), 720);
}

TEST(Export, TitleLineIsAboveTheGridInEveryFrame) {
  const std::string title = "--title \"Tiled multiply: the first tiles\"";
  const Slide plain = slide("grid", "phase:1", "slide_plain");
  const Slide titled = slide("grid", "phase:1", "slide_titled", title);
  ASSERT_TRUE(plain.cells.is_object() && titled.cells.is_object());
  // The grid moves down under the title, which is drawn: text in the rows above it.
  const double shift = arrays_box(titled.cells).y0 - arrays_box(plain.cells).y0;
  EXPECT_GT(shift, 20);
  const Rgb bg = {titled.cells["palette"]["background"][0].get<int>(),
                  titled.cells["palette"]["background"][1].get<int>(),
                  titled.cells["palette"]["background"][2].get<int>()};
  size_t ink = 0;
  for (int y = 0; y < int(shift); ++y)
    for (int x = 0; x < titled.shot.w; ++x)
      ink += distance(titled.shot.at(x, y), bg) > 60;
  EXPECT_GT(ink, 300u) << "no title text above the grid";
  // Every frame of the recording carries it.
  const fs::path dir = out_dir() / "seq_title";
  fs::create_directories(dir);
  const AppRun run = run_app(kLesson + " --record " + (dir / "t.png").string() + " " + kRange +
                                 " --panels grid " + title + " --exit",
                             "title");
  ASSERT_EQ(run.rc, 0) << run.log;
  const Reported rep = reported(run.log);
  ASSERT_EQ(rep.frames, 10);
  for (const Image& f : frames_of(dir, "t", rep.frames)) {
    ASSERT_EQ(f.w, titled.shot.w);
    size_t differ = 0;
    for (int y = 0; y < int(shift) - 2; ++y)
      for (int x = 0; x < f.w; ++x)
        differ += f.at(x, y) != titled.shot.at(x, y);
    EXPECT_EQ(differ, 0u) << "the title band differs from the screenshot's";
  }
}

TEST(Export, FrameCountIsFpsTimesDuration) {
  // The GIF's frames and its length: fps x duration, each frame 1/fps s long.
  struct Case {
    int fps;
    double seconds;
  };
  for (const Case c : {Case{10, 5}, Case{30, 1}}) {
    const std::string name = "count" + std::to_string(c.fps);
    const fs::path gif = out_dir() / (name + ".gif");
    const AppRun run =
        run_app("--lesson " + default_id() + " --backend sim --size 640x360 --record " +
                    gif.string() + " --fps " + std::to_string(c.fps) + " --duration " +
                    std::to_string(c.seconds) + " --panels grid --exit",
                name);
    ASSERT_EQ(run.rc, 0) << run.log;
    const int want = int(std::lround(c.fps * c.seconds));
    EXPECT_EQ(reported(run.log).frames, want) << run.log;
    int err = 0;
    GifFileType* g = DGifOpenFileName(gif.string().c_str(), &err);
    ASSERT_NE(g, nullptr) << GifErrorString(err);
    ASSERT_EQ(DGifSlurp(g), GIF_OK);
    EXPECT_EQ(g->ImageCount, want);
    int centiseconds = 0;
    for (int i = 0; i < g->ImageCount; ++i) {
      GraphicsControlBlock gcb;
      if (DGifSavedExtensionToGCB(g, i, &gcb) == GIF_OK) centiseconds += gcb.DelayTime;
    }
    EXPECT_EQ(centiseconds, int(std::lround(c.seconds * 100))) << "the GIF's length";
    DGifCloseFile(g, &err);
  }
}

TEST(Export, SpeedSetsTheLength) {
  // 40 events at 100 events a second: 0.4 s, 4 frames at 10 fps, the last at event 40.
  const fs::path gif = out_dir() / "speed.gif";
  const AppRun run = run_app(
      kLesson + " --record " + gif.string() + " --to 40 --fps 10 --speed 100 --exit", "speed");
  ASSERT_EQ(run.rc, 0) << run.log;
  EXPECT_EQ(reported(run.log).frames, 4) << run.log;
}

TEST(Export, BadPathsSayWhyAndFail) {
  for (const std::string out : {"/nonexistent/dir/x.gif", "/nonexistent/dir/x.mp4",
                                "/nonexistent/dir/x.png", "/dev/full", "/tmp/x.avi"}) {
    std::string name = "bad" + std::to_string(std::hash<std::string>{}(out) % 1000);
    // /dev/full: named as a GIF by a link, so the write (not the open) fails.
    std::string path = out;
    if (out == "/dev/full") {
      path = (out_dir() / "full.gif").string();
      fs::remove(path);
      fs::create_symlink("/dev/full", path);
    }
    const AppRun run =
        run_app(kLesson + " --record " + path + " --to 20 --fps 5 --duration 1 --exit", name);
    EXPECT_EQ(run.rc, 1) << out << ": " << run.log;
    EXPECT_NE(run.log.find("tilescope: "), std::string::npos) << out << ": " << run.log;
    EXPECT_EQ(run.log.find("wrote"), std::string::npos) << out << ": " << run.log;
  }
}

}  // namespace
