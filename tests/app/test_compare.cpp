// Two runs side by side (app/compare/compare.hpp, app/compare/compare_mode.hpp,
// app/compare/view_compare.cpp). GUI-free: the phase alignment and the difference count on real
// simulator runs. In the window (tilescope on a private Xvfb): --compare with
// --position and --screenshot, the counts in the cells map, a ring on a
// differing cell and none on an identical one, and bad --compare text as a
// usage error (2).
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include <sys/wait.h>

#include "analysis/replay.hpp"
#include "app/compare/compare.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
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
// The first lesson with a layout toggle, plain.
static std::string plain_layout_id() {
  return picks::layout_lesson().id;
}

namespace {

namespace fs = std::filesystem;
using namespace ts;
using ts::app_test::out_dir;
using ts::app_test::x_display;

// A lesson run on the simulator with the window's default schedule (odd warps
// fall behind, so a missing barrier bites), replayed in lockstep order.
std::unique_ptr<Replay> replay_of(const std::string& lesson_id, uint32_t mask = ~0u, int n = 0) {
  const LessonInfo* v = find_lesson(lesson_id);
  if (!v) return nullptr;
  RunRequest req;
  req.lesson_id = lesson_id;
  req.params = v->defaults;
  if (n) req.params.n = n;
  req.barrier_mask = mask == ~0u ? all_barriers(*v) : mask;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = ScheduleKind::WarpSkew;
  RunResult res = run(req);
  if (!res.ok) return nullptr;
  auto r = std::make_unique<Replay>(std::make_shared<const Trace>(std::move(res.trace)));
  r->set_order(ReplayOrder::Lockstep);
  return r;
}

TEST(CompareAlignment, IdenticalRunsMapEveryPhaseToItselfAndNothingDiffers) {
  auto a = replay_of(default_id()), b = replay_of(default_id());
  ASSERT_TRUE(a && b);
  const app::PhaseTable ta = app::phase_table(*a), tb = app::phase_table(*b);
  ASSERT_GE(ta.phases(), 3);
  EXPECT_EQ(ta.phases(), tb.phases());
  const app::Alignment al = app::align_runs(ta, tb);
  for (int k = 0; k < ta.phases(); ++k) {
    const uint64_t begin = ta.start[size_t(k)];
    const uint64_t end = k + 1 < ta.phases() ? ta.start[size_t(k) + 1] : ta.size;
    for (uint64_t pos : {begin + 1, (begin + end) / 2, end}) {
      const uint64_t pb = app::aligned_position(al, pos);
      EXPECT_EQ(pb, pos) << "phase " << k;
      EXPECT_EQ(tb.phase_at(pb), ta.phase_at(pos)) << "phase " << k;
      a->seek(pos);
      b->seek(pb);
      const app::DiffSummary d = app::diff_cells(*a, *b);
      EXPECT_EQ(d.value, 0u) << "at " << pos;
      EXPECT_EQ(d.loads, 0u) << "at " << pos;
      EXPECT_GT(d.compared, 0u);
    }
  }
}

TEST(CompareAlignment, WithoutBarrierTwoThePhasesAlignAtBarrierOneAndTheRaceDiffers) {
  auto a = replay_of(default_id());
  auto b = replay_of(default_id(), 1u);  // barrier 1 only
  ASSERT_TRUE(a && b);
  const app::PhaseTable ta = app::phase_table(*a), tb = app::phase_table(*b);
  // Two barriers per tile against one: 2T + 1 phases against T + 1.
  ASSERT_EQ(ta.phases() - 1, 2 * (tb.phases() - 1));
  for (int k = 1; k < ta.phases(); ++k)
    EXPECT_EQ(ta.barrier[size_t(k)], k % 2 == 1 ? 1 : 2) << "phase " << k;
  const app::Alignment al = app::align_runs(ta, tb);
  EXPECT_NE(al.how.find("barrier 1"), std::string::npos) << al.how;
  // A's phase 2k + 1 (after its k-th barrier 1) begins with B's phase k + 1,
  // and A's two phases of a tile both show B's one.
  for (int k = 0; 2 * k + 1 < ta.phases(); ++k) {
    const uint64_t at = ta.start[size_t(2 * k + 1)];
    EXPECT_EQ(app::aligned_position(al, at), tb.start[size_t(k + 1)]) << "tile " << k;
    EXPECT_EQ(tb.phase_at(app::aligned_position(al, at + 1)), k + 1) << "tile " << k;
    if (2 * k + 2 < ta.phases())
      EXPECT_EQ(tb.phase_at(app::aligned_position(al, ta.start[size_t(2 * k + 2)] + 1)), k + 1);
  }
  EXPECT_EQ(app::aligned_position(al, ta.size), tb.size);
  a->seek(a->size());
  b->seek(b->size());
  const app::DiffSummary d = app::diff_cells(*a, *b);
  EXPECT_GT(d.value, 0u) << "the race left wrong cells in C";
  EXPECT_EQ(d.loads, 0u) << "the same loads, only their order differs";
  bool in_c = false;
  for (const app::CellDiff& c : d.cells)
    in_c = in_c || array_name(a->trace().config.arrays, c.a) == "C";
  EXPECT_TRUE(in_c);
}

TEST(CompareAlignment, NaiveAgainstTiledIsOnePieceAndDiffersInLoadCounts) {
  auto a = replay_of(default_id());
  ASSERT_TRUE(a);
  auto b = replay_of(naive_grid_id(), ~0u, a->trace().config.params.n);
  ASSERT_TRUE(b);
  const app::PhaseTable ta = app::phase_table(*a), tb = app::phase_table(*b);
  EXPECT_EQ(tb.phases(), 1);
  const app::Alignment al = app::align_runs(ta, tb);
  EXPECT_NE(al.how.find("whole run"), std::string::npos) << al.how;
  EXPECT_NEAR(double(app::aligned_position(al, ta.size / 2)), double(tb.size) / 2, 1.0);
  EXPECT_EQ(app::aligned_position(al, ta.size), tb.size);
  a->seek(a->size());
  b->seek(b->size());
  const app::DiffSummary d = app::diff_cells(*a, *b);
  EXPECT_EQ(d.value, 0u) << "both compute the same C";
  EXPECT_GT(d.loads, 0u) << "the naive kernel reads every element n times";
}

// --- the window -------------------------------------------------------------

struct Shot {
  int rc = -1;
  std::string log;
  nlohmann::json cells;
  int w = 0, h = 0;
  std::vector<unsigned char> px;
  std::array<int, 3> at(double x, double y) const {
    const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3;
    return {px[i], px[i + 1], px[i + 2]};
  }
};

Shot window(const std::string& args, const std::string& name) {
  Shot r;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb did not start";
    return r;
  }
  const fs::path d = out_dir();
  const fs::path png = d / (name + ".png"), json = d / (name + ".json"), log = d / (name + ".log");
  fs::remove(json);
  fs::remove(png);
  const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " " + args +
                          (args.find("--size") == std::string::npos ? " --size 1600x900" : "") +
                          " --theme dark --screenshot " + png.string() + " --cells-json " +
                          json.string() + " --exit > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream lf(log);
  r.log.assign((std::istreambuf_iterator<char>(lf)), {});
  if (r.rc != 0) return r;
  std::ifstream jf(json);
  r.cells = nlohmann::json::parse(jf);
  int n = 0;
  if (unsigned char* data = stbi_load(png.string().c_str(), &r.w, &r.h, &n, 3)) {
    r.px.assign(data, data + size_t(r.w) * size_t(r.h) * 3);
    stbi_image_free(data);
  }
  return r;
}

bool is_ring(std::array<int, 3> c) {  // the compare view's magenta (255, 40, 200)
  return c[0] > 220 && c[1] < 90 && c[2] > 160;
}

// The pixel of element e's ring: inside the cell, on its left edge, half way down.
bool ring_at(const Shot& s, const nlohmann::json& arrays, const std::string& buffer, uint32_t e) {
  for (const auto& a : arrays) {
    if (a["buffer"] != buffer || a["shared"].get<bool>()) continue;
    const int cols = a["data_cols"];
    const double cw = a["cell_w"], ch = a["cell_h"];
    const double x = double(a["x"]) + (e % cols) * cw, y = double(a["y"]) + (e / cols) * ch;
    const double ring = s.cells["compare"]["ring_px"].get<double>();
    return is_ring(s.at(x + std::max(1.0, ring * 0.5), y + ch * 0.5));
  }
  ADD_FAILURE() << buffer << " not drawn";
  return false;
}

TEST(CompareWindow, WithoutBarrierTwoTheRaceIsCountedAndRingedOnBothSides) {
  const Shot s = window("--lesson " + default_id() +
                            " --backend sim --compare \"--barriers 1\" "
                            "--position end",
                        "compare_race");
  ASSERT_EQ(s.rc, 0) << s.log;
  const auto& c = s.cells["compare"];
  ASSERT_TRUE(c["active"].get<bool>()) << c.dump();
  EXPECT_EQ(c["b"]["barrier_mask"], 1);
  EXPECT_EQ(c["a"]["position"], c["a"]["events"]);
  EXPECT_EQ(c["b"]["position"], c["b"]["events"]) << "the end of A shows the end of B";
  EXPECT_GT(c["differ"]["value"].get<int>(), 0);
  EXPECT_EQ(c["differ"]["value"], c["differ_at_end"]["value"]);
  EXPECT_GT(c["ring_px"].get<double>(), 0);
  // A cell of C that differs is ringed on both sides; one that does not, on neither.
  std::set<uint32_t> differs;
  for (const auto& d : c["cells"])
    if (d["buffer"] == "C" && d["value"].get<bool>()) differs.insert(d["element"].get<uint32_t>());
  ASSERT_FALSE(differs.empty());
  const uint32_t n = s.cells["arrays"][0]["data_cols"];  // C is n x n
  uint32_t same = 0;
  while (same < n * n && differs.count(same))
    ++same;
  ASSERT_LT(same, n * n);
  const uint32_t diff = *differs.begin();
  EXPECT_TRUE(ring_at(s, s.cells["arrays"], "C", diff)) << "A's C[" << diff << "]";
  EXPECT_TRUE(ring_at(s, c["b_arrays"], "C", diff)) << "B's C[" << diff << "]";
  EXPECT_FALSE(ring_at(s, s.cells["arrays"], "C", same)) << "A's C[" << same << "]";
  EXPECT_FALSE(ring_at(s, c["b_arrays"], "C", same)) << "B's C[" << same << "]";
}

TEST(CompareWindow, SaysWhenTheGridsAreTooSmallForValues) {
  // A 720p projector with large text: the side panels make way, and the view
  // says the cells are too small for values rather than printing them unreadably.
  const Shot small = window("--lesson " + default_id() +
                                " --backend sim --compare \"--barriers 1\" "
                                "--position end --font-size 24 --size 1280x720",
                            "compare_small");
  ASSERT_EQ(small.rc, 0) << small.log;
  EXPECT_TRUE(small.cells["layout"]["focus_grid"].get<bool>());
  EXPECT_NE(small.cells["compare"]["too_small"].get<std::string>().find("too small"),
            std::string::npos);
  const Shot big = window("--lesson " + default_id() +
                              " --backend sim --compare \"--barriers 1\" "
                              "--position end --size 1920x1080",
                          "compare_big");
  ASSERT_EQ(big.rc, 0) << big.log;
  EXPECT_EQ(big.cells["compare"]["too_small"], "") << "values fit at 1920 x 1080";
}

TEST(CompareWindow, IdenticalRunsDifferNowhereAndFollowPhaseByPhase) {
  for (const char* pos : {"phase:1", "phase:2", "barrier:3"}) {
    const Shot s = window(
        std::string("--lesson " + default_id() + " --backend sim --compare \"\" --position ") + pos,
        "compare_same");
    ASSERT_EQ(s.rc, 0) << s.log;
    const auto& c = s.cells["compare"];
    EXPECT_EQ(c["a"]["position"], c["b"]["position"]) << pos;
    EXPECT_EQ(c["a"]["phase"], c["b"]["phase"]) << pos;
    EXPECT_GT(c["a"]["phase"].get<int>(), 0) << pos;
    EXPECT_EQ(c["differ"]["value"], 0) << pos;
    EXPECT_EQ(c["differ_at_end"]["value"], 0) << pos;
    // Not one ring pixel on either grid.
    for (const auto* arrays : {&s.cells["arrays"], &c["b_arrays"]})
      for (const auto& a : *arrays) {
        const double x0 = a["x"], y0 = a["y"];
        const double x1 = x0 + double(a["cols"]) * double(a["cell_w"]);
        const double y1 = y0 + double(a["rows"]) * double(a["cell_h"]);
        int rings = 0;
        for (double y = y0; y < y1; ++y)
          for (double x = x0; x < x1; ++x)
            rings += is_ring(s.at(x, y));
        EXPECT_EQ(rings, 0) << a["buffer"] << " at " << pos;
      }
  }
}

TEST(CompareWindow, BarrierRemovedAlignsPhaseByBarrierOne) {
  // A at the start of its phase 3 (after the second barrier 1): B at its phase 2.
  const Shot s = window("--lesson " + default_id() +
                            " --backend sim --compare \"--barriers 1\" "
                            "--position phase:3",
                        "compare_phase");
  ASSERT_EQ(s.rc, 0) << s.log;
  const auto& c = s.cells["compare"];
  EXPECT_EQ(c["a"]["phase"], 3);
  EXPECT_EQ(c["b"]["phase"], 2);
  EXPECT_NE(c["how"].get<std::string>().find("barrier 1"), std::string::npos);
}

TEST(CompareWindow, NaiveAgainstTiledHeatmapsDifferInLoadCountsOnly) {
  const Shot s = window("--lesson " + default_id() +
                            " --n 8 --tile 4 --backend sim --heatmap "
                            "--compare \"--lesson " +
                            naive_grid_id() + "\" --position end",
                        "compare_naive");
  ASSERT_EQ(s.rc, 0) << s.log;
  const auto& c = s.cells["compare"];
  EXPECT_EQ(c["b"]["variant"], naive_grid_id());
  EXPECT_NE(c["b"]["label"].get<std::string>().find("n=8"), std::string::npos)
      << "the size A's command line gave: " << c["b"]["label"];
  EXPECT_EQ(c["differ"]["value"], 0) << "both compute the same C";
  EXPECT_GT(c["differ"]["loads"].get<int>(), 0) << "naive reads every element n times";
  // Under the heatmap a load-count difference is marked: a corner of A's input cell.
  int marked = 0;
  for (const auto& a : s.cells["arrays"]) {
    if (a["buffer"] != "A") continue;
    const double x0 = a["x"], y0 = a["y"], cw = a["cell_w"];
    for (int y = 0; y < 3; ++y)
      for (int x = 1; x < 4; ++x)
        marked += is_ring(s.at(x0 + cw - x, y0 + y));
  }
  EXPECT_GT(marked, 0);
}

TEST(CompareWindow, OtherLayoutIsComparedWhereTheShapesAgree) {
  const Shot s = window("--lesson " + plain_layout_id() +
                            " --backend sim --compare \"--layout padded\" --position end",
                        "compare_layout");
  ASSERT_EQ(s.rc, 0) << s.log;
  const auto& c = s.cells["compare"];
  EXPECT_NE(c["b"]["variant"].get<std::string>(), plain_layout_id());
  EXPECT_EQ(c["differ"]["value"], 0) << "both transpose correctly";
  ASSERT_FALSE(c["skipped"].empty()) << "the padded tile has another shape";
}

TEST(CompareWindow, BadCompareTextIsAUsageError) {
  for (const std::string& bad :
       {"--barriers 9", "--frobnicate", "--layout diagonal", "--lesson no.such.lesson"}) {
    const Shot s = window("--lesson " + default_id() + " --backend sim --compare \"" + bad + "\"",
                          "compare_bad");
    EXPECT_EQ(s.rc, 2) << bad << "\n" << s.log;
    EXPECT_NE(s.log.find("--compare '" + bad + "'"), std::string::npos) << s.log;
  }
}

}  // namespace
