// Issue 30, part 3: the bandwidth families' ladders in the Performance panel,
// opened without a GPU from the report shipped in docs/. For every family the
// report timed three steps of or more: one bar per step and length with the
// report's GB/s (as a label and as a height), the copy as a flat labelled line,
// the library's line where the report has it (and none where it has not),
// each step's % of the copy, and no label on another or cut by the window at
// 1280 x 720 with font 28 and at 1920 x 1080. Families and lessons come from
// the report, never by name. Runs tilescope on a private Xvfb.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/perf.hpp"
#include "tests/app/window_shot.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ts::app_test::out_dir;
using ts::app_test::Shot;
using ts::app_test::take_shot;

const std::string kFamilies = std::string(TS_SOURCE_DIR) + "/docs/perf_h200_families.json";
constexpr const char* kPlot = "family_ladder";

json load(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

// GB/s as the panel derives it: compulsory bytes over the median time.
double gbps_of(const json& x) {
  return x["compulsory_bytes"].get<double>() / (x["ms_median"].get<double>() * 1e-3) / 1e9;
}

bool is_library(const std::string& kernel) {
  return ts::find_library_anchor(kernel) != nullptr;
}

// The family of each timed lesson result, from the report alone: its id up to the dot.
std::string family_of(const std::string& kernel) {
  return kernel.substr(0, kernel.find('.'));
}

// The families with three lessons or more timed ("ok") in the report.
std::vector<std::string> charted_families(const json& report) {
  std::map<std::string, std::set<std::string>> steps;
  for (const auto& x : report["results"]) {
    const std::string k = x["kernel"];
    if (x["status"] != "ok" || x["metric"] != "bytes" || k == ts::kCopyId || is_library(k))
      continue;
    steps[family_of(k)].insert(k);
  }
  std::vector<std::string> out;
  for (const auto& [f, s] : steps)
    if (s.size() >= 3) out.push_back(f);
  return out;
}

std::vector<json> marks(const Shot& s, const std::string& kind) {
  std::vector<json> out;
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == kPlot && m["kind"] == kind) out.push_back(m);
  return out;
}

struct Box {
  double x, y, w, h;
};
Box box(const json& m) {
  return {m["x"].get<double>(), m["y"].get<double>(), m["w"].get<double>(), m["h"].get<double>()};
}
bool overlap(Box a, Box b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

Shot open_family(const std::string& name, const std::string& report, const std::string& family,
                 const std::string& size, int font) {
  return take_shot(name, "--backend sim --tab Performance --perf-report " + report +
                             " --perf-family " + family + " --size " + size + " --font-size " +
                             std::to_string(font) + " --theme dark");
}

// What every family chart must show of `report`, at one size and font.
void check_chart(const Shot& s, const json& report, const std::string& family, int font) {
  SCOPED_TRACE(family);
  ASSERT_EQ(s.rc, 0) << s.log;
  const auto chosen = marks(s, "family");
  ASSERT_EQ(chosen.size(), 1u) << "no family ladder drawn";
  EXPECT_EQ(chosen[0]["label"], family);

  // One bar per step and length timed, its GB/s the report's, its height too.
  const auto area = marks(s, "area");
  ASSERT_EQ(area.size(), 1u);
  const Box a = box(area[0]);
  const double top = area[0]["value"];  // GB/s at the top of the data area
  ASSERT_GT(top, 0);
  std::map<std::string, json> bars;
  for (const auto& b : marks(s, "bar")) {
    EXPECT_EQ(bars.count(b["label"].get<std::string>()), 0u) << "two bars for " << b["label"];
    bars[b["label"].get<std::string>()] = b;
  }
  int want_bars = 0;
  int largest = 0;
  for (const auto& x : report["results"])
    if (x["status"] == "ok" && family_of(x["kernel"].get<std::string>()) == family &&
        !is_library(x["kernel"].get<std::string>()))
      largest = std::max(largest, x["size"].get<int>());
  const double copy = report["device"]["copy_gbps"];
  std::set<double> pct_want;
  for (const auto& x : report["results"]) {
    const std::string k = x["kernel"];
    if (x["status"] != "ok" || family_of(k) != family || is_library(k)) continue;
    ++want_bars;
    const std::string label = k + " n=" + std::to_string(x["size"].get<int>());
    SCOPED_TRACE(label);
    ASSERT_EQ(bars.count(label), 1u) << "no bar";
    const json& b = bars[label];
    const double want = gbps_of(x);
    EXPECT_NEAR(b["value"].get<double>(), want, 1e-9 * want);
    EXPECT_NEAR(b["value"].get<double>(), x["gbps"].get<double>(), 1e-6 * want);
    // Drawn to scale: from the bottom of the data area up to its GB/s.
    EXPECT_NEAR(b["y"].get<double>() + b["h"].get<double>(), a.y + a.h, 1.5);
    EXPECT_NEAR(b["h"].get<double>(), want / top * a.h, 1.5);
    if (x["size"].get<int>() == largest) pct_want.insert(std::round(100 * want / copy));
  }
  EXPECT_EQ(int(bars.size()), want_bars);

  // Each step's % of the copy at the largest length, as printed over its bars.
  std::set<double> pct_got;
  for (const auto& p : marks(s, "pct")) {
    pct_got.insert(std::round(p["value"].get<double>()));
    EXPECT_EQ(std::stod(p["label"].get<std::string>()), std::round(p["value"].get<double>()))
        << p["label"];
  }
  EXPECT_EQ(pct_got, pct_want);

  // The copy, labelled on its line.
  const auto copy_line = marks(s, "copy");
  ASSERT_EQ(copy_line.size(), 1u);
  EXPECT_NEAR(copy_line[0]["value"].get<double>(), copy, 1e-9 * copy);
  const auto labels = marks(s, "label");
  auto labelled = [&](const std::string& start) {
    return std::any_of(labels.begin(), labels.end(), [&](const json& m) {
      return m["label"].get<std::string>().rfind(start, 0) == 0;
    });
  };
  EXPECT_TRUE(labelled("copy ")) << "the copy's line has no label";
  // The library's line where the report timed it, none where it did not.
  std::map<std::string, double> library;  // anchor id -> GB/s at its largest length
  std::map<std::string, int> library_at;
  for (const auto& x : report["results"]) {
    const std::string k = x["kernel"];
    const ts::LibraryAnchor* an = ts::find_library_anchor(k);
    if (!an || an->family != family || x["status"] != "ok") continue;
    if (x["size"].get<int>() >= library_at[k])
      library_at[k] = x["size"].get<int>(), library[k] = gbps_of(x);
  }
  const auto lib_lines = marks(s, "library");
  ASSERT_EQ(lib_lines.size(), library.size());
  for (const auto& [id, g] : library) {
    const std::string title = ts::find_library_anchor(id)->title;
    EXPECT_TRUE(std::any_of(lib_lines.begin(), lib_lines.end(), [&](const json& m) {
      return std::fabs(m["value"].get<double>() - g) < 1e-9 * g &&
             m["label"].get<std::string>().rfind(title, 0) == 0;
    })) << id;
    EXPECT_TRUE(labelled(title)) << id << "'s line has no label";
  }

  // No label on another, none cut by the window, none smaller than the font.
  std::vector<json> texts;
  for (const std::string kind : {"label", "pct", "tick", "legend"})
    for (const auto& m : marks(s, kind))
      texts.push_back(m);
  ASSERT_GE(texts.size(), 3u);
  for (size_t i = 0; i < texts.size(); ++i) {
    const Box b = box(texts[i]);
    SCOPED_TRACE(texts[i]["kind"].get<std::string>() + " " + texts[i]["label"].get<std::string>());
    EXPECT_GE(b.x, 0);
    EXPECT_GE(b.y, 0);
    EXPECT_LE(b.x + b.w, s.w);
    EXPECT_LE(b.y + b.h, s.h);
    EXPECT_GE(b.h, 0.9 * font);
    if (texts[i]["kind"] == "label" || texts[i]["kind"] == "pct") {
      EXPECT_GE(b.x, a.x);
      EXPECT_LE(b.x + b.w, a.x + a.w);
      EXPECT_GE(b.y, a.y);
      EXPECT_LE(b.y + b.h, a.y + a.h);
    }
    for (size_t j = 0; j < i; ++j)
      EXPECT_FALSE(overlap(b, box(texts[j])))
          << "on " << texts[j]["kind"] << " " << texts[j]["label"];
  }
}

const std::pair<std::string, int> kSizes[] = {{"1280x720", 28}, {"1920x1080", 18}};

// The shipped report: every family with three steps timed, at both projector sizes.
TEST(FamilyLadder, ShippedFamiliesReportChartsEveryFamily) {
  const json report = load(kFamilies);
  const std::vector<std::string> families = charted_families(report);
  ASSERT_GE(families.size(), 2u) << "the shipped report charts no family ladder";
  for (const auto& [size, font] : kSizes)
    for (const std::string& f : families) {
      SCOPED_TRACE(size);
      const Shot s = open_family("family_" + f + "_" + size, kFamilies, f, size, font);
      check_chart(s, report, f, font);
      if (s.rc != 0) continue;
      // The selector offers every family charted, and only those.
      std::set<std::string> offered;
      for (const auto& m : marks(s, "family_option"))
        offered.insert(m["label"].get<std::string>());
      EXPECT_EQ(offered, std::set<std::string>(families.begin(), families.end()));
    }
}

// A report with a library line for a family (CUB beside the reduction, say):
// the line is drawn at its GB/s and labelled with the routine's name. The
// shipped report times no library routine yet, so the test writes one: the
// shipped report plus a result for the first library routine of a charted
// family, at each length, at 90 % of the copy.
TEST(FamilyLadder, LibraryLineIsDrawnWhereTheReportHasIt) {
  json report = load(kFamilies);
  std::string family;
  const ts::LibraryAnchor* anchor = nullptr;
  for (const std::string& f : charted_families(report))
    for (const ts::LibraryAnchor* an : ts::library_anchors_of(f))
      if (!anchor && an->input == ts::LibraryInput::SmallIntegers) anchor = an, family = f;
  ASSERT_NE(anchor, nullptr) << "no charted family has a library routine";
  const double copy = report["device"]["copy_gbps"];
  json added = json::array();
  std::set<int> lengths;
  for (const auto& x : report["results"]) {
    if (x["status"] != "ok" || family_of(x["kernel"].get<std::string>()) != family ||
        !lengths.insert(x["size"].get<int>()).second)
      continue;
    json lib = x;
    lib["kernel"] = anchor->id;
    lib["checked_against"] = "a test's fixture";
    const double ms = x["compulsory_bytes"].get<double>() / (0.9 * copy * 1e9) * 1e3;
    lib["ms_median"] = lib["ms_min"] = lib["ms_max"] = ms;
    added.push_back(lib);
  }
  for (const auto& x : added)
    report["results"].push_back(x);
  const fs::path path = out_dir() / "families_with_library.json";
  std::ofstream(path) << report.dump(1);
  for (const auto& [size, font] : kSizes) {
    SCOPED_TRACE(size);
    const Shot s = open_family("family_library_" + size, path.string(), family, size, font);
    check_chart(s, report, family, font);
    if (s.rc != 0) continue;
    EXPECT_EQ(marks(s, "library").size(), 1u);
  }
}

}  // namespace
