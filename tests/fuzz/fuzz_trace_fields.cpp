// Structure-aware libFuzzer target: valid traces recorded by the simulator,
// one to a few fields changed by the fuzz input, written with a valid
// checksum and parsed. Whatever the loader accepts, every consumer of a
// loaded trace must take without a crash, a hang or a huge allocation:
// decode, counters, hazards, the replay (built, seeked, stepped), the Chrome
// export and the output check. (fuzz_trace_file mutates raw bytes; most of
// its inputs die at the checksum or a size check. These reach the meaning.)
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_trace_fields
//   build/fuzz/tests/fuzz/fuzz_trace_fields -max_total_time=600 -rss_limit_mb=2048
//       -max_len=4096
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "analysis/counters.hpp"
#include "analysis/decode.hpp"
#include "analysis/hazards.hpp"
#include "analysis/replay.hpp"
#include "analysis/stale_reads.hpp"
#include "analysis/trace_validate.hpp"
#include "engine/backend.hpp"
#include "io/chrome_export.hpp"
#include "io/trace_file.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

namespace {

using namespace ts;

// A buffer of a mutated trace is resized to its new shape only up to this
// many values; beyond, the serialized trace is inconsistent (and refused).
constexpr uint64_t kMaxValues = 4096;

// Small runs of every kind of kernel: overruns (tiled_exact at n 5),
// a removed barrier, shared rows and columns, halos, a grid of naive blocks.
const std::vector<Trace>& seeds() {
  static const std::vector<Trace> traces = [] {
    struct Seed {
      const char* lesson_id;
      Params p;
      uint32_t mask;
    };
    const Seed list[] = {
        {picks::overreaching_lesson().id, {.n = 5, .tile = 2}, ~0u},
        {picks::default_lesson().id, {.n = 4, .tile = 2}, 0x1u},
        {picks::rectangular_tiled_lesson().id, {.m = 3, .k = 5, .n = 2, .tile = 2}, ~0u},
        {picks::dynamic_staging_lesson(2).id, {.n = 5, .tile = 2}, ~0u},
        {picks::ladder_step(2).id, {.n = 3, .block = 2}, ~0u},
        {picks::halo_lesson(picks::Halo::DynamicShared).id,
         {.length = 20, .radius = 2, .block = 8},
         ~0u},
        {picks::halo_lesson(picks::Halo::StaticShared).id,
         {.length = 10, .radius = 1, .block = 4},
         0u},
    };
    std::vector<Trace> out;
    for (const Seed& s : list) {
      RunRequest req;
      req.lesson_id = s.lesson_id;
      req.params = s.p;
      req.barrier_mask = s.mask;
      RunResult r = run_simulator(req);
      if (!r.ok) __builtin_trap();
      // A trace the simulator recorded must load: no false refusals.
      std::string error;
      if (!parse_trace(serialize_trace(r.trace), &error)) __builtin_trap();
      out.push_back(std::move(r.trace));
    }
    return out;
  }();
  return traces;
}

// Reads the fuzz input front to back; zeros once it runs out.
class Input {
 public:
  Input(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool done() const { return i_ >= n_; }
  uint8_t byte() { return i_ < n_ ? d_[i_++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k)
      v |= uint32_t(byte()) << (8 * k);
    return v;
  }
  // A value for a field: often one of the edges validation must tell apart.
  uint32_t value(uint32_t current) {
    static const uint32_t edges[] = {0,           1,         2,          3,           31,
                                     32,          33,        63,         64,          255,
                                     1023,        1024,      1025,       65534,       65535,
                                     65536,       1u << 24,  1u << 28,   0x7fffffffu, 0x80000000u,
                                     0xffffffffu, 16777216u, 268435456u, 228 * 1024};
    const uint8_t how = byte();
    switch (how % 4) {
      case 0:
        return edges[byte() % (sizeof edges / sizeof edges[0])];
      case 1:
        return current + uint32_t(int8_t(byte()));  // a small step either way
      default:
        return u32();
    }
  }

 private:
  const uint8_t* d_;
  size_t n_;
  size_t i_ = 0;
};

void reshape(BufferData& b, int rows, int cols) {
  b.rows = rows;
  b.cols = cols;
  if (rows >= 0 && cols >= 0 && uint64_t(rows) * uint64_t(cols) <= kMaxValues)
    b.values.resize(size_t(rows) * size_t(cols), 1.0f);
}

int32_t* param(Params& p, int which) {
  int32_t* all[] = {&p.m, &p.k, &p.n, &p.tile, &p.length, &p.radius, &p.block};
  return all[which % 7];
}

void mutate_event(Event& e, Input& in) {
  switch (in.byte() % 13) {
    case 0:
      e.block = in.value(e.block);
      break;
    case 1:
      e.element = in.value(e.element);
      break;
    case 2:
      e.thread = uint16_t(in.value(e.thread));
      break;
    case 3:
      e.instr = uint16_t(in.value(e.instr));
      break;
    case 4:
      e.line = uint16_t(in.value(e.line));
      break;
    case 5:
      e.kind = EventKind(in.byte() % (kEventKindCount + 1));
      break;
    case 6:
      e.array = ArraySlot(in.byte() % (kMaxArrays + 2));  // slots beyond the table too
      break;
    case 7:
      e.flags = in.byte();
      break;
    case 8:
      e.barrier = uint8_t(in.value(e.barrier));
      break;
    case 9: {
      const uint32_t bits = in.u32();
      std::memcpy(&e.value, &bits, 4);
      break;
    }
    case 10:
      e.clock = uint64_t(in.u32()) << (in.byte() % 33);
      break;
    case 11:
      e.globaltimer = uint64_t(in.u32()) << (in.byte() % 33);
      break;
    default:
      e.sm = uint16_t(in.value(e.sm));
      break;
  }
}

void mutate(Trace& t, Input& in) {
  RunConfig& c = t.config;
  switch (in.byte() % 13) {
    case 0: {  // a parameter alone
      int32_t* p = param(c.params, in.byte());
      *p = int32_t(in.value(uint32_t(*p)));
      break;
    }
    case 1: {  // a parameter with the geometry and arrays it gives: deeper checks
      const LessonInfo* v = find_lesson(c.lesson_id);
      int32_t* p = param(c.params, in.byte());
      *p = int32_t(in.value(uint32_t(*p)) % 4096);
      // geometry() and arrays() expect parameters that validate.
      DeviceLimits lim;
      lim.max_shared_per_block = 228 * 1024;
      if (!v || validate(*v, c.params, lim)) break;
      c.geometry = geometry(*v, c.params);
      c.arrays = arrays(*v, c.params);
      for (BufferData& b : t.buffers)
        if (const ArrayInfo* a = array_at(c.arrays, b.slot)) reshape(b, a->rows, a->cols);
      break;
    }
    case 2:
      c.barrier_mask = in.value(c.barrier_mask.mask());
      break;
    case 3: {
      uint32_t* g[] = {&c.geometry.grid.x,
                       &c.geometry.grid.y,
                       &c.geometry.grid.z,
                       &c.geometry.block.x,
                       &c.geometry.block.y,
                       &c.geometry.block.z,
                       &c.geometry.dynamic_shared_bytes,
                       &c.geometry.static_shared_bytes};
      uint32_t* f = g[in.byte() % 8];
      *f = in.value(*f);
      break;
    }
    case 4: {
      if (t.buffers.empty()) break;
      BufferData& b = t.buffers[in.byte() % t.buffers.size()];
      switch (in.byte() % 4) {
        case 0:
          reshape(b, int(in.value(uint32_t(b.rows))), b.cols);
          break;
        case 1:
          reshape(b, b.rows, int(in.value(uint32_t(b.cols))));
          break;
        case 2:
          b.slot = ArraySlot(1 + in.byte() % kMaxArrays);
          break;
        default:
          b.is_output = !b.is_output;
          break;
      }
      break;
    }
    case 5:
    case 6:
    case 7: {  // events are most of a trace: most mutations go there
      if (t.events.empty()) break;
      mutate_event(t.events[in.u32() % t.events.size()], in);
      break;
    }
    case 8: {
      if (in.byte() & 1)
        t.capacity = in.value(uint32_t(t.capacity));
      else
        t.events_dropped = in.value(uint32_t(t.events_dropped));
      break;
    }
    case 9: {
      const auto all = all_lessons();
      const uint8_t pick = in.byte();
      c.lesson_id = pick < 2 * all.size() ? all[pick % all.size()].id : "matmul.unknown";
      break;
    }
    case 10: {  // events removed, repeated or reordered
      if (t.events.empty()) break;
      const size_t i = in.u32() % t.events.size(), j = in.u32() % t.events.size();
      switch (in.byte() % 4) {
        case 0:
          t.events.resize(i);
          break;
        case 1:
          t.events.push_back(t.events[i]);
          break;
        case 2:
          t.events.erase(t.events.begin() + long(i));
          break;
        default:
          std::swap(t.events[i], t.events[j]);
          break;
      }
      break;
    }
    case 11: {  // the array table: one field of one array, or an array more or less
      ArrayTable& table = c.arrays;
      const uint8_t what = in.byte() % 8;
      if (what == 6) {
        if (!table.empty()) table.pop_back();
        break;
      }
      if (what == 7) {
        table.push_back(lesson_kit::shared_array("extra", int(in.value(1)), int(in.value(8))));
        break;
      }
      if (table.empty()) break;
      ArrayInfo& a = table[in.byte() % table.size()];
      switch (what) {
        case 0:
          a.rows = int(in.value(uint32_t(a.rows)));
          break;
        case 1:
          a.cols = int(in.value(uint32_t(a.cols)));
          break;
        case 2:
          a.space = Space(in.byte() % 2);
          break;
        case 3:
          a.role = ArrayRole(in.byte() % 3);
          break;
        case 4:
          a.name = in.byte() & 1 ? std::string() : a.name + char('a' + in.byte() % 26);
          break;
        default:
          a.fill_stream = in.u32();
          break;
      }
      break;
    }
    default: {
      c.backend = BackendKind(in.byte() % 2);
      c.schedule.kind = ScheduleKind(in.byte() % 3);
      break;
    }
  }
}

// Discards what the Chrome export writes.
class NullBuf : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

void consume(const Trace& loaded) {
  if (check_trace_semantics(loaded)) __builtin_trap();  // accepted yet invalid
  const DecodedTrace d = decode(loaded);
  uint64_t in_blocks = 0;
  for (const auto& b : d.blocks)
    in_blocks += b.events;
  if (in_blocks != loaded.events.size()) __builtin_trap();
  const Counters counts = count_accesses(loaded);
  (void)counts;
  (void)expected_for(loaded);
  const HazardReport hz = analyze_hazards(loaded);
  if (hz.errors + hz.warnings != hz.total) __builtin_trap();
  NullBuf nb;
  std::ostream null(&nb);
  write_chrome_trace(loaded, null);
  (void)output_damage(loaded);

  auto shared = std::make_shared<const Trace>(loaded);
  Replay r(shared);
  const uint64_t n = r.size();
  for (ReplayOrder o : {ReplayOrder::AsRecorded, ReplayOrder::Lockstep}) {
    r.set_order(o);
    for (uint64_t pos : {n, n / 2, uint64_t(0), n / 3, n + 5}) {
      r.seek(pos);
      if (r.position() > n) __builtin_trap();
    }
    uint64_t at = 0;
    for (int k = 0; k < 8; ++k) {
      at = r.warp_step(at, true);
      r.seek(at);
    }
    r.seek(r.phase_step(at, true, 0));
    r.seek(r.barrier_step(r.position(), false, 0));
    for (const ReplayArray& a : r.arrays())
      if (r.cell(a.id, 0, 0) == nullptr && a.count() > 0) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const std::vector<Trace>& all = seeds();
  Trace t = all[in.byte() % all.size()];
  const int mutations = 1 + in.byte() % 4;
  for (int m = 0; m < mutations && !in.done(); ++m)
    mutate(t, in);
  const std::vector<uint8_t> bytes = serialize_trace(t);
  std::string error;
  const auto loaded = parse_trace(bytes, &error);
  if (!loaded) {
    if (error.empty()) __builtin_trap();  // a refusal must say why
    return 0;
  }
  consume(*loaded);
  return 0;
}
