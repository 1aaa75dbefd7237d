// Lecture scripts in the window: `--lecture FILE --step K --screenshot` shows
// that step's lesson at its position with its caption beside the grid; every
// step of the shipped lectures renders; a step out of range or a bad file is
// a usage error (2) before any window. Runs tilescope on a private Xvfb.
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>

#include "io/lecture_file.hpp"
#include "tests/app/private_x_server.hpp"
#include "tests/lesson_picks.hpp"

namespace {

namespace fs = std::filesystem;
using ts::app_test::out_dir;
using ts::app_test::x_display;

const std::string kLectures = std::string(TS_SOURCE_DIR) + "/assets/lectures/";

struct LectureRun {
  int rc = -1;
  std::string log;
  nlohmann::json cells;
  int w = 0, h = 0;
  std::vector<unsigned char> px;
};

LectureRun lecture(const std::string& file, int step, const std::string& name,
                   const std::string& size = "1280x720") {
  LectureRun r;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb did not start";
    return r;
  }
  const fs::path d = out_dir();
  const fs::path png = d / (name + ".png"), json = d / (name + ".json"), log = d / (name + ".log");
  fs::remove(json);
  const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " --lecture " + file +
                          " --step " + std::to_string(step) + " --size " + size +
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

TEST(Lecture, StepShowsItsLessonPositionAndCaptionBand) {
  const std::string file = kLectures + "tiled_multiply.tslecture";
  std::string err;
  const auto l = ts::load_lecture(file, &err);
  ASSERT_TRUE(l) << err;
  const LectureRun r = lecture(file, 4, "lecture_step4");
  ASSERT_EQ(r.rc, 0) << r.log;
  const ts::LectureStep& step = l->steps[3];
  EXPECT_EQ(r.cells["variant"], step.request.lesson_id);
  EXPECT_EQ(r.cells["lecture"]["step"], 4);
  EXPECT_EQ(r.cells["lecture"]["steps"], l->steps.size());
  EXPECT_EQ(r.cells["lecture"]["caption"], step.caption);
  // Its position is "barrier:1": the replay waits at barrier 1.
  EXPECT_EQ(step.position, "barrier:1");
  EXPECT_TRUE(r.cells["barrier_wait"]["active"]) << r.cells["barrier_wait"].dump();
  EXPECT_EQ(r.cells["barrier_wait"]["barrier"], 1);
  EXPECT_TRUE(r.cells["layout"]["focus_grid"]);  // "panels": "grid"

  // The band: a strip of its own beside or below the grid's room (never over
  // it), dark behind white text.
  const auto& b = r.cells["lecture"]["band"];
  const int bx = int(b["x"].get<float>()), by = int(b["y"].get<float>());
  const int bw = int(b["w"].get<float>()), bh = int(b["h"].get<float>());
  ASSERT_GT(bw, r.w / 5);
  ASSERT_GT(bh, 40);
  ASSERT_LE(by + bh, r.h);
  ASSERT_LE(bx + bw, r.w);
  const auto& g = r.cells["grid_rect"];
  const float gx = g["x"].get<float>(), gy = g["y"].get<float>();
  const bool beside = bx >= gx + g["w"].get<float>() - 1,
             below = by >= gy + g["h"].get<float>() - 1;
  EXPECT_TRUE(beside || below) << b.dump() << " " << g.dump();
  int dark = 0, white = 0, total = 0;
  for (int y = by + 2; y < by + bh - 2; ++y)
    for (int x = bx + 2; x < bx + bw - 2; ++x) {
      const unsigned char* p = &r.px[(size_t(y) * size_t(r.w) + size_t(x)) * 3];
      ++total;
      if (p[0] < 70 && p[1] < 70 && p[2] < 80) ++dark;
      if (p[0] > 220 && p[1] > 220 && p[2] > 220) ++white;
    }
  EXPECT_GT(dark, total / 2) << dark << " of " << total;
  EXPECT_GT(white, 200) << "caption text pixels";
}

TEST(Lecture, EveryStepOfTheShippedLecturesRenders) {
  for (const char* name : {"tiled_multiply", "race_lab"}) {
    const std::string file = kLectures + name + ".tslecture";
    std::string err;
    const auto l = ts::load_lecture(file, &err);
    ASSERT_TRUE(l) << err;
    for (size_t k = 1; k <= l->steps.size(); ++k) {
      const LectureRun r =
          lecture(file, int(k), std::string(name) + "_" + std::to_string(k), "800x600");
      ASSERT_EQ(r.rc, 0) << name << " step " << k << ": " << r.log;
      EXPECT_EQ(r.cells["variant"], l->steps[k - 1].request.lesson_id) << name << " step " << k;
      EXPECT_EQ(r.cells["lecture"]["step"], int(k));
    }
  }
  // The race lab's first step stops at the stale read it is about.
  const LectureRun stale =
      lecture(kLectures + "race_lab.tslecture", 1, "race_lab_stale", "800x600");
  ASSERT_EQ(stale.rc, 0) << stale.log;
  EXPECT_GT(stale.cells["position"].get<uint64_t>(), 0u);
  EXPECT_LT(stale.cells["position"].get<uint64_t>(), stale.cells["events"].get<uint64_t>());
}

TEST(Lecture, StepOutOfRangeAndBadFilesAreUsageErrors) {
  const LectureRun far = lecture(kLectures + "race_lab.tslecture", 99, "lecture_far");
  EXPECT_EQ(far.rc, 2) << far.log;
  EXPECT_NE(far.log.find("--step 99:"), std::string::npos) << far.log;
  EXPECT_NE(far.log.find("give 1 to 8"), std::string::npos) << far.log;
  const fs::path bad = out_dir() / "bad.tslecture";
  {
    std::ofstream f(bad);
    f << R"({"title": "t", "steps": [{"lesson": ")" << ts::picks::default_lesson().id
      << R"(", "barriers": [7], "caption": "c"}]})";
  }
  const LectureRun r = lecture(bad.string(), 1, "lecture_bad");
  EXPECT_EQ(r.rc, 2) << r.log;
  EXPECT_NE(r.log.find("step 1, barriers: "), std::string::npos) << r.log;
  const LectureRun dir = lecture(out_dir().string(), 1, "lecture_dir");
  EXPECT_EQ(dir.rc, 2) << dir.log;
  EXPECT_NE(dir.log.find("is a folder"), std::string::npos) << dir.log;
}

}  // namespace

namespace {

// PageDown and PageUp, pressed through GLFW's key callback as a keyboard or a
// presenter's remote sends them, move between steps; Esc leaves the lecture.
TEST(Lecture, PageDownAndPageUpMoveBetweenSteps) {
  const std::string file = kLectures + "tiled_multiply.tslecture";
  std::string err;
  const auto l = ts::load_lecture(file, &err);
  ASSERT_TRUE(l) << err;
  const LectureRun next = lecture(file + " --keys pagedown", 1, "lecture_pagedown");
  ASSERT_EQ(next.rc, 0) << next.log;
  EXPECT_EQ(next.cells["lecture"]["step"], 2);
  EXPECT_EQ(next.cells["lecture"]["caption"], l->steps[1].caption);
  EXPECT_EQ(next.cells["variant"], l->steps[1].request.lesson_id);
  // Step 2 stands at its end; PageDown again reaches step 3, a new lesson at its start.
  EXPECT_EQ(next.cells["position"], next.cells["events"]);
  const LectureRun third = lecture(file + " --keys pagedown,pagedown", 1, "lecture_pagedown2");
  ASSERT_EQ(third.rc, 0) << third.log;
  EXPECT_EQ(third.cells["lecture"]["step"], 3);
  EXPECT_EQ(third.cells["variant"], l->steps[2].request.lesson_id);
  EXPECT_EQ(third.cells["position"], 0);
  const LectureRun back = lecture(file + " --keys pageup", 4, "lecture_pageup");
  ASSERT_EQ(back.rc, 0) << back.log;
  EXPECT_EQ(back.cells["lecture"]["step"], 3);
  EXPECT_EQ(back.cells["position"], 0);
  const LectureRun left = lecture(file + " --keys escape", 4, "lecture_escape");
  ASSERT_EQ(left.rc, 0) << left.log;
  EXPECT_FALSE(left.cells.contains("lecture"));
}

}  // namespace
