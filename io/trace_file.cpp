// The .tstrace file format: see trace_file.hpp for the layout.
#include "io/trace_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <unordered_map>

#include "analysis/trace_validate.hpp"
#include "engine/catalogue.hpp"
#include "io/input_file.hpp"

namespace ts {

static_assert(std::endian::native == std::endian::little,
              "the trace file stores integers and events as little-endian raw bytes");

namespace {

constexpr uint32_t kMaxStringBytes = 4096;
constexpr int32_t kMaxParam = 1 << 28;  // far beyond anything a traced run uses
constexpr uint32_t kMaxBufferSide = 1u << 28;
// A shared array's start: within the 2 GiB a launch's dynamic shared size can say.
constexpr uint32_t kMaxSharedOffset = 1u << 31;
constexpr uint32_t kMaxDynamicShared = 16u << 20;

// Valid UTF-8 without control characters.
// Length of the valid UTF-8 character (no control character) at s[i], or 0.
size_t text_char(const std::string& s, size_t i) {
  const auto c = uint8_t(s[i]);
  if (c < 0x20 || c == 0x7f) return 0;
  if (c < 0x80) return 1;
  int more = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    more = 1, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    more = 2, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    more = 3, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + size_t(more) >= s.size()) return 0;  // the sequence is cut off
  for (int k = 1; k <= more; ++k) {
    const auto cc = uint8_t(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Overlong forms, surrogates and code points beyond Unicode.
  if ((more == 1 && cp < 0x80) || (more == 2 && cp < 0x800) || (more == 3 && cp < 0x10000) ||
      (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return 0;
  return size_t(more) + 1;
}

bool is_text(const std::string& s) {
  for (size_t i = 0, n; i < s.size(); i += n)
    if ((n = text_char(s, i)) == 0) return false;
  return true;
}

// What the file stores for a name: at most kMaxStringBytes of whole
// characters, anything that is not text replaced by '?', so a save always loads.
std::string as_text(const std::string& s) {
  std::string out;
  for (size_t i = 0, n; i < s.size(); i += n) {
    n = text_char(s, i);
    if (out.size() + std::max<size_t>(n, 1) > kMaxStringBytes) break;
    if (n == 0) {
      out += '?';
      n = 1;
    } else {
      out.append(s, i, n);
    }
  }
  return out;
}

class Writer {
 public:
  std::vector<uint8_t> bytes;
  template <class T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
  }
  void put_bytes(const void* p, size_t n) {
    if (n == 0) return;
    const size_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, p, n);
  }
  void put_str(const std::string& s) {
    const std::string text = as_text(s);
    put(uint32_t(text.size()));
    put_bytes(text.data(), text.size());
  }
};

// Reads the file front to back; every read checks that the bytes are there.
// Running out means "truncated" when the file is shorter than its header
// says, and "corrupt" (a count or size that does not fit) when it is not.
class Reader {
 public:
  Reader(std::span<const uint8_t> b, bool complete) : bytes_(b), complete_(complete) {}
  const char* section = "header";
  std::string error;
  // Sizes and counts only: the buffers' values and the events are skipped,
  // not copied (the layout check of a large file before its checksum).
  bool layout_only = false;

  bool ok() const { return error.empty(); }
  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  template <class T>
  T get() {
    T v{};
    if (!need(sizeof(T), "")) return v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string get_str(const char* what) {
    const uint32_t n = get<uint32_t>();
    if (!ok()) return {};
    if (n > kMaxStringBytes) {
      fail("the " + std::string(what) + " is " + std::to_string(n) + " bytes long; at most " +
           std::to_string(kMaxStringBytes) + " are allowed");
      return {};
    }
    if (!need(n, what)) return {};
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    // Names are shown and exported as JSON: they must be text.
    if (!is_text(s)) fail("the " + std::string(what) + " is not UTF-8 text");
    return s;
  }
  // Checks that `n` bytes remain for `what` (a description for the message).
  bool need(uint64_t n, const std::string& what) {
    if (!ok()) return false;
    if (n <= remaining()) return true;
    if (!complete_) {
      error = "truncated: the file ends inside the " + std::string(section) + " section";
      if (!what.empty()) error += " (" + what + ")";
    } else {
      error = "corrupt: the " + std::string(section) + " section needs " + std::to_string(n) +
              " bytes" + (what.empty() ? std::string() : " for " + what) + " but only " +
              std::to_string(remaining()) + " remain in the file";
    }
    return false;
  }
  void fail(const std::string& why) {
    if (ok()) error = "corrupt: in the " + std::string(section) + " section, " + why;
  }
  const uint8_t* here() const { return bytes_.data() + pos_; }
  void skip(size_t n) { pos_ += n; }

 private:
  std::span<const uint8_t> bytes_;
  bool complete_;
  size_t pos_ = 0;
};

constexpr size_t kHeaderBytes = sizeof(kTraceMagic) + sizeof(uint32_t) + sizeof(uint64_t);
// Up to this size a file is checksummed (or, when short, parsed for the
// message) whole; beyond it, the sizes its sections declare must add up to
// the file's before a page past them is read.
constexpr uint64_t kReadWholeUpTo = 64ull << 20;

std::string range_msg(const char* what, int64_t v, int64_t lo, int64_t hi) {
  return std::string(what) + " is " + std::to_string(v) + "; allowed: " + std::to_string(lo) +
         " to " + std::to_string(hi);
}

bool parse_config(Reader& r, uint32_t version, RunConfig& c) {
  r.section = "run configuration";
  c.lesson_id = r.get_str("lesson id");
  if (version == 1) {
    // Version 1: the seven parameters in a fixed order.
    for (const ParamField& f : kParamFields) {
      c.params.*f.field = r.get<int32_t>();
      if (r.ok() && (c.params.*f.field < 0 || c.params.*f.field > kMaxParam))
        r.fail(range_msg((std::string("parameter ") + f.name).c_str(), c.params.*f.field, 0,
                         kMaxParam));
    }
  } else {
    // Parameters by name; a name this build does not know is refused.
    const uint32_t count = r.get<uint32_t>();
    if (r.ok() && count > std::size(kParamFields))
      r.fail("it lists " + std::to_string(count) + " parameters; at most " +
             std::to_string(std::size(kParamFields)) + " exist");
    uint32_t seen = 0;
    for (uint32_t i = 0; i < count && r.ok(); ++i) {
      const std::string name = r.get_str("parameter name");
      const int32_t value = r.get<int32_t>();
      if (!r.ok()) break;
      const auto f = std::find_if(std::begin(kParamFields), std::end(kParamFields),
                                  [&](const ParamField& x) { return name == x.name; });
      if (f == std::end(kParamFields)) {
        r.fail("parameter \"" + name + "\" is not one this build knows (m, k, n, tile, " +
               "length, radius, block)");
      } else if (seen & f->bit) {
        r.fail("parameter " + name + " appears twice");
      } else if (value < 0 || value > kMaxParam) {
        r.fail(range_msg(("parameter " + name).c_str(), value, 0, kMaxParam));
      } else {
        seen |= f->bit;
        c.params.*f->field = value;
      }
    }
  }
  c.barrier_mask = r.get<uint32_t>();
  auto& g = c.geometry;
  g.grid.x = r.get<uint32_t>();
  g.grid.y = r.get<uint32_t>();
  g.grid.z = r.get<uint32_t>();
  g.block.x = r.get<uint32_t>();
  g.block.y = r.get<uint32_t>();
  g.block.z = r.get<uint32_t>();
  g.dynamic_shared_bytes = r.get<uint32_t>();
  g.static_shared_bytes = r.get<uint32_t>();
  if (!r.ok()) return false;
  // CUDA's own limits: grid x < 2^31, y and z <= 65535; at most 1024 threads per block.
  if (g.grid.x < 1 || g.grid.x > 0x7fffffffu)
    r.fail(range_msg("grid x", g.grid.x, 1, 0x7fffffff));
  else if (g.grid.y < 1 || g.grid.y > 65535)
    r.fail(range_msg("grid y", g.grid.y, 1, 65535));
  else if (g.grid.z < 1 || g.grid.z > 65535)
    r.fail(range_msg("grid z", g.grid.z, 1, 65535));
  else if (g.block.x < 1 || g.block.x > 1024)
    r.fail(range_msg("block x", g.block.x, 1, 1024));
  else if (g.block.y < 1 || g.block.y > 1024)
    r.fail(range_msg("block y", g.block.y, 1, 1024));
  else if (g.block.z < 1 || g.block.z > 64)
    r.fail(range_msg("block z", g.block.z, 1, 64));
  else if (g.block.count() > 1024)
    r.fail("a block of " + std::to_string(g.block.count()) + " threads; at most 1024 are allowed");
  else if (g.dynamic_shared_bytes > kMaxDynamicShared || g.static_shared_bytes > kMaxDynamicShared)
    r.fail("shared memory of " +
           std::to_string(std::max(g.dynamic_shared_bytes, g.static_shared_bytes)) +
           " bytes per block; at most " + std::to_string(kMaxDynamicShared) + " are allowed");
  const uint8_t backend = r.get<uint8_t>();
  if (r.ok() && backend > uint8_t(BackendKind::Simulator))
    r.fail(range_msg("backend", backend, 0, int(BackendKind::Simulator)));
  c.backend = BackendKind(backend);
  c.device_name = r.get_str("device name");
  const uint8_t sched = r.get<uint8_t>();
  if (r.ok() && sched > uint8_t(ScheduleKind::Random))
    r.fail(range_msg("schedule", sched, 0, int(ScheduleKind::Random)));
  c.schedule.kind = ScheduleKind(sched);
  c.schedule.skew_warps = r.get<uint32_t>();
  c.schedule.skew_steps = r.get<int32_t>();
  c.schedule.seed = r.get<uint64_t>();
  c.skew_ns = r.get<int32_t>();
  c.skew_warps = r.get<uint32_t>();
  c.input_seed = r.get<uint64_t>();
  if (r.ok() && c.schedule.skew_steps < 0)
    r.fail(range_msg("skew steps", c.schedule.skew_steps, 0, INT32_MAX));
  if (r.ok() && c.skew_ns < 0) r.fail(range_msg("skew ns", c.skew_ns, 0, INT32_MAX));
  return r.ok();
}

bool parse_arrays(Reader& r, ArrayTable& out) {
  r.section = "arrays";
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok()) return false;
  if (count > uint32_t(kMaxArrays)) {
    r.fail("it lists " + std::to_string(count) + " arrays; at most " + std::to_string(kMaxArrays) +
           " are allowed");
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    ArrayInfo a;
    a.name = r.get_str("array name");
    const uint8_t space = r.get<uint8_t>(), role = r.get<uint8_t>(), type = r.get<uint8_t>();
    const uint8_t elem = r.get<uint8_t>();
    const uint32_t rows = r.get<uint32_t>(), cols = r.get<uint32_t>();
    a.fill_stream = r.get<uint32_t>();
    const uint32_t offset = r.get<uint32_t>();
    if (!r.ok()) return false;
    const std::string at = "array " + std::to_string(i + 1) + " (" + a.name + ")";
    if (a.name.empty())
      r.fail("array " + std::to_string(i + 1) + " has no name");
    else if (space > uint8_t(Space::Constant))
      r.fail(at + ": " + range_msg("space", space, 0, int(Space::Constant)));
    else if (role > uint8_t(ArrayRole::Scratch))
      r.fail(at + ": " + range_msg("role", role, 0, int(ArrayRole::Scratch)));
    else if (type > uint8_t(ElemType::U8))
      r.fail(at + ": " + range_msg("element type", type, 0, int(ElemType::U8)));
    else if (elem != elem_size(ElemType(type)))
      r.fail(at + ": element size is " + std::to_string(elem) + " bytes; a " +
             to_string(ElemType(type)) + " element is " +
             std::to_string(elem_size(ElemType(type))));
    else if (rows > kMaxBufferSide || cols > kMaxBufferSide)
      r.fail(at + " is " + std::to_string(rows) + " x " + std::to_string(cols) +
             "; each side may be at most " + std::to_string(kMaxBufferSide));
    else if (space != uint8_t(Space::Shared) && offset != 0)
      r.fail(at + " is " + to_string(Space(space)) + " but has a shared offset of " +
             std::to_string(offset) + " bytes");
    else if (offset % elem != 0 || offset > kMaxSharedOffset)
      r.fail(at + ": shared offset " + std::to_string(offset) + " bytes is not a multiple of " +
             std::to_string(elem) + " up to " + std::to_string(kMaxSharedOffset));
    if (!r.ok()) return false;
    a.space = Space(space);
    a.role = ArrayRole(role);
    a.type = ElemType(type);
    a.elem_bytes = elem;
    a.rows = int(rows);
    a.cols = int(cols);
    a.shared_offset = offset;
    out.push_back(std::move(a));
  }
  return true;
}

// Version 1 named arrays by a fixed list of ids (A, B, C, In, Out, TileA,
// TileB, StencilShared); version 2 by slots of the lesson's array table.
// The slot a version-1 id means in `table`: global ones by name, the shared
// ones in order; kNoArray when the lesson has no such array.
ArraySlot v1_slot(uint8_t id, const ArrayTable& table) {
  static const char* const kGlobal[] = {"", "A", "B", "C", "in", "out"};
  if (id >= 1 && id <= 5) return slot_named(table, kGlobal[id]);
  const int shared_index = id == 6 || id == 8 ? 0 : id == 7 ? 1 : -1;
  if (shared_index < 0) return kNoArray;
  int seen = 0;
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].shared() && seen++ == shared_index) return ArraySlot(i + 1);
  return kNoArray;
}
constexpr int kV1BufferIds = 9;

bool parse_buffers(Reader& r, uint32_t version, const ArrayTable& table,
                   std::vector<BufferData>& out) {
  r.section = "buffers";
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok()) return false;
  const uint32_t most = version == 1 ? uint32_t(kV1BufferIds) : uint32_t(kMaxArrays);
  if (count > most) {
    r.fail("it lists " + std::to_string(count) + " buffers; at most " + std::to_string(most) +
           " exist");
    return false;
  }
  uint64_t seen = 0;
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    BufferData b;
    const uint8_t id = r.get<uint8_t>();
    const uint8_t is_output = r.get<uint8_t>();
    const uint32_t rows = r.get<uint32_t>();
    const uint32_t cols = r.get<uint32_t>();
    if (!r.ok()) return false;
    const ArraySlot slot = version == 1 ? v1_slot(id, table) : ArraySlot(id);
    if (version == 1 ? (id == 0 || id >= kV1BufferIds || slot == kNoArray)
                     : (slot == kNoArray || slot > table.size())) {
      if (version != 1 && table.empty())  // no slot to name: say so rather than "1 to 0"
        r.fail("buffer " + std::to_string(i) + " has id " + std::to_string(id) +
               "; the array table is empty, so no buffer can be listed");
      else
        r.fail("buffer " + std::to_string(i) + " has id " + std::to_string(id) +
               "; allowed: 1 to " +
               std::to_string(version == 1 ? kV1BufferIds - 1 : int(table.size())) +
               (version == 1 ? " (of the lesson's arrays)" : " (the array table's slots)"));
      return false;
    }
    const std::string name = array_name(table, slot);
    if (seen & (uint64_t(1) << slot)) {
      r.fail("buffer " + name + " appears twice");
      return false;
    }
    seen |= uint64_t(1) << slot;
    if (is_output > 1) {
      r.fail("buffer " + std::to_string(i) + " has output flag " + std::to_string(is_output));
      return false;
    }
    if (rows > kMaxBufferSide || cols > kMaxBufferSide) {
      r.fail("buffer " + name + " is " + std::to_string(rows) + " x " + std::to_string(cols) +
             "; each side may be at most " + std::to_string(kMaxBufferSide));
      return false;
    }
    const uint64_t n = uint64_t(rows) * cols;
    // Size check before the allocation: a corrupt count must not allocate gigabytes.
    if (!r.need(n * sizeof(float), "the values of buffer " + name)) return false;
    b.slot = slot;
    b.is_output = is_output != 0;
    b.rows = int(rows);
    b.cols = int(cols);
    if (!r.layout_only) {
      b.values.resize(n);
      if (n) std::memcpy(b.values.data(), r.here(), n * sizeof(float));
    }
    r.skip(n * sizeof(float));
    out.push_back(std::move(b));
  }
  return true;
}

// Version-1 events kept the warp (thread / 32) where version 2 keeps the
// thread's event number, and a buffer id where it keeps an array slot.
// Rewrites them in place: slots through the lesson's table, event numbers
// counted per thread in file order (each thread's events are in its program
// order in every trace).
bool upgrade_v1_events(Reader& r, const ArrayTable& table, uint64_t blocks, uint64_t threads,
                       std::vector<Event>& events) {
  std::unordered_map<uint64_t, uint16_t> next;  // block * threads + thread -> event number
  for (size_t i = 0; i < events.size(); ++i) {
    Event& e = events[i];
    if (e.block >= blocks || e.thread >= threads) continue;  // reported by the caller
    if (e.array != 0) {
      const ArraySlot slot = e.array < kV1BufferIds ? v1_slot(e.array, table) : kNoArray;
      if (slot == kNoArray) {
        r.fail("event " + std::to_string(i) + " has buffer id " + std::to_string(int(e.array)) +
               ", which is not an array of this lesson");
        return false;
      }
      e.array = slot;
    }
    e.instr = next[e.block * threads + e.thread]++;
  }
  return true;
}

// An atomic (kinds 6 and 8, version 2 on) names an array of its own space:
// a shared atomic a shared array, a global atomic a global one.
bool atomic_fits(const Event& e, const ArrayTable& table, uint32_t version) {
  if (version < 2 || e.array == kNoArray || e.array > table.size()) return false;
  return table[e.array - 1].shared() == (e.kind == EventKind::SharedAtomic);
}

bool parse_events(Reader& r, uint32_t version, const ArrayTable& table, const LaunchGeometry& g,
                  std::vector<Event>& out) {
  r.section = "events";
  const uint64_t count = r.get<uint64_t>();
  if (!r.ok()) return false;
  if (count > r.remaining() / sizeof(Event)) {
    if (count > UINT64_MAX / sizeof(Event))  // the byte count itself overflows 64 bits
      r.fail("the event count is " + std::to_string(count) + ": at " +
             std::to_string(sizeof(Event)) + " bytes each, more than 2^64 bytes; this file has " +
             std::to_string(r.remaining()) + " bytes left for " +
             std::to_string(r.remaining() / sizeof(Event)) + " events");
    else
      r.need(count * sizeof(Event), std::to_string(count) + " events");
    return false;
  }
  if (r.layout_only) {
    r.skip(count * sizeof(Event));
    return true;
  }
  out.resize(count);
  if (count) std::memcpy(out.data(), r.here(), count * sizeof(Event));
  r.skip(count * sizeof(Event));
  const uint64_t blocks = g.grid.count();
  const uint64_t threads = g.block.count();
  if (version == 1 && !upgrade_v1_events(r, table, blocks, threads, out)) return false;
  // Consumers index arrays with these fields: check each one.
  for (uint64_t i = 0; i < count; ++i) {
    const Event& e = out[i];
    const bool fine = uint8_t(e.kind) < kEventKindCount && e.array <= table.size() &&
                      e.block < blocks && e.thread < threads && e.barrier <= 32 &&
                      (!is_atomic(e.kind) || atomic_fits(e, table, version)) &&
                      !(version == 1 && e.kind == EventKind::WarpShuffle);
    if (fine) continue;  // the message is built only for the bad one
    const std::string at = "event " + std::to_string(i) + " ";
    if (uint8_t(e.kind) >= kEventKindCount)
      r.fail(at + "has kind " + std::to_string(int(e.kind)) + "; known kinds are 0 to " +
             std::to_string(kEventKindCount - 1));
    else if (e.array > table.size())
      r.fail(at + "names array " + std::to_string(int(e.array)) + "; the table has 0 to " +
             std::to_string(table.size()));
    else if (e.block >= blocks)
      r.fail(at + "is in block " + std::to_string(e.block) + " of a grid of " +
             std::to_string(blocks));
    else if (e.thread >= threads)
      r.fail(at + "is by thread " + std::to_string(e.thread) + " of a block of " +
             std::to_string(threads));
    else if (e.barrier > 32)
      r.fail(at + "names barrier " + std::to_string(e.barrier) + "; at most 32 exist");
    else if (version == 1 && e.kind == EventKind::WarpShuffle)
      r.fail(at + "is a warp shuffle (kind 7); version 1 files predate them (allowed: kinds 0 " +
             "to 5)");
    else if (version == 1)
      r.fail(at + "is an atomic (kind " + std::to_string(int(e.kind)) +
             "); version 1 files have none");
    else
      r.fail(at + "is a " + (e.kind == EventKind::SharedAtomic ? "shared" : "global") +
             " atomic on " +
             (e.array == kNoArray ? std::string("no array")
                                  : std::string(table[e.array - 1].shared() ? "shared" : "global") +
                                        " array " + array_name(table, e.array)) +
             "; it must name a " + (e.kind == EventKind::SharedAtomic ? "shared" : "global") +
             " array");
    if (!r.ok()) return false;
  }
  return true;
}

}  // namespace

uint64_t fnv1a64(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<uint8_t> serialize_trace(const Trace& t) {
  Writer w;
  const RunConfig& c = t.config;
  w.put_bytes(kTraceMagic, sizeof(kTraceMagic));
  w.put(kTraceFormatVersion);
  w.put(uint64_t(0));  // file size, patched below
  w.put_str(c.lesson_id);
  w.put(uint32_t(std::size(kParamFields)));
  for (const ParamField& f : kParamFields) {
    w.put_str(f.name);
    w.put(int32_t(c.params.*f.field));
  }
  w.put(c.barrier_mask.mask());
  const auto& g = c.geometry;
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
  w.put(uint32_t(c.arrays.size()));
  for (const ArrayInfo& a : c.arrays) {
    w.put_str(a.name);
    w.put(uint8_t(a.space));
    w.put(uint8_t(a.role));
    w.put(uint8_t(a.type));
    w.put(uint8_t(a.elem_bytes));
    w.put(uint32_t(a.rows));
    w.put(uint32_t(a.cols));
    w.put(uint32_t(a.fill_stream));
    w.put(uint32_t(a.shared_offset));
  }
  w.put(t.capacity);
  w.put(t.events_dropped);
  w.put(uint32_t(t.buffers.size()));
  for (const auto& b : t.buffers) {
    w.put(uint8_t(b.slot));
    w.put(uint8_t(b.is_output ? 1 : 0));
    w.put(uint32_t(b.rows));
    w.put(uint32_t(b.cols));
    w.put_bytes(b.values.data(), b.values.size() * sizeof(float));
  }
  w.put(uint64_t(t.events.size()));
  w.put_bytes(t.events.data(), t.events.size() * sizeof(Event));
  const uint64_t total = w.bytes.size() + sizeof(uint64_t);
  std::memcpy(w.bytes.data() + sizeof(kTraceMagic) + sizeof(uint32_t), &total, sizeof(total));
  w.put(fnv1a64(w.bytes));
  return std::move(w.bytes);
}

namespace {

// The first kHeaderBytes (or fewer) of a file of `size` bytes: magic, version
// and the size the header declares. The loader checks these before it reads
// the rest, so junk is refused after 20 bytes, not after reading it whole.
std::optional<std::string> check_header(std::span<const uint8_t> head, uint64_t size,
                                        uint64_t* declared, uint32_t* version_out = nullptr) {
  if (size == 0) return "empty file (0 bytes): not a TileScope trace";
  const size_t magic_bytes = std::min<size_t>(head.size(), sizeof(kTraceMagic));
  if (std::memcmp(head.data(), kTraceMagic, magic_bytes) != 0)
    return "not a TileScope trace: the file does not start with \"TSTRACE\"";
  if (size < kHeaderBytes)
    return "truncated: the file ends inside the header (" + std::to_string(size) +
           " bytes; a header alone has " + std::to_string(kHeaderBytes) + ")";
  uint32_t version = 0;
  std::memcpy(&version, head.data() + sizeof(kTraceMagic), sizeof(version));
  std::memcpy(declared, head.data() + sizeof(kTraceMagic) + sizeof(version), sizeof(*declared));
  // A version this build does not read is as likely a damaged byte as a newer
  // program: say both.
  if (version > kTraceFormatVersion)
    return "format version " + std::to_string(version) +
           ": the file is damaged, or written by a newer TileScope (this build reads up to v" +
           std::to_string(kTraceFormatVersion) + ")";
  if (version == 0) return "corrupt: format version 0 does not exist";
  if (version_out) *version_out = version;
  if (*declared < size)
    return "corrupt: the header says the file has " + std::to_string(*declared) +
           " bytes, but it has " + std::to_string(size);
  return std::nullopt;
}

}  // namespace

namespace {

// Every section after the header into `t`; r.error, or the returned message
// for a version-1 file whose lesson this build does not know.
std::optional<std::string> parse_sections(Reader& r, uint32_t version, Trace& t) {
  if (parse_config(r, version, t.config)) {
    if (version == 1) {
      // Version 1 carried no array table: the lesson's, for its parameters.
      const LessonInfo* v = find_lesson(t.config.lesson_id);
      if (!v ||
          validate(*v, t.config.params, DeviceLimits{1024, 228 * 1024, 2 * kMaxTraceFileBytes}))
        return "invalid: a version-1 trace names its arrays through its lesson, and \"" +
               t.config.lesson_id + "\" with " +
               describe(
                   kUsesM | kUsesK | kUsesN | kUsesTile | kUsesLength | kUsesRadius | kUsesBlock,
                   t.config.params) +
               " is not a lesson run this build knows";
      t.config.arrays = arrays(*v, t.config.params);
    } else {
      parse_arrays(r, t.config.arrays);
    }
    r.section = "recording";
    t.capacity = r.get<uint64_t>();
    t.events_dropped = r.get<uint64_t>();
    if (r.ok() && parse_buffers(r, version, t.config.arrays, t.buffers))
      parse_events(r, version, t.config.arrays, t.config.geometry, t.events);
  }
  if (r.ok()) {
    r.section = "checksum";
    r.need(sizeof(uint64_t), "");
  }
  return std::nullopt;
}

}  // namespace

std::optional<Trace> parse_trace(std::span<const uint8_t> bytes, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<Trace> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  const size_t size = bytes.size();
  uint64_t declared = 0;
  uint32_t version = 0;
  if (auto e = check_header(bytes.first(std::min(size, kHeaderBytes)), size, &declared, &version))
    return fail(*e);

  const bool complete = declared == size;
  if (complete && size > kReadWholeUpTo) {
    // A large file: its sections' sizes and counts must add up to its size
    // before the checksum reads it all (a 4 GiB file of zeros behind a valid
    // header is refused after a page, not after reading 4 GiB).
    Reader layout(bytes, true);
    layout.layout_only = true;
    layout.skip(kHeaderBytes);
    Trace shell;
    if (auto e = parse_sections(layout, version, shell)) return fail(*e);
    if (!layout.ok()) return fail(layout.error);
    if (layout.pos() + sizeof(uint64_t) != size)
      return fail("corrupt: its sections end at byte " +
                  std::to_string(layout.pos() + sizeof(uint64_t)) + ", but the file has " +
                  std::to_string(size) + " bytes");
  }
  if (complete) {
    // A flipped byte anywhere is caught here, before any field is trusted.
    uint64_t stored = 0;
    std::memcpy(&stored, bytes.data() + size - sizeof(stored), sizeof(stored));
    if (size < kHeaderBytes + sizeof(stored) ||
        fnv1a64(bytes.first(size - sizeof(stored))) != stored)
      return fail(
          "corrupt: checksum mismatch (the file was damaged or changed after it was written)");
  }

  Reader r(bytes, complete);
  r.skip(kHeaderBytes);
  Trace t;
  if (auto e = parse_sections(r, version, t)) return fail(*e);
  // Version-1 lines point into the kernel headers of that time: a barrier
  // is now on the line its lesson's header gives it (accesses keep theirs).
  if (const LessonInfo* v = version == 1 ? find_lesson(t.config.lesson_id) : nullptr; v && r.ok())
    for (Event& e : t.events)
      if (is_barrier(e.kind) && e.barrier >= 1 && e.barrier <= v->barriers.size())
        e.line = uint16_t(v->barriers[e.barrier - 1].line);
  if (!r.ok()) {
    if (!complete && r.error.rfind("truncated", 0) != 0)
      // The file is short AND something before the cut is bad: say both.
      return fail("truncated (" + std::to_string(size) + " of " + std::to_string(declared) +
                  " bytes) and " + r.error);
    if (!complete)
      return fail(r.error + " (" + std::to_string(size) + " of " + std::to_string(declared) +
                  " bytes)");
    return fail(r.error);
  }
  if (!complete)  // every section parsed, yet the header promised more: the size field is bad
    return fail("corrupt: the header says the file has " + std::to_string(declared) +
                " bytes, but its contents end at " + std::to_string(size));
  if (r.pos() + sizeof(uint64_t) != size)
    return fail("corrupt: " + std::to_string(size - r.pos() - sizeof(uint64_t)) +
                " unexpected bytes after the events");
  // Well-formed; now: is it a run this build could have recorded?
  if (auto e = check_trace_semantics(t)) return fail("invalid: " + *e);
  return t;
}

bool save_trace(const Trace& t, const std::string& path, std::string* error) {
  const std::vector<uint8_t> bytes = serialize_trace(t);
  return write_file_safely(
      path,
      [&](std::ostream& out) {
        return bool(
            out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size())));
      },
      error);
}

namespace {

// The checks load_trace makes before it maps the file: the kind, the header
// and the size. The open file, or nullopt with `error` set.
std::optional<InputFile> open_trace(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& msg) -> std::optional<InputFile> {
    if (error) *error = path + ": " + msg;
    return std::nullopt;
  };
  // The kind first (a FIFO, a device or a folder is refused without
  // blocking); the size limit after the header, so junk is called junk.
  auto in = open_input(path, {"trace", UINT64_MAX}, error);
  if (!in) return std::nullopt;
  const uint64_t size = in->size();

  // The header first: junk, a wrong version or a wrong size is refused after
  // 20 bytes, however large the file.
  uint8_t head[kHeaderBytes];
  const size_t head_bytes = size_t(std::min<uint64_t>(size, kHeaderBytes));
  std::string why;
  if (!in->read_at(0, head, head_bytes, &why)) {
    if (error) *error = why;
    return std::nullopt;
  }
  uint64_t declared = 0;
  if (auto e = check_header(std::span<const uint8_t>(head, head_bytes), size, &declared))
    return fail(*e);
  if (size > kMaxTraceFileBytes)
    return fail("the file has " + std::to_string(size) + " bytes; TileScope reads traces up to " +
                std::to_string(kMaxTraceFileBytes >> 30) + " GiB");
  // Shorter than its header says. A small one is read anyway, so that the
  // message says in which section it ends; a large one is not read at all.
  if (declared != size && size > kReadWholeUpTo)
    return fail("truncated: the header says the file has " + std::to_string(declared) +
                " bytes, but it has " + std::to_string(size) + " (an interrupted copy?)");
  return in;
}

}  // namespace

std::optional<std::string> check_trace_file_header(const std::string& path) {
  std::string error;
  if (open_trace(path, &error)) return std::nullopt;
  return error;
}

std::optional<Trace> load_trace(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& msg) -> std::optional<Trace> {
    if (error) *error = path + ": " + msg;
    return std::nullopt;
  };
  const auto in = open_trace(path, error);
  if (!in) return std::nullopt;
  const uint64_t size = in->size();
  std::string why;

  // Mapped, not copied: parse_trace checks the layout of a large file before
  // its checksum reads every page.
  auto mapped = map_input(path, {"trace", kMaxTraceFileBytes}, error);
  if (!mapped) return std::nullopt;
  if (mapped->size() != size) return fail("the file changed while it was read");
  auto t = parse_trace(mapped->bytes(), &why);
  if (!t) return fail(why);
  return t;
}

}  // namespace ts
