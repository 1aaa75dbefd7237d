// The .tstrace file format: see trace_file.hpp for the layout.
#include "trace/trace_file.hpp"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ts {

static_assert(std::endian::native == std::endian::little,
              "the trace file stores integers and events as little-endian raw bytes");

namespace {

constexpr uint32_t kMaxStringBytes = 4096;
constexpr int32_t kMaxParam = 1 << 28;  // far beyond anything a traced run uses
constexpr uint32_t kMaxBufferSide = 1u << 28;
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

std::string range_msg(const char* what, int64_t v, int64_t lo, int64_t hi) {
  return std::string(what) + " is " + std::to_string(v) + "; allowed: " + std::to_string(lo) +
         " to " + std::to_string(hi);
}

bool parse_config(Reader& r, RunConfig& c) {
  r.section = "run configuration";
  c.variant = r.get_str("variant id");
  int32_t* params[] = {&c.params.m,      &c.params.k,      &c.params.n,    &c.params.tile,
                       &c.params.length, &c.params.radius, &c.params.block};
  const char* names[] = {"m", "k", "n", "tile", "length", "radius", "block"};
  for (int i = 0; i < 7; ++i) {
    *params[i] = r.get<int32_t>();
    if (r.ok() && (*params[i] < 0 || *params[i] > kMaxParam))
      r.fail(range_msg((std::string("parameter ") + names[i]).c_str(), *params[i], 0, kMaxParam));
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

bool parse_buffers(Reader& r, std::vector<BufferData>& out) {
  r.section = "buffers";
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok()) return false;
  if (count > uint32_t(kBufferCount)) {
    r.fail("it lists " + std::to_string(count) + " buffers; at most " +
           std::to_string(kBufferCount) + " exist");
    return false;
  }
  uint32_t seen = 0;
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    BufferData b;
    const uint8_t id = r.get<uint8_t>();
    const uint8_t is_output = r.get<uint8_t>();
    const uint32_t rows = r.get<uint32_t>();
    const uint32_t cols = r.get<uint32_t>();
    if (!r.ok()) return false;
    if (id == 0 || id >= kBufferCount) {
      r.fail("buffer " + std::to_string(i) + " has id " + std::to_string(id) + "; allowed: 1 to " +
             std::to_string(kBufferCount - 1));
      return false;
    }
    if (seen & (1u << id)) {
      r.fail(std::string("buffer ") + to_string(Buffer(id)) + " appears twice");
      return false;
    }
    seen |= 1u << id;
    if (is_output > 1) {
      r.fail("buffer " + std::to_string(i) + " has output flag " + std::to_string(is_output));
      return false;
    }
    if (rows > kMaxBufferSide || cols > kMaxBufferSide) {
      r.fail(std::string("buffer ") + to_string(Buffer(id)) + " is " + std::to_string(rows) +
             " x " + std::to_string(cols) + "; each side may be at most " +
             std::to_string(kMaxBufferSide));
      return false;
    }
    const uint64_t n = uint64_t(rows) * cols;
    // Size check before the allocation: a corrupt count must not allocate gigabytes.
    if (!r.need(n * sizeof(float), std::string("the values of buffer ") + to_string(Buffer(id))))
      return false;
    b.id = Buffer(id);
    b.is_output = is_output != 0;
    b.rows = int(rows);
    b.cols = int(cols);
    b.values.resize(n);
    if (n) std::memcpy(b.values.data(), r.here(), n * sizeof(float));
    r.skip(n * sizeof(float));
    out.push_back(std::move(b));
  }
  return true;
}

bool parse_events(Reader& r, const LaunchGeometry& g, std::vector<Event>& out) {
  r.section = "events";
  const uint64_t count = r.get<uint64_t>();
  if (!r.ok()) return false;
  if (count > r.remaining() / sizeof(Event)) {
    r.need(count > UINT64_MAX / sizeof(Event) ? UINT64_MAX : count * sizeof(Event),
           std::to_string(count) + " events");
    return false;
  }
  out.resize(count);
  if (count) std::memcpy(out.data(), r.here(), count * sizeof(Event));
  r.skip(count * sizeof(Event));
  const uint64_t blocks = g.grid.count();
  const uint64_t threads = g.block.count();
  const uint64_t warps = (threads + 31) / 32;
  // Consumers index arrays with these fields: check each one.
  for (uint64_t i = 0; i < count; ++i) {
    const Event& e = out[i];
    const bool fine = uint8_t(e.kind) < kEventKindCount && uint8_t(e.buffer) < kBufferCount &&
                      e.block < blocks && e.thread < threads && e.warp < warps && e.barrier <= 32;
    if (fine) continue;  // the message is built only for the bad one
    const std::string at = "event " + std::to_string(i) + " ";
    if (uint8_t(e.kind) >= kEventKindCount)
      r.fail(at + "has kind " + std::to_string(int(e.kind)) + "; known kinds are 0 to " +
             std::to_string(kEventKindCount - 1));
    else if (uint8_t(e.buffer) >= kBufferCount)
      r.fail(at + "has buffer " + std::to_string(int(e.buffer)) + "; known buffers are 0 to " +
             std::to_string(kBufferCount - 1));
    else if (e.block >= blocks)
      r.fail(at + "is in block " + std::to_string(e.block) + " of a grid of " +
             std::to_string(blocks));
    else if (e.thread >= threads)
      r.fail(at + "is by thread " + std::to_string(e.thread) + " of a block of " +
             std::to_string(threads));
    else if (e.warp >= warps)
      r.fail(at + "is by warp " + std::to_string(e.warp) + " of a block of " +
             std::to_string(warps) + " warps");
    else if (e.barrier > 32)
      r.fail(at + "names barrier " + std::to_string(e.barrier) + "; at most 32 exist");
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
  w.put_str(c.variant);
  for (int32_t p : {c.params.m, c.params.k, c.params.n, c.params.tile, c.params.length,
                    c.params.radius, c.params.block})
    w.put(p);
  w.put(c.barrier_mask);
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
  w.put(t.capacity);
  w.put(t.events_dropped);
  w.put(uint32_t(t.buffers.size()));
  for (const auto& b : t.buffers) {
    w.put(uint8_t(b.id));
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

std::optional<Trace> parse_trace(std::span<const uint8_t> bytes, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<Trace> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  const size_t size = bytes.size();
  if (size == 0) return fail("empty file (0 bytes): not a TileScope trace");
  const size_t magic_bytes = std::min(size, sizeof(kTraceMagic));
  if (std::memcmp(bytes.data(), kTraceMagic, magic_bytes) != 0)
    return fail("not a TileScope trace: the file does not start with \"TSTRACE\"");
  if (size < kHeaderBytes)
    return fail("truncated: the file ends inside the header (" + std::to_string(size) +
                " bytes; a header alone has " + std::to_string(kHeaderBytes) + ")");
  uint32_t version = 0;
  uint64_t declared = 0;
  std::memcpy(&version, bytes.data() + sizeof(kTraceMagic), sizeof(version));
  std::memcpy(&declared, bytes.data() + sizeof(kTraceMagic) + sizeof(version), sizeof(declared));
  if (version > kTraceFormatVersion)
    return fail("written by a newer TileScope (format v" + std::to_string(version) +
                "); this build reads up to v" + std::to_string(kTraceFormatVersion) +
                ": update TileScope");
  if (version == 0) return fail("corrupt: format version 0 does not exist");
  if (declared < size)
    return fail("corrupt: the header says the file has " + std::to_string(declared) +
                " bytes, but it has " + std::to_string(size));

  const bool complete = declared == size;
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
  if (parse_config(r, t.config)) {
    r.section = "recording";
    t.capacity = r.get<uint64_t>();
    t.events_dropped = r.get<uint64_t>();
    if (r.ok() && parse_buffers(r, t.buffers)) parse_events(r, t.config.geometry, t.events);
  }
  if (r.ok()) {
    r.section = "checksum";
    r.need(sizeof(uint64_t), "");
  }
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
  return t;
}

bool save_trace(const Trace& t, const std::string& path, std::string* error) {
  const std::vector<uint8_t> bytes = serialize_trace(t);
  const std::string tmp = path + ".part";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int werr = errno;
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(wrote ? errno : werr);
    std::remove(tmp.c_str());
    return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    if (error) *error = "cannot write " + path + ": " + ec.message();
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

std::optional<Trace> load_trace(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& msg) -> std::optional<Trace> {
    if (error) *error = path + ": " + msg;
    return std::nullopt;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return fail("is a directory, not a trace file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff len = in.tellg();
  if (len < 0) return fail("cannot read its size");
  if (uint64_t(len) > kMaxTraceFileBytes)
    return fail("the file has " + std::to_string(len) + " bytes; TileScope reads traces up to " +
                std::to_string(kMaxTraceFileBytes >> 30) + " GiB");
  in.seekg(0, std::ios::beg);
  std::vector<uint8_t> bytes(static_cast<size_t>(len));
  if (len > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), len)) return fail("read error");
  std::string why;
  auto t = parse_trace(bytes, &why);
  if (!t) return fail(why);
  return t;
}

}  // namespace ts
