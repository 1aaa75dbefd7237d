// compute-sanitizer racecheck's hazard records, measured on an H200
// (docs/measurements/racecheck_h200/, made by scripts/racecheck_extract.py),
// replayed against our analysis of a simulator trace of the same launch: one
// test per rule of racecheck's model as analysis/hazards.hpp states it. The
// lessons and barrier subsets come from the files, not from this test.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
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

// One instruction of the kernel's skeleton ("sass" lines): a shared access, or
// a warp sync (WARPSYNC, BSYNC), with the SASS line table's source line.
struct SassOp {
  uint32_t pc = 0;
  int line = 0;
  std::string op;  // LDS, STS, WARPSYNC, BSYNC, ...
};

struct Extract {
  std::string name;  // the file
  std::string lesson;
  std::string barriers;                            // as --barriers takes them
  std::vector<std::pair<int Params::*, int>> set;  // parameters other than the lesson's defaults
  std::vector<Record> records;
  long summary_hazards = -1;  // racecheck's summary line: hazards displayed (bytes)
  // Only these blocks' records were kept ("blocks" line; empty: every block).
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> blocks;
  std::vector<SassOp> sass;                          // the kernel's skeleton, if the file has it
  std::vector<std::pair<uint32_t, uint32_t>> loops;  // (target, backward branch)
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

// "sass 0x410 40 WARPSYNC", "loop 0x330 0x670", "blocks 0,0,0 1,1,0".
bool parse_skeleton(const std::string& line, Extract& e) {
  std::istringstream in(line);
  std::string word;
  in >> word;
  if (word == "sass") {
    SassOp op;
    std::string pc;
    EXPECT_TRUE(in >> pc >> op.line >> op.op) << e.name << ": " << line;
    op.pc = uint32_t(std::stoul(pc, nullptr, 16));
    e.sass.push_back(op);
    return true;
  }
  if (word == "loop") {
    std::string target, branch;
    EXPECT_TRUE(in >> target >> branch) << e.name << ": " << line;
    e.loops.push_back(
        {uint32_t(std::stoul(target, nullptr, 16)), uint32_t(std::stoul(branch, nullptr, 16))});
    return true;
  }
  if (word == "blocks") {
    for (std::string b; in >> b;) {
      uint32_t x = 0, y = 0, z = 0;
      EXPECT_EQ(std::sscanf(b.c_str(), "%u,%u,%u", &x, &y, &z), 3) << e.name << ": " << line;
      e.blocks.insert({x, y, z});
    }
    return true;
  }
  return false;
}

Extract read_extract(const std::filesystem::path& p) {
  Extract e;
  e.name = p.filename().string();
  std::ifstream f(p);
  std::string line;
  while (std::getline(f, line)) {
    std::sscanf(line.c_str(), "# summary: %ld hazards", &e.summary_hazards);
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("case ", 0) == 0) {
      EXPECT_TRUE(parse_case(line, e)) << e.name << ": " << line;
      continue;
    }
    if (parse_skeleton(line, e)) continue;
    std::istringstream in(line);
    std::string sev, kind, block, word;
    Record r;
    in >> sev >> kind >> block >> word;
    r.error = sev == "E";
    r.kind = kind_named(kind);
    bool ok = std::sscanf(block.c_str(), "%u,%u,%u", &r.bx, &r.by, &r.bz) == 3 &&
              std::sscanf(word.c_str(), "%x", &r.word) == 1 && parse_side(in, r.first) &&
              parse_side(in, r.second);
    // "bytes=4", or one "bN=cc>ii" per reported byte and pair of values (a
    // loop can meet the same pair with other values).
    std::set<unsigned> indices;
    for (std::string b; ok && in >> b;) {
      unsigned index = 0, cur = 0, inc = 0;
      if (std::sscanf(b.c_str(), "bytes=%d", &r.bytes) == 1) continue;
      ok = std::sscanf(b.c_str(), "b%u=%x>%x", &index, &cur, &inc) == 3 && index < 4;
      r.written.push_back({uint8_t(cur), uint8_t(inc)});
      indices.insert(index);
      r.bytes = int(indices.size());
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
  // Ours, in the extract's blocks: what racecheck should report, and the
  // warnings an executed WARPSYNC of the kernel hides from it (rule "Warp
  // syncs" of analysis/hazards.hpp; only where the extract has the kernel's
  // skeleton).
  std::set<Key> mine, synced;
  std::set<int> barrier_lines;  // source lines of the barriers the run kept
  // (block, array, element) that threads of two warps access in one barrier
  // interval: which of them the one-access shadow meets first is the run's.
  std::set<std::tuple<uint32_t, ArraySlot, uint32_t>> shared_by_warps;
};

// Whether instruction `at` lies on the kernel's path from instruction a to
// instruction b: straight on when a comes first, else round the loop that
// holds both; nullopt where no path leads from a to b.
std::optional<bool> on_path(const Extract& e, uint32_t a, uint32_t b, uint32_t at) {
  if (a < b) return a < at && at < b;
  for (const auto& [target, branch] : e.loops)
    if (target <= b && a <= branch) return (a < at && at <= branch) || (target <= at && at < b);
  return std::nullopt;
}

// An executed WARPSYNC on the path from a to b: a barrier's WARPSYNC runs
// where the run keeps that barrier (the line the trace has it on).
bool warp_synced(const Replay& r, uint32_t a, uint32_t b) {
  for (const SassOp& op : r.extract->sass)
    if (op.op == "WARPSYNC" && r.barrier_lines.count(op.line) &&
        on_path(*r.extract, a, b, op.pc).value_or(false))
      return true;
  return false;
}

// One of our hazards is hidden by a WARPSYNC when every pair of the
// kernel's instructions that can make it (its lines' loads or stores; every
// load or store where the line table names none on that line) has one on
// its path.
bool hidden_by_warp_sync(const Replay& r, const Hazard& h) {
  auto candidates = [&](const HazardAccess& side) {
    std::vector<uint32_t> on_line, all;
    for (const SassOp& op : r.extract->sass)
      if (op.op == (side.is_write ? "STS" : "LDS")) {
        all.push_back(op.pc);
        if (op.line == side.line) on_line.push_back(op.pc);
      }
    return on_line.empty() ? all : on_line;
  };
  bool any = false;
  for (uint32_t a : candidates(h.first))
    for (uint32_t b : candidates(h.second)) {
      if (!on_path(*r.extract, a, b, a).has_value()) continue;  // no path: not this pair
      any = true;
      if (!warp_synced(r, a, b)) return false;
    }
  return any;
}

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
  std::set<uint32_t> blocks;
  for (const auto& [x, y, z] : e.blocks)
    blocks.insert(linear(g.grid, x, y, z));
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> interval;  // (block, thread) -> barriers
  std::map<std::tuple<uint32_t, ArraySlot, uint32_t, uint32_t>, uint32_t> warp_of_cell;
  for (const Event& ev : r.trace.events) {
    if (ev.kind == EventKind::BarrierArrive) r.barrier_lines.insert(ev.line);
    if (ev.kind == EventKind::BarrierLeave && !(ev.flags & kFlagWarpScope))
      ++interval[{ev.block, ev.thread}];
    if (!is_shared(ev.kind)) continue;
    const auto cell = std::tuple{ev.block, ev.array, ev.element, interval[{ev.block, ev.thread}]};
    const auto [it, fresh] = warp_of_cell.insert({cell, warp_of(ev)});
    if (!fresh && it->second != warp_of(ev))
      r.shared_by_warps.insert({ev.block, ev.array, ev.element});
  }
  for (const Hazard& h : r.ours.hazards) {
    if (!blocks.empty() && !blocks.count(h.block)) continue;
    const Replay::Key key{h.severity == HazardSeverity::Error,
                          h.kind,
                          h.block,
                          h.buffer,
                          h.element,
                          h.first.thread,
                          h.second.thread};
    const bool hidden =
        h.severity == HazardSeverity::Warning && !e.sass.empty() && hidden_by_warp_sync(r, h);
    (hidden ? r.synced : r.mine).insert(key);
  }
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
    // No record only where racecheck's summary says it found nothing.
    EXPECT_GE(r.extract->summary_hazards, 0) << r.extract->name;
    EXPECT_EQ(r.extract->records.empty(), r.extract->summary_hazards == 0) << r.extract->name;
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
// warning we find on a cell no other warp touches in that interval is one of
// racecheck's records (where another warp's access can come first, it takes
// the shadow: matmul.tiled_square without barrier 1, where a warp-1 reader of
// a tileB cell came first in 31 of 32 cells and left the warp-0 reader no
// warning), and most of racecheck's are ours (the rest: loads the compiler
// reordered, so another lane read first).
TEST(RacecheckExtracts, WarningsAreThePairsOfTheLastAccess) {
  for (const Replay& r : replays()) {
    SCOPED_TRACE(r.extract->name);
    const std::set<Replay::Key> theirs(r.theirs.begin(), r.theirs.end());
    size_t mine = 0, found = 0, warnings = 0;
    for (const Replay::Key& k : r.mine) {
      if (std::get<0>(k)) continue;
      ++mine;
      if (r.shared_by_warps.count({std::get<2>(k), std::get<3>(k), std::get<4>(k)})) continue;
      EXPECT_TRUE(theirs.count(k)) << to_string(std::get<1>(k)) << " element " << std::get<4>(k)
                                   << " threads " << std::get<5>(k) << " -> " << std::get<6>(k);
    }
    size_t alone = 0, found_alone = 0;  // on cells of one warp
    for (const Replay::Key& k : theirs)
      if (!std::get<0>(k)) {
        ++warnings;
        found += r.mine.count(k);
        if (r.shared_by_warps.count({std::get<2>(k), std::get<3>(k), std::get<4>(k)})) continue;
        ++alone;
        found_alone += r.mine.count(k);
      }
    EXPECT_GE(found_alone * 10, alone * 8)
        << found_alone << " of racecheck's " << alone << " warnings on cells of one warp";
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
    for (const Replay::Key& k : r.mine)
      (std::get<0>(k) ? err : warn).insert(std::get<1>(k));
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
      EXPECT_GE(rec.written.size(), size_t(rec.bytes));
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
    if (std::any_of(r.extract->records.begin(), r.extract->records.end(),
                    [](const Record& rec) { return !rec.error; }))
      EXPECT_GT(matched, 0u);
    for (const auto& [pc, ours] : of_instruction)
      EXPECT_EQ(ours.size(), 1u) << "instruction 0x" << std::hex << pc;
    std::printf("%-44s %zu records matched, lines the same in %zu\n", r.extract->name.c_str(),
                matched, same_line);
  }
}

// Warp syncs: racecheck orders the lanes of a warp at a WARPSYNC that runs
// between two accesses (a __syncwarp, or the WARPSYNC.ALL nvcc put before each
// barrier a diverged warp might reach once the race lab's stall was compiled
// in, scheduled above the accesses before that barrier), and not at a
// reconvergence (BSYNC). In the extracts that carry their kernel's skeleton:
// no record within a warp has an executed WARPSYNC on its path, some have a
// BSYNC on theirs, and the warnings of ours that racecheck left out are ones
// a WARPSYNC separates (the other tests compare the rest).
TEST(RacecheckExtracts, AWarpSyncOrdersTheWarpsLanesAReconvergenceDoesNot) {
  size_t skeletons = 0, across_bsync = 0, hidden = 0;
  for (const Replay& r : replays()) {
    const Extract& e = *r.extract;
    if (e.sass.empty()) continue;
    SCOPED_TRACE(e.name);
    ++skeletons;
    for (const Record& rec : e.records) {
      if (rec.error) continue;
      EXPECT_FALSE(warp_synced(r, rec.first.pc, rec.second.pc))
          << "0x" << std::hex << rec.first.pc << " -> 0x" << rec.second.pc;
      across_bsync += std::any_of(e.sass.begin(), e.sass.end(), [&](const SassOp& op) {
        return op.op == "BSYNC" && on_path(e, rec.first.pc, rec.second.pc, op.pc).value_or(false);
      });
    }
    const std::set<Replay::Key> theirs(r.theirs.begin(), r.theirs.end());
    for (const Replay::Key& k : r.synced)
      EXPECT_FALSE(theirs.count(k)) << "racecheck reports a pair a WARPSYNC separates";
    hidden += r.synced.size();
    std::printf("%-44s warnings a WARPSYNC hides: %zu\n", e.name.c_str(), r.synced.size());
  }
  EXPECT_GE(skeletons, 3u);
  EXPECT_GT(across_bsync, 0u) << "a warning across a reconvergence";
  EXPECT_GT(hidden, 0u) << "warnings a WARPSYNC hid";
}

}  // namespace
}  // namespace ts
