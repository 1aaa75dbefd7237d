// The Banks panel in the real window (scripted, on a private Xvfb): at the
// column read of the transpose's tile it says 32-way conflict and marks the
// busiest bank in its colour; the padded tile's column read has no conflict;
// the naive transpose's column store puts every lane in its own sector.
// The panel reports its caption and busiest bank in the cells map's
// plot_marks (plot "banks").
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <sys/wait.h>

#include "analysis/replay.hpp"
#include "engine/backend.hpp"

#include "tests/app/private_x_server.hpp"
#include "tests/app/window_shot.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

// The layout family without shared memory.
static std::string naive_layout_family_id() {
  return picks::layout_family_naive_lesson().id;
}
// Its padded sibling.
static std::string padded_layout_id() {
  return picks::padded_layout_lesson().id;
}
// The first lesson with a layout toggle, plain.
static std::string plain_layout_id() {
  return picks::layout_lesson().id;
}

namespace {

namespace fs = std::filesystem;
using ts::app_test::out_dir;
using ts::app_test::x_display;

using ts::app_test::distance;
using ts::app_test::rgb;
using ts::app_test::Shot;
using ts::app_test::take_shot;

Shot take(const std::string& name, const std::string& args, const std::string& size) {
  return take_shot(name, args + " --tab Banks --size " + size + " --theme dark");
}

// The lockstep position right after the first event of this kind on this
// source line: the first lane of that warp instruction has just run.
uint64_t first_position(const std::string& lesson, ts::EventKind kind, int line) {
  ts::RunRequest req;
  const ts::LessonInfo* v = ts::find_lesson(lesson);
  if (!v) return 0;
  req.lesson_id = v->id;
  req.params = v->defaults;
  req.barrier_mask = ts::all_barriers(*v);
  req.backend = ts::BackendChoice::Sim;
  ts::RunResult res = ts::run(req);
  if (!res.ok) return 0;
  auto trace = std::make_shared<const ts::Trace>(std::move(res.trace));
  ts::Replay r(trace);
  r.set_order(ts::ReplayOrder::Lockstep);
  for (uint64_t p = 1; p <= r.size(); ++p) {
    const ts::Event& e = trace->events[r.event_at(p)];
    if (e.kind == kind && e.line == line) return p;
  }
  return 0;
}

const nlohmann::json* banks_mark(const Shot& s, const std::string& kind) {
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == "banks" && m["kind"] == kind) return &m;
  return nullptr;
}

std::string caption(const Shot& s) {
  const nlohmann::json* m = banks_mark(s, "caption");
  return m ? (*m)["label"].get<std::string>() : "";
}

// lessons/transpose_shared.hpp and transpose_shared_padded.hpp: the line
// `out[...] = tile[tx][ty];` (a column of the tile).
constexpr int kColumnReadLine = 41;

TEST(AppBanks, ColumnReadOfTheTileIsA32WayConflictWithItsBankMarked) {
  const uint64_t pos =
      first_position(plain_layout_id(), ts::EventKind::SharedLoad, kColumnReadLine);
  ASSERT_GT(pos, 0u);
  // A laptop, a monitor, and a projector's 720p with a large font (the panel drops its labels).
  const struct {
    const char *size, *font;
  } screens[] = {{"1280x720", "18"}, {"1920x1080", "18"}, {"1280x720", "26"}};
  for (const auto& [size, font] : screens) {
    const Shot s =
        take(std::string("banks_shared_") + size + "_" + font,
             "--lesson " + plain_layout_id() + " --backend sim --order lockstep --font-size " +
                 std::string(font) + " --position " + std::to_string(pos),
             size);
    ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
    EXPECT_EQ(caption(s), "tile[tx][ty], line 41: 32-way conflict: 32 wavefronts instead of 1")
        << size;
    // The busiest bank is drawn in its highlight colour, inside the window.
    const nlohmann::json* hot = banks_mark(s, "busiest");
    ASSERT_NE(hot, nullptr) << size;
    EXPECT_EQ((*hot)["label"], "bank 0") << "column 0 of an unpadded 32 x 32 float tile";
    const int x = int(std::lround((*hot)["x"].get<double>() + (*hot)["w"].get<double>() / 2));
    const int y = int(std::lround((*hot)["y"].get<double>() + (*hot)["h"].get<double>() / 2));
    ASSERT_TRUE(x >= 0 && x < s.w && y >= 0 && y < s.h) << size << ": bank drawn off screen";
    const auto want = (*hot)["rgb"];
    const std::array<int, 3> got = s.at(x, y);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(got[c], want[c].get<int>(), 6) << size << " channel " << c;
  }
}

TEST(AppBanks, PaddedTileColumnReadHasNoConflict) {
  const uint64_t pos =
      first_position(padded_layout_id(), ts::EventKind::SharedLoad, kColumnReadLine);
  ASSERT_GT(pos, 0u);
  const Shot s = take("banks_padded",
                      "--lesson " + padded_layout_id() +
                          " --backend sim --order lockstep "
                          "--position " +
                          std::to_string(pos),
                      "1280x720");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  EXPECT_EQ(caption(s), "tile[tx][ty], line 41: no conflict: 1 wavefront");
  EXPECT_EQ(banks_mark(s, "busiest"), nullptr) << "no bank stands out when none conflicts";
}

TEST(AppBanks, NaiveTransposeColumnStoreGivesEachLaneItsOwnSector) {
  const uint64_t pos = first_position(naive_layout_family_id(), ts::EventKind::GlobalStore, 27);
  ASSERT_GT(pos, 0u);
  const Shot s = take("banks_naive",
                      "--lesson " + naive_layout_family_id() +
                          " --backend sim --order lockstep --position " + std::to_string(pos),
                      "1280x720");
  ASSERT_EQ(s.rc, 0) << "tilescope failed; see its log in " << out_dir();
  EXPECT_EQ(caption(s),
            "out[col * rows + row], line 27: 32 sectors: each lane its own sector "
            "(ideal 4)");
}

}  // namespace
