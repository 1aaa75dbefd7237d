// The README's lesson table is `tilescope-cli list --json` made into
// Markdown: this test makes it again from the program and compares (issue 33:
// the table listed 37 lessons where the program had 53). When a lesson is
// added, renamed or removed it fails with the table to paste; with
// TS_UPDATE_README=1 it writes the table into README.md itself:
//   TS_UPDATE_README=1 build/proj/tests/app/ts_app_tests --gtest_filter='Readme.*'
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {

const char* kBegin =
    "<!-- lessons: made from tilescope-cli list --json (tests/app/test_readme.cpp) -->";
const char* kEnd = "<!-- lessons: end -->";

std::string run_list() {
#ifdef TS_CLI_PATH
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(TS_CLI_PATH " list --json", "r"), pclose);
  if (!p) return out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p.get())) > 0)
    out.append(buf.data(), n);
  return out;
#else
  return {};
#endif
}

// A cell of a Markdown table: no '|' and no line break inside.
std::string cell(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  std::string out;
  for (char c : s)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// The table: family by family, in the program's order.
std::string table(const nlohmann::json& lessons) {
  std::ostringstream t;
  t << kBegin << "\n\n";
  t << "| lesson | what it shows | barriers |\n|---|---|---|\n";
  for (const nlohmann::json& v : lessons) {
    const std::string summary = v.value("summary", "");
    const size_t barriers = v["barriers"].size();
    t << "| `" << v["id"].get<std::string>() << "` | "
      << cell(summary.empty() ? v["title"].get<std::string>() : summary) << " | "
      << (barriers ? std::to_string(barriers) : std::string("–")) << " |\n";
  }
  t << "\n"
    << lessons.size() << " lessons (`tilescope-cli list` prints them with their parameters).\n\n"
    << kEnd;
  return t.str();
}

TEST(Readme, TheLessonTableIsTheProgramsList) {
  const std::string listed = run_list();
  ASSERT_FALSE(listed.empty()) << "tilescope-cli list --json printed nothing";
  const nlohmann::json lessons = nlohmann::json::parse(listed, nullptr, false);
  ASSERT_TRUE(lessons.is_array() && !lessons.empty());
  const std::string want = table(lessons);
  const std::string path = std::string(TS_SOURCE_DIR) + "/README.md";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string readme = ss.str();
  const size_t b = readme.find(kBegin), e = readme.find(kEnd);
  ASSERT_NE(b, std::string::npos) << "README.md has no '" << kBegin << "' line";
  ASSERT_NE(e, std::string::npos) << "README.md has no '" << kEnd << "' line";
  const std::string have = readme.substr(b, e + std::string(kEnd).size() - b);
  if (have != want && std::getenv("TS_UPDATE_README")) {
    readme.replace(b, have.size(), want);
    std::ofstream(path) << readme;
    return;
  }
  EXPECT_EQ(have, want) << "the README's lesson table is out of step with the program; run\n"
                           "  TS_UPDATE_README=1 ts_app_tests --gtest_filter='Readme.*'\n";
}

}  // namespace
