// Quiz mode in the window (app/quiz/quiz.hpp): `--quiz` asks the first question
// with the replay stopped before it; `--quiz-answer` and `--keys enter` answer
// and reveal it. The pixels show the answer (chosen cells blue; revealed,
// right cells green, a missed one ringed), and keyboard-only answering gives
// the score line the scripted mode prints. Runs tilescope on a private Xvfb.
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/wait.h>

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

struct QuizRun {
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

QuizRun quiz(const std::string& name, const std::string& args) {
  QuizRun r;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb did not start";
    return r;
  }
  const fs::path d = out_dir();
  const fs::path png = d / (name + ".png"), json = d / (name + ".json"), log = d / (name + ".log");
  fs::remove(json);
  const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " --lesson " +
                          default_id() +
                          " --backend sim --size 1280x720 "
                          "--theme dark --quiz 1 " +
                          args + " --screenshot " + png.string() + " --cells-json " +
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

const nlohmann::json* drawn(const QuizRun& r, const std::string& buffer) {
  for (const auto& a : r.cells["arrays"])
    if (a["buffer"] == buffer && !a["shared"].get<bool>()) return &a;
  return nullptr;
}

// A point inside element e's cell, (fx, fy) of the way across it.
std::pair<double, double> point(const nlohmann::json& a, uint32_t e, double fx, double fy) {
  const int cols = a["data_cols"];
  const int row = int(e) / cols, col = int(e) % cols;
  return {a["x"].get<double>() + (col + fx) * a["cell_w"].get<double>(),
          a["y"].get<double>() + (row + fy) * a["cell_h"].get<double>()};
}

bool near(std::array<int, 3> px, const nlohmann::json& rgb, int tol = 40) {
  for (int i = 0; i < 3; ++i)
    if (std::abs(px[size_t(i)] - rgb[size_t(i)].get<int>()) > tol) return false;
  return true;
}

bool ring_near(const QuizRun& r, const nlohmann::json& a, uint32_t e, const nlohmann::json& rgb) {
  // The ring lies along the cell's edge: look along its left side.
  for (double f = 0.02; f < 0.3; f += 0.02) {
    const auto [x, y] = point(a, e, f, 0.5);
    if (near(r.at(x, y), rgb)) return true;
  }
  return false;
}

TEST(Quiz, QuestionThenRevealOnTheGrid) {
  const QuizRun q = quiz("quiz_question", "--quiz-answer truth-1");
  ASSERT_EQ(q.rc, 0) << q.log;
  ASSERT_TRUE(q.cells.contains("quiz")) << q.log;
  const nlohmann::json& Q = q.cells["quiz"];
  EXPECT_EQ(Q["kind"], "load cells");
  EXPECT_EQ(Q["index"], 0);
  EXPECT_FALSE(Q["revealed"].get<bool>());
  const std::vector<uint32_t> truth = Q["truth_cells"];
  ASSERT_GE(truth.size(), 2u);
  EXPECT_EQ(Q["answer_cells"].size(), truth.size() - 1);
  EXPECT_GT(Q["band"]["h"].get<double>(), 60.0);
  const nlohmann::json* a = drawn(q, Q["buffer"]);
  ASSERT_NE(a, nullptr);
  {
    const auto [x, y] = point(*a, truth.front(), 0.2, 0.2);
    EXPECT_TRUE(near(q.at(x, y), Q["colours"]["chosen"])) << "a chosen cell is not blue";
  }

  const QuizRun r = quiz("quiz_reveal", "--quiz-answer truth-1 --keys enter");
  ASSERT_EQ(r.rc, 0) << r.log;
  const nlohmann::json& R = r.cells["quiz"];
  EXPECT_TRUE(R["revealed"].get<bool>());
  EXPECT_FALSE(R["right"].get<bool>());
  EXPECT_EQ(R["missed"], nlohmann::json::array({truth.back()}));
  EXPECT_TRUE(R["extra"].empty());
  EXPECT_EQ(R["score"], "Score 0 / 1");
  EXPECT_NE(r.log.find("quiz: Score 0 / 1"), std::string::npos) << r.log;
  // The replay moved on to the loads of the question.
  EXPECT_GT(r.cells["position"].get<uint64_t>(), q.cells["position"].get<uint64_t>());
  const nlohmann::json* b = drawn(r, R["buffer"]);
  ASSERT_NE(b, nullptr);
  const auto [gx, gy] = point(*b, truth.front(), 0.2, 0.2);
  EXPECT_TRUE(near(r.at(gx, gy), R["colours"]["right"])) << "a right cell is not green";
  EXPECT_TRUE(ring_near(r, *b, truth.back(), R["colours"]["missed"]))
      << "the missed cell has no ring";
  const auto [mx, my] = point(*b, truth.back(), 0.5, 0.2);
  EXPECT_FALSE(near(r.at(mx, my), R["colours"]["right"])) << "the missed cell is filled green";
  EXPECT_FALSE(ring_near(r, *b, truth.front(), R["colours"]["missed"]));
}

// Arrow keys and Space to each true cell, Enter: right; N, Enter with
// nothing chosen on the next question: wrong. Keyboard only.
TEST(Quiz, KeyboardOnlyAnsweringKeepsTheScore) {
  const QuizRun first = quiz("quiz_keys_first", "");
  ASSERT_EQ(first.rc, 0) << first.log;
  const std::vector<uint32_t> truth = first.cells["quiz"]["truth_cells"];
  const nlohmann::json* a = drawn(first, first.cells["quiz"]["buffer"]);
  ASSERT_NE(a, nullptr);
  const int cols = (*a)["data_cols"];
  std::string keys;
  auto key = [&](const char* k) { keys += std::string(keys.empty() ? "" : ",") + k; };
  int at = 0;  // the cursor starts on element 0
  for (uint32_t e : truth) {
    const int row = int(e) / cols, col = int(e) % cols;
    for (; at / cols < row; at += cols)
      key("down");
    for (; at % cols < col; ++at)
      key("right");
    for (; at % cols > col; --at)
      key("left");
    key("space");
  }
  key("enter");
  const QuizRun right = quiz("quiz_keys_right", "--keys " + keys);
  ASSERT_EQ(right.rc, 0) << right.log;
  EXPECT_TRUE(right.cells["quiz"]["right"].get<bool>()) << right.cells["quiz"].dump();
  EXPECT_NE(right.log.find("quiz: Score 1 / 1"), std::string::npos) << right.log;

  const QuizRun both = quiz("quiz_keys_two", "--keys " + keys + ",n,enter");
  ASSERT_EQ(both.rc, 0) << both.log;
  EXPECT_EQ(both.cells["quiz"]["index"], 1);
  EXPECT_NE(both.log.find("quiz: Score 1 / 2"), std::string::npos) << both.log;
}

}  // namespace

namespace {

bool is_choice(const std::string& kind) {
  return kind == "last warp" || kind == "bank conflict ways" || kind == "sectors";
}

// "n,n,...": the keys that move on to question `index`.
std::string nexts(int index) {
  std::string k;
  for (int i = 0; i < index; ++i)
    k += std::string(k.empty() ? "" : ",") + "n";
  return k;
}

// The truth's rows and columns in its array (the grid draws a matrix row-major).
struct Box {
  int r0 = 1 << 30, c0 = 1 << 30, r1 = -1, c1 = -1;
};
Box box_of(const std::vector<uint32_t>& cells, int cols) {
  Box b;
  for (uint32_t e : cells) {
    b.r0 = std::min(b.r0, int(e) / cols);
    b.r1 = std::max(b.r1, int(e) / cols);
    b.c0 = std::min(b.c0, int(e) % cols);
    b.c1 = std::max(b.c1, int(e) % cols);
  }
  return b;
}

}  // namespace

// A choice question answered wrong (scripted `choice:N`, kept for the first
// choice question) and revealed: the pick is red and the truth green, on the
// band's buttons, every one of them in view.
TEST(Quiz, AWrongChoiceIsMarkedRedAndTheRightOneGreen) {
  const QuizRun first = quiz("quiz_choice_kinds", "");
  ASSERT_EQ(first.rc, 0) << first.log;
  const nlohmann::json& kinds = first.cells["quiz"]["kinds"];
  ASSERT_TRUE(kinds.is_array()) << first.cells["quiz"].dump();
  int at = -1;
  for (size_t i = 0; i < kinds.size() && at < 0; ++i)
    if (is_choice(kinds[i])) at = int(i);
  ASSERT_GE(at, 0) << kinds.dump();
  const QuizRun asked = quiz("quiz_choice_asked", at ? "--keys " + nexts(at) : "");
  ASSERT_EQ(asked.rc, 0) << asked.log;
  const int truth = asked.cells["quiz"]["truth_choice"];
  const int wrong = truth == 0 ? 1 : 0;  // 0-based
  const std::string keys = nexts(at) + (at ? "," : "") + "enter";
  const QuizRun r = quiz("quiz_choice_wrong",
                         "--quiz-answer choice:" + std::to_string(wrong + 1) + " --keys " + keys);
  ASSERT_EQ(r.rc, 0) << r.log;
  const nlohmann::json& R = r.cells["quiz"];
  EXPECT_EQ(R["index"], at);
  EXPECT_TRUE(R["revealed"].get<bool>());
  EXPECT_FALSE(R["right"].get<bool>());
  EXPECT_EQ(R["answer_choice"], wrong);
  const nlohmann::json& rects = R["choice_rects"];
  ASSERT_EQ(rects.size(), R["choices"].size());
  auto fill_at = [&](int i, double fx) {
    const nlohmann::json& b = rects[size_t(i)];
    EXPECT_LE(b["x"].get<double>() + b["w"].get<double>(), r.w) << "choice " << i << " cut off";
    const double x = b["x"].get<double>() + (fx < 0.5 ? 3 : b["w"].get<double>() - 3);
    return r.at(x, b["y"].get<double>() + b["h"].get<double>() * 0.5);
  };
  for (double fx : {0.0, 1.0}) {
    EXPECT_TRUE(near(fill_at(wrong, fx), R["colours"]["extra"], 30)) << "the wrong pick is not red";
    EXPECT_TRUE(near(fill_at(truth, fx), R["colours"]["right"], 30)) << "the truth is not green";
  }
  for (int i = 0; i < int(rects.size()); ++i)
    if (i != wrong && i != truth) {
      EXPECT_FALSE(near(fill_at(i, 0), R["colours"]["extra"], 30)) << i;
      EXPECT_FALSE(near(fill_at(i, 0), R["colours"]["right"], 30)) << i;
    }
}

// A cell question answered with rectangles (`rect:ARRAY:r0,c0-r1,c1`, as one
// drag picks them) is graded right, its cells green; one row too many is
// graded wrong with that row's cells red.
TEST(Quiz, ARectangleAnswerIsGradedRight) {
  const QuizRun first = quiz("quiz_rect_asked", "");
  ASSERT_EQ(first.rc, 0) << first.log;
  const nlohmann::json& Q = first.cells["quiz"];
  const std::vector<uint32_t> truth = Q["truth_cells"];
  ASSERT_GE(truth.size(), 2u);
  const nlohmann::json* a = drawn(first, Q["buffer"]);
  ASSERT_NE(a, nullptr);
  const int cols = (*a)["data_cols"], rows = (*a)["data_rows"];
  const std::string name = Q["buffer"];
  // The truth as row runs, stacked where they match (one drag for a tile).
  const Box b = box_of(truth, cols);
  std::string spec;
  if (size_t((b.r1 - b.r0 + 1) * (b.c1 - b.c0 + 1)) == truth.size()) {
    spec = "rect:" + name + ":" + std::to_string(b.r0) + "," + std::to_string(b.c0) + "-" +
           std::to_string(b.r1) + "," + std::to_string(b.c1);
  } else {
    for (size_t i = 0; i < truth.size();) {
      size_t j = i;
      while (j + 1 < truth.size() && truth[j + 1] == truth[j] + 1 &&
             truth[j + 1] % uint32_t(cols) != 0)
        ++j;
      const int r = int(truth[i]) / cols;
      spec += std::string(spec.empty() ? "" : ";") + "rect:" + name + ":" + std::to_string(r) +
              "," + std::to_string(int(truth[i]) % cols) + "-" + std::to_string(r) + "," +
              std::to_string(int(truth[j]) % cols);
      i = j + 1;
    }
  }
  const QuizRun r = quiz("quiz_rect_right", "--quiz-answer '" + spec + "' --keys enter");
  ASSERT_EQ(r.rc, 0) << r.log;
  const nlohmann::json& R = r.cells["quiz"];
  EXPECT_TRUE(R["right"].get<bool>()) << spec << "\n" << R.dump();
  EXPECT_EQ(R["answer_cells"].size(), truth.size());
  const nlohmann::json* ra = drawn(r, R["buffer"]);
  ASSERT_NE(ra, nullptr);
  for (uint32_t e : {truth.front(), truth.back()}) {
    const auto [x, y] = point(*ra, e, 0.2, 0.2);
    EXPECT_TRUE(near(r.at(x, y), R["colours"]["right"])) << "cell " << e << " is not green";
  }

  // One row below the box too: that row's cells are extra, drawn red.
  if (b.r1 + 1 < rows && size_t((b.r1 - b.r0 + 1) * (b.c1 - b.c0 + 1)) == truth.size()) {
    const std::string more = "rect:" + name + ":" + std::to_string(b.r0) + "," +
                             std::to_string(b.c0) + "-" + std::to_string(b.r1 + 1) + "," +
                             std::to_string(b.c1);
    const QuizRun w = quiz("quiz_rect_extra", "--quiz-answer '" + more + "' --keys enter");
    ASSERT_EQ(w.rc, 0) << w.log;
    const nlohmann::json& W = w.cells["quiz"];
    EXPECT_FALSE(W["right"].get<bool>());
    EXPECT_EQ(W["extra"].size(), size_t(b.c1 - b.c0 + 1));
    const nlohmann::json* wa = drawn(w, W["buffer"]);
    ASSERT_NE(wa, nullptr);
    const auto [x, y] = point(*wa, uint32_t((b.r1 + 1) * cols + b.c0), 0.2, 0.2);
    EXPECT_TRUE(near(w.at(x, y), W["colours"]["extra"])) << "an extra cell is not red";
  }
}

// Shift+arrows from the truth's corner pick its rectangle from the keyboard.
TEST(Quiz, ShiftArrowsPickARectangle) {
  const QuizRun first = quiz("quiz_shift_asked", "");
  ASSERT_EQ(first.rc, 0) << first.log;
  const nlohmann::json& Q = first.cells["quiz"];
  const std::vector<uint32_t> truth = Q["truth_cells"];
  const nlohmann::json* a = drawn(first, Q["buffer"]);
  ASSERT_NE(a, nullptr);
  const int cols = (*a)["data_cols"];
  const Box b = box_of(truth, cols);
  if (size_t((b.r1 - b.r0 + 1) * (b.c1 - b.c0 + 1)) != truth.size())
    GTEST_SKIP() << "the first question's truth is no rectangle";
  std::string keys;
  auto key = [&](const std::string& k) { keys += std::string(keys.empty() ? "" : ",") + k; };
  for (int i = 0; i < b.r0; ++i)  // the cursor starts on element 0
    key("down");
  for (int i = 0; i < b.c0; ++i)
    key("right");
  key("space");  // the corner, then the rest of the rectangle
  for (int i = b.c0; i < b.c1; ++i)
    key("shift+right");
  for (int i = b.r0; i < b.r1; ++i)
    key("shift+down");
  key("enter");
  const QuizRun r = quiz("quiz_shift_right", "--keys " + keys);
  ASSERT_EQ(r.rc, 0) << r.log;
  EXPECT_TRUE(r.cells["quiz"]["right"].get<bool>()) << r.cells["quiz"].dump();
}
