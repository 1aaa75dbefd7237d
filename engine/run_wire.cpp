// RunResult to bytes and back (engine/run_wire.hpp): little-endian fields in
// a fixed order, strings and arrays with their lengths first.
#include "engine/run_wire.hpp"

#include <cstring>
#include <type_traits>

namespace ts {
namespace {

constexpr uint32_t kWireMagic = 0x54535257;  // "WRST"
constexpr uint32_t kWireVersion = 3;
// A string the child sends (an error, a note, an array name): at most this long.
constexpr uint64_t kMostText = 1u << 20;

struct Writer {
  std::string out;
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void text(const std::string& s) {
    pod(uint64_t(s.size()));
    out += s;
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    pod(uint64_t(v.size()));
    if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
};

struct Reader {
  std::string_view in;
  size_t at = 0;
  std::string why;
  bool fail(const std::string& w) {
    if (why.empty()) why = w;
    return false;
  }
  template <class T>
  bool pod(T& v) {
    if (in.size() - at < sizeof v) return fail("the result ends early");
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return true;
  }
  bool text(std::string& s) {
    uint64_t n = 0;
    if (!pod(n)) return false;
    if (n > kMostText || n > in.size() - at) return fail("a text in the result is too long");
    s.assign(in.data() + at, n);
    at += n;
    return true;
  }
  template <class T>
  bool vec(std::vector<T>& v) {
    uint64_t n = 0;
    if (!pod(n)) return false;
    if (n > (in.size() - at) / sizeof(T)) return fail("an array in the result is longer than it");
    v.resize(n);
    if (n)
      std::memcpy(v.data(), in.data() + at, n * sizeof(T));  // an empty vector's data() may be null
    at += n * sizeof(T);
    return true;
  }
};

void put_params(Writer& w, const Params& p) {
  for (const ParamField& f : kParamFields)
    w.pod(int32_t(p.*f.field));
}
bool get_params(Reader& r, Params& p) {
  for (const ParamField& f : kParamFields) {
    int32_t v = 0;
    if (!r.pod(v)) return false;
    p.*f.field = v;
  }
  return true;
}

void put_dim(Writer& w, const Dim3& d) {
  w.pod(d.x), w.pod(d.y), w.pod(d.z);
}
bool get_dim(Reader& r, Dim3& d) {
  return r.pod(d.x) && r.pod(d.y) && r.pod(d.z);
}

void put_config(Writer& w, const RunConfig& c) {
  w.text(c.lesson_id);
  put_params(w, c.params);
  w.pod(c.barrier_mask.mask());
  put_dim(w, c.geometry.grid);
  put_dim(w, c.geometry.block);
  w.pod(c.geometry.dynamic_shared_bytes), w.pod(c.geometry.static_shared_bytes);
  w.pod(uint8_t(c.backend));
  w.text(c.device_name);
  w.pod(uint8_t(c.schedule.kind)), w.pod(c.schedule.skew_warps);
  w.pod(int32_t(c.schedule.skew_steps)), w.pod(c.schedule.seed);
  w.pod(int32_t(c.skew_ns)), w.pod(c.skew_warps), w.pod(c.input_seed);
  w.pod(uint64_t(c.arrays.size()));
  for (const ArrayInfo& a : c.arrays) {
    w.text(a.name);
    w.pod(uint8_t(a.space)), w.pod(uint8_t(a.role)), w.pod(uint8_t(a.type));
    w.pod(int32_t(a.elem_bytes)), w.pod(int32_t(a.rows)), w.pod(int32_t(a.cols));
    w.pod(a.fill_stream), w.pod(a.shared_offset);
  }
}

template <class E>
bool get_enum(Reader& r, E& e, uint8_t most) {
  uint8_t v = 0;
  if (!r.pod(v)) return false;
  if (v > most) return r.fail("a value in the result is out of range");
  e = E(v);
  return true;
}

bool get_config(Reader& r, RunConfig& c) {
  uint32_t mask = 0;
  int32_t steps = 0, skew_ns = 0;
  if (!r.text(c.lesson_id) || !get_params(r, c.params) || !r.pod(mask) ||
      !get_dim(r, c.geometry.grid) || !get_dim(r, c.geometry.block) ||
      !r.pod(c.geometry.dynamic_shared_bytes) || !r.pod(c.geometry.static_shared_bytes) ||
      !get_enum(r, c.backend, 1) || !r.text(c.device_name) || !get_enum(r, c.schedule.kind, 2) ||
      !r.pod(c.schedule.skew_warps) || !r.pod(steps) || !r.pod(c.schedule.seed) ||
      !r.pod(skew_ns) || !r.pod(c.skew_warps) || !r.pod(c.input_seed))
    return false;
  c.barrier_mask = BarrierSet(mask);
  c.schedule.skew_steps = steps;
  c.skew_ns = skew_ns;
  uint64_t arrays = 0;
  if (!r.pod(arrays)) return false;
  if (arrays > kMaxArrays) return r.fail("the result names more arrays than a lesson may have");
  c.arrays.resize(arrays);
  for (ArrayInfo& a : c.arrays) {
    int32_t bytes = 0, rows = 0, cols = 0;
    if (!r.text(a.name) || !get_enum(r, a.space, 2) || !get_enum(r, a.role, 2) ||
        !get_enum(r, a.type, uint8_t(ElemType::U8)) || !r.pod(bytes) || !r.pod(rows) ||
        !r.pod(cols) || !r.pod(a.fill_stream) || !r.pod(a.shared_offset))
      return false;
    a.elem_bytes = bytes, a.rows = rows, a.cols = cols;
  }
  return true;
}

}  // namespace

std::string encode_run_result(const RunResult& r) {
  Writer w;
  w.pod(kWireMagic), w.pod(kWireVersion);
  w.pod(uint8_t(r.ok));
  w.text(r.error);
  w.text(r.backend_note);
  w.pod(r.kernel_ms);
  w.pod(uint64_t(r.faults.size()));
  for (const std::string& f : r.faults)
    w.text(f);
  const Verdict& v = r.verdict;
  w.pod(uint8_t(v.checked)), w.pod(uint8_t(v.correct));
  w.pod(v.max_abs_error), w.pod(v.max_rel_error), w.pod(v.tolerance), w.pod(uint64_t(v.cells));
  w.vec(v.wrong_cells);
  w.vec(v.wrong_expected);
  w.text(v.problem);
  const Trace& t = r.trace;
  put_config(w, t.config);
  w.pod(t.capacity), w.pod(t.events_dropped);
  w.vec(t.events);
  w.pod(uint64_t(t.buffers.size()));
  for (const BufferData& b : t.buffers) {
    w.pod(b.slot), w.pod(int32_t(b.rows)), w.pod(int32_t(b.cols)), w.pod(uint8_t(b.is_output));
    w.vec(b.values);
  }
  w.pod(uint64_t(r.untraced_shared.size()));
  for (const sim::UntracedShared& u : r.untraced_shared) {
    w.text(u.name), w.text(u.function);
    w.pod(u.bytes), w.pod(uint8_t(u.written));
  }
  return std::move(w.out);
}

std::optional<RunResult> decode_run_result(std::string_view bytes, std::string* why) {
  Reader rd{bytes};
  RunResult r;
  auto failed = [&]() -> std::optional<RunResult> {
    if (why) *why = rd.why.empty() ? "the result does not parse" : rd.why;
    return std::nullopt;
  };
  uint32_t magic = 0, version = 0;
  if (!rd.pod(magic) || !rd.pod(version) || magic != kWireMagic || version != kWireVersion) {
    rd.fail("not a run result of this TileScope");
    return failed();
  }
  uint8_t ok = 0, checked = 0, correct = 0;
  uint64_t faults = 0, cells = 0;
  if (!rd.pod(ok) || !rd.text(r.error) || !rd.text(r.backend_note) || !rd.pod(r.kernel_ms) ||
      !rd.pod(faults))
    return failed();
  if (faults > (bytes.size() - rd.at) / sizeof(uint64_t)) {
    rd.fail("the result lists more faults than it holds");
    return failed();
  }
  r.faults.resize(faults);
  for (std::string& f : r.faults)
    if (!rd.text(f)) return failed();
  Verdict& v = r.verdict;
  if (!rd.pod(checked) || !rd.pod(correct) || !rd.pod(v.max_abs_error) ||
      !rd.pod(v.max_rel_error) || !rd.pod(v.tolerance) || !rd.pod(cells) ||
      !rd.vec(v.wrong_cells) || !rd.vec(v.wrong_expected) || !rd.text(v.problem))
    return failed();
  r.ok = ok != 0, v.checked = checked != 0, v.correct = correct != 0, v.cells = size_t(cells);
  Trace& t = r.trace;
  uint64_t buffers = 0;
  if (!get_config(rd, t.config) || !rd.pod(t.capacity) || !rd.pod(t.events_dropped) ||
      !rd.vec(t.events) || !rd.pod(buffers))
    return failed();
  if (buffers > kMaxArrays) {
    rd.fail("the result holds more buffers than a lesson has arrays");
    return failed();
  }
  t.buffers.resize(buffers);
  for (BufferData& b : t.buffers) {
    int32_t rows = 0, cols = 0;
    uint8_t out = 0;
    if (!rd.pod(b.slot) || !rd.pod(rows) || !rd.pod(cols) || !rd.pod(out) || !rd.vec(b.values))
      return failed();
    b.rows = rows, b.cols = cols, b.is_output = out != 0;
  }
  uint64_t untraced = 0;
  if (!rd.pod(untraced)) return failed();
  if (untraced > (bytes.size() - rd.at) / (2 * sizeof(uint64_t))) {
    rd.fail("the result lists more untraced arrays than it holds");
    return failed();
  }
  r.untraced_shared.resize(untraced);
  for (sim::UntracedShared& u : r.untraced_shared) {
    uint8_t written = 0;
    if (!rd.text(u.name) || !rd.text(u.function) || !rd.pod(u.bytes) || !rd.pod(written))
      return failed();
    u.written = written != 0;
  }
  if (rd.at != bytes.size()) {
    rd.fail("the result has bytes after its end");
    return failed();
  }
  return r;
}

}  // namespace ts
