// The Performance panel in the real window: a report opens from --perf-report
// (and from where a trace would go), its roofline puts each kernel at the
// intensity it really has (the tiled dots right of the naive ones, where an
// independent computation from the report says), labels neither overprint nor
// fade on the light theme, tick labels are whole, and a bad file is a banner,
// not a crash. Runs tilescope on a private Xvfb, as test_screenshot.cpp does.
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/app/private_x_server.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// The default lesson (square tiles, two barriers).
static std::string default_id() {
  return picks::default_lesson().id;
}
// The ladder's naive step before tiling.
static std::string naive_grid_id() {
  return picks::ladder_step(2).id;
}

namespace {

namespace fs = std::filesystem;
using Rgb = std::array<int, 3>;

struct Shot {
  int rc = -1;
  int w = 0, h = 0;
  std::vector<unsigned char> px;
  nlohmann::json cells;
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

using ts::app_test::out_dir;
using ts::app_test::x_display;

const std::string kSource = TS_SOURCE_DIR;
const std::string kH100 = kSource + "/docs/perf_h100_panel.json";
const std::string kH200 = kSource + "/docs/perf_h200_panel.json";

// The window on the Performance tab, in a fresh folder (no tilescope_perf.json
// there to be found by name), with `args` added.
Shot take(const std::string& name, const std::string& args, const std::string& size,
          const std::string& theme) {
  const fs::path d = out_dir() / name;
  fs::create_directories(d);
  const fs::path png = d / "shot.png", json = d / "cells.json";
  Shot s;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb (" << TS_XVFB << ") did not start";
    return s;
  }
  const std::string cmd = "cd " + d.string() + " && DISPLAY=" + display + " " + TS_TILESCOPE_EXE +
                          " --backend sim --tab Performance " + args + " --size " + size +
                          " --theme " + theme + " --screenshot " + png.string() + " --cells-json " +
                          json.string() + " --exit > " + (d / "log").string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  s.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  if (s.rc != 0) return s;
  int n = 0;
  unsigned char* data = stbi_load(png.string().c_str(), &s.w, &s.h, &n, 3);
  if (data) {
    s.px.assign(data, data + size_t(s.w) * size_t(s.h) * 3);
    stbi_image_free(data);
  }
  std::ifstream f(json);
  s.cells = nlohmann::json::parse(f);
  return s;
}

std::vector<nlohmann::json> marks(const Shot& s, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == "roofline" && m["kind"] == kind) out.push_back(m);
  return out;
}
const nlohmann::json* mark(const Shot& s, const std::string& kind, const std::string& label) {
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == "roofline" && m["kind"] == kind && m["label"] == label) return &m;
  return nullptr;
}

double lum(Rgb c) {  // WCAG relative luminance
  double l[3];
  for (int i = 0; i < 3; ++i) {
    const double x = c[i] / 255.0;
    l[i] = x <= 0.03928 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
  }
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}
double contrast(Rgb a, Rgb b) {
  const double x = lum(a), y = lum(b);
  return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

struct Box {
  double x, y, w, h;
};
Box box(const nlohmann::json& m) {
  return {m["x"].get<double>(), m["y"].get<double>(), m["w"].get<double>(), m["h"].get<double>()};
}
bool overlap(Box a, Box b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// Where a kernel of the report must be, from the report alone: its GFLOP/s at
// its largest n, its intensity from its global traffic (2 n^3 / T loads tiled,
// 2 n^3 naive, n^2 stores), and the axes' rules (the marks and the ridge with a
// margin of 1.6 in x, down to half the slowest kernel and up to 1.6 times the peak).
struct Expected {
  double issued = 0, compulsory = 0, gflops = 0;
};
std::map<std::string, Expected> expected_points(const std::string& report, double* x0, double* x1,
                                                double* y0, double* y1) {
  std::ifstream f(report);
  const auto j = nlohmann::json::parse(f);
  const double peak = j["device"]["fp32_peak_gflops"], copy = j["device"]["copy_gbps"];
  std::map<std::string, Expected> out;
  std::map<std::string, int> largest;
  for (const auto& x : j["results"]) {
    const std::string k = x["kernel"];
    if (k == "copy.d2d" || x["status"] != "ok") continue;
    const int tile = x["tile"], n = x["size"];
    const std::string label = tile ? k + " T" + std::to_string(tile) : k;
    if (largest[label] > n) continue;
    largest[label] = n;
    const double nn = n, flops = 2 * nn * nn * nn;
    Expected e;
    e.gflops = flops / (x["ms_median"].get<double>() * 1e-3) / 1e9;
    e.compulsory = flops / (4 * 3 * nn * nn);
    if (k == naive_grid_id()) e.issued = flops / (4 * (2 * nn * nn * nn + nn * nn));
    if (k == default_id()) e.issued = flops / (4 * (2 * nn * nn * nn / tile + nn * nn));
    out[label] = e;
  }
  double lo = peak / copy / 2, hi = peak / copy * 2, ylo = peak;
  for (const auto& [l, e] : out) {
    for (double v : {e.issued, e.compulsory})
      if (v > 0) lo = std::min(lo, v / 1.6), hi = std::max(hi, v * 1.6);
    ylo = std::min(ylo, e.gflops / 2);
  }
  *x0 = lo, *x1 = hi, *y0 = ylo, *y1 = peak * 1.6;  // each holds a decade already
  return out;
}

TEST(PerfWindow, ReportFromTheCommandLineIsShownWithBothIntensities) {
  const Shot s = take("h100", "--perf-report " + kH100, "1600x900", "dark");
  ASSERT_EQ(s.rc, 0);
  ASSERT_FALSE(s.px.empty());
  EXPECT_EQ(s.cells["banner"]["kind"], "info");
  EXPECT_NE(s.cells["banner"]["text"].get<std::string>().find("Opened the performance report"),
            std::string::npos);
  const auto area = marks(s, "area");
  ASSERT_EQ(area.size(), 1u) << "the roofline is not drawn";
  const Box a = box(area[0]);

  double x0, x1, y0, y1;
  const auto want = expected_points(kH100, &x0, &x1, &y0, &y1);
  ASSERT_EQ(want.size(), 5u);  // cuBLAS, naive T16/T32, tiled T16/T32
  auto px_x = [&](double v) { return a.x + std::log10(v / x0) / std::log10(x1 / x0) * a.w; };
  auto px_y = [&](double v) { return a.y + a.h - std::log10(v / y0) / std::log10(y1 / y0) * a.h; };
  for (const auto& [label, e] : want) {
    SCOPED_TRACE(label);
    const nlohmann::json* ring = mark(s, "compulsory", label);
    ASSERT_NE(ring, nullptr);
    EXPECT_NEAR((*ring)["x"].get<double>(), px_x(e.compulsory), 1.5);
    EXPECT_NEAR((*ring)["y"].get<double>(), px_y(e.gflops), 1.5);
    const nlohmann::json* dot = mark(s, "issued", label);
    if (e.issued == 0) {  // cuBLAS: nothing counted, no second mark
      EXPECT_EQ(dot, nullptr);
      continue;
    }
    ASSERT_NE(dot, nullptr);
    // At the position the report and the axis rules give, independently of the app...
    const double x = px_x(e.issued), y = px_y(e.gflops);
    EXPECT_NEAR((*dot)["x"].get<double>(), x, 1.5);
    EXPECT_NEAR((*dot)["y"].get<double>(), y, 1.5);
    // ...the pixels are the dot's colour (filled: a ring's centre is background).
    // Within 1 px of the centre: the naive T16 and T32 dots overlap a little.
    const auto& c = (*dot)["rgb"];
    const Rgb colour{c[0].get<int>(), c[1].get<int>(), c[2].get<int>()};
    int matching = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const Rgb got = s.at(int(std::lround(x)) + dx, int(std::lround(y)) + dy);
        matching += std::abs(got[0] - colour[0]) <= 12 && std::abs(got[1] - colour[1]) <= 12 &&
                    std::abs(got[2] - colour[2]) <= 12;
      }
    EXPECT_GE(matching, 3) << "no dot at " << x << "," << y;
  }
  // Tiling moves the dots right: T16 and T32 right of naive, T32 right of T16,
  // by log10(T) decades (less a little for the stores).
  const double naive = (*mark(s, "issued", naive_grid_id() + " T16"))["x"];
  const double t16 = (*mark(s, "issued", default_id() + " T16"))["x"];
  const double t32 = (*mark(s, "issued", default_id() + " T32"))["x"];
  const double decade = a.w / std::log10(x1 / x0);
  EXPECT_NEAR((t16 - naive) / decade, std::log10(16.0), 0.02);
  EXPECT_NEAR((t32 - naive) / decade, std::log10(32.0), 0.02);
  // The legend names both marks.
  const auto legend = marks(s, "legend");
  ASSERT_EQ(legend.size(), 1u);
  EXPECT_NE(legend[0]["label"].get<std::string>().find("compulsory"), std::string::npos);
}

// Tick labels whole and distinct ("10k", not "1000" cut from "10000" twice);
// every kernel labelled, no label on another, on the legend or outside the plot.
TEST(PerfWindow, LabelsDoNotOverprintAtLectureSizes) {
  for (const std::string size : {"1280x720", "1600x900"})
    for (const std::string& report : {kH100, kH200}) {
      SCOPED_TRACE(size + " " + report);
      const Shot s = take("labels" + size + fs::path(report).stem().string(),
                          "--perf-report " + report, size, "dark");
      ASSERT_EQ(s.rc, 0);
      const auto ticks = marks(s, "tick");
      ASSERT_GE(ticks.size(), 4u);
      std::vector<std::string> texts;
      for (const auto& t : ticks)
        texts.push_back(t["label"]);
      EXPECT_EQ(texts.back(), "1k");  // the last decade under 1.6 x 682 flop/B
      EXPECT_EQ(std::set<std::string>(texts.begin(), texts.end()).size(), texts.size());
      const Box area = box(marks(s, "area").at(0));
      for (size_t i = 0; i < ticks.size(); ++i) {
        const Box b = box(ticks[i]);
        EXPECT_LE(b.x + b.w, area.x + area.w + b.h) << texts[i];  // not past the frame
        if (i) {
          EXPECT_FALSE(overlap(b, box(ticks[i - 1]))) << texts[i];
        }
      }
      const auto labels = marks(s, "label");
      EXPECT_EQ(labels.size(), 5u);  // every kernel named
      const Box legend = box(marks(s, "legend").at(0));
      for (size_t i = 0; i < labels.size(); ++i) {
        const Box b = box(labels[i]);
        EXPECT_GE(b.x, area.x);
        EXPECT_LE(b.x + b.w, area.x + area.w);
        EXPECT_GE(b.y, area.y);
        EXPECT_LE(b.y + b.h, area.y + area.h);
        EXPECT_FALSE(overlap(b, legend)) << labels[i]["label"];
        for (size_t j = 0; j < i; ++j)
          EXPECT_FALSE(overlap(b, box(labels[j])))
              << labels[i]["label"] << " on " << labels[j]["label"];
      }
    }
}

// On the light theme every label's text reaches 4.5 : 1 against what is behind
// it (Okabe-Ito orange on near-white is 2 : 1): measured on the pixels.
TEST(PerfWindow, LightThemeLabelsAreReadable) {
  for (const std::string size : {"1280x720", "1600x900"}) {
    SCOPED_TRACE(size);
    const Shot s = take("light" + size, "--perf-report " + kH100, size, "light");
    ASSERT_EQ(s.rc, 0);
    const auto labels = marks(s, "label");
    ASSERT_EQ(labels.size(), 5u);
    for (const auto& m : labels) {
      SCOPED_TRACE(m["label"].get<std::string>());
      const Box b = box(m);
      std::map<Rgb, int> seen;
      for (int y = int(b.y); y < int(b.y + b.h); ++y)
        for (int x = int(b.x); x < int(b.x + b.w); ++x)
          ++seen[s.at(x, y)];
      ASSERT_FALSE(seen.empty());
      // Behind the text: the commonest colour. The text: the pixel farthest from it.
      const Rgb bg = std::max_element(seen.begin(), seen.end(), [](auto& p, auto& q) {
                       return p.second < q.second;
                     })->first;
      double best = 1;
      for (const auto& [c, n] : seen)
        best = std::max(best, contrast(c, bg));
      EXPECT_GE(best, 4.5);
      EXPECT_GT(lum(bg), 0.7);  // it is the light theme's background
    }
  }
}

// A performance report where a trace goes (tilescope report.json, as a drop or
// File > Open passes it) opens in the panel too.
TEST(PerfWindow, ReportGivenAsTheFileOpensInThePanel) {
  const Shot s = take("positional", kH200, "1600x900", "dark");
  ASSERT_EQ(s.rc, 0);
  EXPECT_NE(s.cells["banner"]["text"].get<std::string>().find("perf_h200_panel.json"),
            std::string::npos);
  EXPECT_EQ(marks(s, "issued").size(), 4u);
  EXPECT_EQ(s.cells["variant"], default_id());  // the lesson still runs
}

// Not a report: the window says so in a banner and goes on (exit 0), whatever
// the file holds, including JSON with fields of the wrong type.
TEST(PerfWindow, BadReportIsABannerNotACrash) {
  const fs::path d = out_dir();
  const std::pair<const char*, const char*> files[] = {
      {"broken.json", "{ this is not json"},
      {"wrong_types.json", "{\"format\": 5, \"version\": \"1\"}"},
      {"other.json", "{\"format\": \"something-else\", \"version\": 1}"},
  };
  for (const auto& [name, text] : files) {
    SCOPED_TRACE(name);
    std::ofstream(d / name) << text;
    const Shot s = take(std::string("bad_") + name, "--perf-report " + (d / name).string(),
                        "1280x720", "dark");
    ASSERT_EQ(s.rc, 0) << "the window did not survive " << name;
    EXPECT_EQ(s.cells["banner"]["kind"], "error");
    EXPECT_NE(
        s.cells["banner"]["text"].get<std::string>().find("Cannot open the performance report"),
        std::string::npos)
        << s.cells["banner"]["text"];
    // Nothing plotted from it: the panel shows what it showed before (without
    // a GPU the newest shipped report, else nothing).
    bool gpu = false;
    std::string shown;
    for (const auto& m : s.cells["plot_marks"]) {
      gpu = gpu || m["kind"] == "gpu_here";
      if (m["plot"] == "panel" && m["kind"] == "report_choice") shown = m["label"];
    }
    if (gpu)
      EXPECT_TRUE(marks(s, "area").empty());
    else
      EXPECT_EQ(shown.rfind("NVIDIA H200, 2026-11-26: matmul, sgemm", 0), 0u) << shown;
  }
}

// ---- Without a GPU: the shipped reports, lines and labels at lecture sizes ----

const std::string kH100Ladder = kSource + "/docs/perf_h100_ladder.json";
const std::string kH200Ladder = kSource + "/docs/perf_h200_ladder.json";
const std::string kH200Families = kSource + "/docs/perf_h200_families.json";

std::vector<nlohmann::json> marks_of(const Shot& s, const std::string& plot,
                                     const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == plot && m["kind"] == kind) out.push_back(m);
  return out;
}
std::string text_of(const Shot& s, const std::string& kind) {
  const auto m = marks_of(s, "panel", kind);
  return m.empty() ? std::string() : m[0]["label"].get<std::string>();
}
// The machine the tests run on has a GPU: the panel shows a sweep, not the shipped reports.
bool gpu_here(const Shot& s) {
  return !marks_of(s, "panel", "gpu_here").empty();
}

// The two projector sizes of issue 19.
const std::pair<std::string, std::string> kProjector[] = {{"1280x720", "28"}, {"1920x1080", "18"}};

// No report given, no GPU: the newest shipped report is shown (the H200
// ladder), named by GPU and date, the message says so and how to measure, the
// ladder is charted, every shipped report is offered by GPU and date, and the
// load box names a file that exists.
TEST(PerfWindow, WithoutAGpuTheShippedReportsAreShown) {
  for (const auto& [size, font] : kProjector) {
    SCOPED_TRACE(size);
    const Shot s = take("shipped" + size, "--font-size " + font, size, "dark");
    ASSERT_EQ(s.rc, 0);
    if (gpu_here(s)) GTEST_SKIP() << "a CUDA device here: the panel measures";
    EXPECT_EQ(text_of(s, "report").find("Measured on NVIDIA H200"), 0u) << text_of(s, "report");
    EXPECT_NE(text_of(s, "report").find("2026-11-26"), std::string::npos);
    EXPECT_EQ(text_of(s, "no_gpu")
                  .find("No CUDA device here: showing the report measured on "
                        "NVIDIA H200, 2026-11-26. Run "),
              0u)
        << text_of(s, "no_gpu");
    EXPECT_NE(text_of(s, "report_choice").find("NVIDIA H200, 2026-11-26"), std::string::npos);
    // Every shipped report, by the GPU and the date in the file.
    int shipped = 0;
    for (const auto& e : fs::directory_iterator(kSource + "/docs")) {
      const std::string n = e.path().filename().string();
      if (n.rfind("perf_", 0) != 0 || e.path().extension() != ".json") continue;
      ++shipped;
      std::ifstream f(e.path());
      const auto j = nlohmann::json::parse(f);
      const std::string want = j["device"]["name"].get<std::string>() + ", " +
                               j["created"].get<std::string>().substr(0, 10) + ": ";
      bool offered = false;
      for (const auto& m : marks_of(s, "panel", "report_option")) {
        const std::string l = m["label"];
        offered = offered || (l.rfind(want, 0) == 0 && l.find(n) != std::string::npos);
      }
      EXPECT_TRUE(offered) << n << " as " << want;
    }
    EXPECT_GE(shipped, 5);
    const std::string path = text_of(s, "load_path");
    EXPECT_TRUE(fs::exists(path)) << "the load box names " << path;
    EXPECT_GE(marks_of(s, "ladder", "point").size(), 10u) << "no ladder chart";
  }
}

// Each ladder report opens with its GPU and date in the header, its chart drawn.
TEST(PerfWindow, EachLadderReportIsLabelledWithItsGpu) {
  const std::pair<std::string, std::string> reports[] = {{kH100Ladder, "NVIDIA H100 80GB HBM3"},
                                                         {kH200Ladder, "NVIDIA H200"}};
  for (const auto& [report, gpu] : reports) {
    SCOPED_TRACE(report);
    const Shot s = take("gpu_label" + fs::path(report).stem().string(),
                        "--perf-report " + report + " --font-size 18", "1920x1080", "dark");
    ASSERT_EQ(s.rc, 0);
    EXPECT_EQ(text_of(s, "report").find("Measured on " + gpu), 0u) << text_of(s, "report");
    EXPECT_NE(text_of(s, "report_choice").find(gpu), std::string::npos);
    if (!gpu_here(s))
      EXPECT_NE(text_of(s, "no_gpu").find("showing the report measured on " + gpu),
                std::string::npos);
    EXPECT_FALSE(marks_of(s, "ladder", "point").empty());
  }
}

// Every point of every size is seen in the screenshot: its colour within its
// marker, even where another size has the same GFLOP/s (the H100 ladder's
// n = 2048 and 4096 from step 6 on).
TEST(PerfWindow, LadderLinesDoNotHideEachOther) {
  for (const auto& [size, font] : kProjector) {
    SCOPED_TRACE(size);
    const Shot s = take("ladder_lines" + size,
                        "--perf-report " + kH100Ladder + " --font-size " + font, size, "dark");
    ASSERT_EQ(s.rc, 0);
    const auto points = marks_of(s, "ladder", "point");
    ASSERT_EQ(points.size(), 30u);  // 10 steps x 3 sizes
    int seen = 0;
    for (const auto& m : points) {
      const double x = m["x"], y = m["y"];
      const int r = std::max(4, int(m["w"].get<double>()));
      if (x < r || y < r || x + r >= s.w || y + r >= s.h) continue;  // scrolled away
      ++seen;
      const auto& c = m["rgb"];
      const Rgb colour{c[0].get<int>(), c[1].get<int>(), c[2].get<int>()};
      int matching = 0;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          const Rgb got = s.at(int(std::lround(x)) + dx, int(std::lround(y)) + dy);
          matching += std::abs(got[0] - colour[0]) <= 16 && std::abs(got[1] - colour[1]) <= 16 &&
                      std::abs(got[2] - colour[2]) <= 16;
        }
      EXPECT_GE(matching, 6) << m["label"] << " is hidden at " << x << "," << y;
    }
    EXPECT_EQ(seen, 30) << "the ladder chart is not on screen whole";
  }
}

// No label on another, on a legend or on a tick, in any plot of the panel:
// the roofline's kernels and ceilings, the ladder's cuBLAS and peak lines;
// every ceiling named.
TEST(PerfWindow, NoTwoLabelsOverlapAtProjectorSizes) {
  for (const auto& [size, font] : kProjector)
    for (const std::string& report : {kH100Ladder, kH200Ladder, kH100, kH200}) {
      SCOPED_TRACE(size + " " + report);
      const Shot s = take("overlap" + size + fs::path(report).stem().string(),
                          "--perf-report " + report + " --font-size " + font, size, "dark");
      ASSERT_EQ(s.rc, 0);
      std::vector<nlohmann::json> boxes;
      for (const auto& m : s.cells["plot_marks"]) {
        const std::string kind = m["kind"];
        if (m["plot"] == "panel" || m["w"].get<double>() <= 0 || m["h"].get<double>() <= 0)
          continue;
        if (kind == "label" || kind == "ceiling_label" || kind == "legend" || kind == "tick")
          boxes.push_back(m);
      }
      for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (boxes[i]["plot"] == boxes[j]["plot"])
            EXPECT_FALSE(overlap(box(boxes[i]), box(boxes[j])))
                << boxes[i]["plot"] << ": " << boxes[i]["kind"] << " " << boxes[i]["label"]
                << " on " << boxes[j]["kind"] << " " << boxes[j]["label"];
      // The roofline names both ceilings; the ladder names the peak and each cuBLAS line.
      EXPECT_EQ(marks_of(s, "roofline", "ceiling_label").size(), 2u);
      if (report == kH100 || report == kH200) continue;
      // Each on its line, or (cuBLAS, where its line has no room) in the legend.
      const auto labels = marks_of(s, "ladder", "label");
      const auto legend = marks_of(s, "ladder", "legend");
      ASSERT_EQ(legend.size(), 1u);
      const std::string in_legend = legend[0]["label"];
      auto on_line = [&](const std::string& text) {
        return std::any_of(labels.begin(), labels.end(),
                           [&](const nlohmann::json& m) { return m["label"] == text; });
      };
      const auto peak = marks_of(s, "ladder", "peak");
      ASSERT_EQ(peak.size(), 1u);
      EXPECT_TRUE(on_line(peak[0]["label"])) << peak[0]["label"];
      const auto cublas = marks_of(s, "ladder", "cublas");
      EXPECT_GE(cublas.size(), 1u);
      for (const auto& m : cublas) {
        const std::string text = m["label"];  // "cuBLAS n = 4096: 48.8k"
        const std::string n = text.substr(7, text.find(':') - 7),
                          v = text.substr(text.find(": ") + 2);
        EXPECT_TRUE(on_line(text) || in_legend.find(n + ", cuBLAS " + v) != std::string::npos)
            << text << " named nowhere; legend: " << in_legend;
      }
    }
}

// The family choice filters both plots: matmul shows matmul.* lessons (and
// cuBLAS), never the sgemm ladder's, which is a family of its own.
TEST(PerfWindow, MatmulFamilyShowsNoSgemm) {
  const Shot s = take("family", "--perf-report " + kH100Ladder, "1920x1080", "dark");
  ASSERT_EQ(s.rc, 0);
  EXPECT_EQ(text_of(s, "family"), "matmul");
  int shown = 0;
  for (const auto& m : s.cells["plot_marks"]) {
    const std::string plot = m["plot"], kind = m["kind"], label = m["label"];
    if (!((plot == "roofline" && (kind == "issued" || kind == "compulsory" || kind == "label")) ||
          (plot == "throughput" && kind == "point")))
      continue;
    ++shown;
    EXPECT_TRUE(label.rfind("matmul.", 0) == 0 || label.rfind("cublas", 0) == 0)
        << plot << " " << kind << " " << label;
  }
  EXPECT_GE(shown, 10);
}

}  // namespace
