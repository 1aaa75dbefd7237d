// A class's solutions graded at once, as a course's teaching assistant runs
// `tilescope-cli check PUZZLE FOLDER`: compiled side by side, graded one
// after another, a line each (or one JSON grade each) and the count that
// pass; the exit code 0 only when every one passes. What a student hands in
// may not compile, may be wrong or may end the process: each is one failing
// line, and the others are graded all the same.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/puzzle_check.hpp"

namespace ts {
namespace {

#ifdef TS_CLI_PATH

struct PuzzleClass : PuzzleCheck {
  // A class's folder: the reference, the skeleton (wrong output), one that
  // does not compile, one whose kernel calls exit(0), and a note that is no
  // solution.
  std::string hand_in() {
    const std::string folder = dir / "class";
    std::filesystem::create_directories(folder);
    const std::string reference = test::read_all(kSolutions + "map.cu");
    test::write_text(folder + "/alice.cu", reference);
    test::write_text(folder + "/bob.cu", test::read_all(kPuzzles + "/01_map/skeleton.cu"));
    test::write_text(folder + "/carol.cu", test::with_line(reference, "@STORE", "  out[i] = ;"));
    test::write_text(folder + "/dave.cu",
                     test::with_line(reference, "@STORE", "  if (i == 0) exit(0);"));
    test::write_text(folder + "/notes.txt", "not a solution\n");
    return folder;
  }
};

TEST_F(PuzzleClass, AFolderIsGradedALineEachAndTheOthersGoOn) {
  const std::string folder = hand_in();
  const testing::CliRun r = testing::run_cli("check map '" + folder + "' --jobs 2", false);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("puzzle 1 map (Map): 1 of 4 solutions pass"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  PASS  " + folder + "/alice.cu\n"), std::string::npos) << r.out;
  for (const char* who : {"bob", "carol", "dave"})
    EXPECT_NE(r.out.find("  FAIL  " + folder + "/" + who + ".cu\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("notes.txt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compiled side by side"), std::string::npos) << r.out;
}

TEST_F(PuzzleClass, JsonHasOneGradeEachWithItsFailingRule) {
  const std::string folder = hand_in();
  const testing::CliRun r = testing::run_cli("check map '" + folder + "' --json", false);
  EXPECT_EQ(r.code, 3) << r.out;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["passed"], 1);
  EXPECT_EQ(j["total"], 4);
  ASSERT_EQ(j["grades"].size(), 4u);
  // Sorted by name: alice, bob, carol, dave; each one's first failing rule.
  const char* failing[] = {"", "output", "compiles", "output"};
  for (size_t i = 0; i < 4; ++i) {
    const nlohmann::json& g = j["grades"][i];
    EXPECT_EQ(g["passed"], i == 0) << g.dump(2);
    if (i == 0) continue;
    const nlohmann::json* rule = PuzzleCheck::rule(g, failing[i]);
    ASSERT_NE(rule, nullptr) << g.dump(2);
    EXPECT_EQ(rule->at("status"), "fail") << g.dump(2);
  }
  EXPECT_NE(j["grades"][3]["rules"].dump().find("exit(0)"), std::string::npos)
      << j["grades"][3].dump(2);
}

// A gradebook's rows: the header, then one row a solution, its fields quoted.
TEST_F(PuzzleClass, CsvHasARowASolution) {
  const std::string folder = hand_in();
  const testing::CliRun r = testing::run_cli("check map '" + folder + "' --csv", false);
  EXPECT_EQ(r.code, 3) << r.out;
  std::istringstream rows(r.out);
  std::vector<std::string> lines;
  for (std::string l; std::getline(rows, l);)
    lines.push_back(l);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  EXPECT_EQ(lines[0], "solution,passed,failed_rule,reason");
  EXPECT_EQ(lines[1], "\"" + folder + "/alice.cu\",1,\"\",\"\"");
  EXPECT_EQ(lines[2].rfind("\"" + folder + "/bob.cu\",0,\"output\",\"", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("\"" + folder + "/carol.cu\",0,\"compiles\",\"", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("\"" + folder + "/dave.cu\",0,\"output\",\"", 0), 0u) << lines[4];
}

TEST_F(PuzzleClass, EveryOnePassingExitsZeroAndRecordIsOneStudents) {
  const std::string a = dir / "a.cu", b = dir / "b.cu";
  test::write_text(a, test::read_all(kSolutions + "map.cu"));
  test::write_text(b, test::read_all(kSolutions + "map.cu"));
  testing::CliRun r = testing::run_cli("check map '" + a + "' '" + b + "'", false);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 of 2 solutions pass"), std::string::npos) << r.out;
  r = testing::run_cli("check map '" + a + "' '" + b + "' --record", true);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--record keeps one student's progress"), std::string::npos) << r.out;
  const std::string empty = dir / "empty";
  std::filesystem::create_directories(empty);
  r = testing::run_cli("check map '" + empty + "'", true);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("no .cu or .hpp solution in"), std::string::npos) << r.out;
}

// A device or a FIFO named as a solution is refused without being read (it
// hung the grader, which read the whole file for its barriers first); in a
// folder they are no solutions at all.
TEST_F(PuzzleClass, ADeviceOrAFifoIsRefusedNotRead) {
  const std::string fifo = dir / "fifo.cu";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), fifo}) {
    int code = 0;
    const nlohmann::json g = check("map", path, &code);
    EXPECT_EQ(code, 3) << g.dump(2);
    const nlohmann::json* compiles = PuzzleCheck::rule(g, "compiles");
    ASSERT_NE(compiles, nullptr) << g.dump(2);
    EXPECT_NE(compiles->at("reason").get<std::string>().find("is not a regular file"),
              std::string::npos)
        << g.dump(2);
  }
  const std::string folder = dir / "odd";
  std::filesystem::create_directories(folder);
  test::write_text(folder + "/alice.cu", test::read_all(kSolutions + "map.cu"));
  std::filesystem::create_symlink("/dev/zero", folder + "/zero.cu");
  ASSERT_EQ(::mkfifo((folder + "/pipe.cu").c_str(), 0600), 0);
  const testing::CliRun r = testing::run_cli("check map '" + folder + "'", false);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1 of 1 solutions pass"), std::string::npos) << r.out;
}

#endif  // TS_CLI_PATH

}  // namespace
}  // namespace ts
