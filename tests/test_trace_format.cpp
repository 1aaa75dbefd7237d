// The two layouts of the .tstrace file (io/trace_file.hpp). Version-1 files,
// written by TileScope before the open catalogue, still open: this test
// writes one byte by byte in the old layout from a real simulator run and
// checks that it loads as that run. Version 2 keeps the array table and the
// parameters by name, and a crafted file (valid checksum) whose names, table
// or slots do not fit is refused with a message that names the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "io/trace_file.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The default lesson (square tiles, two barriers).
std::string default_id() {
  return picks::default_lesson().id;
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// Little-endian bytes, as both versions write them.
struct Bytes {
  std::vector<uint8_t> b;
  template <class T>
  void put(T v) {
    const size_t at = b.size();
    b.resize(at + sizeof(T));
    std::memcpy(b.data() + at, &v, sizeof(T));
  }
  void put_str(const std::string& s) {
    put(uint32_t(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
  // Patches the size field and appends the checksum.
  std::vector<uint8_t> finish() {
    const uint64_t total = b.size() + 8;
    std::memcpy(b.data() + 12, &total, 8);
    put(fnv1a64(b));
    return b;
  }
};

// Version 1 named arrays by one fixed list for every lesson.
enum V1Buffer : uint8_t {
  kV1A = 1,
  kV1B = 2,
  kV1C = 3,
  kV1In = 4,
  kV1Out = 5,
  kV1TileA = 6,
  kV1TileB = 7,
  kV1StencilShared = 8
};

// The version-1 id of an array of the table: globals by name; the first
// shared array was TileA (StencilShared in the stencils), the second TileB.
uint8_t v1_id(const ArrayTable& table, ArraySlot slot) {
  if (slot == kNoArray) return 0;
  const ArrayInfo& a = table[slot - 1];
  if (!a.shared()) {
    const std::map<std::string, uint8_t> global = {
        {"A", kV1A}, {"B", kV1B}, {"C", kV1C}, {"in", kV1In}, {"out", kV1Out}};
    return global.at(a.name);
  }
  int shared_before = 0;
  for (ArraySlot s = 1; s < slot; ++s)
    shared_before += table[s - 1].shared();
  if (shared_before == 1) return kV1TileB;
  return slot_named(table, "in") != kNoArray ? kV1StencilShared : kV1TileA;
}

// The trace in the version-1 layout, field by field. `line_shift` moves every
// event's line, as the kernel headers of that time had them elsewhere.
std::vector<uint8_t> write_v1(const Trace& t, int line_shift = 0) {
  Bytes w;
  const RunConfig& c = t.config;
  w.b.assign(kTraceMagic, kTraceMagic + 8);
  w.put(uint32_t(1));
  w.put(uint64_t(0));  // size, patched by finish()
  w.put_str(c.lesson_id);
  for (int v : {c.params.m, c.params.k, c.params.n, c.params.tile, c.params.length, c.params.radius,
                c.params.block})
    w.put(int32_t(v));
  w.put(c.barrier_mask);
  const LaunchGeometry& g = c.geometry;
  for (uint32_t v : {g.grid.x, g.grid.y, g.grid.z, g.block.x, g.block.y, g.block.z,
                     g.dynamic_shared_bytes, g.static_shared_bytes})
    w.put(v);
  w.put(uint8_t(c.backend));
  w.put_str(c.device_name);
  w.put(uint8_t(c.schedule.kind));
  w.put(c.schedule.skew_warps);
  w.put(int32_t(c.schedule.skew_steps));
  w.put(c.schedule.seed);
  w.put(int32_t(c.skew_ns));
  w.put(c.skew_warps);
  w.put(c.input_seed);
  w.put(t.capacity);
  w.put(t.events_dropped);
  w.put(uint32_t(t.buffers.size()));
  for (const BufferData& b : t.buffers) {
    w.put(v1_id(c.arrays, b.slot));
    w.put(uint8_t(b.is_output));
    w.put(uint32_t(b.rows));
    w.put(uint32_t(b.cols));
    for (float v : b.values)
      w.put(v);
  }
  w.put(uint64_t(t.events.size()));
  for (const Event& e : t.events) {
    uint8_t rec[40];
    std::memcpy(rec, &e, 40);
    const uint16_t warp = uint16_t(e.thread / 32);
    std::memcpy(rec + 32, &warp, 2);     // version 1: the warp where instr is now
    rec[37] = v1_id(c.arrays, e.array);  // and the buffer id where the slot is
    const uint16_t line = uint16_t(e.line + line_shift);
    std::memcpy(rec + offsetof(Event, line), &line, 2);
    w.b.insert(w.b.end(), rec, rec + 40);
  }
  return w.finish();
}

RunResult sim_run(const std::string& id, std::optional<Params> p = std::nullopt,
                  uint32_t mask = ~0u, ScheduleKind kind = ScheduleKind::Lockstep) {
  RunRequest req;
  req.lesson_id = id;
  req.params = p ? *p : find_lesson(id)->defaults;
  req.barrier_mask = mask;
  req.schedule.kind = kind;
  req.backend = BackendChoice::Sim;
  RunResult r = run_simulator(req);
  EXPECT_TRUE(r.ok) << id << ": " << r.error;
  return r;
}

void expect_same_run(const Trace& want, const Trace& got) {
  const RunConfig &x = want.config, &y = got.config;
  EXPECT_EQ(x.lesson_id, y.lesson_id);
  EXPECT_EQ(x.params, y.params);
  EXPECT_EQ(x.barrier_mask, y.barrier_mask);
  EXPECT_EQ(x.geometry.grid, y.geometry.grid);
  EXPECT_EQ(x.geometry.block, y.geometry.block);
  EXPECT_EQ(x.geometry.dynamic_shared_bytes, y.geometry.dynamic_shared_bytes);
  EXPECT_EQ(x.geometry.static_shared_bytes, y.geometry.static_shared_bytes);
  EXPECT_EQ(x.backend, y.backend);
  EXPECT_EQ(x.device_name, y.device_name);
  EXPECT_EQ(x.schedule, y.schedule);
  EXPECT_EQ(x.input_seed, y.input_seed);
  EXPECT_EQ(x.arrays, y.arrays);
  EXPECT_EQ(want.capacity, got.capacity);
  EXPECT_EQ(want.events_dropped, got.events_dropped);
  ASSERT_EQ(want.buffers.size(), got.buffers.size());
  for (size_t i = 0; i < want.buffers.size(); ++i) {
    EXPECT_EQ(want.buffers[i].slot, got.buffers[i].slot) << i;
    EXPECT_EQ(want.buffers[i].rows, got.buffers[i].rows) << i;
    EXPECT_EQ(want.buffers[i].cols, got.buffers[i].cols) << i;
    EXPECT_EQ(want.buffers[i].is_output, got.buffers[i].is_output) << i;
    EXPECT_EQ(want.buffers[i].values, got.buffers[i].values) << i;
  }
  ASSERT_EQ(want.events.size(), got.events.size());
  for (size_t i = 0; i < want.events.size(); ++i) {
    const Event &a = want.events[i], &b = got.events[i];
    ASSERT_EQ(std::memcmp(&a, &b, sizeof(Event)), 0)
        << "event " << i << ": array " << int(a.array) << " / " << int(b.array) << ", instr "
        << a.instr << " / " << b.instr;
  }
}

// --- version 1 ---------------------------------------------------------------

TEST(TraceFormatV1, AFileOfTheOldLayoutLoadsAsTheRunItRecorded) {
  for (const char* id :
       {picks::default_lesson().id, picks::halo_lesson(picks::Halo::StaticShared).id}) {
    SCOPED_TRACE(id);
    const RunResult r = sim_run(id);
    ASSERT_TRUE(r.ok);
    const std::vector<uint8_t> v1 = write_v1(r.trace);
    uint32_t version = 0;
    std::memcpy(&version, v1.data() + 8, 4);
    ASSERT_EQ(version, 1u);
    std::string err;
    const auto back = parse_trace(v1, &err);
    ASSERT_TRUE(back) << err;
    // The table is the lesson's; the events are the run's, slots mapped and
    // each thread's events numbered 0, 1, 2, ... where the warp was.
    EXPECT_EQ(back->config.arrays, arrays(*find_lesson(id), r.trace.config.params));
    expect_same_run(r.trace, *back);
    std::map<std::pair<uint32_t, uint16_t>, uint16_t> next;
    for (const Event& e : back->events)
      ASSERT_EQ(e.instr, next[std::pair(e.block, e.thread)]++);
    // Saved again, it is a version-2 file of the same run.
    const auto v2 = serialize_trace(*back);
    std::memcpy(&version, v2.data() + 8, 4);
    EXPECT_EQ(version, kTraceFormatVersion);
    const auto again = parse_trace(v2, &err);
    ASSERT_TRUE(again) << err;
    expect_same_run(r.trace, *again);
  }
}

// Every lesson, with its second shared array (rowsA/colsB, tileA/tileB) and a
// race that interleaves threads, maps each old id to the right slot.
TEST(TraceFormatV1, EveryLessonsArraysMapToItsSlots) {
  for (const LessonInfo& v : all_lessons()) {
    // Version 1 knew only the multiplies and the stencils.
    const std::string family = v.family;
    if (family != "matmul" && family != "stencil") continue;
    SCOPED_TRACE(v.id);
    const RunResult r = sim_run(v.id, std::nullopt, 0u, ScheduleKind::Random);
    ASSERT_TRUE(r.ok);
    std::string err;
    const auto back = parse_trace(write_v1(r.trace), &err);
    ASSERT_TRUE(back) << err;
    expect_same_run(r.trace, *back);
  }
}

// A real version-1 file was recorded from the kernel headers of its time
// (kernels/*.cuh), where the barriers stood on other lines: it loads with the
// barriers on the lines of today's lesson header, accesses as recorded.
TEST(TraceFormatV1, BarrierLinesOfTheOldHeadersMoveToTheLessons) {
  const RunResult r = sim_run(default_id());
  ASSERT_TRUE(r.ok);
  std::string err;
  const auto back = parse_trace(write_v1(r.trace, 36), &err);
  ASSERT_TRUE(back) << err;
  ASSERT_EQ(back->events.size(), r.trace.events.size());
  const LessonInfo& v = picks::default_lesson();
  int barriers = 0;
  for (size_t i = 0; i < back->events.size(); ++i) {
    const Event& e = back->events[i];
    if (is_barrier(e.kind)) {
      ++barriers;
      ASSERT_EQ(e.line, v.barriers[e.barrier - 1].line) << "event " << i;
    } else {
      ASSERT_EQ(e.line, r.trace.events[i].line + 36) << "event " << i;
    }
  }
  EXPECT_GT(barriers, 0);
}

TEST(TraceFormatV1, AFileOfAnUnknownLessonIsRefusedClearly) {
  Trace t = sim_run(default_id()).trace;
  t.config.lesson_id = "matmul.tiled_hexagonal";
  std::string err;
  EXPECT_FALSE(parse_trace(write_v1(t), &err));
  EXPECT_EQ(err.rfind("invalid: a version-1 trace names its arrays through its lesson", 0), 0u)
      << err;
  EXPECT_HAS(err, "\"matmul.tiled_hexagonal\"");
  EXPECT_HAS(err, "is not a lesson run this build knows");
  // A known lesson with parameters it refuses has no array table either.
  t = sim_run(default_id()).trace;
  t.config.params.tile = 5;
  EXPECT_FALSE(parse_trace(write_v1(t), &err));
  EXPECT_HAS(err, "version-1 trace");
  EXPECT_HAS(err, "tile=5");
}

TEST(TraceFormatV1, AnOldIdTheLessonDoesNotHaveIsRefused) {
  const Trace t = sim_run(default_id()).trace;
  std::vector<uint8_t> bytes = write_v1(t);
  // The first global load names In, which a multiply never had.
  size_t i = 0;
  while (t.events[i].kind != EventKind::GlobalLoad)
    ++i;
  const size_t at = bytes.size() - 8 - (t.events.size() - i) * 40;
  ASSERT_EQ(bytes[at + 37], kV1A);
  bytes[at + 37] = kV1In;
  const uint64_t h = fnv1a64(std::span<const uint8_t>(bytes.data(), bytes.size() - 8));
  std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
  std::string err;
  EXPECT_FALSE(parse_trace(bytes, &err));
  EXPECT_HAS(err, "event " + std::to_string(i) +
                      " has buffer id 4, which is not an array of "
                      "this lesson");
}

// --- version 2 ---------------------------------------------------------------

// Offsets into a version-2 file of `t` (the layout of trace_file.hpp).
struct V2Layout {
  size_t params;   // the parameter count
  size_t arrays;   // the array count
  size_t buffers;  // the buffer count
  size_t events;   // the first event record
};
V2Layout layout_of(const Trace& t) {
  V2Layout l{};
  l.params = 20 + 4 + t.config.lesson_id.size();
  size_t at = l.params + 4;
  for (const ParamField& f : kParamFields)
    at += 4 + std::strlen(f.name) + 4;
  at += 4 + 8 * 4 + 1 + 4 + t.config.device_name.size() + 1 + 4 + 4 + 8 + 4 + 4 + 8;
  l.arrays = at;
  at += 4;
  for (const ArrayInfo& a : t.config.arrays)
    at += 4 + a.name.size() + 4 + 4 * 4;  // name, 4 x u8, rows, cols, stream, shared offset
  l.buffers = at + 16;
  at = l.buffers + 4;
  for (const BufferData& b : t.buffers)
    at += 10 + b.values.size() * 4;
  l.events = at + 8;
  return l;
}

std::string read_str(const std::vector<uint8_t>& b, size_t& at) {
  uint32_t n = 0;
  std::memcpy(&n, b.data() + at, 4);
  std::string s(b.begin() + long(at) + 4, b.begin() + long(at) + 4 + n);
  at += 4 + n;
  return s;
}
template <class T>
T read(const std::vector<uint8_t>& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

void reseal(std::vector<uint8_t>& bytes) {
  const uint64_t h = fnv1a64(std::span<const uint8_t>(bytes.data(), bytes.size() - 8));
  std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
}

// Replaces the first occurrence of `from` at or after `start` by `to` (same length).
void replace_bytes(std::vector<uint8_t>& b, size_t start, const std::string& from,
                   const std::string& to) {
  ASSERT_EQ(from.size(), to.size());
  auto it = std::search(b.begin() + long(start), b.end(), from.begin(), from.end());
  ASSERT_NE(it, b.end()) << from;
  std::copy(to.begin(), to.end(), it);
}

TEST(TraceFormatV2, RoundTripKeepsTheArrayTableAndParametersByName) {
  const Params p{.m = 9, .k = 5, .n = 7, .tile = 4};
  const RunResult r = sim_run(picks::rectangular_tiled_lesson().id, p);
  ASSERT_TRUE(r.ok);
  const std::vector<uint8_t> bytes = serialize_trace(r.trace);
  EXPECT_EQ(read<uint32_t>(bytes, 8), 2u);
  // The parameters, each under its option name.
  const V2Layout l = layout_of(r.trace);
  ASSERT_EQ(read<uint32_t>(bytes, l.params), 7u);
  size_t at = l.params + 4;
  std::map<std::string, int32_t> named;
  for (int i = 0; i < 7; ++i) {
    const std::string name = read_str(bytes, at);
    named[name] = read<int32_t>(bytes, at);
    at += 4;
  }
  EXPECT_EQ(named.at("m"), 9);
  EXPECT_EQ(named.at("k"), 5);
  EXPECT_EQ(named.at("n"), 7);
  EXPECT_EQ(named.at("tile"), 4);
  // The array table, by name, in slot order.
  ASSERT_EQ(read<uint32_t>(bytes, l.arrays), 5u);
  at = l.arrays + 4;
  std::vector<std::string> names;
  for (int i = 0; i < 5; ++i) {
    names.push_back(read_str(bytes, at));
    at += 4 + 16;  // 4 x u8, rows, cols, stream, shared offset
  }
  EXPECT_EQ(names, (std::vector<std::string>{"A", "B", "C", "tileA", "tileB"}));
  std::string err;
  const auto back = parse_trace(bytes, &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->config.params, p);
  EXPECT_EQ(back->config.arrays, r.trace.config.arrays);
  EXPECT_EQ(back->config.arrays[0].rows, 9);
  EXPECT_EQ(back->config.arrays[0].cols, 5);
  expect_same_run(r.trace, *back);
  EXPECT_EQ(serialize_trace(*back), bytes);
}

// A file may list the parameters in any order, and only some of them.
TEST(TraceFormatV2, ParametersAreReadByNameInAnyOrder) {
  const RunResult r = sim_run(picks::halo_lesson(picks::Halo::StaticShared).id);
  ASSERT_TRUE(r.ok);
  std::vector<uint8_t> bytes = serialize_trace(r.trace);
  const V2Layout l = layout_of(r.trace);
  // Rewrite the parameter list: block, radius, length only, backwards.
  size_t end = l.params + 4;
  for (const ParamField& f : kParamFields)
    end += 4 + std::strlen(f.name) + 4;
  Bytes list;
  list.put(uint32_t(3));
  for (const char* name : {"block", "radius", "length"}) {
    list.put_str(name);
    const ParamField* f = nullptr;
    for (const ParamField& x : kParamFields)
      if (std::string(x.name) == name) f = &x;
    list.put(int32_t(r.trace.config.params.*(f->field)));
  }
  bytes.erase(bytes.begin() + long(l.params), bytes.begin() + long(end));
  bytes.insert(bytes.begin() + long(l.params), list.b.begin(), list.b.end());
  const uint64_t size = bytes.size();
  std::memcpy(bytes.data() + 12, &size, 8);
  reseal(bytes);
  std::string err;
  const auto back = parse_trace(bytes, &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->config.params.length, r.trace.config.params.length);
  EXPECT_EQ(back->config.params.radius, r.trace.config.params.radius);
  EXPECT_EQ(back->config.params.block, r.trace.config.params.block);
  EXPECT_EQ(back->config.params.n, 0) << "a parameter the file leaves out is 0";
}

TEST(TraceFormatV2, RefusesAnUnknownOrDuplicateParameterName) {
  const RunResult r = sim_run(default_id());
  ASSERT_TRUE(r.ok);
  const std::vector<uint8_t> good = serialize_trace(r.trace);
  const V2Layout l = layout_of(r.trace);
  {
    auto bytes = good;
    replace_bytes(bytes, l.params, "tile", "tyle");
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err,
               "corrupt: in the run configuration section, parameter \"tyle\" is not one "
               "this build knows (m, k, n, tile, length, radius, block)");
  }
  {
    auto bytes = good;
    // "k" (the second parameter) renamed "n": n is then listed twice.
    const std::string k = std::string("\x01\0\0\0k", 5), n = std::string("\x01\0\0\0n", 5);
    replace_bytes(bytes, l.params, k, n);
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err, "parameter n appears twice");
  }
  {
    auto bytes = good;
    const uint32_t eight = 8;
    std::memcpy(bytes.data() + l.params, &eight, 4);
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err, "it lists 8 parameters; at most 7 exist");
  }
}

// The table of a hand-edited file (valid checksum) must be the lesson's.
TEST(TraceFormatV2, RefusesAnArrayTableThatDiffersFromTheLessons) {
  const RunResult r = sim_run(default_id());  // n 12, tile 8
  ASSERT_TRUE(r.ok);
  const std::vector<uint8_t> good = serialize_trace(r.trace);
  const V2Layout l = layout_of(r.trace);
  {
    auto bytes = good;
    replace_bytes(bytes, l.arrays, "tileB", "tileQ");
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err, "invalid: array 5 is tileQ (shared");
    EXPECT_HAS(err, default_id() + " with n=12 tile=8 has tileB (shared");
  }
  {
    auto bytes = good;
    // A's rows: after its name (4 + 1 bytes) and space, role, type, size (4 bytes).
    const size_t rows_at = l.arrays + 4 + 5 + 4;
    ASSERT_EQ(read<uint32_t>(bytes, rows_at), 12u);
    const uint32_t eleven = 11;
    std::memcpy(bytes.data() + rows_at, &eleven, 4);
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err, "array 1 is A (global input f32, 11 x 12)");
  }
  {
    auto bytes = good;
    const uint32_t many = 17;
    std::memcpy(bytes.data() + l.arrays, &many, 4);
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err, "corrupt: in the arrays section, it lists 17 arrays; at most 16");
  }
  {
    auto bytes = good;
    bytes[l.arrays + 4 + 5] = 7;  // A's space
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err, "array 1 (A): space is 7; allowed: 0 to 2");
  }
}

TEST(TraceFormatV2, RefusesSlotsBeyondTheTable) {
  const RunResult r = sim_run(default_id());
  ASSERT_TRUE(r.ok);
  const std::vector<uint8_t> good = serialize_trace(r.trace);
  const V2Layout l = layout_of(r.trace);
  {
    auto bytes = good;
    const size_t e = 3;
    ASSERT_NE(r.trace.events[e].array, kNoArray);
    bytes[l.events + e * 40 + offsetof(Event, array)] = 6;
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err,
               "corrupt: in the events section, event 3 names array 6; the table has 0 "
               "to 5");
  }
  {
    auto bytes = good;
    ASSERT_EQ(bytes[l.buffers + 4], 1);  // the first buffer is A's
    bytes[l.buffers + 4] = 9;
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_HAS(err, "buffer 0 has id 9; allowed: 1 to 5 (the array table's slots)");
  }
}

// Issue 20: a version-1 file predates warp shuffles.
TEST(TraceFormatV1, RefusesAWarpShuffle) {
  Trace t = sim_run(default_id()).trace;
  size_t i = 0;
  while (t.events[i].kind != EventKind::SharedLoad)
    ++i;
  Event& e = t.events[i];
  e.kind = EventKind::WarpShuffle;
  e.array = kNoArray;
  e.element = 1;
  std::string err;
  EXPECT_FALSE(parse_trace(write_v1(t), &err));
  EXPECT_HAS(err, "event " + std::to_string(i) +
                      " is a warp shuffle (kind 7); version 1 files predate them (allowed: kinds "
                      "0 to 5)");
}

// Messages that said the impossible: a byte count that overflowed 64 bits,
// and an empty range ("allowed: 1 to 0").
TEST(TraceFormatV2, SaysWhatIsWrongWhereTheNumbersOverflowOrTheRangeIsEmpty) {
  const RunResult r = sim_run(default_id());
  ASSERT_TRUE(r.ok);
  {
    auto bytes = serialize_trace(r.trace);
    const V2Layout l = layout_of(r.trace);
    const uint64_t huge = ~0ull / 8;  // 40 bytes each: far past 2^64
    std::memcpy(bytes.data() + l.events - 8, &huge, 8);
    reseal(bytes);
    std::string err;
    EXPECT_FALSE(parse_trace(bytes, &err));
    EXPECT_EQ(err.find("18446744073709551615"), std::string::npos) << err;
    EXPECT_HAS(err, "the event count is " + std::to_string(huge) +
                        ": at 40 bytes each, more than 2^64 bytes");
  }
  {
    Trace t = r.trace;  // no arrays, yet a buffer
    t.config.arrays.clear();
    t.events.clear();
    t.buffers.resize(1);
    std::string err;
    EXPECT_FALSE(parse_trace(serialize_trace(t), &err));
    EXPECT_EQ(err.find("1 to 0"), std::string::npos) << err;
    EXPECT_HAS(err, "buffer 0 has id 1; the array table is empty, so no buffer can be listed");
  }
}

}  // namespace
}  // namespace ts
