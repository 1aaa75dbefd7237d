// The histogram lessons and atomics in the trace: right bins on the
// simulator (unsigned bins through both copies), event counts equal to the
// closed forms, hazards as racecheck counts them (no hazard between two
// atomics; an atomic against a plain access is one), races that bite under
// warp skew, atomics through the trace file, the replay and the contention
// per bin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/atomic_contention.hpp"
#include "analysis/counters.hpp"
#include "analysis/hazards.hpp"
#include "analysis/replay.hpp"
#include "analysis/trace_validate.hpp"
#include "analysis/warp_access.hpp"
#include "engine/backend.hpp"
#include "engine/prepare.hpp"
#include "io/trace_file.hpp"
#include "lessons/histogram_kit.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

using lessons::histogram_kit::bin_of;
using lessons::histogram_kit::kBinCount;

const char* global_id() {
  return picks::global_atomics_lesson().id;
}
const char* shared_id() {
  return picks::shared_atomics_lesson().id;
}
// The arrays by the names the kernels give them ("in" and "bins" hold the
// same slots in both lessons; "local_bins" is the shared one's alone).
ArraySlot global_slot(const std::string& name) {
  return picks::array_slot(picks::global_atomics_lesson(), name);
}
ArraySlot shared_slot(const std::string& name) {
  return picks::array_slot(picks::shared_atomics_lesson(), name);
}
constexpr uint32_t kWithoutBarrier1 = 0b10, kWithoutBarrier2 = 0b01;

RunResult sim(const char* id, Params p, uint32_t mask = ~0u,
              ScheduleKind kind = ScheduleKind::Lockstep,
              InputKind inputs = InputKind::SmallIntegers) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p;
  req.barrier_mask = mask;
  req.backend = BackendChoice::Sim;
  req.schedule.kind = kind;
  req.inputs = inputs;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  return r;
}

Params params(int length, int block) {
  return Params{.length = length, .block = block};
}

std::map<EventKind, uint64_t> kinds_of(const Trace& t) {
  std::map<EventKind, uint64_t> n;
  for (const Event& e : t.events)
    ++n[e.kind];
  return n;
}

// The bins a CPU count of the inputs gives, independent of the lesson's reference.
std::vector<float> counted(const Trace& t) {
  std::vector<float> bins(kBinCount, 0.0f);
  for (float x : t.buffer(global_slot("in"))->values)
    bins[size_t(bin_of(x))] += 1.0f;
  return bins;
}

TEST(Histogram, BinsCoverMinusFourToFourInSixtyFourSteps) {
  EXPECT_EQ(bin_of(-4.0f), 0);
  EXPECT_EQ(bin_of(-3.875f), 1);
  EXPECT_EQ(bin_of(0.0f), 32);
  EXPECT_EQ(bin_of(-0.1f), 31);
  EXPECT_EQ(bin_of(3.9f), 63);
  EXPECT_EQ(bin_of(4.0f), 63);    // the top edge counts in the last bin
  EXPECT_EQ(bin_of(100.0f), 63);  // above the range
  EXPECT_EQ(bin_of(-100.0f), 0);  // below it
  EXPECT_EQ(bin_of(std::nanf("")), 0);
  // The small integers -4 .. 4 fill 9 bins: 0, 8, .., 56 and 63.
  std::set<int> used;
  for (int v = -4; v <= 4; ++v)
    used.insert(bin_of(float(v)));
  EXPECT_EQ(used, (std::set<int>{0, 8, 16, 24, 32, 40, 48, 56, 63}));
}

TEST(Histogram, BothLessonsCountEveryBinRightOnTheSimulator) {
  for (const char* id : {global_id(), shared_id()})
    for (auto [length, block] : {std::pair{200, 64},
                                 {1, 32},
                                 {7, 32},
                                 {33, 32},
                                 {199, 64},
                                 {1000, 96},
                                 {100, 8},
                                 {5000, 256}})
      for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew})
        for (InputKind inputs : {InputKind::SmallIntegers, InputKind::Uniform}) {
          SCOPED_TRACE(std::string(id) + " length " + std::to_string(length) + " block " +
                       std::to_string(block) + " " + to_string(kind));
          const RunResult r = sim(id, params(length, block), ~0u, kind, inputs);
          ASSERT_TRUE(r.ok);
          EXPECT_TRUE(r.verdict.correct) << r.verdict.summary();
          EXPECT_TRUE(r.faults.empty());
          // The unsigned bins came back as counts (not their bits read as floats).
          const BufferData* bins = r.trace.buffer(global_slot("bins"));
          ASSERT_NE(bins, nullptr);
          EXPECT_EQ(bins->values, counted(r.trace));
          double total = 0;
          for (float b : bins->values)
            total += b;
          EXPECT_EQ(total, double(length));
        }
}

TEST(Histogram, EventCountsEqualTheClosedForms) {
  for (auto [length, block] : {std::pair{200, 64}, {7, 32}, {1000, 96}, {100, 8}}) {
    SCOPED_TRACE("length " + std::to_string(length) + " block " + std::to_string(block));
    const uint64_t L = uint64_t(length), B = uint64_t(block), G = (L + B - 1) / B;
    {
      const RunResult r = sim(global_id(), params(length, block));
      auto n = kinds_of(r.trace);
      EXPECT_EQ(n[EventKind::GlobalLoad], L);
      EXPECT_EQ(n[EventKind::GlobalAtomic], L);
      EXPECT_EQ(r.trace.events.size(), 2 * L);
      const ExpectedCounts c = expected_counts(*find_lesson(global_id()), params(length, block));
      EXPECT_EQ(c.global_loads, L);
      EXPECT_EQ(c.global_atomics, L);
      EXPECT_EQ(c.total(), r.trace.events.size());
    }
    {
      const RunResult r = sim(shared_id(), params(length, block));
      auto n = kinds_of(r.trace);
      EXPECT_EQ(n[EventKind::GlobalLoad], L);
      EXPECT_EQ(n[EventKind::SharedStore], G * 64);  // zeroing
      EXPECT_EQ(n[EventKind::SharedAtomic], L);
      EXPECT_EQ(n[EventKind::SharedLoad], G * 64);  // the totals
      EXPECT_EQ(n[EventKind::GlobalAtomic], G * 64);
      EXPECT_EQ(n[EventKind::BarrierArrive], 2 * G * B);
      EXPECT_EQ(n[EventKind::BarrierLeave], 2 * G * B);
      const ExpectedCounts c = expected_counts(*find_lesson(shared_id()), params(length, block));
      EXPECT_EQ(c.shared_atomics, L);
      EXPECT_EQ(c.global_atomics, G * 64);
      EXPECT_EQ(c.shared_stores, G * 64);
      EXPECT_EQ(c.shared_loads, G * 64);
      EXPECT_EQ(c.barrier_arrivals, 2 * G * B);
      EXPECT_EQ(c.total(), r.trace.events.size());
      // The counters see the same.
      const Counters k = count_accesses(r.trace);
      EXPECT_EQ(k.shared_atomics(), L);
      EXPECT_EQ(k.global_atomics(), G * 64);
      EXPECT_EQ(k.atomics[global_slot("bins")], G * 64);
      EXPECT_EQ(k.atomics[shared_slot("local_bins")], L);
      EXPECT_EQ(k.global_bytes_read, 4 * (L + G * 64));  // the loads and the atomics' reads
      EXPECT_EQ(k.global_bytes_written, 4 * G * 64);
    }
  }
}

TEST(Histogram, AnAtomicEventHoldsTheValueAfterTheAdd) {
  // Lockstep, one block: the k-th atomic on a bin (in recorded order) leaves k there.
  const RunResult r = sim(global_id(), params(64, 64));
  std::map<uint32_t, float> seen;
  for (const Event& e : r.trace.events)
    if (e.kind == EventKind::GlobalAtomic) {
      EXPECT_EQ(e.value, seen[e.element] + 1.0f) << "bins[" << e.element << "]";
      seen[e.element] = e.value;
    }
  for (const auto& [bin, last] : seen)
    EXPECT_EQ(last, r.trace.buffer(global_slot("bins"))->values[bin]);
}

TEST(Histogram, ElementBitsRoundTripForUnsignedArrays) {
  std::vector<float> v = {0.0f, 1.0f, 7.0f, 16777216.0f, -3.0f};
  values_to_element_bits(ElemType::U32, v.data(), v.size());
  uint32_t bits[5];
  std::memcpy(bits, v.data(), sizeof bits);
  EXPECT_EQ(bits[1], 1u);
  EXPECT_EQ(bits[2], 7u);
  EXPECT_EQ(bits[3], 16777216u);
  EXPECT_EQ(bits[4], 0u);  // negative counts do not exist: clamped to 0
  element_bits_to_values(ElemType::U32, v.data(), v.size());
  EXPECT_EQ(v, (std::vector<float>{0.0f, 1.0f, 7.0f, 16777216.0f, 0.0f}));
  std::vector<float> f = {1.5f, -2.0f};
  values_to_element_bits(ElemType::F32, f.data(), f.size());
  EXPECT_EQ(f, (std::vector<float>{1.5f, -2.0f}));  // floats are their own bits
}

// ---- Hazards ----

std::set<std::pair<std::string, std::pair<int, int>>> groups_of(const HazardReport& r) {
  std::set<std::pair<std::string, std::pair<int, int>>> s;
  for (const HazardGroup& g : r.groups)
    s.insert({to_string(g.kind), {g.first_line, g.second_line}});
  return s;
}

int line_of(const Trace& t, EventKind kind, ArraySlot array) {
  for (const Event& e : t.events)
    if (e.kind == kind && e.array == array) return e.line;
  return -1;
}

// Atomics counted as writes against plain accesses: the races racecheck does
// not report (analysis/hazards.hpp, HazardOptions::atomics).
const HazardOptions kWithAtomics{.atomics = true};

TEST(Histogram, NoHazardWithBothBarriersAnySchedule) {
  for (ScheduleKind kind : {ScheduleKind::Lockstep, ScheduleKind::WarpSkew, ScheduleKind::Random})
    for (const char* id : {global_id(), shared_id()}) {
      const RunResult r = sim(id, params(300, 64), ~0u, kind);
      const HazardReport h = analyze_hazards(r.trace, kWithAtomics);
      EXPECT_TRUE(h.empty()) << id << " " << to_string(kind) << ": " << h.verdict();
      EXPECT_TRUE(analyze_hazards(r.trace).empty());
      if (std::string(id) == shared_id()) {
        EXPECT_EQ(h.shared_accesses, 300u + 2 * 5 * 64) << "atomics are analysed too";
      }
    }
}

TEST(Histogram, WithoutBarrierOneTheZeroingRacesTheAtomics) {
  const RunResult r = sim(shared_id(), params(256, 64), kWithoutBarrier1);
  const int zero = line_of(r.trace, EventKind::SharedStore, shared_slot("local_bins"));
  const int atomic = line_of(r.trace, EventKind::SharedAtomic, shared_slot("local_bins"));
  const HazardReport h = analyze_hazards(r.trace, kWithAtomics);
  EXPECT_EQ(h.verdict(), "error WAW; warning WAW");
  EXPECT_EQ(groups_of(h),
            (std::set<std::pair<std::string, std::pair<int, int>>>{{"WAW", {zero, atomic}}}));
  for (const Hazard& x : h.hazards) {
    EXPECT_FALSE(x.first.is_atomic);  // the zero
    EXPECT_TRUE(x.second.is_atomic);
    EXPECT_TRUE(x.second.is_write);
  }
}

TEST(Histogram, WithoutBarrierTwoTheTotalsReadRacesTheAtomics) {
  const RunResult r = sim(shared_id(), params(256, 64), kWithoutBarrier2);
  const int atomic = line_of(r.trace, EventKind::SharedAtomic, shared_slot("local_bins"));
  const int total = line_of(r.trace, EventKind::SharedLoad, shared_slot("local_bins"));
  const HazardReport h = analyze_hazards(r.trace, kWithAtomics);
  EXPECT_TRUE(h.has(HazardKind::ReadAfterWrite));
  EXPECT_FALSE(h.has(HazardKind::WriteAfterWrite));
  EXPECT_GT(h.errors, 0u);
  EXPECT_EQ(groups_of(h),
            (std::set<std::pair<std::string, std::pair<int, int>>>{{"RAW", {atomic, total}}}));
  // Skewed: a lagging warp counts after a fast one read the total (write-after-read).
  const RunResult s = sim(shared_id(), params(256, 64), kWithoutBarrier2, ScheduleKind::WarpSkew);
  const HazardReport hs = analyze_hazards(s.trace, kWithAtomics);
  EXPECT_TRUE(hs.has(HazardKind::WriteAfterRead)) << hs.verdict();
  EXPECT_GT(hs.errors, 0u);
}

TEST(Histogram, RemovedBarriersGiveWrongCountsUnderWarpSkew) {
  for (uint32_t mask : {kWithoutBarrier1, kWithoutBarrier2, 0u}) {
    SCOPED_TRACE("mask " + std::to_string(mask));
    const RunResult skewed = sim(shared_id(), params(256, 64), mask, ScheduleKind::WarpSkew);
    EXPECT_FALSE(skewed.verdict.correct);
    // The race is there in lockstep too (the hazards say so), whatever the output.
    const RunResult lockstep = sim(shared_id(), params(256, 64), mask);
    EXPECT_FALSE(analyze_hazards(lockstep.trace, kWithAtomics).empty());
    // racecheck's model sees nothing: the report says what it misses instead.
    const HazardReport as_racecheck = analyze_hazards(lockstep.trace);
    EXPECT_TRUE(as_racecheck.empty()) << as_racecheck.verdict();
    EXPECT_GT(as_racecheck.missed_by_racecheck(), 0u);
    EXPECT_EQ(as_racecheck.with_atomics_verdict,
              analyze_hazards(lockstep.trace, kWithAtomics).verdict());
  }
  const RunResult kept = sim(shared_id(), params(256, 64), ~0u, ScheduleKind::WarpSkew);
  EXPECT_TRUE(kept.verdict.correct) << kept.verdict.summary();
}

// A crafted trace: one block of 64 threads (two warps) and the lesson's
// shared array; each entry (thread, kind, line) touches local_bins[5].
Trace crafted(const std::vector<std::tuple<int, EventKind, int>>& accesses) {
  Trace t;
  RunConfig& c = t.config;
  c.lesson_id = shared_id();
  c.params = params(64, 64);
  c.geometry = geometry(*find_lesson(shared_id()), c.params);
  c.arrays = arrays(*find_lesson(shared_id()), c.params);
  std::map<int, uint16_t> instr;
  uint64_t clock = 0;
  for (const auto& [thread, kind, line] : accesses) {
    Event e{};
    e.clock = e.globaltimer = clock++;
    e.element = 5;
    e.value = 1;
    e.thread = uint16_t(thread);
    e.line = uint16_t(line);
    e.instr = instr[thread]++;
    e.kind = kind;
    e.array = shared_slot("local_bins");
    t.events.push_back(e);
  }
  return t;
}

TEST(Histogram, TwoAtomicsOnOneElementNeverMakeAHazard) {
  using K = EventKind;
  // Threads of both warps, every order: atomics only.
  EXPECT_TRUE(analyze_hazards(crafted({{0, K::SharedAtomic, 39},
                                       {40, K::SharedAtomic, 39},
                                       {1, K::SharedAtomic, 39},
                                       {63, K::SharedAtomic, 41}}),
                              kWithAtomics)
                  .empty());
  // An atomic against a plain access of another thread is one, as a write.
  const auto verdict = [](std::vector<std::tuple<int, EventKind, int>> a) {
    return analyze_hazards(crafted(a), kWithAtomics).seen_verdict();
  };
  EXPECT_EQ(verdict({{0, K::SharedAtomic, 39}, {40, K::SharedLoad, 44}}), "error RAW");
  EXPECT_EQ(verdict({{40, K::SharedLoad, 44}, {0, K::SharedAtomic, 39}}), "error WAR");
  EXPECT_EQ(verdict({{40, K::SharedStore, 32}, {0, K::SharedAtomic, 39}}), "error WAW");
  EXPECT_EQ(verdict({{0, K::SharedAtomic, 39}, {40, K::SharedStore, 32}}), "error WAW");
  EXPECT_EQ(verdict({{0, K::SharedAtomic, 39}, {1, K::SharedLoad, 44}}), "warning RAW");
  // The same thread: program order, no hazard.
  EXPECT_EQ(verdict({{7, K::SharedAtomic, 39}, {7, K::SharedLoad, 44}}), "none");
  // Checked against the last write and every access since it (not only the
  // one access racecheck's shadow holds): a store, then atomics of two other
  // threads: each atomic races the store, not the other atomic.
  HazardOptions every = kWithAtomics;
  every.model = HazardModel::SinceLastWrite;
  const HazardReport h = analyze_hazards(
      crafted({{40, K::SharedStore, 32}, {0, K::SharedAtomic, 39}, {1, K::SharedAtomic, 39}}),
      every);
  EXPECT_EQ(h.total, 2u);
  EXPECT_EQ(h.by_kind[int(HazardKind::WriteAfterWrite)], 2u);
  // Atomics, then one read: it races each atomic of another thread.
  const HazardReport r = analyze_hazards(
      crafted({{0, K::SharedAtomic, 39}, {33, K::SharedAtomic, 39}, {2, K::SharedLoad, 44}}),
      every);
  // racecheck's model: atomics are not checked at all, not even against the load.
  EXPECT_EQ(verdict({{0, K::SharedAtomic, 39}, {40, K::SharedLoad, 44}}), "error RAW");
  EXPECT_TRUE(
      analyze_hazards(crafted({{0, K::SharedAtomic, 39}, {40, K::SharedLoad, 44}})).empty());
  EXPECT_EQ(r.by_kind[int(HazardKind::ReadAfterWrite)], 2u);
  EXPECT_EQ(r.total, 2u);
}

// ---- The trace file ----

TEST(Histogram, AtomicsRoundTripThroughTheTraceFile) {
  const RunResult r = sim(shared_id(), params(100, 64));
  ASSERT_EQ(check_trace_semantics(r.trace), std::nullopt);
  std::string err;
  const auto back = parse_trace(serialize_trace(r.trace), &err);
  ASSERT_TRUE(back) << err;
  ASSERT_EQ(back->events.size(), r.trace.events.size());
  EXPECT_EQ(std::memcmp(back->events.data(), r.trace.events.data(),
                        r.trace.events.size() * sizeof(Event)),
            0);
  EXPECT_EQ(back->config.arrays, r.trace.config.arrays);
  EXPECT_EQ(back->config.arrays[global_slot("bins") - 1].type, ElemType::U32);
  EXPECT_EQ(back->buffer(global_slot("bins"))->values, r.trace.buffer(global_slot("bins"))->values);
  EXPECT_EQ(check_trace_semantics(*back), std::nullopt);
}

TEST(Histogram, AnAtomicOnAnArrayOfTheOtherSpaceIsRefused) {
  const RunResult r = sim(shared_id(), params(100, 64));
  for (EventKind kind : {EventKind::SharedAtomic, EventKind::GlobalAtomic}) {
    Trace t = r.trace;
    auto it = std::find_if(t.events.begin(), t.events.end(),
                           [&](const Event& e) { return e.kind == kind; });
    ASSERT_NE(it, t.events.end());
    const size_t at = size_t(it - t.events.begin());
    // A shared atomic on the global bins, a global atomic on the shared ones.
    it->array = kind == EventKind::SharedAtomic ? ArraySlot(global_slot("bins"))
                                                : ArraySlot(shared_slot("local_bins"));
    std::string err;
    EXPECT_FALSE(parse_trace(serialize_trace(t), &err));
    const std::string space = kind == EventKind::SharedAtomic ? "shared" : "global";
    EXPECT_NE(err.find("event " + std::to_string(at) + " is a " + space + " atomic"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("it must name a " + space + " array"), std::string::npos) << err;
    // A trace built in memory is checked the same way.
    const auto sem = check_trace_semantics(t);
    ASSERT_TRUE(sem);
    EXPECT_NE(sem->find("event " + std::to_string(at)), std::string::npos) << *sem;
  }
}

// ---- Replay, counters, warp accesses, contention ----

TEST(Histogram, ReplayEndsWithTheBinsTheRunComputed) {
  for (const char* id : {global_id(), shared_id()}) {
    const RunResult r = sim(id, params(200, 64));
    auto trace = std::make_shared<const Trace>(r.trace);
    Replay replay(trace);
    replay.seek(replay.size());
    const auto& bins = r.trace.buffer(global_slot("bins"))->values;
    for (uint32_t b = 0; b < uint32_t(kBinCount); ++b) {
      const CellState* c = replay.cell(global_slot("bins"), 0, b);
      ASSERT_NE(c, nullptr);
      EXPECT_EQ(c->value, bins[b]) << id << " bins[" << b << "]";
    }
    if (std::string(id) == shared_id()) {  // block 3's private copy holds its own count
      double sum = 0;
      for (uint32_t b = 0; b < uint32_t(kBinCount); ++b)
        sum += replay.cell(shared_slot("local_bins"), 3, b)->value;
      EXPECT_EQ(sum, 200.0 - 3 * 64);
    }
  }
}

// Shared atomics are served like loads of the same words (analysis/warp_access.cpp).
// At the defaults Nsight Compute counted, on an H100 (scripts/ncu_compare.sh):
// 7 ATOMS instructions, 14 wavefronts, 7 bank conflicts.
TEST(Histogram, SharedAtomicWavefrontsAreNsightsAtTheDefaults) {
  const RunResult r = sim(shared_id(), find_lesson(shared_id())->defaults);
  const WarpAccesses w = warp_accesses(r.trace);
  const AccessTotals& a = w.totals(EventKind::SharedAtomic);
  EXPECT_EQ(a.requests, 7u);
  EXPECT_EQ(a.wavefronts, 14u);
  EXPECT_EQ(a.bank_conflicts(), 7u);
}

TEST(Histogram, WarpAccessesCountAtomicsUnderTheirNsightNames) {
  const RunResult r = sim(shared_id(), params(256, 64));
  const WarpAccesses w = warp_accesses(r.trace);
  EXPECT_EQ(w.totals(EventKind::SharedAtomic).requests, 8u);  // 4 blocks x 2 warps
  EXPECT_EQ(w.totals(EventKind::SharedAtomic).lanes, 256u);
  EXPECT_EQ(w.totals(EventKind::GlobalAtomic).requests, 8u);  // the totals: one per warp
  EXPECT_EQ(w.totals(EventKind::GlobalAtomic).sectors, 8u * 4);
  std::map<std::string, uint64_t> ncu;
  for (const NcuCounter& c : ncu_counters(w))
    ncu[c.name] = c.value;
  EXPECT_EQ(ncu.at("smsp__inst_executed_op_shared_atom.sum"), 8u);
  EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
            w.totals(EventKind::SharedAtomic).wavefronts);
  EXPECT_EQ(ncu.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
            w.totals(EventKind::SharedAtomic).wavefronts - 8);
  // The wavefronts a load of the same words would take; the bins of one
  // warp's 32 values span more than 32 words here, so some share a bank.
  uint64_t as_loads = 0;
  for (const WarpAccess& a : w.accesses)
    if (a.kind == EventKind::SharedAtomic)
      as_loads += uint64_t(serve_shared(lane_accesses(r.trace, w, a)).wavefronts);
  EXPECT_EQ(ncu.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"), as_loads);
  EXPECT_GT(ncu.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"), 0u);
  EXPECT_EQ(ncu.at("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"), 8u);
  EXPECT_EQ(ncu.at("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"), 32u);
}

// Warp 0: lanes 0-19 on bin 7, lanes 20-31 each on its own bin (20 .. 31);
// warp 1: lanes 32-39 on bin 7, lanes 40-63 on bin 40. One global atomic each.
TEST(Histogram, ContentionOfAKnownPatternPerBin) {
  Trace t;
  RunConfig& c = t.config;
  c.lesson_id = global_id();
  c.params = params(64, 64);
  c.geometry = geometry(*find_lesson(global_id()), c.params);
  c.arrays = arrays(*find_lesson(global_id()), c.params);
  for (int th = 0; th < 64; ++th) {
    Event e{};
    e.clock = e.globaltimer = uint64_t(th);
    e.thread = uint16_t(th);
    e.element = th < 20 ? 7 : th < 32 ? uint32_t(th) : th < 40 ? 7 : 40;
    e.value = 1;
    e.line = 28;
    e.kind = EventKind::GlobalAtomic;
    e.array = global_slot("bins");
    t.events.push_back(e);
  }
  const AtomicContention ac = atomic_contention(t);
  ASSERT_EQ(ac.arrays.size(), 1u);
  const ArrayContention& a = ac.arrays[0];
  EXPECT_EQ(a.array, global_slot("bins"));
  EXPECT_EQ(a.space, Space::Global);
  EXPECT_EQ(a.atomics, 64u);
  EXPECT_EQ(a.warp_instructions, 2u);
  EXPECT_EQ(a.most_lanes, 24u);
  ASSERT_EQ(a.elements.size(), size_t(kBinCount));
  EXPECT_EQ(a.elements[7].atomics, 28u);
  EXPECT_EQ(a.elements[7].most_lanes, 20u);
  EXPECT_EQ(a.elements[7].queued, 19u + 7u);
  EXPECT_EQ(a.elements[40].atomics, 24u);
  EXPECT_EQ(a.elements[40].most_lanes, 24u);
  EXPECT_EQ(a.elements[40].queued, 23u);
  for (uint32_t b = 20; b < 32; ++b) {
    EXPECT_EQ(a.elements[b].atomics, 1u);
    EXPECT_EQ(a.elements[b].most_lanes, 1u);
    EXPECT_EQ(a.elements[b].queued, 0u);
  }
  EXPECT_EQ(a.elements[0].atomics, 0u);
  const auto hot = ac.hottest(3);
  ASSERT_EQ(hot.size(), 3u);
  EXPECT_EQ(hot[0].element, 7u);
  EXPECT_EQ(hot[1].element, 40u);
  EXPECT_EQ(hot[2].element, 20u);          // ties: the lowest index first
  EXPECT_EQ(ac.hottest(100).size(), 14u);  // only the bins that received atomics
}

TEST(Histogram, ContentionPerBinAddsUpToTheBins) {
  // Global atomics: every element's atomics are its bin's count.
  const RunResult r = sim(global_id(), params(500, 64));
  const AtomicContention ac = atomic_contention(r.trace);
  ASSERT_EQ(ac.arrays.size(), 1u);
  const auto& bins = r.trace.buffer(global_slot("bins"))->values;
  for (uint32_t b = 0; b < uint32_t(kBinCount); ++b)
    EXPECT_EQ(double(ac.arrays[0].elements[b].atomics), bins[b]) << "bins[" << b << "]";
  // Small integers fill 9 bins: some warp queues at least 4 lanes on one bin.
  EXPECT_GE(ac.arrays[0].most_lanes, 4u);
  EXPECT_EQ(ac.hottest(64).size(), 9u);
  // The private histograms take the per-element atomics; the global bins get
  // one per block and bin, never two lanes of one warp on one bin.
  const RunResult s = sim(shared_id(), params(500, 64));
  const AtomicContention as = atomic_contention(s.trace);
  ASSERT_EQ(as.arrays.size(), 2u);
  EXPECT_EQ(as.arrays[0].array, global_slot("bins"));
  EXPECT_EQ(as.arrays[0].most_lanes, 1u);
  EXPECT_EQ(as.arrays[0].atomics, 8u * 64);
  EXPECT_EQ(as.arrays[1].array, shared_slot("local_bins"));
  EXPECT_EQ(as.arrays[1].space, Space::Shared);
  EXPECT_EQ(as.arrays[1].atomics, 500u);
}

}  // namespace
}  // namespace ts

namespace ts {
namespace {
// RED sectors at the defaults: the red rule (analysis/warp_access.hpp, from
// the bank probe's RED patterns #832-#860) against what Nsight Compute
// counted on an H100 for this lesson (docs/measurements.md: 7 requests, 189
// sectors, where the lanes touch 53 distinct sectors; the model said 53
// before the rule).
TEST(Histogram, GlobalRedSectorsAreNsightsAtTheDefaults) {
  const RunResult r = sim(global_id(), find_lesson(global_id())->defaults);
  const WarpAccesses w = warp_accesses(r.trace);
  const AccessTotals& a = w.totals(EventKind::GlobalAtomic);
  EXPECT_EQ(a.requests, 7u);
  EXPECT_EQ(a.sectors, 189u);
}
}  // namespace
}  // namespace ts
