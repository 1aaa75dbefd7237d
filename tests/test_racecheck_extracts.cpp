// compute-sanitizer racecheck's hazard records, measured on an H200
// (docs/measurements/racecheck_h200/, made by scripts/racecheck_extract.py),
// replayed against our analysis of a simulator trace of the same launch: one
// test per rule of racecheck's model as analysis/hazards.hpp states it. The
// lessons and barrier subsets come from the files, not from this test.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/hazards.hpp"
#include "engine/backend.hpp"
#include "engine/catalogue.hpp"

namespace ts {
namespace {

// sm_90 keeps the first 1 KiB of a block's shared window for the system:
// racecheck's addresses of the first user array start at 0x400 (every
// record of the extracts lies at or above it).
constexpr uint32_t kSharedBase = 0x400;

struct Side {
  bool write = false;
  uint32_t x = 0, y = 0, z = 0;  // threadIdx as racecheck prints it
  uint32_t pc = 0;               // the instruction's offset in the kernel's SASS
  int line = 0;                  // the SASS line table's line for it
};

struct Record {
  bool error = false;
  HazardKind kind = HazardKind::ReadAfterWrite;
  uint32_t bx = 0, by = 0, bz = 0;
  uint32_t word = 0;  // shared address of the 4-byte word
  Side first, second;
  int bytes = 0;  // how many of the word's bytes racecheck reported
  // Of a record whose second access writes: each reported byte's value
  // before the write and the value it writes.
  std::vector<std::pair<uint8_t, uint8_t>> written;
};

struct Extract {
  std::string name;  // the file
  std::string lesson;
  std::string barriers;                            // as --barriers takes them
  std::vector<std::pair<int Params::*, int>> set;  // parameters other than the lesson's defaults
  std::vector<Record> records;
};

HazardKind kind_named(const std::string& s) {
  return s == "RAW"   ? HazardKind::ReadAfterWrite
         : s == "WAR" ? HazardKind::WriteAfterRead
                      : HazardKind::WriteAfterWrite;
}

bool parse_side(std::istringstream& in, Side& s) {
  std::string rw, thread, at;
  if (!(in >> rw >> thread >> at)) return false;
  s.write = rw == "W";
  if (std::sscanf(thread.c_str(), "%u,%u,%u", &s.x, &s.y, &s.z) != 3) return false;
  return std::sscanf(at.c_str(), "%x:%d", &s.pc, &s.line) == 2;
}

// "case <lesson> --barriers 1,2 [--n 32 ...]"
bool parse_case(const std::string& text, Extract& e) {
  std::istringstream in(text);
  std::string word, key;
  in >> word >> e.lesson;
  while (in >> key) {
    std::string value;
    if (!(in >> value)) return false;
    if (key == "--barriers") {
      e.barriers = value;
      continue;
    }
    bool known = false;
    for (const ParamField& f : kParamFields)
      if (key == std::string("--") + f.name) {
        e.set.push_back({f.field, std::stoi(value)});
        known = true;
      }
    if (!known) return false;
  }
  return !e.lesson.empty() && !e.barriers.empty();
}

Extract read_extract(const std::filesystem::path& p) {
  Extract e;
  e.name = p.filename().string();
  std::ifstream f(p);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("case ", 0) == 0) {
      EXPECT_TRUE(parse_case(line, e)) << e.name << ": " << line;
      continue;
    }
    std::istringstream in(line);
    std::string sev, kind, block, word;
    Record r;
    in >> sev >> kind >> block >> word;
    r.error = sev == "E";
    r.kind = kind_named(kind);
    bool ok = std::sscanf(block.c_str(), "%u,%u,%u", &r.bx, &r.by, &r.bz) == 3 &&
              std::sscanf(word.c_str(), "%x", &r.word) == 1 && parse_side(in, r.first) &&
              parse_side(in, r.second);
    // "bytes=4", or one "bN=cc>ii" per reported byte.
    for (std::string b; ok && in >> b;) {
      unsigned index = 0, cur = 0, inc = 0;
      if (std::sscanf(b.c_str(), "bytes=%d", &r.bytes) == 1) continue;
      ok = std::sscanf(b.c_str(), "b%u=%x>%x", &index, &cur, &inc) == 3 && index < 4;
      r.written.push_back({uint8_t(cur), uint8_t(inc)});
      ++r.bytes;
    }
    EXPECT_TRUE(ok && r.bytes > 0) << e.name << ": " << line;
    if (ok) e.records.push_back(r);
  }
  return e;
}

std::vector<Extract> all_extracts() {
  std::vector<Extract> out;
  const std::filesystem::path dir =
      std::filesystem::path(TS_SOURCE_DIR) / "docs/measurements/racecheck_h200";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files)
    out.push_back(read_extract(p));
  return out;
}

uint32_t barrier_mask(const std::string& text) {
  if (text == "none") return 0;
  if (text == "all") return ~0u;
  uint32_t mask = 0;
  std::istringstream in(text);
  std::string id;
  while (std::getline(in, id, ','))
    mask |= 1u << (std::stoi(id) - 1);
  return mask;
}

// One extract with the simulator's trace of its launch (lockstep) and our
// analysis of it, and the records in the trace's terms.
struct Replay {
  const Extract* extract = nullptr;
  Trace trace;
  HazardReport ours;
  // A record in our terms: (error, kind, block, array, element, first thread, second thread).
  using Key = std::tuple<bool, HazardKind, uint32_t, ArraySlot, uint32_t, uint32_t, uint32_t>;
  std::vector<Key> theirs;  // one per record of the extract, in its order
  std::set<Key> mine;
};

uint32_t linear(const Dim3& d, uint32_t x, uint32_t y, uint32_t z) {
  return x + d.x * (y + d.y * z);
}

Replay replay(const Extract& e) {
  Replay r;
  r.extract = &e;
  RunRequest req;
  req.lesson_id = e.lesson;
  const LessonInfo* lesson = find_lesson(e.lesson);
  EXPECT_NE(lesson, nullptr) << e.name << ": " << e.lesson;
  if (lesson) req.params = lesson->defaults;
  for (const auto& [field, value] : e.set)
    req.params.*field = value;
  req.barrier_mask = barrier_mask(e.barriers);
  req.backend = BackendChoice::Sim;
  RunResult run = run_simulator(req);
  EXPECT_TRUE(run.ok) << e.name << ": " << run.error;
  r.trace = std::move(run.trace);
  HazardOptions opt;
  opt.detail_per_group = 1u << 30;  // every hazard, as racecheck's hazard mode prints them
  r.ours = analyze_hazards(r.trace, opt);
  const LaunchGeometry& g = r.trace.config.geometry;
  const ArrayTable& arrays = r.trace.config.arrays;
  for (const Record& rec : e.records) {
    // The word's array and element, from the array table's shared offsets.
    ArraySlot slot = kNoArray;
    uint32_t element = 0;
    for (size_t i = 0; i < arrays.size(); ++i) {
      const ArrayInfo& a = arrays[i];
      if (!a.shared() || rec.word < kSharedBase + a.shared_offset) continue;
      const uint64_t at = rec.word - kSharedBase - a.shared_offset;
      if (at < a.count() * uint64_t(a.elem_bytes)) {
        slot = ArraySlot(i + 1);
        element = uint32_t(at / uint64_t(a.elem_bytes));
      }
    }
    EXPECT_NE(slot, kNoArray) << e.name << ": no shared array at 0x" << std::hex << rec.word;
    r.theirs.push_back({rec.error, rec.kind, linear(g.grid, rec.bx, rec.by, rec.bz), slot, element,
                        linear(g.block, rec.first.x, rec.first.y, rec.first.z),
                        linear(g.block, rec.second.x, rec.second.y, rec.second.z)});
  }
  for (const Hazard& h : r.ours.hazards)
    r.mine.insert({h.severity == HazardSeverity::Error, h.kind, h.block, h.buffer, h.element,
                   h.first.thread, h.second.thread});
  return r;
}

const std::vector<Replay>& replays() {
  static const std::vector<Extract> extracts = all_extracts();
  static const std::vector<Replay> all = [] {
    std::vector<Replay> v;
    for (const Extract& e : extracts)
      v.push_back(replay(e));
    return v;
  }();
  return all;
}

using KindSet = std::set<HazardKind>;
KindSet kinds_of(const Replay& r, bool error) {
  KindSet k;
  for (const Replay::Key& key : r.theirs)
    if (std::get<0>(key) == error) k.insert(std::get<1>(key));
  return k;
}

TEST(RacecheckExtracts, TheMeasurementsAreThere) {
  const auto& all = replays();
  ASSERT_GE(all.size(), 5u);
  std::set<HazardKind> kinds;
  bool warnings = false, errors = false;
  for (const Replay& r : all) {
    EXPECT_FALSE(r.extract->records.empty()) << r.extract->name;
    EXPECT_FALSE(r.trace.truncated()) << r.extract->name;
    for (const Record& rec : r.extract->records) {
      kinds.insert(rec.kind);
      (rec.error ? errors : warnings) = true;
    }
  }
  EXPECT_EQ(kinds.size(), 3u) << "the extracts show RAW, WAR and WAW";
  EXPECT_TRUE(errors && warnings);
}

// Severity: an error between threads of two warps, a warning within one.
TEST(RacecheckExtracts, SeverityIsWhetherTheTwoThreadsShareAWarp) {
  for (const Replay& r : replays())
    for (const Replay::Key& k : r.theirs)
      EXPECT_EQ(std::get<0>(k), std::get<5>(k) / 32 != std::get<6>(k) / 32) << r.extract->name;
}

// Last access: within a warp, where the order is the program's, every
// warning we find is one of racecheck's records, and most of racecheck's are
// ours (the rest: loads the compiler reordered, so another lane read first).
TEST(RacecheckExtracts, WarningsAreThePairsOfTheLastAccess) {
  for (const Replay& r : replays()) {
    SCOPED_TRACE(r.extract->name);
    const std::set<Replay::Key> theirs(r.theirs.begin(), r.theirs.end());
    size_t mine = 0, found = 0, warnings = 0;
    for (const Replay::Key& k : r.mine) {
      if (std::get<0>(k)) continue;
      ++mine;
      EXPECT_TRUE(theirs.count(k)) << to_string(std::get<1>(k)) << " element " << std::get<4>(k)
                                   << " threads " << std::get<5>(k) << " -> " << std::get<6>(k);
    }
    for (const Replay::Key& k : theirs)
      if (!std::get<0>(k)) {
        ++warnings;
        found += r.mine.count(k);
      }
    EXPECT_GE(found * 10, warnings * 8) << found << " of racecheck's " << warnings << " warnings";
    std::printf("%-44s warnings: racecheck %zu, ours %zu, both %zu\n", r.extract->name.c_str(),
                warnings, mine, found);
  }
}

// The kinds, the comparison scripts/racecheck_compare.sh makes: warnings
// exactly; errors present on both sides, racecheck's among the kinds another
// order could show, and the verdict marked order-dependent where the kinds
// differ.
TEST(RacecheckExtracts, KindsAgreeOrAreMarkedOrderDependent) {
  for (const Replay& r : replays()) {
    SCOPED_TRACE(r.extract->name + ": ours " + r.ours.verdict());
    KindSet warn, err;
    for (int k = 0; k < kHazardKindCount; ++k) {
      if (r.ours.has(HazardSeverity::Warning, HazardKind(k))) warn.insert(HazardKind(k));
      if (r.ours.has(HazardSeverity::Error, HazardKind(k))) err.insert(HazardKind(k));
    }
    EXPECT_EQ(warn, kinds_of(r, false));
    const KindSet theirs = kinds_of(r, true);
    EXPECT_EQ(err.empty(), theirs.empty());
    for (HazardKind k : theirs)
      EXPECT_TRUE(r.ours.error_kinds_by_order[int(k)]) << to_string(k);
    if (theirs != err) {
      EXPECT_TRUE(r.ours.order_dependent());
    }
  }
}

// Order: every error racecheck saw pairs a read or write of one thread with
// an access of a thread of another warp, to the same element, in the same
// barrier interval, of the kind the two accesses give in one order or the
// other; and a few came out in the order the simulator did not take (a read
// and a write of the same pair of threads reported both as RAW and as WAR).
TEST(RacecheckExtracts, ErrorsArePairsOfTwoWarpsInEitherOrder) {
  bool both_orders = false;
  for (const Replay& r : replays()) {
    SCOPED_TRACE(r.extract->name);
    // Per (block, element, thread): its reads and writes, by barrier interval.
    std::map<std::tuple<uint32_t, ArraySlot, uint32_t, uint32_t>,
             std::set<std::pair<uint32_t, bool>>>
        access;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t>
        interval;  // (block, thread) -> barriers so far
    for (const Event& e : r.trace.events) {
      if (e.kind == EventKind::BarrierLeave && !(e.flags & kFlagWarpScope))
        ++interval[{e.block, e.thread}];
      if (is_shared(e.kind))
        access[{e.block, e.array, e.element, e.thread}].insert(
            {interval[{e.block, e.thread}], e.kind == EventKind::SharedStore});
    }
    std::set<std::tuple<uint32_t, ArraySlot, uint32_t, uint32_t, uint32_t>> raw, war;
    for (size_t i = 0; i < r.theirs.size(); ++i) {
      const auto& [error, kind, block, slot, element, t1, t2] = r.theirs[i];
      if (!error) continue;
      const Record& rec = r.extract->records[i];
      EXPECT_EQ(rec.first.write, kind != HazardKind::WriteAfterRead);
      EXPECT_EQ(rec.second.write, kind != HazardKind::ReadAfterWrite);
      bool together = false;
      for (const auto& [iv1, w1] : access[{block, slot, element, t1}])
        for (const auto& [iv2, w2] : access[{block, slot, element, t2}])
          together |= iv1 == iv2 && w1 == rec.first.write && w2 == rec.second.write;
      EXPECT_TRUE(together) << to_string(kind) << " element " << element << " threads " << t1
                            << " -> " << t2;
      const auto pair = kind == HazardKind::ReadAfterWrite
                            ? std::tuple{block, slot, element, t1, t2}
                            : std::tuple{block, slot, element, t2, t1};  // (writer, reader)
      if (kind == HazardKind::ReadAfterWrite) raw.insert(pair);
      if (kind == HazardKind::WriteAfterRead) war.insert(pair);
    }
    for (const auto& p : raw)
      both_orders |= war.count(p) > 0;
  }
  EXPECT_TRUE(both_orders) << "one pair of threads seen in both orders";
}

// Values: a write after a write is reported for the bytes it changes only;
// a write after a read for every byte, changed or not (no filter there).
TEST(RacecheckExtracts, WriteAfterWriteOnlyForTheBytesThatChange) {
  int waw = 0, partial = 0, war_unchanged = 0;
  for (const Replay& r : replays()) {
    for (const Record& rec : r.extract->records) {
      SCOPED_TRACE(r.extract->name + " word 0x" + std::to_string(rec.word));
      if (rec.kind == HazardKind::ReadAfterWrite) {
        EXPECT_EQ(rec.bytes, 4) << "a read: every byte";
        continue;
      }
      EXPECT_EQ(rec.written.size(), size_t(rec.bytes));
      if (rec.kind == HazardKind::WriteAfterRead) {
        EXPECT_EQ(rec.bytes, 4) << "a write after a read: every byte";
        for (const auto& [cur, inc] : rec.written)
          war_unchanged += cur == inc;
        continue;
      }
      ++waw;
      partial += rec.bytes < 4;
      for (const auto& [cur, inc] : rec.written)
        EXPECT_NE(cur, inc) << "a write after a write that keeps the byte";
    }
  }
  EXPECT_GT(waw, 0);
  EXPECT_GT(partial, 0) << "a word of which some bytes did not change";
  EXPECT_GT(war_unchanged, 0) << "WAR reported where the byte did not change";
}

// Lines: within a warp, each instruction racecheck names is one source line
// of ours (the SASS line table may name another: the compiler's attribution,
// e.g. a store it moved below the lines after it).
TEST(RacecheckExtracts, EachInstructionIsOneSourceLine) {
  for (const Replay& r : replays()) {
    SCOPED_TRACE(r.extract->name);
    // (block, array, element, first, second, error, kind) -> our lines; a
    // pair of threads that races on one element at two places is left out.
    using Pair = std::tuple<uint32_t, ArraySlot, uint32_t, uint32_t, uint32_t, bool, HazardKind>;
    std::map<Pair, std::set<std::pair<int, int>>> lines;
    for (const Hazard& h : r.ours.hazards)
      lines[{h.block, h.buffer, h.element, h.first.thread, h.second.thread,
             h.severity == HazardSeverity::Error, h.kind}]
          .insert({h.first.line, h.second.line});
    std::map<uint32_t, std::set<int>> of_instruction;
    size_t matched = 0, same_line = 0;
    for (size_t i = 0; i < r.theirs.size(); ++i) {
      const auto& [error, kind, block, slot, element, t1, t2] = r.theirs[i];
      if (error) continue;  // which accesses of two warps met is the run's
      const auto it = lines.find({block, slot, element, t1, t2, error, kind});
      if (it == lines.end() || it->second.size() != 1) continue;
      const auto [l1, l2] = *it->second.begin();
      const Record& rec = r.extract->records[i];
      of_instruction[rec.first.pc].insert(l1);
      of_instruction[rec.second.pc].insert(l2);
      ++matched;
      same_line += rec.first.line == l1 && rec.second.line == l2;
    }
    EXPECT_GT(matched, 0u);
    for (const auto& [pc, ours] : of_instruction)
      EXPECT_EQ(ours.size(), 1u) << "instruction 0x" << std::hex << pc;
    std::printf("%-44s %zu records matched, lines the same in %zu\n", r.extract->name.c_str(),
                matched, same_line);
  }
}

}  // namespace
}  // namespace ts
