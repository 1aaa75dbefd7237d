// The grid's memory colours in the real window (scripted, on a private Xvfb):
// the transpose's tile in bank colours (plain: a column per bank; padded: the
// banks shift by one a row), the conflict heatmap hot on the plain tile and
// cold on the padded one, sectors per request 32 on the naive transpose's out
// and 4 on the tiled one's, the coalescing picture of one warp store, the
// layout toggle and the transport's warp step (access:N). The cells map gives the
// bank colours and the heatmap's ramp (bank_colours, heat_ramp) and what the
// overlay drew (plot_marks "memory", "coalescing", "layout").
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
#include <set>
#include <string>

#include <sys/wait.h>

#include "analysis/replay.hpp"
#include "analysis/warp_access.hpp"
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
using ts::app_test::Rgb;
using ts::app_test::x_display;

using ts::app_test::distance;
using ts::app_test::rgb;
using ts::app_test::Shot;
using ts::app_test::take_shot;

Shot take(const std::string& name, const std::string& args, const std::string& size = "1280x720") {
  return take_shot(name, args + " --backend sim --size " + size + " --theme dark");
}

const nlohmann::json* drawn(const Shot& s, const std::string& buffer) {
  for (const auto& a : s.cells["arrays"])
    if (a["buffer"] == buffer) return &a;
  return nullptr;
}

// A cell's fill: its middle, or where cells print numbers, a quarter in from
// its top left corner (clear of the grid lines, outlines and the number).
Rgb fill_of(const Shot& s, const nlohmann::json& a, int row, int col) {
  const double cw = a["cell_w"].get<double>(), ch = a["cell_h"].get<double>();
  const double in = s.cells["layout"]["values_readable"].get<bool>() ? 0.25 : 0.5;
  int x = int(std::lround(a["x"].get<double>() + (col + in) * cw));
  int y = int(std::lround(a["y"].get<double>() + (row + in) * ch));
  // Clear of the array's own border, 1.5 px inside its edge (cells of 4 px:
  // the middle of the last row lies on it, as the arrays' place allows).
  x = std::min(x, int(a["x"].get<double>() + a["cols"].get<double>() * cw) - 3);
  y = std::min(y, int(a["y"].get<double>() + a["rows"].get<double>() * ch) - 3);
  return s.at(x, y);
}

std::vector<const nlohmann::json*> marks(const Shot& s, const std::string& plot,
                                         const std::string& kind) {
  std::vector<const nlohmann::json*> out;
  for (const auto& m : s.cells["plot_marks"])
    if (m["plot"] == plot && m["kind"] == kind) out.push_back(&m);
  return out;
}

// Every cell of the tile in its bank's colour (and nearer to it than to any
// other bank's), bank = (row * row_words + col) % 32.
void expect_bank_colours(const Shot& s, int row_words, const std::string& what) {
  const nlohmann::json* tile = drawn(s, "tile");
  ASSERT_NE(tile, nullptr) << what;
  ASSERT_EQ(s.cells["bank_colours"].size(), 32u);
  std::vector<Rgb> bank;
  for (const auto& c : s.cells["bank_colours"])
    bank.push_back(rgb(c));
  int wrong = 0;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      const int want = (r * row_words + c) % 32;
      const Rgb got = fill_of(s, *tile, r, c);
      int nearest = 0;
      for (int b = 1; b < 32; ++b)
        if (distance(got, bank[size_t(b)]) < distance(got, bank[size_t(nearest)])) nearest = b;
      if (distance(got, bank[size_t(want)]) > 8 || nearest != want) {
        if (++wrong <= 5)
          ADD_FAILURE() << what << ": tile[" << r << "][" << c << "] should be bank " << want
                        << "'s colour, reads as bank " << nearest;
      }
    }
  EXPECT_EQ(wrong, 0) << what;
}

// Every data cell of `buffer` within `tol` of `want`; returns how many were checked.
int expect_all(const Shot& s, const std::string& buffer, Rgb want, const std::string& what,
               int tol = 8) {
  const nlohmann::json* a = drawn(s, buffer);
  if (!a) {
    ADD_FAILURE() << what << ": " << buffer << " not drawn";
    return 0;
  }
  int wrong = 0, n = 0;
  for (int r = 0; r < (*a)["data_rows"].get<int>(); ++r)
    for (int c = 0; c < (*a)["data_cols"].get<int>(); ++c, ++n)
      if (distance(fill_of(s, *a, r, c), want) > tol && ++wrong <= 3)
        ADD_FAILURE() << what << ": " << buffer << "[" << r << "][" << c << "] is not the colour";
  EXPECT_EQ(wrong, 0) << what << ": " << buffer;
  return n;
}

TEST(AppMemoryColours, TileInBankColoursPlainAndPaddedAtProjectorSizes) {
  // 720p, a monitor, and a monitor with a large font in grid focus (G). At
  // 720p with a large font the timeline takes half the height and the cells
  // are 2 pixels, too small to tell colours (the coalescing test below checks
  // its caption there). The whole tile is checked: in the grid focus at a
  // projector's text, 0 turns the zoom to the moment's subject off.
  const struct {
    const char *size, *font, *more;
  } screens[] = {{"1280x720", "18", ""},
                 {"1920x1080", "18", ""},
                 {"1920x1080", "26", " --focus-grid --keys 0"}};
  for (const auto& [size, font, more] : screens) {
    const std::string tag = std::string(size) + " font " + font + more;
    const Shot plain = take(std::string("banks_plain_") + size + "_" + font,
                            "--lesson " + plain_layout_id() +
                                " --m 32 --n 32 --memory banks --position end "
                                "--font-size " +
                                std::string(font) + more,
                            size);
    ASSERT_EQ(plain.rc, 0) << plain.log;
    expect_bank_colours(plain, 32, "plain tile " + tag);
    const Shot padded = take(std::string("banks_padded_") + size + "_" + font,
                             "--lesson " + padded_layout_id() +
                                 " --m 32 --n 32 --memory banks "
                                 "--position end --font-size " +
                                 std::string(font) + more,
                             size);
    ASSERT_EQ(padded.rc, 0) << padded.log;
    expect_bank_colours(padded, 33, "padded tile " + tag);
    const auto legend = marks(plain, "memory", "legend");
    ASSERT_EQ(legend.size(), 1u);
    EXPECT_EQ((*legend[0])["label"], "Shared memory by bank:");
  }
}

TEST(AppMemoryColours, ConflictHeatmapHotOnThePlainTileColdOnThePadded) {
  const Shot plain = take("conflicts_plain",
                          "--lesson " + plain_layout_id() + " --m 32 --n 32 --memory conflicts");
  ASSERT_EQ(plain.rc, 0) << plain.log;
  const Shot padded = take("conflicts_padded",
                           "--lesson " + padded_layout_id() + " --m 32 --n 32 --memory conflicts");
  ASSERT_EQ(padded.rc, 0) << padded.log;
  // Every element is read once by a 32-way conflicted column read: 31 extra
  // wavefronts, the top of the scale; padded, none.
  const auto& ramp = plain.cells["heat_ramp"];
  ASSERT_EQ(ramp.size(), 33u);
  const nlohmann::json* tile = drawn(padded, "tile");
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(expect_all(plain, "tile", rgb(ramp[32]), "plain: hot"), 32 * 32);
  int cold = 0;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c)  // column 32 is the padding, never touched
      cold += distance(fill_of(padded, *tile, r, c), rgb(ramp[0])) <= 8;
  EXPECT_EQ(cold, 32 * 32) << "padded: every element conflict-free";
}

TEST(AppMemoryColours, SectorsPerRequestNaiveOutIs32TiledOutIs4) {
  const Shot naive = take("sectors_naive", "--lesson " + naive_layout_family_id() +
                                               " --m 32 --n 32 --memory sectors --focus-grid");
  ASSERT_EQ(naive.rc, 0) << naive.log;
  const Shot tiled = take("sectors_tiled", "--lesson " + plain_layout_id() +
                                               " --m 32 --n 32 --memory sectors --focus-grid");
  ASSERT_EQ(tiled.rc, 0) << tiled.log;
  const auto& ramp = naive.cells["heat_ramp"];  // heat(i / 32): i sectors per request
  expect_all(naive, "out", rgb(ramp[32]), "naive: each lane its own sector");
  expect_all(naive, "in", rgb(ramp[4]), "naive: rows are read coalesced");
  expect_all(tiled, "out", rgb(ramp[4]), "tiled: rows written coalesced");
  expect_all(tiled, "in", rgb(ramp[4]), "tiled: rows read coalesced");
  const auto legend = marks(naive, "memory", "legend");
  ASSERT_EQ(legend.size(), 1u);
  EXPECT_EQ((*legend[0])["label"], "Sectors per request:");
}

// What the access step's definition says, from the trace: the positions in
// the given order where a warp access has all its lanes applied.
struct Stops {
  std::shared_ptr<const ts::Trace> trace;
  std::unique_ptr<ts::Replay> replay;
  ts::WarpAccesses w;
  std::vector<uint64_t> done;  // each access's completion position
  std::vector<uint64_t> at;    // sorted, distinct
};

Stops stops(const std::string& lesson, ts::ReplayOrder order, const ts::Params& p) {
  Stops s;
  ts::RunRequest req;
  const ts::LessonInfo* v = ts::find_lesson(lesson);
  if (!v) return s;
  req.lesson_id = v->id;
  req.params = p;
  req.barrier_mask = ts::all_barriers(*v);
  req.backend = ts::BackendChoice::Sim;
  req.schedule.kind = ts::ScheduleKind::WarpSkew;  // as the window runs it
  ts::RunResult res = ts::run(req);
  if (!res.ok) return s;
  s.trace = std::make_shared<const ts::Trace>(std::move(res.trace));
  s.replay = std::make_unique<ts::Replay>(s.trace);
  s.replay->set_order(order);
  s.w = ts::warp_accesses(*s.trace);
  for (const ts::WarpAccess& a : s.w.accesses) {
    uint64_t last = 0;
    for (uint32_t e : s.w.lanes_of(a))
      last = std::max(last, s.replay->position_after(e));
    s.done.push_back(last);
  }
  s.at = s.done;
  std::sort(s.at.begin(), s.at.end());
  s.at.erase(std::unique(s.at.begin(), s.at.end()), s.at.end());
  return s;
}

// How many accesses have all their lanes applied at position p.
size_t complete_at(const Stops& s, uint64_t p) {
  return size_t(std::count_if(s.done.begin(), s.done.end(), [&](uint64_t d) { return d <= p; }));
}

// The first stop (1-based) whose access is a global store.
size_t first_store_stop(const Stops& s) {
  for (size_t n = 0; n < s.at.size(); ++n)
    for (size_t i = 0; i < s.done.size(); ++i)
      if (s.done[i] == s.at[n] && s.w.accesses[i].kind == ts::EventKind::GlobalStore) return n + 1;
  return 0;
}

TEST(AppMemoryColours, CoalescingPictureOfOneWarpStoreNaiveAndTiled) {
  const ts::Params p{.m = 32, .n = 32};
  for (const auto& [lesson, sectors, shot] :
       {std::tuple{naive_layout_family_id(), 32, "coalescing_naive"},
        std::tuple{plain_layout_id(), 4, "coalescing_tiled"}}) {
    const Stops st = stops(lesson, ts::ReplayOrder::Lockstep, p);
    const size_t n = first_store_stop(st);
    ASSERT_GT(n, 0u) << lesson;
    for (const char* font : {"18", "26"}) {
      const Shot s = take(std::string(shot) + "_" + font,
                          std::string("--lesson ") + lesson +
                              " --m 32 --n 32 --memory coalescing --order lockstep --position "
                              "access:" +
                              std::to_string(n) + " --font-size " + font + " --focus-grid");
      ASSERT_EQ(s.rc, 0) << s.log;
      ASSERT_TRUE(s.cells.contains("warp_access")) << lesson;
      EXPECT_EQ(s.cells["warp_access"]["kind"], "global store");
      const auto legend = marks(s, "memory", "legend");
      ASSERT_EQ(legend.size(), 1u);
      const std::string caption = (*legend[0])["label"];
      EXPECT_NE(caption.find("32 stores"), std::string::npos) << caption;
      EXPECT_NE(caption.find(std::to_string(sectors) + " sectors (ideal 4)"), std::string::npos)
          << caption;
      // The caption inside the window, whole.
      const auto& cap = *legend[0];
      EXPECT_GE(cap["x"].get<double>(), 0);
      EXPECT_LE(cap["x"].get<double>() + cap["w"].get<double>(), s.w);
      EXPECT_GT(cap["h"].get<double>(), 0);
      // Each touched sector outlined in its colour, inside the window; where
      // cells are under 5 pixels (720p, large font) neighbouring rows' outlines
      // overlap, so the colours are checked on bigger cells only. Zoomed to
      // the warp's access (the grid focus at a projector's text), the sectors
      // the room shows whole.
      const auto boxes = marks(s, "coalescing", "sector");
      const bool zoomed = s.cells["auto_zoom"]["active"].get<bool>();
      const auto& room = s.cells["grid_rect"];
      auto in_room = [&](const nlohmann::json& b) {
        const double x = b["x"], y = b["y"], w = b["w"], h = b["h"];
        return x >= room["x"].get<double>() - 2 && y >= room["y"].get<double>() - 2 &&
               x + w <= room["x"].get<double>() + room["w"].get<double>() + 2 &&
               y + h <= room["y"].get<double>() + room["h"].get<double>() + 2;
      };
      int checked = 0;
      EXPECT_EQ(int(boxes.size()), sectors) << lesson << " font " << font;
      const nlohmann::json* out = drawn(s, "out");
      ASSERT_NE(out, nullptr);
      if (std::string(font) == "18") {
        EXPECT_GE((*out)["cell_w"].get<double>(), 5);
      }
      if ((*out)["cell_w"].get<double>() < 5) continue;
      for (const nlohmann::json* b : boxes) {
        if (zoomed && !in_room(*b)) continue;
        ++checked;
        const int x = int((*b)["x"].get<double>() + (*b)["w"].get<double>() / 2);
        const int y = int(std::lround((*b)["y"].get<double>()));
        ASSERT_TRUE(x >= 0 && x < s.w && y >= 1 && y + 1 < s.h) << "drawn off screen";
        int best = 255;
        for (int dy = -1; dy <= 1; ++dy)
          best = std::min(best, distance(s.at(x, y + dy), rgb((*b)["rgb"])));
        EXPECT_LE(best, 8) << lesson << " font " << font << ": " << (*b)["label"]
                           << " not outlined in its colour";
      }
      EXPECT_GT(checked, 0) << lesson << " font " << font << ": no sector in view";
    }
  }
}

TEST(AppMemoryColours, LayoutToggleRunsTheOtherLayout) {
  // As a click on "padded [32][33]" in the grid's layout toggle.
  const Shot s = take("layout_padded", "--lesson " + plain_layout_id() +
                                           " --m 32 --n 32 --memory banks --position end "
                                           "--layout 'padded [32][33]'");
  ASSERT_EQ(s.rc, 0) << s.log;
  EXPECT_EQ(s.cells["variant"], padded_layout_id());
  expect_bank_colours(s, 33, "after the toggle");
  const auto chosen = marks(s, "layout", "chosen");
  const auto other = marks(s, "layout", "option");
  ASSERT_EQ(chosen.size(), 1u) << "the toggle is drawn, one layout chosen";
  ASSERT_EQ(other.size(), 2u) << "the other two layouts of the transpose tile";
  EXPECT_EQ((*chosen[0])["label"], "padded [32][33]");
  std::set<std::string> others = {(*other[0])["label"], (*other[1])["label"]};
  EXPECT_EQ(others, (std::set<std::string>{"plain [32][32]", "swizzled (c XOR r)"}));
  // The chosen segment is drawn in the chosen colour (a corner, clear of its text).
  auto corner = [&](const nlohmann::json& m) {
    return s.at(int(m["x"].get<double>() + 3), int(m["y"].get<double>() + 3));
  };
  EXPECT_LE(distance(corner(*chosen[0]), rgb((*chosen[0])["rgb"])), 8);
  EXPECT_GT(distance(corner(*other[0]), rgb((*chosen[0])["rgb"])), 20) << "chosen stands out";
  // Its parameters stay: 32 x 32, one block.
  const nlohmann::json* out = drawn(s, "out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ((*out)["data_rows"], 32);
  EXPECT_EQ((*out)["data_cols"], 32);
  // A label the group does not have: refused, with the ones it has.
  const Shot bad = take("layout_bad", "--lesson " + plain_layout_id() + " --layout swizzled");
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.log.find("'plain [32][32]', 'padded [32][33]'"), std::string::npos) << bad.log;
}

TEST(AppMemoryColours, AccessStepMovesExactlyOneWarpInstructionInEitherOrder) {
  const ts::Params p{.m = 40, .n = 48};  // edge tiles: warps of 16 lanes, and of 8 rows
  for (const auto& [order, flag] : {std::pair{ts::ReplayOrder::Lockstep, "lockstep"},
                                    std::pair{ts::ReplayOrder::AsRecorded, "recorded"}}) {
    const Stops st = stops(plain_layout_id(), order, p);
    ASSERT_GT(st.at.size(), 100u);
    for (size_t n : {size_t(1), size_t(37), size_t(38), st.at.size() / 2}) {
      const Shot s = take(std::string("step_") + flag + "_" + std::to_string(n),
                          std::string("--lesson " + plain_layout_id() + " --order ") + flag +
                              " --position access:" + std::to_string(n));
      ASSERT_EQ(s.rc, 0) << s.log;
      const uint64_t pos = s.cells["position"];
      EXPECT_EQ(pos, st.at[n - 1]) << flag << " step " << n;
      // One step = one more warp access with all its lanes, no more.
      EXPECT_EQ(complete_at(st, pos), complete_at(st, pos - 1) + 1) << flag << " step " << n;
      if (n > 1) {
        EXPECT_EQ(complete_at(st, st.at[n - 2]) + 1, complete_at(st, pos));
      }
      // The access the window shows is that one, all its lanes applied.
      ASSERT_TRUE(s.cells.contains("warp_access"));
      const size_t i = s.cells["warp_access"]["index"];
      EXPECT_EQ(st.done[i], pos) << flag << " step " << n;
      EXPECT_EQ(s.cells["warp_access"]["lanes"], st.w.accesses[i].lane_count);
      EXPECT_FALSE(s.cells["warp_access"]["earlier"].get<bool>());
    }
  }
}

}  // namespace
