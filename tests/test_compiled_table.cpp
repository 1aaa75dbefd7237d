// The compiled-code table's files (engine/compiled/compiled_table.hpp,
// scripts/sass_table.py's format): the reader turns a file into its lesson's
// kernels; a file made from other sources, a missing one and a malformed one
// each turn off that lesson's compiled view only, with a message; and the
// copy kept in the tree is current for every lesson but those named in
// lessons/compiled/sm_90/pending.txt, which names no lesson that is current.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "engine/compiled/compiled_table.hpp"
#include "engine/lesson_dispatch.hpp"
#include "tests/temp_files.hpp"

namespace ts::compiled {
namespace {

namespace fs = std::filesystem;

const fs::path kTree = fs::path(TS_SOURCE_DIR) / "lessons/compiled/sm_90";
const std::string kRemake = "run scripts/sass_table.sh (needs nvcc and nvdisasm)";

// "lessons/scan_blelloch.hpp" -> "scan_blelloch".
std::string name_of(const LessonInfo& v) {
  return fs::path(v.source_file).stem().string();
}

std::string path_of(const std::string& name) {
  return "lessons/compiled/sm_90/" + name + ".tsv";
}

LessonTable read(const LessonInfo& v, const CompiledFile* f,
                 std::span<const SourceHash> current = kSourceHashes) {
  const std::string name = name_of(v);
  return read_lesson_table(v.id, name, f, path_of(name), current);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The lines of a file's text that start with `key` and a tab, without the key.
std::vector<std::string> records(std::string_view text, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + "\t", 0) == 0) out.push_back(line.substr(key.size() + 1));
  return out;
}

// The first built-in lesson whose embedded file is current, and that file.
struct Pick {
  const LessonInfo* lesson = nullptr;
  const CompiledFile* file = nullptr;
};
Pick current_lesson() {
  for (size_t i = 0; i < kLessonCount; ++i) {
    const LessonInfo& v = all_lessons()[i];
    const CompiledFile* f = find_file(kFiles, name_of(v));
    if (f && read(v, f).status.current()) return {&v, f};
  }
  ADD_FAILURE() << "no lesson's compiled-code table is current";
  return {&all_lessons()[0], nullptr};
}

// The committed list of lessons whose tables wait for a machine with nvdisasm.
std::set<std::string> pending() {
  std::set<std::string> out;
  std::istringstream in(test::read_all(kTree / "pending.txt"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.insert(line);
  return out;
}

// What keeps the table in the tree honest without making every lesson edit a
// suite failure on a machine that cannot remake it: a stale or missing
// lesson must be named in pending.txt (a session with nvcc and nvdisasm
// remakes it, and scripts/sass_table.sh takes it off the list), and a lesson
// named there must really be stale.
TEST(CompiledTable, InTheTreeOnlyThePendingLessonsAreStale) {
  ASSERT_TRUE(fs::exists(kTree / "pending.txt")) << kTree;
  const std::set<std::string> waiting = pending();
  std::vector<std::string> texts;
  std::set<std::string> ids, names;
  for (size_t i = 0; i < kLessonCount; ++i) {
    const LessonInfo& v = all_lessons()[i];
    ids.insert(v.id);
    names.insert(name_of(v));
    const fs::path file = kTree / (name_of(v) + ".tsv");
    const std::string text = fs::exists(file) ? test::read_all(file) : "";
    const CompiledFile f{"", text};
    const LessonTable t = read(v, fs::exists(file) ? &f : nullptr);
    if (t.status.current()) {
      EXPECT_FALSE(waiting.count(v.id))
          << v.id << "'s table is current: take it off " << kTree / "pending.txt";
    } else {
      EXPECT_TRUE(waiting.count(v.id))
          << t.status.message << ". Where nvcc and nvdisasm are missing, name " << v.id << " in "
          << kTree / "pending.txt"
          << " instead: a session with them remakes it (docs/architecture.md).";
    }
  }
  for (const std::string& id : waiting)
    EXPECT_TRUE(ids.count(id)) << "pending.txt names " << id << ", which is no lesson";
  for (const auto& e : fs::directory_iterator(kTree)) {
    if (e.path().extension() == ".tsv") {
      EXPECT_TRUE(names.count(e.path().stem().string()))
          << e.path() << " is the table of no lesson (lessons/CMakeLists.txt): remove it";
    }
  }
}

// Every current file the build embedded reads into its lesson's kernels, one
// access per offset written (copies in a row are one record).
TEST(CompiledTable, EveryCurrentFileReadsIntoItsLessonsKernels) {
  int read_ones = 0;
  for (size_t i = 0; i < kLessonCount; ++i) {
    const LessonInfo& v = all_lessons()[i];
    const CompiledFile* f = find_file(kFiles, name_of(v));
    if (!f) continue;
    const LessonTable t = read(v, f);
    if (!t.status.current()) continue;
    ++read_ones;
    EXPECT_TRUE(t.status.message.empty()) << t.status.message;
    EXPECT_TRUE(has(t.status.origin, "nvcc")) << t.status.origin;
    EXPECT_EQ(t.kernels.size(), records(f->text, "kernel").size()) << v.id;
    size_t offsets = 0, in_kernels = 0;
    std::istringstream in{std::string(f->text)};
    for (std::string line; std::getline(in, line);)
      if (std::count(line.begin(), line.end(), '\t') == 8)
        offsets += size_t(std::count(line.begin(), line.end(), ',')) + 1;
    for (const CompiledKernel& k : t.kernels) {
      in_kernels += k.accesses.size();
      EXPECT_EQ(k.body.rfind("ts::lessons::" + name_of(v) + "::", 0), 0u) << k.body;
      EXPECT_EQ(k.arch, kCompiledArch);
    }
    EXPECT_EQ(in_kernels, offsets) << v.id;
    EXPECT_TRUE(std::is_sorted(t.kernels.begin(), t.kernels.end(),
                               [](const auto& a, const auto& b) { return a.body < b.body; }));
  }
  EXPECT_GT(read_ones, 0);
}

// One byte of a recorded source hash changed: the file was made from other
// sources than these, and the lesson says which and how to remake it.
TEST(CompiledTable, AFileMadeFromOtherSourcesIsStale) {
  const Pick p = current_lesson();
  ASSERT_NE(p.file, nullptr);
  const std::string own = "lessons/" + name_of(*p.lesson) + ".hpp";
  std::string text(p.file->text);
  const size_t at = text.find("source\t" + own + "\t");
  ASSERT_NE(at, std::string::npos) << "the table lists its lesson's own header";
  char& digit = text[at + 8 + own.size()];
  digit = digit == '0' ? '1' : '0';
  const CompiledFile altered{p.file->name, text};
  const LessonTable t = read(*p.lesson, &altered);
  EXPECT_EQ(t.status.state, CompiledState::Stale);
  EXPECT_EQ(t.status.message, "the compiled-code table for " + std::string(p.lesson->id) +
                                  " was made from other sources (" + own +
                                  " changed): the counts follow the source; " + kRemake);
  EXPECT_TRUE(t.kernels.empty());
}

// A kit edited (its hash as built differs): exactly the lessons that include
// it go stale, every other lesson keeps its compiled view.
TEST(CompiledTable, AnEditedKitStalesOnlyTheLessonsThatIncludeIt) {
  const Pick p = current_lesson();
  ASSERT_NE(p.file, nullptr);
  std::string kit;
  for (const std::string& s : records(p.file->text, "source"))
    if (s.find("_kit.hpp\t") != std::string::npos) kit = s.substr(0, s.find('\t'));
  ASSERT_FALSE(kit.empty()) << p.lesson->id << " includes no family kit";
  const std::string altered(16, 'f');  // no SHA-256 of the kit as it is
  std::vector<SourceHash> edited(kSourceHashes.begin(), kSourceHashes.end());
  for (SourceHash& h : edited)
    if (h.path == kit) h.hash = altered;
  int stale = 0, kept = 0;
  for (size_t i = 0; i < kLessonCount; ++i) {
    const LessonInfo& v = all_lessons()[i];
    const CompiledFile* f = find_file(kFiles, name_of(v));
    if (!f || !read(v, f).status.current()) continue;
    const bool uses = has(std::string(f->text), "source\t" + kit + "\t");
    const LessonTable t = read(v, f, edited);
    EXPECT_EQ(t.status.state, uses ? CompiledState::Stale : CompiledState::Current) << v.id;
    if (uses) {
      EXPECT_TRUE(has(t.status.message, "(" + kit + " changed)")) << t.status.message;
    }
    (uses ? stale : kept)++;
  }
  EXPECT_GT(stale, 0);
  EXPECT_GT(kept, 0) << "a kit's edit stales its family, not every lesson";
}

// A lesson without a file (added since the table was made): that lesson's
// compiled view is off with the message, every other lesson's is as before.
TEST(CompiledTable, AMissingFileTurnsOffThatLessonOnly) {
  const Pick p = current_lesson();
  ASSERT_NE(p.file, nullptr);
  std::vector<CompiledFile> fewer;
  for (const CompiledFile& f : kFiles)
    if (f.name != p.file->name) fewer.push_back(f);
  for (size_t i = 0; i < kLessonCount; ++i) {
    const LessonInfo& v = all_lessons()[i];
    const LessonTable t = read(v, find_file(fewer, name_of(v)));
    if (&v == p.lesson) {
      EXPECT_EQ(t.status.state, CompiledState::Missing);
      EXPECT_EQ(t.status.message, "the compiled-code table has no entry for " + std::string(v.id) +
                                      " (" + path_of(name_of(v)) +
                                      "): the counts follow the source; " + kRemake);
    } else {
      EXPECT_EQ(t.status.state, read(v, find_file(kFiles, name_of(v))).status.state) << v.id;
    }
  }
}

// A file that is not a table of the lesson is refused at the line that is wrong.
TEST(CompiledTable, AMalformedFileIsUnreadableAtItsLine) {
  const Pick p = current_lesson();
  ASSERT_NE(p.file, nullptr);
  const std::string text(p.file->text);
  const auto unreadable = [&](const std::string& altered, const std::string& why) {
    const CompiledFile f{p.file->name, altered};
    const LessonTable t = read(*p.lesson, &f);
    EXPECT_EQ(t.status.state, CompiledState::Unreadable) << why;
    EXPECT_TRUE(has(t.status.message, "the compiled-code table for " + std::string(p.lesson->id) +
                                          " cannot be read (" + path_of(name_of(*p.lesson))))
        << t.status.message;
    EXPECT_TRUE(has(t.status.message, why)) << t.status.message;
    EXPECT_TRUE(has(t.status.message, kRemake)) << t.status.message;
    EXPECT_TRUE(t.kernels.empty());
  };
  // The first instruction's space made unknown: the line is named.
  const size_t kernel = text.find("\nkernel\t");
  ASSERT_NE(kernel, std::string::npos);
  const size_t first = text.find('\n', kernel + 1) + 1;
  std::string bad_space = text;
  size_t field = first;  // the start of the line's fourth field, the space
  for (int tab = 0; tab < 3; ++tab)
    field = bad_space.find('\t', field) + 1;
  bad_space.replace(field, bad_space.find('\t', field) - field, "local");
  const size_t line = size_t(std::count(text.begin(), text.begin() + long(first), '\n')) + 1;
  unreadable(bad_space, "line " + std::to_string(line) + ": a malformed instruction");
  // Another lesson's file under this lesson's name.
  std::string other = text;
  other.replace(other.find("lesson\t") + 7, std::string(p.lesson->id).size(), "other.lesson");
  unreadable(other, "it is the table of 'other.lesson'");
  // Another architecture.
  std::string arch = text;
  arch.replace(arch.find("arch\tsm_90"), 10, "arch\tsm_80");
  unreadable(arch, "it is for 'sm_80'");
  // A kernel that is not the lesson's.
  std::string foreign = text;
  foreign.replace(foreign.find("kernel\tts::lessons::") + 20, name_of(*p.lesson).size(), "other");
  unreadable(foreign, "is not the lesson's");
}

// Where the table came from, as `sass` and the reports say it.
TEST(CompiledTable, OriginSaysTreeOrBuild) {
  const Pick p = current_lesson();
  ASSERT_NE(p.file, nullptr);
  std::string text(p.file->text);
  const std::string nvcc = records(text, "nvcc").at(0);
  const std::string release = nvcc.substr(0, nvcc.find('.', nvcc.find('.') + 1));
  const size_t origin = text.find("\norigin\t") + 8;
  text.replace(origin, text.find('\n', origin) - origin, "tree");
  const CompiledFile tree{p.file->name, text};
  EXPECT_EQ(
      read(*p.lesson, &tree).status.origin,
      "the copy kept in the tree (" + path_of(name_of(*p.lesson)) + ", nvcc " + release + ")");
  text.replace(origin, 4, "build\nnvdisasm\t13.0");
  const CompiledFile build{p.file->name, text};
  EXPECT_EQ(read(*p.lesson, &build).status.origin,
            "generated at build time (nvcc " + release + ", nvdisasm 13.0)");
}

}  // namespace
}  // namespace ts::compiled
