// The compiled-code table (engine/compiled_code.hpp) against the lessons:
// every current lesson's kernel has an entry, every access the simulator
// traces became at least one instruction on its line, float4 lines compiled
// to 16-byte instructions. A lesson whose table is stale (its sources edited
// since) is left out here and named in lessons/compiled/sm_90/pending.txt;
// tests/test_compiled_table.cpp checks that list and the file reader.
//
// Checked against the GPU once (session 9, H200, nvcc 13.0, sm_90): for the
// six kernels whose Nsight Compute source pages we have (one each of the
// reduction, stencil, conv2d, matmul, SGEMM and histogram families, profiled
// from engine/cuda/cuda_backend.cu), the generator's SASS is ncu's, instruction
// for instruction, operands included (scripts/sass_table.py --compare-ncu;
// branch targets and register-reuse flags aside, which the two disassemblers
// write differently), so the table describes the kernels that really run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/compiled_access.hpp"
#include "cli_process.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/compiled_code.hpp"
#include "engine/lesson_dispatch.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

bool current(const LessonInfo& v) {
  return compiled_code_status(*lesson_index(v.id)).current();
}

// At least this many of the lessons are checked below: the others wait in
// the pending list, which tests/test_compiled_table.cpp keeps honest.
TEST(CompiledCode, MostLessonsAreCurrent) {
  size_t n = 0;
  for (size_t i = 0; i < kLessonCount; ++i) {
    const CompiledStatus& s = compiled_code_status(i);
    if (s.current()) {
      ++n;
      EXPECT_TRUE(s.message.empty()) << s.message;
      EXPECT_FALSE(s.origin.empty()) << all_lessons()[i].id;
    } else {
      EXPECT_NE(s.message.find("scripts/sass_table.sh"), std::string::npos) << s.message;
    }
  }
  EXPECT_GE(n, kLessonCount * 3 / 4) << "most lessons' compiled-code tables are stale: remake them";
}

// Where there is no compiled kernel, the levels say why, for the user (the
// CLI's report and the window's Banks panel print it).
TEST(CompiledCode, WithoutAKernelTheLevelsSayWhy) {
  const LessonInfo& v = picks::first_with("current", current);
  RunRequest req;
  req.lesson_id = v.id;
  req.params = v.defaults;
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  ASSERT_TRUE(r.ok) << r.error;
  const AccessLevels with = access_levels(r.trace);
  EXPECT_NE(with.code, nullptr);
  EXPECT_EQ(with.why_source, "");
  EXPECT_EQ(with.origin, compiled_code_origin(*lesson_index(v.id)));
  r.trace.config.lesson_id = "no.such_lesson";
  const AccessLevels without = access_levels(r.trace);
  EXPECT_EQ(without.code, nullptr);
  EXPECT_NE(without.why_source.find("'no.such_lesson' is no lesson of this program"),
            std::string::npos)
      << without.why_source;
  // A lesson file (after the built-in lessons) has no table, and says so.
  const CompiledStatus& file = compiled_code_status(kLessonCount);
  EXPECT_EQ(file.state, CompiledState::LessonFile);
  EXPECT_NE(file.message.find("a lesson file has no compiled-code table"), std::string::npos);
  EXPECT_EQ(compiled_kernel(kLessonCount, v.defaults), nullptr);
}

TEST(CompiledCode, EveryCurrentLessonAtItsDefaultsHasAnEntry) {
  const auto lessons = all_lessons();
  for (size_t i = 0; i < kLessonCount; ++i) {
    const LessonInfo& v = lessons[i];
    if (!current(v)) continue;
    const CompiledKernel* k = compiled_kernel(i, v.defaults);
    ASSERT_NE(k, nullptr) << v.id << ": " << compiled_code_note(i, v.defaults);
    EXPECT_EQ(compiled_code_note(i, v.defaults), "");
    EXPECT_EQ(k->arch, kCompiledArch) << v.id;
    EXPECT_FALSE(k->accesses.empty()) << v.id << ": " << k->body << " has no memory instruction";
    for (const CompiledAccess& a : k->accesses) {
      EXPECT_GT(a.line, 0) << v.id << ": " << a.opcode << " at " << a.offset << " has no line";
      EXPECT_TRUE(a.bytes == 4 || a.bytes == 8 || a.bytes == 16) << v.id << " " << a.opcode;
    }
  }
}

TEST(CompiledCode, EveryTileWidthHasItsOwnEntry) {
  const LessonInfo& v = picks::first_with("tiled (reads the tile)", [](const LessonInfo& l) {
    return picks::reads(l, kUsesTile) && l.defaults.tile > 0 && current(l);
  });
  const size_t index = *lesson_index(v.id);
  std::set<std::string_view> bodies;
  int found = 0;
  for (const int t : {2, 4, 8, 16, 32}) {
    Params p = v.defaults;
    p.tile = t;
    if (const CompiledKernel* k = compiled_kernel(index, p)) {
      bodies.insert(k->body);
      ++found;
    }
  }
  EXPECT_GT(found, 1) << v.id;
  EXPECT_EQ(bodies.size(), size_t(found)) << v.id << ": two tile widths, one body";
}

enum class Class { Load, Store, Atomic };

Class class_of(EventKind k) {
  return is_load(k) ? Class::Load : is_store(k) ? Class::Store : Class::Atomic;
}
Class class_of(SassOp op) {
  return op == SassOp::Load ? Class::Load : op == SassOp::Store ? Class::Store : Class::Atomic;
}

struct Site {
  int line;
  Space space;
  Class cls;
  auto operator<=>(const Site&) const = default;
};

// The accesses of a simulator run of the lesson at its defaults, by site.
std::set<Site> traced_sites(const LessonInfo& v, std::set<Site>* wide) {
  RunRequest req;
  req.lesson_id = v.id;
  req.params = v.defaults;
  req.backend = BackendChoice::Sim;
  const RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << v.id << ": " << r.error;
  std::set<Site> sites;
  for (const Event& e : r.trace.events) {
    if (is_barrier(e.kind) || e.kind == EventKind::WarpShuffle || e.kind == EventKind::Empty)
      continue;
    const ArrayInfo* a = r.trace.array(e.array);
    const Site s{e.line, a ? a->space : Space::Global, class_of(e.kind)};
    sites.insert(s);
    if (access_bytes(e.flags) == 16) wide->insert(s);
  }
  return sites;
}

// The one way a traced access may have no instruction on its line: a store
// in each branch of an if/else, to the same place, which the compiler made
// one store after the branches (on the else's line). Found in the source, so
// that a lesson added later is judged by the same rule. How far below the
// if's store the else's may be:
constexpr int kElseReach = 3;

bool merged_with_else_store(const LessonInfo& v, const CompiledKernel& k, const Site& s) {
  if (s.cls != Class::Store) return false;
  const std::string_view text = lesson_source(v.source_file);
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  for (const CompiledAccess& a : k.accesses) {
    if (a.op != SassOp::Store || a.space != s.space || a.line <= s.line ||
        a.line > s.line + kElseReach)
      continue;
    for (int l = s.line + 1; l <= a.line && l <= int(lines.size()); ++l)
      if (lines[size_t(l - 1)].find("else") != std::string_view::npos) return true;
  }
  return false;
}

// The one way a constant read may have no instruction on its line: a
// __constant__ element at a compile-time index, hoisted out of a loop into a
// uniform register (ULDC, once per warp), which nvcc's line info puts on the
// line that uses the value (conv2d.double_buffer: the weight's read, then the
// multiply-add that takes it, 3 lines down). How far below:
constexpr int kUseReach = 3;

bool hoisted_constant(const CompiledKernel& k, const Site& s) {
  if (s.space != Space::Constant || s.cls != Class::Load) return false;
  return std::ranges::any_of(k.accesses, [&](const CompiledAccess& a) {
    return a.space == Space::Constant && a.line > s.line && a.line <= s.line + kUseReach;
  });
}

TEST(CompiledCode, EveryTracedAccessHasAnInstructionOnItsLine) {
  const auto lessons = all_lessons();
  for (size_t i = 0; i < kLessonCount; ++i) {
    const LessonInfo& v = lessons[i];
    const CompiledKernel* k = compiled_kernel(i, v.defaults);
    if (!k) continue;  // stale, or EveryCurrentLessonAtItsDefaultsHasAnEntry says so
    std::set<Site> wide;
    for (const Site& s : traced_sites(v, &wide)) {
      int found = 0, found_wide = 0;
      for (const CompiledAccess& a : k->accesses)
        if (a.line == s.line && a.space == s.space && class_of(a.op) == s.cls) {
          ++found;
          found_wide += a.bytes == 16;
        }
      if (found == 0 && (merged_with_else_store(v, *k, s) || hoisted_constant(*k, s))) continue;
      EXPECT_GT(found, 0) << v.id << ": line " << s.line << " (space " << int(s.space) << ", class "
                          << int(s.cls) << ") compiled to no instruction on it";
      if (wide.count(s))
        EXPECT_EQ(found_wide, found) << v.id << ": line " << s.line
                                     << " moves float4s, yet not all its instructions are 16 bytes";
    }
  }
}

#ifdef TS_CLI_PATH
// `tilescope-cli sass`: the table's instructions of the kernel the parameters
// pick, by source line, with the lesson's own lines quoted.
TEST(CompiledCode, CliSassListsTheKernelsInstructionsByLine) {
  const LessonInfo& v = picks::first_with("tiled (reads the tile)", [](const LessonInfo& l) {
    return picks::reads(l, kUsesTile) && l.defaults.tile > 4 && current(l);
  });
  const int tile = v.defaults.tile / 2;
  const auto run = testing::run_cli(
      std::string("sass ") + v.id + " --tile " + std::to_string(tile) + " --json", false);
  ASSERT_EQ(run.code, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  Params p = v.defaults;
  p.tile = tile;
  const CompiledKernel* k = compiled_kernel(*lesson_index(v.id), p);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(j["body"], std::string(k->body));
  EXPECT_EQ(j["origin"], std::string(compiled_code_origin(*lesson_index(v.id))));
  size_t listed = 0;
  bool quoted = false;
  for (const auto& line : j["lines"]) {
    listed += line["instructions"].size();
    quoted = quoted || !std::string(line["source"]).empty();
    EXPECT_GT(int(line["line"]), 0);
  }
  EXPECT_EQ(listed, k->accesses.size());
  EXPECT_TRUE(quoted) << "no line of the lesson's own header quoted";
  EXPECT_EQ(testing::run_cli("sass no.such_lesson", false).code, 2);
}
#endif

}  // namespace
}  // namespace ts
