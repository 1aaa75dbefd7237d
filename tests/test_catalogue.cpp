// The catalogue: the table itself, parameter checks and their messages,
// barrier lines read from the lesson headers, array tables, geometry and
// closed-form counts.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engine/catalogue.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The lines of a text's barrier statements by id (index 0 unused).
std::vector<int> barrier_lines(std::string_view text) {
  std::vector<int> lines;
  for (const BarrierStatement& b : barrier_statements(text))
    lines.push_back(b.line);
  return lines;
}

// The lessons these checks are about, each picked by what makes it the one
// to check (tests/lesson_picks.hpp).
const LessonInfo& tiled() {  // the default: square tiles, two barriers
  return picks::default_lesson();
}
const LessonInfo& naive_grid() {  // the ladder's step before tiling: a grid, no barriers
  return picks::ladder_step(2);
}
const LessonInfo& one_block() {  // n alone: one block of n x n threads
  return picks::one_block_lesson();
}
const LessonInfo& rect() {  // m, k, n and a tile
  return picks::rectangular_tiled_lesson();
}
const LessonInfo& exact_tiles() {  // reads past its arrays: whole tiles only
  return picks::overreaching_lesson();
}
const LessonInfo& rows() {  // rows of A in dynamic shared memory
  return picks::dynamic_staging_lesson(1);
}
const LessonInfo& rows_and_cols() {  // and columns of B
  return picks::dynamic_staging_lesson(2);
}
const LessonInfo& halo_global() {  // a 1D halo read from global memory
  return picks::halo_lesson(picks::Halo::Global);
}
const LessonInfo& halo_static() {  // ... staged in a fixed-size shared array
  return picks::halo_lesson(picks::Halo::StaticShared);
}
const LessonInfo& halo_dynamic() {  // ... in a dynamic one
  return picks::halo_lesson(picks::Halo::DynamicShared);
}

// The message validate() gives, or "" when the parameters are accepted.
std::string why(const LessonInfo& v, Params p, DeviceLimits lim = {}) {
  auto e = validate(v, p, lim);
  return e ? *e : std::string();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);)
    lines.push_back(l);
  return lines;
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b);
}

TEST(Catalogue, HasEveryLessonOnceWithUniqueIds) {
  // The lessons of lessons/CMakeLists.txt, in its order: the registry's.
  std::vector<std::string> listed;
  bool in_list = false;
  for (const std::string& line :
       read_lines(std::string(TS_SOURCE_DIR) + "/lessons/CMakeLists.txt")) {
    if (line.rfind("set(TS_LESSONS", 0) == 0) {
      in_list = true;
    } else if (in_list && trimmed(line) == ")") {
      break;
    } else if (in_list && !trimmed(line).empty()) {
      listed.push_back("lessons/" + trimmed(line) + ".hpp");
    }
  }
  ASSERT_EQ(listed.size(), all_lessons().size());
  for (size_t i = 0; i < listed.size(); ++i)
    EXPECT_EQ(all_lessons()[i].source_file, listed[i]) << i;
  // Ids are what files and command lines name: each follows from its file
  // name (lessons/<family>_<name>.hpp is <family>.<name>), so they stay.
  std::set<std::string> ids;
  for (const LessonInfo& v : all_lessons()) {
    ids.insert(v.id);
    const std::string file = std::string(v.family) + "_" + (v.id + std::strlen(v.family) + 1);
    EXPECT_EQ(std::string(v.id).rfind(std::string(v.family) + ".", 0), 0u) << v.id;
    EXPECT_EQ(v.source_file, "lessons/" + file + ".hpp") << v.id;
    EXPECT_EQ(find_lesson(v.id), &v) << v.id;
    EXPECT_NE(lesson_ids().find(v.id), std::string::npos) << v.id;
  }
  EXPECT_EQ(ids.size(), all_lessons().size());
  EXPECT_EQ(find_lesson("matmul.tiled_cube"), nullptr);
}

TEST(Catalogue, DefaultsRunAndTiledDefaultsShowPadding) {
  for (const LessonInfo& v : all_lessons()) {
    EXPECT_EQ(validate(v, v.defaults, DeviceLimits{}), std::nullopt) << v.id;
    // The SGEMM ladder's block tiles (tile_choices) compute whole tiles only.
    if ((v.uses & kUsesTile) && v.tile_choices.empty()) {
      EXPECT_NE(v.defaults.n % v.defaults.tile, 0) << v.id << ": size should not be a multiple";
    }
    EXPECT_FALSE(describe(v, v.defaults).empty());
  }
  EXPECT_EQ(describe(tiled(), Params{.n = 10, .tile = 4, .block = 99}), "n=10 tile=4");
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

TEST(BarrierLines, StatementsCountCommentsDoNot) {
  const std::string text =
      "// SYNCTHREADS(1) in a comment is no barrier\n"          // line 1
      "void k() {\n"                                            // 2
      "  load();\n"                                             // 3
      "  SYNCTHREADS(2);  // the second, written first\n"       // 4
      "  /* SYNCTHREADS(3); */\n"                               // 5
      "  * SYNCTHREADS(3); in a block comment\n"                // 6
      "\tSYNCTHREADS(1);\n"                                     // 7: a tab before it
      "  SYNCTHREADS(2);  // repeated: the first one counts\n"  // 8
      "  SYNCTHREADS(id);  // not a number\n"                   // 9
      "  SYNCTHREADS(0);  // ids start at 1\n"                  // 10
      "  SYNCTHREADS(5);\n"                                     // 11
      "}\n";
  const std::vector<int> lines = barrier_lines(text);
  ASSERT_EQ(lines.size(), 6u) << "index 0 unused, ids 1 to 5";
  EXPECT_EQ(lines[0], 0);
  EXPECT_EQ(lines[1], 7);
  EXPECT_EQ(lines[2], 4);
  EXPECT_EQ(lines[3], 0) << "only comments mention barrier 3";
  EXPECT_EQ(lines[4], 0) << "barrier 4 does not occur";
  EXPECT_EQ(lines[5], 11);
  // No statement at all; the last line without a newline still counts.
  EXPECT_EQ(barrier_lines("// SYNCTHREADS(1);\nint x;\n"), std::vector<int>{0});
  EXPECT_EQ(barrier_lines(""), std::vector<int>{0});
  EXPECT_EQ(barrier_lines("a\nb\n  SYNCTHREADS(1);"), (std::vector<int>{0, 3}));
}

// The registry takes every barrier's line from the lesson's header: each is
// a `SYNCTHREADS(id);` statement of the lesson's kernel function, and the
// function has no other barrier.
TEST(BarrierLines, EveryLessonsBarriersPointAtSyncthreadsInItsHeader) {
  for (const LessonInfo& v : all_lessons()) {
    const std::string_view source = lesson_source(v.source_file);
    ASSERT_FALSE(source.empty()) << v.id << ": " << v.source_file << " is not embedded";
    // The embedded text is the header as it is on disk.
    const auto on_disk = read_lines(std::string(TS_SOURCE_DIR) + "/" + v.source_file);
    std::vector<std::string> lines = split_lines(source);
    if (!lines.empty() && lines.back().empty()) lines.pop_back();  // after the final newline
    EXPECT_EQ(lines, on_disk) << v.source_file;
    // The function's body: from its name to the next top-level closing brace.
    int begin = -1, end = -1;
    for (int i = 0; i < int(lines.size()); ++i)
      if (begin < 0 && lines[i].find(std::string(" ") + v.function + "(") != std::string::npos)
        begin = i;
      else if (begin >= 0 && lines[i] == "}") {
        end = i;
        break;
      }
    ASSERT_GE(begin, 0) << v.function << " not found in " << v.source_file;
    ASSERT_GT(end, begin);
    int found = 0;
    for (int i = begin; i <= end; ++i)
      if (trimmed(lines[i]).rfind("SYNCTHREADS(", 0) == 0 ||
          trimmed(lines[i]).rfind("SYNCWARP(", 0) == 0)
        ++found;
    EXPECT_EQ(found, int(v.barriers.size())) << v.id;
    for (size_t b = 0; b < v.barriers.size(); ++b) {
      const BarrierInfo& info = v.barriers[b];
      EXPECT_EQ(info.id, int(b) + 1) << v.id;
      ASSERT_GT(info.line, begin) << v.id << " barrier " << info.id;
      ASSERT_LE(info.line, end + 1) << v.id << " barrier " << info.id;
      const std::string text = trimmed(lines[info.line - 1]);
      const std::string call = info.warp_scope ? "SYNCWARP(" : "SYNCTHREADS(";
      EXPECT_EQ(text.rfind(call + std::to_string(info.id) + ");", 0), 0u)
          << v.id << " barrier " << info.id << " line " << info.line << ": " << text;
      EXPECT_NE(std::string(info.purpose), "");
    }
    // Every array of the table is declared in the function under the name
    // the table gives it, with the slot constant of its position in the
    // header's `enum : ArraySlot { kA = 1, ... }`.
    std::vector<std::string> slot_names = {""};
    for (const std::string& l : lines)
      if (l.rfind("enum : ArraySlot {", 0) == 0) {
        std::string list = l.substr(l.find('{') + 1, l.find('}') - l.find('{') - 1);
        for (size_t at = 0; at < list.size();) {
          const size_t comma = std::min(list.find(',', at), list.size());
          std::string name = trimmed(list.substr(at, comma - at));
          name = name.substr(0, name.find(' '));  // "kA = 1" -> "kA"
          slot_names.push_back(name);
          at = comma + 1;
        }
      }
    const ArrayTable table = arrays(v, v.defaults);
    ASSERT_EQ(slot_names.size(), table.size() + 1) << v.id << ": the slot enum and arrays()";
    int declared = 0;
    for (int i = begin; i <= end; ++i)
      declared += lines[i].find("Array<") != std::string::npos ||
                  lines[i].find("SharedTile<") != std::string::npos;
    EXPECT_EQ(declared, int(table.size())) << v.id;
    for (size_t slot = 1; slot <= table.size(); ++slot) {
      const ArrayInfo& a = table[slot - 1];
      bool found_decl = false;
      for (int i = begin; i <= end; ++i)
        found_decl |=
            lines[i].find(" " + a.name + "(rec,") != std::string::npos &&
            lines[i].find(", " + slot_names[slot] + ");") != std::string::npos &&
            lines[i].find(a.shared()                   ? "Shared"
                          : a.space == Space::Constant ? "ConstantArray<"
                                                       : "GlobalArray<") != std::string::npos;
      EXPECT_TRUE(found_decl) << v.id << ": no declaration of " << a.name << " as "
                              << slot_names[slot];
    }
  }
}

// Asked before main (a static initialiser, like the trace fixtures'
// kTiledBarrierLine), the registry must already see the embedded sources:
// it reads the barrier lines once and keeps them.
const int kLineAskedDuringStaticInit = picks::default_lesson().barriers[1].line;

TEST(BarrierLines, AreThereForCallersDuringStaticInitialisation) {
  const std::vector<int> lines = barrier_lines(lesson_source(tiled().source_file));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_GT(lines[2], 0);
  EXPECT_EQ(kLineAskedDuringStaticInit, lines[2]);
}

TEST(Arrays, NamesAsInTheKernelSource) {
  const LessonInfo& rc = rows_and_cols();
  const ArrayTable t = arrays(rc, rc.defaults);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(array_name(t, 1), "A");
  EXPECT_EQ(array_name(t, 3), "C");  // global arrays keep their own names
  EXPECT_EQ(array_name(t, 4), "rowsA");
  EXPECT_EQ(array_name(t, 5), "colsB");
  EXPECT_EQ(array_name(t, kNoArray), "none");
  EXPECT_EQ(array_name(t, 9), "array 9");
  EXPECT_EQ(slot_named(t, "colsB"), 5);
  EXPECT_EQ(slot_named(t, "tileB"), kNoArray);
  // Elements as the race reports print them: colsB is n x TILE (12 x 8 by default).
  EXPECT_EQ(element_name(t, 5, 13), "colsB[1][5]");
  EXPECT_EQ(element_name(t, 1, 13), "A[13]");  // global matrices: row * n + col, one number
  const LessonInfo& st = halo_static();
  const ArrayTable s = arrays(st, st.defaults);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(array_name(s, 1), "in");
  EXPECT_EQ(array_name(s, 2), "out");
  EXPECT_EQ(element_name(s, 3, 5), "cache[5]");
  EXPECT_EQ(arrays(tiled(), {.n = 10, .tile = 4})[3].name, "tileA");
}

TEST(Validate, SizesZeroNegativeAndTooLarge) {
  EXPECT_NE(why(tiled(), {.n = 0, .tile = 4}).find("n = 0"), std::string::npos);
  EXPECT_NE(why(tiled(), {.n = -3, .tile = 4}).find("from 1 to 32768"), std::string::npos);
  EXPECT_NE(why(naive_grid(), {.n = 100000, .block = 8}).find("n = 100000"), std::string::npos);
  EXPECT_NE(why(rect(), {.m = 4, .k = 0, .n = 4, .tile = 4}).find("k = 0"), std::string::npos);
  EXPECT_NE(why(rect(), {.m = -1, .k = 4, .n = 4, .tile = 4}).find("m = -1"), std::string::npos);
  EXPECT_NE(why(halo_global(), {.length = 0, .radius = 1, .block = 32}).find("length 0"),
            std::string::npos);
  EXPECT_NE(why(halo_static(), {.length = -5, .radius = 1, .block = 32}).find("from 1"),
            std::string::npos);
  // Beyond the device's memory: 3 x 8192^2 floats = 768 MiB against 256 MiB.
  DeviceLimits small;
  small.global_memory_bytes = 256ull << 20;
  const std::string mem = why(tiled(), {.n = 8192, .tile = 16}, small);
  EXPECT_NE(mem.find("768.0 MiB"), std::string::npos) << mem;
  EXPECT_NE(mem.find("256.0 MiB"), std::string::npos) << mem;
  EXPECT_EQ(why(tiled(), {.n = 4096, .tile = 16}, small), "");
}

TEST(Validate, TileWidths) {
  const std::string big = why(tiled(), {.n = 64, .tile = 64});
  EXPECT_NE(big.find("64 x 64 = 4096 threads exceeds the 1024 threads"), std::string::npos) << big;
  EXPECT_NE(big.find("2, 4, 8, 16 or 32"), std::string::npos) << big;
  const std::string odd = why(rect(), {.m = 8, .k = 8, .n = 8, .tile = 5});
  EXPECT_NE(odd.find("compiled for tile widths 2, 4, 8, 16 or 32"), std::string::npos) << odd;
  EXPECT_NE(why(rows(), {.n = 8, .tile = 0}).find("tile 0"), std::string::npos);
  EXPECT_NE(why(exact_tiles(), {.n = 8, .tile = -4}).find("tile -4"), std::string::npos);
  // A device with 512 threads per block cannot run tile 32.
  DeviceLimits lim;
  lim.max_threads_per_block = 512;
  EXPECT_NE(why(tiled(), {.n = 64, .tile = 32}, lim).find("512 threads per block"),
            std::string::npos);
  for (int t : kTileWidths)
    EXPECT_EQ(why(tiled(), {.n = 33, .tile = t}), "");
}

TEST(Validate, SharedMemoryLimit) {
  // 4 rows of 5000 floats = 80000 bytes > 48 KB; 3072 is the largest n for tile 4.
  const std::string row = why(rows(), {.n = 5000, .tile = 4});
  EXPECT_NE(row.find("80000 bytes of shared memory"), std::string::npos) << row;
  EXPECT_NE(row.find("49152 bytes per block"), std::string::npos) << row;
  EXPECT_NE(row.find("use n <= 3072 with tile 4"), std::string::npos) << row;
  EXPECT_EQ(why(rows(), {.n = 3072, .tile = 4}), "");
  EXPECT_NE(why(rows(), {.n = 3073, .tile = 4}), "");
  // Rows and columns need twice as much.
  EXPECT_NE(why(rows_and_cols(), {.n = 2000, .tile = 4}).find("use n <= 1536"), std::string::npos);
  // With an opt-in limit of 227 KB it fits.
  DeviceLimits h100;
  h100.max_shared_per_block = 227 * 1024;
  EXPECT_EQ(why(rows(), {.n = 5000, .tile = 4}, h100), "");
}

TEST(Validate, OneBlockNeedsAGridBeyond32) {
  EXPECT_EQ(why(one_block(), {.n = 32}), "");
  const std::string m = why(one_block(), {.n = 33});
  EXPECT_NE(m.find("33 x 33 = 1089 threads exceeds the 1024"), std::string::npos) << m;
  EXPECT_NE(m.find("at most 32 x 32"), std::string::npos) << m;
  EXPECT_NE(m.find("grid of blocks"), std::string::npos) << m;
  EXPECT_NE(why(naive_grid(), {.n = 100, .block = 33}).find("from 1 to 32"), std::string::npos);
  EXPECT_NE(why(naive_grid(), {.n = 100, .block = 0}), "");
}

TEST(Validate, StencilRadiusAndBlock) {
  const std::string r = why(halo_static(), {.length = 100, .radius = 9, .block = 8});
  EXPECT_NE(r.find("radius 9 is larger than the block of 8 threads"), std::string::npos) << r;
  EXPECT_NE(why(halo_dynamic(), {.length = 100, .radius = 9, .block = 8}), "");
  // The naive stencil has no halo to load: any radius up to the cap is fine.
  EXPECT_EQ(why(halo_global(), {.length = 100, .radius = 9, .block = 8}), "");
  EXPECT_NE(why(halo_global(), {.length = 100, .radius = -1, .block = 8}).find("radius -1"),
            std::string::npos);
  EXPECT_NE(why(halo_static(), {.length = 100, .radius = 1, .block = 0}).find("block 0"),
            std::string::npos);
  EXPECT_NE(why(halo_static(), {.length = 100, .radius = 1, .block = 2048}).find("1024"),
            std::string::npos);
  // The static array is sized for radius 64; the dynamic one is sized at launch.
  const std::string s = why(halo_static(), {.length = 1000, .radius = 65, .block = 256});
  EXPECT_NE(s.find(halo_dynamic().id), std::string::npos) << s;
  EXPECT_EQ(why(halo_dynamic(), {.length = 1000, .radius = 65, .block = 256}), "");
}

TEST(Validate, BarrierNumbers) {
  EXPECT_EQ(validate_barrier_mask(tiled(), ~0u), std::nullopt);
  EXPECT_EQ(validate_barrier_mask(tiled(), 0u), std::nullopt);
  EXPECT_EQ(validate_barrier_mask(tiled(), 1u), std::nullopt);
  EXPECT_EQ(validate_barrier_mask(tiled(), ~0u & ~1u), std::nullopt);
  const auto keep3 = validate_barrier_mask(tiled(), 0b101u);
  ASSERT_TRUE(keep3);
  EXPECT_NE(keep3->find("barrier 3: " + std::string(tiled().id) + " has 2 barriers (1 and 2)"),
            std::string::npos)
      << *keep3;
  const auto drop3 = validate_barrier_mask(tiled(), ~0u & ~(1u << 2));
  ASSERT_TRUE(drop3);
  EXPECT_NE(drop3->find("barrier 3"), std::string::npos) << *drop3;
  const auto naive = validate_barrier_id(naive_grid(), 1);
  ASSERT_TRUE(naive);
  EXPECT_NE(naive->find("no barriers"), std::string::npos);
  EXPECT_EQ(validate_barrier_id(halo_static(), 1), std::nullopt);
  EXPECT_TRUE(validate_barrier_id(halo_static(), 0));
  EXPECT_EQ(all_barriers(tiled()), 3u);
}

TEST(Geometry, GridsBlocksAndSharedBytes) {
  LaunchGeometry g = geometry(tiled(), {.n = 10, .tile = 4});
  EXPECT_EQ(g.grid, (Dim3{3, 3, 1}));
  EXPECT_EQ(g.block, (Dim3{4, 4, 1}));
  EXPECT_EQ(g.static_shared_bytes, 2u * 4 * 4 * 4);
  g = geometry(rect(), {.m = 6, .k = 9, .n = 10, .tile = 4});
  EXPECT_EQ(g.grid, (Dim3{3, 2, 1}));  // x covers the 10 columns, y the 6 rows
  g = geometry(one_block(), {.n = 7});
  EXPECT_EQ(g.grid, (Dim3{1, 1, 1}));
  EXPECT_EQ(g.block, (Dim3{7, 7, 1}));
  g = geometry(rows(), {.n = 10, .tile = 4});
  EXPECT_EQ(g.dynamic_shared_bytes, 4u * 10 * 4);
  g = geometry(rows_and_cols(), {.n = 10, .tile = 4});
  EXPECT_EQ(g.dynamic_shared_bytes, 2u * 4 * 10 * 4);
  g = geometry(halo_dynamic(), {.length = 20, .radius = 2, .block = 8});
  EXPECT_EQ(g.grid, (Dim3{3, 1, 1}));
  EXPECT_EQ(g.dynamic_shared_bytes, (8u + 4) * 4);
}

TEST(Counts, ClosedFormsByHand) {
  // Tiled 4 x 4, tile 2: 16 threads, 2 tiles; every element of C reads
  // 2N/T = 4 values from global memory, 16 x 4 = 64 loads (not 2N x 16 = 128).
  ExpectedCounts c = expected_counts(tiled(), {.n = 4, .tile = 2});
  EXPECT_EQ(c.global_loads, 64u);
  EXPECT_EQ(c.global_stores, 16u);
  EXPECT_EQ(c.shared_stores, 16u * 2 * 2);
  EXPECT_EQ(c.shared_loads, 16u * 2 * 2 * 2);
  EXPECT_EQ(c.barrier_arrivals, 16u * 2 * 2);
  EXPECT_EQ(c.total(), 64u + 16 + 64 + 128 + 2 * 64);
  // Naive 3 x 3: each of 9 threads reads a row and a column: 9 x 6.
  c = expected_counts(naive_grid(), {.n = 3, .block = 2});
  EXPECT_EQ(c.global_loads, 54u);
  EXPECT_EQ(c.global_stores, 9u);
  EXPECT_EQ(c.shared_loads + c.shared_stores + c.barrier_arrivals, 0u);
  // Tiled 10 x 10, tile 4: 3 x 3 blocks of 16 threads, 3 tiles. Padding
  // threads load nothing from global memory: A is read once per block
  // column, B once per block row: 3 x 100 + 3 x 100.
  c = expected_counts(tiled(), {.n = 10, .tile = 4});
  EXPECT_EQ(c.global_loads, 600u);
  EXPECT_EQ(c.shared_stores, 144u * 3 * 2);
  EXPECT_EQ(c.shared_loads, 144u * 3 * 8);
  EXPECT_EQ(c.barrier_arrivals, 144u * 3 * 2);
  // 33 x 20 x 45, tile 8: 6 block columns read A (660), 5 block rows read B (900).
  c = expected_counts(rect(), {.m = 33, .k = 20, .n = 45, .tile = 8});
  EXPECT_EQ(c.global_loads, 6u * 660 + 5u * 900);
  EXPECT_EQ(c.global_stores, 33u * 45);
  // Exact multiples only, n = 10, tile 4: 144 threads, 10 / 4 = 2 tiles, no
  // checks: every thread loads and stores.
  c = expected_counts(exact_tiles(), {.n = 10, .tile = 4});
  EXPECT_EQ(c.global_loads, 144u * 2 * 2);
  EXPECT_EQ(c.global_stores, 144u);
  // Rows of A in shared, n = 10, tile 4: 3 block columns load A (300), B is
  // read n times per element of C (1000).
  c = expected_counts(rows(), {.n = 10, .tile = 4});
  EXPECT_EQ(c.global_loads, 300u + 1000u);
  EXPECT_EQ(c.shared_stores, 300u);
  EXPECT_EQ(c.shared_loads, 1000u);
  EXPECT_EQ(c.barrier_arrivals, 144u);
  // Stencil, 20 elements, radius 2, blocks of 8: 3 blocks each load 8 + 2 x 2.
  c = expected_counts(halo_static(), {.length = 20, .radius = 2, .block = 8});
  EXPECT_EQ(c.global_loads, 3u * 12);
  EXPECT_EQ(c.shared_stores, 3u * 12);
  EXPECT_EQ(c.shared_loads, 20u * 5);
  EXPECT_EQ(c.global_stores, 20u);
  EXPECT_EQ(c.barrier_arrivals, 24u);
  c = expected_counts(halo_global(), {.length = 20, .radius = 2, .block = 8});
  EXPECT_EQ(c.global_loads, 100u);
}

TEST(Shapes, ArraysAndAllocations) {
  ArrayTable b = arrays(rect(), {.m = 6, .k = 9, .n = 10, .tile = 4});
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[0].name, "A");
  EXPECT_EQ(b[0].rows, 6);
  EXPECT_EQ(b[0].cols, 9);
  EXPECT_EQ(b[0].role, ArrayRole::Input);
  EXPECT_EQ(b[1].rows, 9);
  EXPECT_EQ(b[1].cols, 10);
  EXPECT_TRUE(b[2].output());
  EXPECT_FALSE(b[2].shared());
  EXPECT_TRUE(b[3].shared());
  EXPECT_EQ(b[3].role, ArrayRole::Scratch);
  EXPECT_EQ(b[3].rows, 4);
  EXPECT_EQ(b[3].cols, 4);
  EXPECT_NE(b[0].fill_stream, b[1].fill_stream) << "A and B get different values";
  b = arrays(halo_static(), {.length = 20, .radius = 2, .block = 8});
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1].name, "out");
  EXPECT_TRUE(b[1].output());
  EXPECT_EQ(b[1].cols, 20);
  EXPECT_EQ(b[2].name, "cache");
  EXPECT_TRUE(b[2].shared());
  EXPECT_EQ(b[2].cols, 12);
  b = arrays(rows_and_cols(), {.n = 10, .tile = 4});
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[4].rows, 10);
  EXPECT_EQ(b[4].cols, 4);
  for (const ArrayInfo& a : arrays(naive_grid(), {.n = 10, .block = 4}))
    EXPECT_FALSE(a.shared()) << a.name;
  // tiled_exact reads up to a 12 x 12 square for n = 10, tile 4.
  EXPECT_EQ(allocation_elements(exact_tiles(), {.n = 10, .tile = 4}, 1), 144u);
  EXPECT_EQ(allocation_elements(tiled(), {.n = 10, .tile = 4}, 1), 100u);
  const KernelArgs a = kernel_args(rect(), {.m = 6, .k = 9, .n = 10, .tile = 4});
  EXPECT_EQ(a.count[1], 54);
  EXPECT_EQ(a.count[2], 90);
  EXPECT_EQ(a.count[3], 60);
  EXPECT_EQ(a.data[1], nullptr) << "the backend sets the pointers";
}

}  // namespace
}  // namespace ts
