// What the puzzle tests share (tests/test_puzzles.cpp, tests/test_puzzles_cu.cpp):
// the sources' folders, the puzzles' ids, and `check` through the built
// tilescope-cli with a plug-in cache of the tests' own.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "engine/puzzles.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts {

inline const std::string kSolutions = std::string(TS_SOURCE_DIR) + "/tests/puzzle_solutions/";
inline const std::string kPuzzles = std::string(TS_SOURCE_DIR) + "/assets/puzzles";

// A wrong solution: lines of a reference solution replaced.
struct Edit {
  const char* marker;       // the reference's line marked `// @<marker>`
  const char* replacement;  // one or more lines
};
struct Wrong {
  const char* puzzle;
  const char* name;
  std::vector<Edit> edits;
  const char* rule;    // the rule that fails
  const char* reason;  // in its reason
  // Lines (by marker, of the edited text) the failure must name: among the
  // racing pair's two lines, or the budget's worst line.
  std::vector<const char*> lines = {};
  // The output is right (a race latent in lockstep, a budget).
  bool output_right = false;
};

// The test's name in failure messages (not its bytes).
inline void PrintTo(const Wrong& w, std::ostream* os) {
  *os << w.puzzle << " " << w.name;
}

inline std::vector<std::string> puzzle_ids() {
  std::vector<std::string> ids;
  for (const puzzles::PuzzleSetup& s : puzzles::all_setups())
    ids.emplace_back(s.id);
  return ids;
}

#ifdef TS_CLI_PATH

// The plug-ins of every check in one cache of the tests' own (never the
// user's): a second ctest run loads them at once.
struct PuzzleCheck : ::testing::Test {
  test::TempDir dir{"ts_puzzle_", ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  static std::string cache() {
    return (std::filesystem::temp_directory_path() /
            ("ts_puzzle_cache_" + std::to_string(::getuid())))
        .string();
  }
  void SetUp() override {
    ::setenv("XDG_CACHE_HOME", cache().c_str(), 1);
    ::setenv("TILESCOPE_PUZZLES", kPuzzles.c_str(), 1);
    ::setenv("TILESCOPE_PROGRESS", (dir / "progress.json").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("TILESCOPE_PUZZLES");
    ::unsetenv("TILESCOPE_PROGRESS");
  }
  // `check puzzle file --json`: the exit code and the grade.
  static nlohmann::json check(const std::string& puzzle, const std::string& file, int* code) {
    const testing::CliRun r = testing::run_cli("check " + puzzle + " " + file + " --json", false);
    *code = r.code;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    return j.is_discarded() ? nlohmann::json{{"unparsed", r.out}} : j;
  }
  static const nlohmann::json* rule(const nlohmann::json& grade, const std::string& name) {
    for (const auto& r : grade["rules"])
      if (r["rule"] == name) return &r;
    return nullptr;
  }
  // `w` made from tests/puzzle_solutions/<puzzle><ext> fails `check` with its
  // rule and reason, naming its lines.
  void expect_fails(const Wrong& w, const std::string& ext) {
    std::string text = test::read_all(kSolutions + std::string(w.puzzle) + ext);
    for (const Edit& e : w.edits)  // the replacement keeps the marker, for the lines below
      text = test::with_line(text, std::string("@") + e.marker,
                             std::string(e.replacement) + "  // @" + e.marker);
    const std::string path = dir / (std::string(w.puzzle) + "_" + w.name + ext);
    test::write_text(path, text);
    int code = 0;
    const nlohmann::json g = check(w.puzzle, path, &code);
    EXPECT_EQ(code, 3) << g.dump(2);
    EXPECT_EQ(g["passed"], false);
    ASSERT_TRUE(g.contains("rules")) << g.dump(2);
    EXPECT_EQ(rule(g, "compiles")->at("status"), "pass") << g.dump(2);
    const nlohmann::json* r = rule(g, w.rule);
    ASSERT_NE(r, nullptr) << w.rule << "\n" << g.dump(2);
    EXPECT_EQ(r->at("status"), "fail") << g.dump(2);
    EXPECT_NE(r->at("reason").get<std::string>().find(w.reason), std::string::npos)
        << "want \"" << w.reason << "\" in\n"
        << r->at("reason").get<std::string>();
    const std::set<int> named = {r->value("line", 0), r->value("other_line", 0)};
    for (const char* m : w.lines)
      EXPECT_TRUE(named.count(test::line_of(text, std::string("@") + m)))
          << "line " << test::line_of(text, std::string("@") + m) << " (@" << m << ") in\n"
          << r->dump(2);
    if (w.output_right) {
      EXPECT_EQ(rule(g, "output")->at("status"), "pass") << g.dump(2);
    }
  }
};

#endif  // TS_CLI_PATH

}  // namespace ts
