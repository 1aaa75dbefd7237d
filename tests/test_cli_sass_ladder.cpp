// `tilescope-cli sass LESSON [--json]` and `tilescope-cli bench --ladder
// FAMILY` run as a user runs them, on what a user gets wrong: a lesson or a
// family that does not exist, a parameter the lesson does not read, a lesson
// the compiled-code table has no kernel of, --input on a ladder whose library
// line is not timed on it, a report onto a folder or /dev/full, standard
// output that cannot be written. Each says what is wrong, exits with the
// code cli/main.cpp documents (1 could not do it, 2 usage error) and never
// crashes. Lessons and families are picked by property, never by id.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_process.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/compiled_code.hpp"
#include "engine/perf.hpp"
#include "io/ladder.hpp"
#include "temp_files.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

#ifdef TS_CLI_PATH

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// `tilescope-cli <args>` with its standard output sent to `stdout_to` and
// its standard error captured.
testing::CliRun run_cli_stdout_to(const std::string& args, const std::string& stdout_to) {
  testing::CliRun r;
  const std::string cmd =
      std::string("'") + TS_CLI_PATH + "' " + args + " 2>&1 >'" + stdout_to + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// ---------------------------------------------------------------- sass

TEST(CliSass, AnUnknownLessonIsAUsageErrorThatListsTheLessons) {
  const auto text = testing::run_cli("sass no_such.lesson", true);
  EXPECT_EQ(text.code, 2) << text.out;
  EXPECT_TRUE(has(text.out, "unknown lesson 'no_such.lesson'")) << text.out;
  EXPECT_TRUE(has(text.out, all_lessons().front().id)) << "the message lists the lessons";

  const auto json = testing::run_cli("sass no_such.lesson --json", false);  // stdout alone
  EXPECT_EQ(json.code, 2) << json.out;
  const nlohmann::json j = nlohmann::json::parse(json.out);  // throws (fails) if not JSON
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["usage_error"], true);
  EXPECT_TRUE(has(j["error"].get<std::string>(), "unknown lesson")) << json.out;

  const auto none = testing::run_cli("sass", true);
  EXPECT_EQ(none.code, 2) << none.out;
  EXPECT_TRUE(has(none.out, "lesson")) << none.out;
}

TEST(CliSass, ATileThatIsNotCompiledIsAUsageError) {
  const LessonInfo& v = picks::first_with("tiled (reads the tile)", [](const LessonInfo& l) {
    return picks::reads(l, kUsesTile) && l.tile_choices.empty();
  });
  const auto r = testing::run_cli(std::string("sass ") + v.id + " --tile 3 --json", false);
  EXPECT_EQ(r.code, 2) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["usage_error"], true);
  EXPECT_TRUE(has(j["error"].get<std::string>(), "tile 3")) << r.out;
}

// A parameter the lesson does not read is said and ignored, as `run` does:
// the kernel shown is the defaults' one.
TEST(CliSass, AParameterTheLessonDoesNotReadIsSaidAndIgnored) {
  const LessonInfo& v = picks::first_with("without a tile", [](const LessonInfo& l) {
    return !picks::reads(l, kUsesTile) && l.metric == PerfMetric::Bytes;
  });
  const auto r = testing::run_cli(std::string("sass ") + v.id + " --tile 8", true);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, std::string(v.id) + " does not use --tile; ignored")) << r.out;
  const CompiledKernel* k = compiled_kernel(*lesson_index(v.id), v.defaults);
  ASSERT_NE(k, nullptr) << v.id;
  EXPECT_TRUE(has(r.out, std::string(k->body))) << r.out;
}

// The compiled-code table is made by scripts/sass_table.sh and kept in the
// tree: a lesson added or edited (or a tile choice compiled) since has no
// current kernel there. `sass` says so and how to remake it; it does not
// crash on the missing entry.
TEST(CliSass, ALessonWithoutCompiledCodeSaysHowToMakeIt) {
  const auto lessons = all_lessons();
  const LessonInfo* missing = nullptr;
  Params at;
  for (size_t i = 0; i < lessons.size() && !missing; ++i) {
    const LessonInfo& v = lessons[i];
    std::vector<int> tiles = {v.defaults.tile};
    if (v.uses & kUsesTile) tiles = lesson_kit::tile_values(v);
    for (int t : tiles) {
      Params p = v.defaults;
      p.tile = t;
      if (check_lesson_limits(v, p, DeviceLimits{})) continue;  // refused before the table
      if (!compiled_kernel(i, p)) {
        missing = &v;
        at = p;
        break;
      }
    }
  }
  if (!missing)
    GTEST_SKIP() << "every lesson and compiled tile has its kernel in this build's table: "
                    "nothing to ask for";
  std::string args = std::string("sass ") + missing->id;
  if (missing->uses & kUsesTile) args += " --tile " + std::to_string(at.tile);
  const auto text = testing::run_cli(args, true);
  EXPECT_EQ(text.code, 1) << text.out;
  EXPECT_TRUE(has(text.out, "the compiled-code table for " + std::string(missing->id)) ||
              has(text.out, "the compiled-code table has no entry for " + std::string(missing->id)))
      << text.out;
  EXPECT_TRUE(has(text.out, compiled_code_note(*lesson_index(missing->id), at))) << text.out;
  EXPECT_TRUE(has(text.out, "scripts/sass_table.sh")) << text.out;
  const auto json = testing::run_cli(args + " --json", false);
  EXPECT_EQ(json.code, 1) << json.out;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_FALSE(j.value("usage_error", false)) << "the lesson exists: not a usage error";
}

// `sass --json > /dev/full`: the JSON never arrived, so the command failed.
TEST(CliSass, StandardOutputThatCannotBeWrittenIsAFailure) {
  const LessonInfo& v = all_lessons().front();
  for (const char* mode : {" --json", ""}) {
    const auto r = run_cli_stdout_to(std::string("sass ") + v.id + mode, "/dev/full");
    EXPECT_EQ(r.code, 1) << mode << ": " << r.out;
    EXPECT_TRUE(has(r.out, "tilescope-cli sass: cannot write the standard output")) << r.out;
  }
  // A usage error stays one, whatever happened to its JSON.
  const auto bad = run_cli_stdout_to("sass no_such.lesson --json", "/dev/full");
  EXPECT_EQ(bad.code, 2) << bad.out;
}

// ---------------------------------------------------------------- bench --ladder

// The family of a ladder (a family ladder is named after it; the SGEMM ladder's steps say theirs).
std::string family_of(const std::string& ladder) {
  const auto steps = ladder_lessons(ladder);
  return steps.empty() ? std::string() : std::string(steps.front()->family);
}

bool library_line_on(const std::string& family, LibraryInput in) {
  for (const LibraryAnchor& a : kLibraryAnchors)
    if (a.family == family && a.input == in) return true;
  return false;
}

TEST(CliBenchLadder, AnUnknownFamilyListsEveryLadder) {
  for (const std::string& name :
       {std::string("no_such_family"), std::string(all_lessons()[0].id)}) {
    const auto r = testing::run_cli("bench --ladder '" + name + "'", true);
    EXPECT_EQ(r.code, 2) << name << ": " << r.out;
    EXPECT_TRUE(has(r.out, "no ladder '" + name + "'")) << r.out;
    for (const std::string& l : ladder_names())
      EXPECT_TRUE(has(r.out, l)) << "the message names the ladder " << l << ": " << r.out;
  }
}

// --input uniform|one-hot is a library line's input: a ladder with no library
// line timed on it is refused at once (its table would put the lessons on one
// input beside a library line on another); one with such a line takes it.
TEST(CliBenchLadder, InputOnlyWhereALibraryLineIsTimedOnIt) {
  int refused = 0, taken = 0;
  for (const std::string& ladder : ladder_names())
    for (LibraryInput in : {LibraryInput::UniformBins, LibraryInput::OneHotBin}) {
      const std::string name = to_string(in);
      const std::string args =
          "bench --ladder " + ladder + " --input " + name + " --reps 1 --quiet";
      if (!library_line_on(family_of(ladder), in)) {
        const auto r = testing::run_cli(args, true);
        EXPECT_EQ(r.code, 2) << args << ": " << r.out;
        EXPECT_TRUE(has(r.out, "--input " + name + ": the " + ladder +
                                   " ladder has no library line timed on " + name))
            << r.out;
        EXPECT_TRUE(has(r.out, "leave --input out")) << r.out;
        ++refused;
      } else if (!cuda_status().usable) {  // with a GPU it would time the whole ladder
        const auto r = testing::run_cli(args, true);
        EXPECT_EQ(r.code, 1) << args << ": " << r.out;  // parsed and accepted; no GPU to time it
        EXPECT_TRUE(has(r.out, "Timings need an NVIDIA GPU")) << r.out;
        EXPECT_FALSE(has(r.out, "--input")) << r.out;
        ++taken;
      }
    }
  EXPECT_GT(refused, 0) << "no ladder without a library line on a histogram's input";
  if (!cuda_status().usable) EXPECT_GT(taken, 0) << "no ladder with a library line on one";

  const auto bogus =
      testing::run_cli("bench --ladder " + ladder_names().back() + " --input x", true);
  EXPECT_EQ(bogus.code, 2) << bogus.out;
  EXPECT_TRUE(has(bogus.out, "--input x: use small-integers, uniform or one-hot")) << bogus.out;
}

// A family with a library line: its report is what --json writes.
std::string family_with_library() {
  return kLibraryAnchors[0].family;
}

// A folder is refused before the sweep, with or without --force, and stays a folder.
TEST(CliBenchLadder, JsonOntoAFolderIsRefusedBeforeTheSweep) {
  ts::test::TempDir d("ts_cli_sass_ladder_", "folder");
  for (const char* force : {"", " --force"}) {
    const auto r = testing::run_cli("bench --ladder " + family_with_library() +
                                        " --lengths 4096 --reps 1 --quiet --json '" +
                                        d.path.string() + "'" + force,
                                    true);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_TRUE(has(r.out, "cannot write " + d.path.string() + ": it is a directory")) << r.out;
    EXPECT_FALSE(has(r.out, "no timings")) << "refused after the sweep: " << r.out;
    EXPECT_TRUE(std::filesystem::is_directory(d.path));
  }
}

TEST(CliBenchLadder, JsonOntoDevFullIsAFailureWithTheReason) {
  const auto r = testing::run_cli("bench --ladder " + family_with_library() +
                                      " --lengths 4096 --reps 1 --no-copy --no-library --quiet "
                                      "--json /dev/full",
                                  true);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_FALSE(has(r.out, "wrote /dev/full")) << r.out;
  if (!cuda_status().usable)  // no timings: a report without them is never written
    EXPECT_TRUE(has(r.out, "bench: nothing written")) << r.out;
  else
    EXPECT_TRUE(has(r.out, "cannot write /dev/full: No space left on device")) << r.out;
}

#endif  // TS_CLI_PATH

}  // namespace
}  // namespace ts
