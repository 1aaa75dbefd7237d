// Lecture scripts (io/lecture_file.hpp): a good file, every kind of bad field
// refused with the step, the field and what is allowed, and hostile input
// refused without a crash. The shipped lectures all load.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engine/catalogue.hpp"
#include "io/lecture_file.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

namespace {

// The lesson the steps name: any with two barriers would do; the default has them.
std::string lesson_id() {
  return picks::default_lesson().id;
}

std::string lecture_with(const std::string& step) {
  return R"({"title": "t", "steps": [)" + step + "]}";
}

// The error for a lecture whose only step is `step` ("" when it loads).
std::string error_of(const std::string& text) {
  std::string err;
  const auto l = ts::parse_lecture(text, &err);
  return l ? std::string() : err;
}

TEST(LectureFile, GoodFileGivesRequestsAsTheCommandLine) {
  std::string err;
  const auto l = ts::parse_lecture(R"({"title": "Tiles", "steps": [
      {"lesson": ")" + lesson_id() + R"(", "params": {"n": 10, "tile": 4}, "barriers": [2],
       "schedule": "lockstep", "position": "barrier:1", "panels": "grid", "memory": "banks",
       "caption": "Load the tiles"},
      {"lesson": ")" + lesson_id() + R"(", "position": 17, "caption": "defaults"}]})",
                                   &err);
  ASSERT_TRUE(l) << err;
  EXPECT_EQ(l->title, "Tiles");
  ASSERT_EQ(l->steps.size(), 2u);
  const ts::LectureStep& s = l->steps[0];
  EXPECT_EQ(s.request.lesson_id, lesson_id());
  EXPECT_EQ(s.request.params.n, 10);
  EXPECT_EQ(s.request.params.tile, 4);
  EXPECT_EQ(s.request.barrier_mask, 2u);  // barrier 1 removed, 2 kept
  EXPECT_EQ(s.request.schedule.kind, ts::ScheduleKind::Lockstep);
  EXPECT_EQ(s.request.backend, ts::BackendChoice::Sim);
  EXPECT_EQ(s.position, "barrier:1");
  EXPECT_EQ(s.panels, "grid");
  EXPECT_EQ(s.memory, "banks");
  EXPECT_EQ(s.caption, "Load the tiles");
  // Omitted fields: the lesson's defaults, every barrier, the window's skew schedule.
  const ts::LectureStep& d = l->steps[1];
  const ts::LessonInfo* v = &picks::default_lesson();
  EXPECT_EQ(d.request.params.n, v->defaults.n);
  EXPECT_EQ(d.request.barrier_mask, ts::all_barriers(*v));
  EXPECT_EQ(d.request.schedule.kind, ts::ScheduleKind::WarpSkew);
  EXPECT_EQ(d.position, "17");
  EXPECT_EQ(d.memory, "state");
}

TEST(LectureFile, BadFieldsNameStepFieldAndWhatIsAllowed) {
  const std::string ok = R"("caption": "c")";
  struct Case {
    std::string step, expect;
  } cases[] = {
      {R"({"lesson": "matmul.nope", )" + ok + "}", "step 1, lesson: unknown lesson 'matmul.nope'"},
      {R"({"lesson": 3, )" + ok + "}", "step 1, lesson: give a lesson id"},
      {R"({)" + ok + "}", "step 1, lesson: give a lesson id"},
      {R"({"lesson": ")" + lesson_id() + R"(", "params": {"length": 5}, )" + ok + "}",
       "step 1, params.length: " + lesson_id() + " takes n, tile"},
      {R"({"lesson": ")" + lesson_id() + R"(", "params": {"n": "ten"}, )" + ok + "}",
       "step 1, params.n: give a whole number, not a string"},
      {R"({"lesson": ")" + lesson_id() + R"(", "params": {"tile": 3}, )" + ok + "}",
       "step 1, params: "},
      {R"({"lesson": ")" + lesson_id() + R"(", "params": {"n": 0}, )" + ok + "}",
       "step 1, params: --n: 0 is out of range"},
      {R"({"lesson": ")" + lesson_id() + R"(", "barriers": [3], )" + ok + "}",
       "step 1, barriers: "},
      {R"({"lesson": ")" + lesson_id() + R"(", "barriers": "some", )" + ok + "}",
       "step 1, barriers: give \"all\", \"none\" or a list"},
      {R"({"lesson": ")" + lesson_id() + R"(", "schedule": "fast", )" + ok + "}",
       "step 1, schedule: 'fast' is not one of lockstep, skew or random"},
      {R"({"lesson": ")" + lesson_id() + R"(", "position": "barrier:x", )" + ok + "}",
       "step 1, position: 'barrier:x': use start, end, stale"},
      {R"({"lesson": ")" + lesson_id() + R"(", "position": "phase:999999999", )" + ok + "}",
       "step 1, position: 'phase:999999999'"},
      {R"({"lesson": ")" + lesson_id() + R"(", "position": [1], )" + ok + "}",
       "step 1, position: give a string"},
      {R"({"lesson": ")" + lesson_id() + R"(", "panels": "some", )" + ok + "}",
       "step 1, panels: 'some' is not one of auto, all, grid or present"},
      {R"({"lesson": ")" + lesson_id() + R"(", "memory": "rainbow", )" + ok + "}",
       "step 1, memory: 'rainbow' is not one of state, banks"},
      {R"({"lesson": ")" + lesson_id() + R"("})", "step 1, caption: every step needs one"},
      {R"({"lesson": ")" + lesson_id() + R"(", "caption": 5})", "step 1, caption: give a string"},
      {R"({"lesson": ")" + lesson_id() + R"(", "captoin": "x", )" + ok + "}",
       "step 1, unknown field 'captoin'"},
      {R"("just a string")", "step 1, give an object"},
  };
  for (const Case& c : cases) {
    const std::string err = error_of(lecture_with(c.step));
    EXPECT_EQ(err.rfind(c.expect, 0), 0u) << c.step << "\n  gave: " << err;
  }
  // The step is counted from 1 in the file's order.
  const std::string two = lecture_with(R"({"lesson": ")" + lesson_id() + R"(", "caption": "a"},
                                          {"lesson": ")" +
                                       lesson_id() + R"(", "panels": 1, "caption": "b"})");
  EXPECT_EQ(error_of(two).rfind("step 2, panels: give a string", 0), 0u) << error_of(two);
  const std::string tiles = error_of(lecture_with(R"({"lesson": ")" + lesson_id() +
                                                  R"(", "params": {"tile": 3}, "caption": "c"})"));
  EXPECT_NE(tiles.find("2, 4, 8, 16 or 32"), std::string::npos) << tiles;
  const std::string barrier = error_of(
      lecture_with(R"({"lesson": ")" + lesson_id() + R"(", "barriers": [3], "caption": "c"})"));
  EXPECT_NE(barrier.find("has 2 barriers (1 and 2)"), std::string::npos) << barrier;
}

TEST(LectureFile, HostileInputIsRefusedNotCrashed) {
  EXPECT_EQ(error_of("").rfind("not JSON", 0), 0u);
  EXPECT_EQ(error_of("\x01\xff{{{").rfind("not JSON", 0), 0u);
  EXPECT_EQ(error_of("[1, 2]").rfind("a lecture is a JSON object", 0), 0u);
  EXPECT_EQ(error_of(R"({"title": "t", "steps": []})").rfind("steps: the lecture has no steps", 0),
            0u);
  EXPECT_EQ(error_of(R"({"title": "t", "steps": {}})").rfind("steps: give a list", 0), 0u);
  EXPECT_EQ(error_of(R"({"steps": []})").rfind("title:", 0), 0u);
  EXPECT_EQ(
      error_of(R"({"title": "t", "steps": [], "extra": 1})").rfind("unknown field 'extra'", 0), 0u);
  // 10,000 steps: refused by count before any is checked.
  std::string many = R"({"title": "t", "steps": [)";
  for (int i = 0; i < 10000; ++i)
    many += std::string(i ? "," : "") + R"({"lesson": ")" + lesson_id() + R"(", "caption": "c"})";
  many += "]}";
  EXPECT_EQ(error_of(many).rfind("steps: 10000 steps; a lecture has at most 200", 0), 0u);
  // Deep nesting and a file over the size limit.
  EXPECT_EQ(error_of(std::string(100000, '[')).rfind("not a lecture: nested deeper", 0), 0u);
  const std::string huge(ts::kMaxLectureBytes + 10, ' ');
  EXPECT_NE(error_of(huge).find("a lecture is at most"), std::string::npos);
  const std::string long_caption = error_of(lecture_with(
      R"({"lesson": ")" + lesson_id() + R"(", "caption": ")" + std::string(2000, 'x') + "\"}"));
  EXPECT_EQ(long_caption.rfind("step 1, caption: 2000 characters", 0), 0u) << long_caption;

  const auto dir = std::filesystem::temp_directory_path() / "ts_lecture_test_dir";
  std::filesystem::create_directories(dir);
  std::string err;
  EXPECT_FALSE(ts::load_lecture(dir.string(), &err));
  EXPECT_NE(err.find("is a folder"), std::string::npos) << err;
  EXPECT_FALSE(ts::load_lecture((dir / "missing.tslecture").string(), &err));
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
  const auto big = dir / "big.tslecture";
  {
    std::ofstream f(big);
    f << std::string(ts::kMaxLectureBytes + 100, ' ');
  }
  EXPECT_FALSE(ts::load_lecture(big.string(), &err));
  EXPECT_NE(err.find("larger than"), std::string::npos) << err;
  // A FIFO (opening it would wait for a writer forever) and a link to a device.
  const auto fifo = dir / "fifo.tslecture";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(ts::load_lecture(fifo.string(), &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  const auto zero = dir / "zero.tslecture";
  std::filesystem::create_symlink("/dev/zero", zero);
  EXPECT_FALSE(ts::load_lecture(zero.string(), &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
  std::filesystem::remove_all(dir);
}

// Issue 20: captions counted in characters, not bytes; barrier ids said as written.
TEST(LectureFile, CountsCharactersAndNamesTheBarrierAsWritten) {
  std::string e1000, e1001;
  for (int i = 0; i < 1000; ++i)
    e1000 += "\xc3\xa9";  // é: one character, two bytes
  e1001 = e1000 + "\xc3\xa9";
  const std::string lesson = R"({"lesson": ")" + lesson_id() + R"(", "caption": ")";
  EXPECT_EQ(error_of(lecture_with(lesson + e1000 + "\"}")), "");
  const std::string err = error_of(lecture_with(lesson + e1001 + "\"}"));
  EXPECT_NE(err.find("caption: 1001 characters; keep it under 1000"), std::string::npos) << err;
  for (const char* id : {"1099511627776", "-1", "18446744073709551615", "65"}) {
    const std::string bad =
        error_of(lecture_with(R"({"lesson": ")" + lesson_id() + R"(", "barriers": [)" +
                              std::string(id) + R"(], "caption": "c"})"));
    EXPECT_NE(bad.find("barriers: barrier " + std::string(id) + ": " + lesson_id() +
                       " has 2 barriers (1 and 2)"),
              std::string::npos)
        << id << ": " << bad;
    EXPECT_EQ(bad.find("barrier 0"), std::string::npos) << bad;
  }
}

TEST(LectureFile, EveryShippedLectureLoads) {
  int files = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TS_SOURCE_DIR) + "/assets/lectures")) {
    if (e.path().extension() != ts::kLectureExtension) continue;
    ++files;
    std::string err;
    const auto l = ts::load_lecture(e.path().string(), &err);
    ASSERT_TRUE(l) << err;
    EXPECT_GE(l->steps.size(), 6u) << e.path();
    for (const ts::LectureStep& s : l->steps)
      EXPECT_FALSE(s.caption.empty());
  }
  EXPECT_EQ(files, 2);
}

}  // namespace
