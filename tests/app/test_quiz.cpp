// Quiz mode in the window (app/quiz.hpp): `--quiz` asks the first question
// with the replay stopped before it; `--quiz-answer` and `--keys enter` answer
// and reveal it. The pixels show the answer (chosen cells blue; revealed,
// right cells green, a missed one ringed), and keyboard-only answering gives
// the score line the scripted mode prints. Runs tilescope on a private Xvfb.
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "tests/app/private_x_server.hpp"

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
  const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE +
                          " --lesson matmul.tiled_square --backend sim --size 1280x720 "
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
