// The window's pictures of atomics and shuffles (scripted, on a private Xvfb):
// the grid's "atomic contention" colours of a histogram's private shared bins
// match analysis/atomic_contention's counts (the hottest bin at the top of the
// ramp, an untouched one at its bottom, every block's copy alike), and the
// Banks view at a warp shuffle of the last-warp reduction names it
// (__shfl_down_sync, delta 16) and draws a line from each lane i < 16 to lane
// i + 16 (plot_marks "banks": "shuffle", "sender", "receiver").
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <sys/wait.h>

#include "analysis/atomic_contention.hpp"
#include "analysis/replay.hpp"
#include "engine/backend.hpp"

#include "tests/app/private_x_server.hpp"
#include "tests/app/window_shot.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// Shared atomics.
static std::string shared_atomics_id() {
  return picks::shared_atomics_lesson().id;
}
// Warp shuffles.
static std::string shuffle_id() {
  return picks::warp_shuffle_lesson().id;
}

namespace {

namespace fs = std::filesystem;
using ts::app_test::out_dir;
using ts::app_test::Rgb;
using ts::app_test::x_display;

using ts::app_test::distance;
using ts::app_test::rgb;
using ts::app_test::Shot;
using ts::app_test::take_shot;

Shot take(const std::string& name, const std::string& args, const std::string& size) {
  return take_shot(name, args + " --backend sim --size " + size + " --theme dark");
}

// The ramp's colour at f in [0, 1]: heat() is linear between its samples at i / 32.
Rgb ramp_at(const nlohmann::json& ramp, double f) {
  const double x = std::clamp(f, 0.0, 1.0) * 32;
  const int i = std::min(31, int(x));
  const double u = x - i;
  Rgb c{};
  for (int k = 0; k < 3; ++k)
    c[k] = int(std::lround(ramp[i][k].get<int>() * (1 - u) + ramp[i + 1][k].get<int>() * u));
  return c;
}

std::shared_ptr<const ts::Trace> run_default(const std::string& lesson) {
  ts::RunRequest req;
  const ts::LessonInfo* v = ts::find_lesson(lesson);
  if (!v) return nullptr;
  req.lesson_id = v->id;
  req.params = v->defaults;
  req.barrier_mask = ts::all_barriers(*v);
  req.backend = ts::BackendChoice::Sim;
  req.schedule.kind = ts::ScheduleKind::WarpSkew;  // as the window runs it
  ts::RunResult res = ts::run(req);
  if (!res.ok) return nullptr;
  return std::make_shared<const ts::Trace>(std::move(res.trace));
}

std::vector<const nlohmann::json*> marks(const Shot& s, const std::string& plot,
                                         const std::string& kind) {
  std::vector<const nlohmann::json*> out;
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == plot && m["kind"] == kind) out.push_back(&m);
  return out;
}

TEST(AppAtomicsShuffles, ContentionColoursOfTheSharedBinsMatchTheAnalysis) {
  const auto trace = run_default(shared_atomics_id());
  ASSERT_NE(trace, nullptr);
  const ts::AtomicContention c = ts::atomic_contention(*trace);
  const ts::ArrayContention* bins = nullptr;
  for (const ts::ArrayContention& a : c.arrays)
    if (a.space == ts::Space::Shared) bins = &a;
  ASSERT_NE(bins, nullptr) << "the private bins receive shared atomics";
  uint64_t most = 0;
  size_t hottest = 0, untouched = bins->elements.size();
  for (size_t i = 0; i < bins->elements.size(); ++i) {
    if (bins->elements[i].atomics > most) most = bins->elements[i].atomics, hottest = i;
    if (!bins->elements[i].atomics && untouched == bins->elements.size()) untouched = i;
  }
  ASSERT_GT(most, 1u);
  ASSERT_LT(untouched, bins->elements.size()) << "the defaults leave some bins empty";
  const std::string name = ts::array_name(trace->config.arrays, bins->array);
  for (const auto& [size, block] :
       {std::pair{"1280x720", 0}, std::pair{"1920x1080", 0}, std::pair{"1280x720", 2}}) {
    const std::string tag = std::string(size) + " block " + std::to_string(block);
    const Shot s = take(std::string("contention_") + size + "_" + std::to_string(block),
                        "--lesson " + shared_atomics_id() +
                            " --memory contention --position end "
                            "--select-block " +
                            std::to_string(block),
                        size);
    ASSERT_EQ(s.rc, 0) << s.log;
    const auto legend = marks(s, "memory", "legend");
    ASSERT_EQ(legend.size(), 1u);
    EXPECT_EQ((*legend[0])["label"], "Atomics per bin:");
    const nlohmann::json* a = nullptr;
    for (const auto& d : s.cells["arrays"])
      if (d["buffer"] == name) a = &d;
    ASSERT_NE(a, nullptr) << tag << ": " << name << " not drawn";
    EXPECT_EQ((*a)["block"], block) << tag;
    const int cols = (*a)["cols"].get<int>();
    const double cw = (*a)["cell_w"].get<double>(), ch = (*a)["cell_h"].get<double>();
    ASSERT_GE(cw, 3) << tag;
    const double in = s.cells["layout"]["values_readable"].get<bool>() ? 0.2 : 0.5;
    auto fill = [&](size_t e) {
      const int row = int(e) / cols, col = int(e) % cols;
      return s.at(int(std::lround((*a)["x"].get<double>() + (col + in) * cw)),
                  int(std::lround((*a)["y"].get<double>() + (row + in) * ch)));
    };
    const auto& ramp = s.cells["heat_ramp"];
    EXPECT_LE(distance(fill(hottest), rgb(ramp[32])), 6) << tag << ": the hottest bin " << hottest;
    EXPECT_LE(distance(fill(untouched), rgb(ramp[0])), 6) << tag << ": bin " << untouched;
    int wrong = 0;
    for (size_t e = 0; e < bins->elements.size(); ++e) {
      const Rgb want = ramp_at(ramp, double(bins->elements[e].atomics) / double(most));
      if (distance(fill(e), want) > 8 && ++wrong <= 3)
        ADD_FAILURE() << tag << ": bin " << e << " (" << bins->elements[e].atomics
                      << " atomics) is not its colour";
    }
    EXPECT_EQ(wrong, 0) << tag;
  }
}

// The lockstep position of the first shuffle event: the replay is at that
// warp instruction.
uint64_t first_shuffle(const std::shared_ptr<const ts::Trace>& trace) {
  ts::Replay r(trace);
  r.set_order(ts::ReplayOrder::Lockstep);
  for (uint64_t p = 1; p <= r.size(); ++p)
    if (trace->events[r.event_at(p)].kind == ts::EventKind::WarpShuffle) return p;
  return 0;
}

bool inside(const nlohmann::json& box, double x, double y) {
  return x >= box["x"].get<double>() - 0.5 &&
         x <= box["x"].get<double>() + box["w"].get<double>() + 0.5 &&
         y >= box["y"].get<double>() - 0.5 &&
         y <= box["y"].get<double>() + box["h"].get<double>() + 0.5;
}

TEST(AppAtomicsShuffles, ShuffleDiagramNamesDelta16AndLinksLaneIToLaneIPlus16) {
  const auto trace = run_default(shuffle_id());
  ASSERT_NE(trace, nullptr);
  const uint64_t pos = first_shuffle(trace);
  ASSERT_GT(pos, 0u);
  for (const char* size : {"1280x720", "1920x1080"}) {
    const Shot s = take(std::string("shuffle_") + size,
                        "--lesson " + shuffle_id() + " --order lockstep --tab Banks --position " +
                            std::to_string(pos),
                        size);
    ASSERT_EQ(s.rc, 0) << s.log;
    const auto cap = marks(s, "banks", "caption");
    ASSERT_EQ(cap.size(), 1u) << size;
    EXPECT_EQ((*cap[0])["label"],
              "__shfl_down_sync, delta 16: lane i gets lane i+16's value (lanes 16-31 keep "
              "their own)")
        << size;
    const auto senders = marks(s, "banks", "sender"), receivers = marks(s, "banks", "receiver");
    ASSERT_EQ(senders.size(), 32u) << size;
    ASSERT_EQ(receivers.size(), 32u) << size;
    const auto lines = marks(s, "banks", "shuffle");
    ASSERT_EQ(lines.size(), 16u) << size << ": lanes 0-15 get a value from another lane";
    for (size_t i = 0; i < lines.size(); ++i) {
      const nlohmann::json& m = *lines[i];
      EXPECT_EQ(m["label"], "lane " + std::to_string(i) + " gets lane " + std::to_string(i + 16));
      const double x0 = m["x"], y0 = m["y"], x1 = x0 + m["w"].get<double>(),
                   y1 = y0 + m["h"].get<double>();
      // From the receiving lane's box (below) to its source's box (above).
      EXPECT_TRUE(inside(*receivers[i], x0, y0)) << size << " lane " << i;
      EXPECT_TRUE(inside(*senders[i + 16], x1, y1)) << size << " lane " << i;
      EXPECT_LT(y1, y0) << "senders above receivers";
      // The line is drawn: its colour a little past the middle, between two lanes' columns.
      const double t = 0.53125;
      const int x = int(std::lround(x0 + (x1 - x0) * t)), y = int(std::lround(y0 + (y1 - y0) * t));
      ASSERT_TRUE(x >= 1 && x + 1 < s.w && y >= 1 && y + 1 < s.h) << size;
      int best = 255;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          best = std::min(best, distance(s.at(x + dx, y + dy), rgb(m["rgb"])));
      EXPECT_LE(best, 30) << size << ": no line from lane " << i << " at (" << x << ", " << y
                          << ")";
    }
  }
}

}  // namespace
