// The plug-in cache (engine/plugin_cache.cpp) is a place nobody else can
// plant code in: a folder of the user's own, and each plug-in's SHA-256
// checked before it loads (issue 31, item 1).
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/lesson_file_compile.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;
using lesson_file_detail::sha256_hex;

TEST(LessonFileCacheSeal, Sha256OfTheStandardVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

#ifdef TS_CLI_PATH

struct LessonFileCache : ::testing::Test {
  test::TempDir dir{"ts_plugin_cache_",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  void SetUp() override { ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1); }
  void TearDown() override {
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("TMPDIR");
    if (!home.empty()) ::setenv("HOME", home.c_str(), 1);
  }
  std::string plugins() const { return dir / "cache/tilescope/plugins"; }
  std::string file(const std::string& name, const std::string& text) {
    test::write_text(dir / name, text);
    return dir / name;
  }
  // `run --lesson-file path --json`: its exit code, its JSON, stderr in `err`.
  nlohmann::json run(const std::string& path, int* code, std::string* err = nullptr) {
    const std::string err_file = dir / "stderr";
    const testing::CliRun r = testing::run_cli(
        "run --lesson-file " + path + " --json 2>" + err_file + "; exit $?", false);
    *code = r.code;
    if (err) *err = test::read_all(err_file);
    const auto j = nlohmann::json::parse(r.out.substr(std::min(r.out.find('{'), r.out.size())),
                                         nullptr, false);
    return j.is_discarded() ? nlohmann::json{{"unparsed", r.out}} : j;
  }
  static unsigned mode(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? unsigned(st.st_mode & 07777) : 0u;
  }
};

TEST_F(LessonFileCache, MadePrivateWithNothingTemporaryLeft) {
  int code = 0;
  const auto j = run(file("reverse.hpp", test::kReverseLesson), &code);
  ASSERT_EQ(code, 0) << j.dump();
  EXPECT_EQ(mode(dir / "cache/tilescope"), 0700u);
  EXPECT_EQ(mode(plugins()), 0700u);
  std::string names;
  for (const auto& e : fs::directory_iterator(plugins()))
    names += e.path().extension().string() + " ";
  EXPECT_EQ(names.find(".tmp"), std::string::npos) << names;
  EXPECT_EQ(names.find(".cpp"), std::string::npos) << names;
  EXPECT_NE(names.find(".sha256"), std::string::npos) << names;
}

TEST_F(LessonFileCache, ReplacedPluginIsRefusedAndCompiledAgain) {
  const std::string mine = file("reverse.hpp", test::kReverseLesson);
  std::string planted_text = test::kReverseLesson;
  planted_text.replace(planted_text.find("Reverse each block"), 18, "Planted by another");
  const std::string planted = file("planted.hpp", planted_text);
  int code = 0;
  run(mine, &code);
  ASSERT_EQ(code, 0);
  std::string first_so;
  for (const auto& e : fs::directory_iterator(plugins()))
    if (e.path().extension() == ".so") first_so = e.path();
  ASSERT_FALSE(first_so.empty());
  run(planted, &code);
  ASSERT_EQ(code, 0);
  std::string planted_so;
  for (const auto& e : fs::directory_iterator(plugins()))
    if (e.path().extension() == ".so" && e.path() != first_so) planted_so = e.path();
  ASSERT_FALSE(planted_so.empty());
  // Another plug-in put where the lesson's own is (as a user who could write
  // there would): refused, compiled again, and the lesson runs as written.
  fs::copy_file(planted_so, first_so, fs::copy_options::overwrite_existing);
  std::string err;
  const auto j = run(mine, &code, &err);
  ASSERT_EQ(code, 0) << j.dump() << err;
  EXPECT_FALSE(j["lesson_file"]["cached"].get<bool>()) << j.dump();
  EXPECT_NE(err.find("is not the one TileScope made"), std::string::npos) << err;
  const auto again = run(mine, &code);
  EXPECT_TRUE(again["lesson_file"]["cached"].get<bool>()) << again.dump();
}

TEST_F(LessonFileCache, CacheOthersMayWriteIsRefused) {
  fs::create_directories(plugins());
  ::chmod(plugins().c_str(), 0777);
  int code = 0;
  std::string err;
  run(file("reverse.hpp", test::kReverseLesson), &code, &err);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("may be written by others (mode 0777)"), std::string::npos) << err;
  ::chmod(plugins().c_str(), 0700);
  ::chmod((dir / "cache/tilescope").c_str(), 0775);
  run(file("reverse.hpp", test::kReverseLesson), &code, &err);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("tilescope may be written by others (mode 0775)"), std::string::npos) << err;
}

TEST_F(LessonFileCache, CacheOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "skipped: giving a folder to another user needs root";
  fs::create_directories(plugins());
  ASSERT_EQ(::chown(plugins().c_str(), 65534, 65534), 0);
  int code = 0;
  std::string err;
  run(file("reverse.hpp", test::kReverseLesson), &code, &err);
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("belongs to user 65534, not to you"), std::string::npos) << err;
}

// Without HOME or XDG_CACHE_HOME: a folder named for this user in TMPDIR, not
// a shared $TMPDIR/tilescope another user could have made first.
TEST_F(LessonFileCache, WithoutAHomeTheCacheIsPerUser) {
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  ::setenv("TMPDIR", dir.path.c_str(), 1);
  int code = 0;
  std::string err;
  const auto j = run(file("reverse.hpp", test::kReverseLesson), &code, &err);
  ASSERT_EQ(code, 0) << j.dump() << err;
  const std::string mine = dir / ("tilescope-" + std::to_string(::geteuid()));
  EXPECT_EQ(mode(mine), 0700u);
  EXPECT_EQ(mode(mine + "/plugins"), 0700u);
  EXPECT_FALSE(fs::exists(dir / "tilescope"));
}

#endif

}  // namespace
}  // namespace ts
