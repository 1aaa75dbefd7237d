// Semantic checks of a trace (see trace_validate.hpp): everything is compared
// with what the catalogue says the recorded run must look like.
#include "analysis/trace_validate.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "analysis/warp_access.hpp"  // shared_access()
#include "engine/catalogue.hpp"
#include "engine/plain_cuda.hpp"

namespace ts {
namespace {

std::string num(uint64_t v) {
  return std::to_string(v);
}
std::string dims(uint64_t rows, uint64_t cols) {
  return num(rows) + " x " + num(cols);
}
std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%x", v);
  return s;
}
std::string dims3(const Dim3& d) {
  return num(d.x) + " x " + num(d.y) + " x " + num(d.z);
}

// What one array slot means in this run: a global array, a shared one, or
// neither (a slot the table does not have).
struct SlotInfo {
  bool global = false, shared = false;
  bool constant = false;  // a global-kind array the kernel only reads (__constant__)
  uint64_t rows = 0, cols = 0;
  uint64_t extent = 0;      // the count the kernel passes: an index >= it is flagged
  uint64_t allocation = 0;  // global: elements allocated (tiled_exact overruns into them)
  int elem_bytes = 4;
};

// A 16-byte access is four events of one thread (model/event.hpp): elements
// i .. i + 3 (i % 4 == 0) at consecutive instr numbers, one line, kind and array.
struct VectorRun {
  uint64_t first_event;
  uint32_t next_element;
  uint16_t next_instr;
  uint16_t line;
  EventKind kind;
  ArraySlot array;
};

// The run as the catalogue describes it, for the event loop.
struct Expected {
  const LessonInfo* v = nullptr;
  const ArrayTable* table = nullptr;
  SlotInfo arrays[kMaxArrays + 1];
  int barrier_line[33] = {};       // by barrier number; 0 = the lesson has no such barrier
  uint8_t barrier_flags[33] = {};  // by barrier number: kFlagWarpScope for a __syncwarp
  uint32_t barriers = 0;
  uint32_t mask = 0;
  // Which arrays may take atomics: those of a space the lesson's closed form
  // has atomics in, never an input (a kernel reads its inputs).
  bool atomic_ok[kMaxArrays + 1] = {};
  bool shared_atomics = false, global_atomics = false;
  bool shuffles = false;  // the lesson's closed form has warp shuffles
};

// "tileA (shared, 8 x 8)": the array as the kernel's source names it.
std::string array_text(const Expected& x, ArraySlot b) {
  const SlotInfo& a = x.arrays[b];
  return array_name(*x.table, b) + " (" + (a.shared ? "shared, " : "") + dims(a.rows, a.cols) + ")";
}

std::string who(uint64_t i, const Event& e) {
  return "event " + num(i) + " (" + to_string(e.kind) + " by block " + num(e.block) + " thread " +
         num(e.thread) + ")";
}

// The first thing wrong with event i, given that its kind, block and thread
// are inside the launch (the file parser checked those).
std::optional<std::string> check_event(uint64_t i, const Event& e, const Expected& x) {
  const std::string at = who(i, e);  // only a bad event gets here
  if (e.line >= 0xFFFF) return at + ": line is " + num(e.line) + "; allowed: 0 to 65534";
  const uint8_t scope = is_barrier(e.kind) ? uint8_t(kFlagWarpScope) : uint8_t(0);
  if ((e.flags & ~uint8_t(kFlagOutOfRange | kFlagWidthMask | scope)) || access_bytes(e.flags) > 16)
    return at + ": flags are " + num(e.flags) + "; allowed: bit 0 (out of range) and " +
           "bits 1-2 (access width 4, 8 or 16 bytes); on barrier events also bit 3 (__syncwarp)";
  if (is_barrier(e.kind)) {
    if (e.barrier < 1 || e.barrier > x.barriers)
      return at + ": barrier is " + num(e.barrier) + "; " + x.v->id +
             (x.barriers ? " has barriers 1 to " + num(x.barriers) : std::string(" has none"));
    if (!BarrierSet(x.mask).keeps(e.barrier))
      return at + ": barrier " + num(e.barrier) + " was removed from this run (barrier mask " +
             hex(x.mask) + "), yet the event is there";
    if (e.line != x.barrier_line[e.barrier])
      return at + ": line is " + num(e.line) + "; barrier " + num(e.barrier) + " of " + x.v->id +
             " is on line " + num(x.barrier_line[e.barrier]);
    if (e.array != kNoArray)
      return at + ": array is " + array_name(*x.table, e.array) +
             "; a barrier touches no array (0)";
    const uint8_t want = x.barrier_flags[e.barrier];
    if (e.element != 0 || e.flags != want)
      return at + ": element is " + num(e.element) + " and flags " + num(e.flags) + "; barrier " +
             num(e.barrier) + " of " + x.v->id + " is a " +
             (want ? "__syncwarp: element 0, flags 8 (warp scope)" : "__syncthreads: 0 for both");
    return std::nullopt;
  }
  if (e.kind == EventKind::WarpShuffle) {
    if (!x.shuffles) return at + ": a warp shuffle; " + x.v->id + " has none";
    if (e.array != kNoArray)
      return at + ": array is " + array_name(*x.table, e.array) +
             "; a shuffle touches no array (0)";
    if (e.element >= 32) return at + ": source lane is " + num(e.element) + "; allowed: 0 to 31";
    if (e.flags != 0 || e.barrier != 0)
      return at + ": flags are " + num(e.flags) + " and barrier " + num(e.barrier) +
             "; a shuffle has 0 for both";
    return std::nullopt;
  }
  if (e.barrier != 0) return at + ": barrier is " + num(e.barrier) + "; allowed for an access: 0";
  const SlotInfo& a = x.arrays[e.array <= kMaxArrays ? e.array : 0];
  const bool shared = shared_access(e.kind);
  if (shared ? !a.shared : !a.global) {
    std::string have;
    for (size_t b = 1; b <= x.table->size(); ++b)
      if (shared ? x.arrays[b].shared : x.arrays[b].global)
        have += (have.empty() ? "" : ", ") + array_name(*x.table, ArraySlot(b));
    return at + ": array is " + num(uint8_t(e.array)) + " (" + array_name(*x.table, e.array) +
           "); the " + (shared ? "shared" : "global") + " arrays of " + x.v->id + " are " +
           (have.empty() ? std::string("none") : have);
  }
  if (a.constant && (is_store(e.kind) || is_atomic(e.kind)))
    return at + ": " + (is_atomic(e.kind) ? "an atomic on " : "a store to ") +
           array_name(*x.table, e.array) +
           ", which lives in constant memory: a kernel can only read it";
  if (is_atomic(e.kind) && !x.atomic_ok[e.array]) {
    const bool any = shared ? x.shared_atomics : x.global_atomics;
    return at + ": an atomic on " + array_text(x, e.array) + "; " +
           (!any ? std::string(x.v->id) + " has no " + (shared ? "shared" : "global") + " atomics"
                 : "it is an input of " + std::string(x.v->id) + ", which the kernel only reads");
  }
  // One element per access, or four 4-byte elements in one 16-byte access
  // (not an atomic); 8-byte accesses are reserved.
  const int width = access_bytes(e.flags);
  if (width != 4 && (width != 16 || a.elem_bytes != 4 || is_atomic(e.kind)))
    return at + ": access width is " + num(width) + " bytes; " + array_text(x, e.array) +
           (a.elem_bytes == 4 ? " is accessed 4 bytes (one element) at a time"
                              : " is accessed one element at a time") +
           (a.elem_bytes == 4 && !is_atomic(e.kind) ? " or 16 bytes (four elements)" : "");
  const bool out = e.flags & kFlagOutOfRange;
  if (!out && e.element >= a.extent)
    return at + ": element is " + num(e.element) + "; allowed for " + array_text(x, e.array) +
           ": 0 to " + num(a.extent - 1);
  if (out && e.element < a.extent)
    return at + ": flagged out of range, yet element " + num(e.element) + " is inside " +
           array_text(x, e.array) + " (0 to " + num(a.extent - 1) + ")";
  // A flagged global access still landed in the allocation (the kernels that
  // overrun by design are given room for it); no kernel reaches outside a
  // shared array (its allocation is its extent).
  if (out && e.element >= a.allocation)
    return at + ": out-of-range element is " + num(e.element) + "; " +
           (a.allocation > a.extent
                ? "allowed for " + array_text(x, e.array) + ": " + num(a.extent) + " to " +
                      num(a.allocation - 1) + " (what the run allocates)"
                : array_text(x, e.array) + " has no room past its " + num(a.extent) +
                      " elements, and " + x.v->id + " never reaches outside it");
  return std::nullopt;
}

// Event i, one element of a 16-byte access, continues its thread's open
// access or (at an element that is a multiple of 4) opens one.
std::optional<std::string> check_vector_run(uint64_t i, const Event& e, const Expected& x,
                                            std::unordered_map<uint64_t, VectorRun>& runs) {
  const uint64_t key = uint64_t(e.block) << 16 | e.thread;
  const auto open = runs.find(key);
  if (e.element % 4 == 0) {
    if (open != runs.end())
      return who(i, e) + ": a 16-byte access starts at element " + num(e.element) +
             " while the one of event " + num(open->second.first_event) +
             " has not recorded its four elements";
    runs[key] = {i, e.element + 1, uint16_t(e.instr + 1), e.line, e.kind, e.array};
    return std::nullopt;
  }
  if (open == runs.end())
    return who(i, e) + ": element " + num(e.element) +
           " of a 16-byte access, whose first element " + num(e.element / 4 * 4) +
           " this thread did not record just before";
  VectorRun& r = open->second;
  if (e.element != r.next_element || e.instr != r.next_instr || e.line != r.line ||
      e.kind != r.kind || e.array != r.array)
    return who(i, e) + ": element " + num(e.element) + " (instr " + num(e.instr) + ", line " +
           num(e.line) + ") does not continue the 16-byte access of event " + num(r.first_event) +
           " on " + array_text(x, r.array) + ", which expects element " + num(r.next_element) +
           " at instr " + num(r.next_instr) + " on line " + num(r.line);
  if (e.element % 4 == 3)
    runs.erase(open);
  else
    ++r.next_element, ++r.next_instr;
  return std::nullopt;
}

// Every thread's barrier events, in its program order: an arrival, then the
// departure from the same barrier. The threads of a block meet the same
// __syncthreads in the same order (those of a warp the same __syncwarp); a
// thread that stops short of the others may only do so when the trace was cut.
class BarrierStructure {
 public:
  explicit BarrierStructure(const Expected& x) : x_(x) {}

  std::optional<std::string> add(uint64_t i, const Event& e) {
    Thread& th = threads_[key(e.block, e.thread)];
    const uint8_t b = e.barrier;
    if (e.kind == EventKind::BarrierLeave) {
      if (th.open == 0)
        return who(i, e) + ": leaves barrier " + num(b) +
               " without arriving at it (a thread records its arrival, then its departure)";
      if (th.open != b)
        return who(i, e) + ": leaves barrier " + num(b) + " while it is at barrier " +
               num(th.open) + " (arrived at event " + num(th.open_event) + ")";
      th.open = 0;
      return std::nullopt;
    }
    if (th.open != 0)
      return who(i, e) + ": arrives at barrier " + num(b) + " while it has not left barrier " +
             num(th.open) + " (arrived at event " + num(th.open_event) + ")";
    th.open = b;
    th.open_event = i;
    const bool warp = x_.barrier_flags[b] != 0;
    std::vector<Step>& order = warp ? warps_[key(e.block, warp_of(e))] : blocks_[e.block];
    const uint32_t n = warp ? th.warp_met++ : th.block_met++;
    if (n == order.size()) {
      order.push_back({b, i, e.thread});
    } else if (order[n].barrier != b) {
      const Step& o = order[n];
      return who(i, e) + ": its " + ordinal(n + 1) + " " + (warp ? "__syncwarp" : "__syncthreads") +
             " is barrier " + num(b) + "; thread " + num(o.thread) + " of the " +
             (warp ? "warp" : "block") + " met barrier " + num(o.barrier) + " there (event " +
             num(o.event) + "): every thread of a " + (warp ? "warp" : "block") +
             " meets the same barriers in the same order";
    }
    return std::nullopt;
  }

  // After the last event of a complete trace: no thread still at a barrier,
  // and none that skipped a __syncthreads the rest of its block met.
  std::optional<std::string> finish(uint64_t threads_per_block) const {
    const Thread* open = nullptr;
    uint64_t open_key = 0;
    for (const auto& [k, th] : threads_)
      if (th.open != 0 && (!open || th.open_event < open->open_event)) open = &th, open_key = k;
    if (open)
      return "event " + num(open->open_event) + ": block " + num(open_key >> 16) + " thread " +
             num(open_key & 0xFFFF) + " arrives at barrier " + num(open->open) +
             " and never leaves it (no BarrierLeave follows in a trace that was not cut short)";
    std::vector<uint32_t> order;  // blocks in a fixed order, for a stable message
    for (const auto& [b, steps] : blocks_)
      order.push_back(b);
    std::sort(order.begin(), order.end());
    for (uint32_t b : order) {
      const std::vector<Step>& steps = blocks_.at(b);
      for (uint64_t t = 0; t < threads_per_block; ++t) {
        const auto it = threads_.find(key(b, t));
        const uint32_t met = it == threads_.end() ? 0 : it->second.block_met;
        if (met == steps.size()) continue;
        const Step& missed = steps[met];
        return "block " + num(b) + " thread " + num(t) + " met " + num(met) + " of the " +
               num(steps.size()) + " __syncthreads of its block; thread " + num(missed.thread) +
               " met barrier " + num(missed.barrier) + " next (event " + num(missed.event) +
               "): every thread of a block meets every __syncthreads the run keeps";
      }
    }
    return std::nullopt;
  }

 private:
  struct Thread {
    uint64_t open_event = 0;
    uint32_t block_met = 0, warp_met = 0;  // __syncthreads and __syncwarp arrivals so far
    uint8_t open = 0;                      // the barrier it is at; 0 = none
  };
  struct Step {
    uint8_t barrier;
    uint64_t event;   // the first arrival there
    uint16_t thread;  // by this thread
  };
  static uint64_t key(uint64_t block, uint64_t thread) { return block << 16 | thread; }
  static std::string ordinal(uint64_t n) {
    const char* s = n % 100 / 10 == 1 ? "th"
                    : n % 10 == 1     ? "st"
                    : n % 10 == 2     ? "nd"
                    : n % 10 == 3     ? "rd"
                                      : "th";
    return num(n) + s;
  }
  const Expected& x_;
  std::unordered_map<uint64_t, Thread> threads_;
  std::unordered_map<uint32_t, std::vector<Step>> blocks_;  // block -> its __syncthreads
  std::unordered_map<uint64_t, std::vector<Step>> warps_;   // (block, warp) -> its __syncwarp
};

std::string array_desc(const ArrayInfo& a) {
  return a.name + " (" + to_string(a.space) + " " + to_string(a.role) + " " + to_string(a.type) +
         ", " + dims(uint64_t(std::max(a.rows, 0)), uint64_t(std::max(a.cols, 0))) + ")";
}

// The trace's array table is the lesson's for these parameters.
std::optional<std::string> check_array_table(const ArrayTable& have, const ArrayTable& want,
                                             const std::string& run) {
  std::string names;
  for (const ArrayInfo& a : want)
    names += (names.empty() ? "" : ", ") + array_desc(a);
  if (have.size() != want.size())
    return "the array table lists " + num(have.size()) + " arrays; " + run + " has " +
           num(want.size()) + ": " + names;
  for (size_t i = 0; i < have.size(); ++i) {
    const ArrayInfo &h = have[i], &w = want[i];
    if (h == w) continue;  // every field, the input stream and the shared offset included
    std::string hd = array_desc(h), wd = array_desc(w);
    if (hd == wd) {  // they differ where the short description does not look
      const auto detail = [](const ArrayInfo& a) {
        return a.name + " (input stream " + num(a.fill_stream) + ", element bytes " +
               num(uint64_t(std::max(a.elem_bytes, 0))) + ", shared offset " +
               num(a.shared_offset) + " bytes)";
      };
      hd = detail(h), wd = detail(w);
    }
    return "array " + num(i + 1) + " is " + hd + "; " + run + " has " + wd + " there";
  }
  return std::nullopt;
}

std::optional<std::string> check_buffers(const Trace& t, const LessonInfo& v, const Params& p) {
  const ArrayTable& table = t.config.arrays;
  std::string names;
  size_t globals = 0;
  for (const ArrayInfo& a : table)
    if (!a.shared()) {
      ++globals;
      names += (names.empty() ? "" : ", ") + a.name + " (" +
               dims(uint64_t(a.rows), uint64_t(a.cols)) + ")";
    }
  const std::string run = std::string(v.id) + " with " + describe(v, p);
  for (const BufferData& b : t.buffers) {
    const ArrayInfo* a = array_at(table, b.slot);
    if (!a || a->shared())
      return "buffer " + array_name(table, b.slot) + " is not a global array of " + v.id +
             "; its global arrays are " + names;
    if (b.rows != a->rows || b.cols != a->cols)
      return "buffer " + a->name + " is " +
             dims(uint64_t(std::max(b.rows, 0)), uint64_t(std::max(b.cols, 0))) + "; " + run +
             " gives " + dims(uint64_t(a->rows), uint64_t(a->cols));
    if (b.is_output != a->output())
      return "buffer " + a->name + " is marked " + (b.is_output ? "output" : "input") + "; in " +
             v.id + " it is an " + (a->output() ? "output" : "input");
    if (b.values.size() != a->count())
      return "buffer " + a->name + " holds " + num(b.values.size()) + " values; " +
             dims(uint64_t(a->rows), uint64_t(a->cols)) + " needs " + num(a->count());
  }
  for (size_t i = 0; i < table.size(); ++i)
    if (!table[i].shared() && !t.buffer(ArraySlot(i + 1)))
      return "buffer " + table[i].name + " is missing; " + run + " has " + names;
  if (t.buffers.size() != globals)  // slots are unique in a parsed file, not in memory
    return "the trace lists " + num(t.buffers.size()) + " buffers; " + v.id + " has " +
           num(globals) + ": " + names;
  return std::nullopt;
}

std::optional<std::string> check_geometry(const LaunchGeometry& g, const LaunchGeometry& want,
                                          const std::string& run) {
  const auto differ = [&](const char* field, const std::string& have, const std::string& need) {
    return std::string("geometry: ") + field + " is " + have + "; " + run + " launches " + need;
  };
  if (!(g.grid == want.grid)) return differ("grid", dims3(g.grid), dims3(want.grid));
  if (!(g.block == want.block)) return differ("block", dims3(g.block), dims3(want.block));
  if (g.dynamic_shared_bytes != want.dynamic_shared_bytes)
    return differ("dynamic shared memory", num(g.dynamic_shared_bytes) + " bytes",
                  num(want.dynamic_shared_bytes) + " bytes");
  if (g.static_shared_bytes != want.static_shared_bytes)
    return differ("static shared memory", num(g.static_shared_bytes) + " bytes",
                  num(want.static_shared_bytes) + " bytes");
  return std::nullopt;
}

// A run records the lesson's defaults for the parameters it does not read
// (0); square multiplies were recorded with m and k equal to n. Another value
// there was not recorded by TileScope.
std::optional<std::string> check_unused_params(const LessonInfo& v, const Params& p) {
  for (const ParamField& f : kParamFields) {
    if (v.uses & f.bit) continue;
    const int value = p.*f.field;
    const bool mirrors_n = (f.bit == kUsesM || f.bit == kUsesK) && (v.uses & kUsesN);
    if (value == 0 || (mirrors_n && value == p.n)) continue;
    std::string used;
    for (const NamedParam& q : used_params(v.uses, p))
      used += std::string(used.empty() ? "" : ", ") + q.name;
    return std::string("parameters: ") + f.name + " is " + std::to_string(value) + "; " + v.id +
           " does not use " + f.name + " (allowed: 0" +
           (mirrors_n ? " or n's " + std::to_string(p.n) : std::string()) + "; it reads " +
           (used.empty() ? std::string("none") : used) + ")";
  }
  return std::nullopt;
}

// The GPU race lab's stall (skew ns, skew warps) exists on the GPU only, and
// its warp mask only with a stall.
std::optional<std::string> check_backend_fields(const RunConfig& c) {
  const bool gpu = c.backend == BackendKind::Cuda;
  if (!gpu && c.skew_ns != 0)
    return "run configuration: skew ns is " + num(uint64_t(c.skew_ns)) +
           "; allowed on a simulator trace: 0 (only GPU warps sleep)";
  if (c.skew_ns > 1000000)
    return "run configuration: skew ns is " + num(uint64_t(c.skew_ns)) +
           "; allowed: 0 to 1000000 (1 ms)";
  if (c.skew_ns == 0 && c.skew_warps != 0)
    return "run configuration: skew warps is " + hex(c.skew_warps) +
           "; allowed without a stall (skew ns 0): 0x0 (no warp sleeps)";
  return std::nullopt;
}

// The run's configuration against the lesson: parameters, backend fields,
// geometry, barriers, sizes a replay can hold, the array table and buffers.
std::optional<std::string> check_config(const Trace& t, const LessonInfo& lesson) {
  const RunConfig& c = t.config;
  const LessonInfo* v = &lesson;
  const Params& p = c.params;
  // Generous limits: any device's (228 KiB of shared memory with opt-in), and
  // arrays no larger than a trace file could carry.
  DeviceLimits lim;
  lim.max_threads_per_block = 1024;
  lim.max_shared_per_block = 228 * 1024;
  lim.global_memory_bytes = 2 * kMaxTraceFileBytes;
  if (auto e = validate(*v, p, lim)) return "parameters: " + *e;
  if (auto e = check_unused_params(*v, p)) return e;
  if (auto e = check_backend_fields(c)) return e;
  const std::string run = std::string(v->id) + " with " + describe(*v, p);
  const LaunchGeometry want = geometry(*v, p);
  if (auto e = check_geometry(c.geometry, want, run)) return e;
  if (auto e = validate_barrier_mask(*v, c.barrier_mask))
    return "barrier mask " + hex(c.barrier_mask.mask()) + ": " + *e;
  // What the consumers will hold, before anyone allocates it.
  const uint64_t blocks = want.grid.count(), threads = blocks * want.block.count();
  const ArrayTable want_arrays = arrays(*v, p);
  uint64_t cells = 0;
  for (const ArrayInfo& a : want_arrays)
    cells += a.count() * (a.shared() ? blocks : 1);
  if (cells > kMaxTraceCells)
    return run + " has " + num(cells) + " cells (arrays, shared ones once per block); " +
           "TileScope replays at most " + num(kMaxTraceCells);
  if (threads > kMaxTraceThreads)
    return run + " launches " + num(threads) + " threads; TileScope replays at most " +
           num(kMaxTraceThreads);

  if (auto e = check_array_table(c.arrays, want_arrays, run)) return e;
  if (auto e = check_buffers(t, *v, p)) return e;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_trace_semantics(const Trace& t) {
  const RunConfig& c = t.config;
  const LessonInfo* v = find_lesson(c.lesson_id);
  if (!v) {
    if (c.lesson_id.empty()) return "the lesson id is empty; known lessons: " + lesson_ids();
    return "lesson is \"" + c.lesson_id + "\": recorded by a TileScope with lesson " + c.lesson_id +
           " that this build does not know (it knows " + lesson_ids() + ")";
  }
  if (auto e = check_config(t, *v)) return e;
  const Params& p = c.params;
  const std::string run = std::string(v->id) + " with " + describe(*v, p);
  const LaunchGeometry want = geometry(*v, p);
  const uint64_t blocks = want.grid.count();

  // Counts: the recording holds what its capacity allows, and no run records
  // more than the closed form with every barrier (removing one removes events).
  const uint64_t recorded = t.events.size();
  if (recorded > t.capacity)
    return "the trace holds " + num(recorded) + " events, more than its capacity of " +
           num(t.capacity);
  if (recorded > 0xFFFFFFFFull)
    return "the trace holds " + num(recorded) + " events; TileScope replays at most " +
           num(0xFFFFFFFFull);
  const uint64_t most = expected_counts(*v, p).total();  // every barrier kept
  const uint64_t needed = t.events_dropped > ~0ull - recorded ? ~0ull : recorded + t.events_dropped;
  if (needed > most)
    return "events: " + num(recorded) + " recorded + " + num(t.events_dropped) + " dropped; " +
           run + " records at most " + num(most);
  // The simulator drops an event only when its buffer is full (a GPU may
  // leave reserved slots unused, so there it is not checked).
  if (c.backend == BackendKind::Simulator && t.events_dropped > 0 && recorded != t.capacity)
    return "events dropped is " + num(t.events_dropped) + ", yet the simulator's buffer holds " +
           num(recorded) + " of " + num(t.capacity) + " (it drops only when full)";

  Expected x;
  x.v = v;
  x.table = &c.arrays;
  x.mask = c.barrier_mask.mask();
  x.barriers = uint32_t(std::min<size_t>(v->barriers.size(), 32));
  for (const BarrierInfo& b : v->barriers)
    if (b.id >= 1 && b.id <= 32) {
      x.barrier_line[b.id] = b.line;
      x.barrier_flags[b.id] = b.warp_scope ? uint8_t(kFlagWarpScope) : uint8_t(0);
    }
  for (size_t i = 0; i < c.arrays.size(); ++i) {
    const ArrayInfo& info = c.arrays[i];
    SlotInfo& a = x.arrays[i + 1];
    a.global = !info.shared();
    a.shared = info.shared();
    a.constant = info.space == Space::Constant;
    a.rows = uint64_t(info.rows), a.cols = uint64_t(info.cols);
    a.elem_bytes = info.elem_bytes;
    a.extent = info.count();
    a.allocation =
        a.shared ? a.extent : std::max(a.extent, allocation_elements(*v, p, ArraySlot(i + 1)));
  }
  const ExpectedCounts counts = expected_counts(*v, p);
  x.shared_atomics = counts.shared_atomics > 0;
  x.global_atomics = counts.global_atomics > 0;
  x.shuffles = counts.warp_shuffles > 0;
  for (size_t i = 0; i < c.arrays.size(); ++i)
    x.atomic_ok[i + 1] = c.arrays[i].shared()
                             ? x.shared_atomics
                             : x.global_atomics && c.arrays[i].role != ArrayRole::Input &&
                                   c.arrays[i].space != Space::Constant;
  const uint64_t block_count = blocks, thread_count = want.block.count();
  // Each thread's events are a prefix of what it did (a GPU and the simulator
  // drop only once full), so a 16-byte access and a barrier are checked
  // whatever the backend; only a trace cut short may end inside either.
  const bool complete = t.events_dropped == 0;
  BarrierStructure barrier_structure(x);
  uint64_t arrivals = 0;
  std::unordered_map<uint64_t, VectorRun> runs;  // (block << 16 | thread) -> its open access
  for (uint64_t i = 0; i < recorded; ++i) {
    const Event& e = t.events[i];
    // The parser checked these for files; a Trace built in memory may not be.
    if (uint8_t(e.kind) >= kEventKindCount)
      return "event " + num(i) + ": kind is " + num(uint8_t(e.kind)) + "; allowed: 0 to " +
             num(kEventKindCount - 1);
    if (e.array > c.arrays.size())
      return "event " + num(i) + ": array is " + num(uint8_t(e.array)) + "; allowed: 0 to " +
             num(c.arrays.size());
    if (e.block >= block_count)
      return "event " + num(i) + ": block is " + num(e.block) + "; allowed: 0 to " +
             num(block_count - 1);
    if (e.thread >= thread_count)
      return "event " + num(i) + ": thread is " + num(e.thread) + "; allowed: 0 to " +
             num(thread_count - 1);
    // The common case in a few comparisons; the message only for the bad one.
    const SlotInfo& a = x.arrays[e.array];
    const bool fine =
        e.line < 0xFFFF &&
        (is_barrier(e.kind)
             ? e.barrier >= 1 && e.barrier <= x.barriers && BarrierSet(x.mask).keeps(e.barrier) &&
                   e.line == x.barrier_line[e.barrier] && e.array == kNoArray && e.element == 0 &&
                   e.flags == x.barrier_flags[e.barrier]
         : e.kind == EventKind::WarpShuffle
             ? x.shuffles && e.array == kNoArray && e.element < 32 && e.flags == 0 && e.barrier == 0
             : e.barrier == 0 && (shared_access(e.kind) ? a.shared : a.global) &&
                   !(a.constant && (is_store(e.kind) || is_atomic(e.kind))) &&
                   (e.flags & ~uint8_t(kFlagOutOfRange | kFlagWidthMask)) == 0 &&
                   ((e.flags & kFlagWidthMask) == 0 ||
                    (is_vector_element(e) && a.elem_bytes == 4 && !is_atomic(e.kind))) &&
                   ((e.flags & kFlagOutOfRange) == 0
                        ? e.element < a.extent
                        : e.element >= a.extent && e.element < a.allocation) &&
                   (!is_atomic(e.kind) || x.atomic_ok[e.array]));
    if (!fine)
      if (auto err = check_event(i, e, x)) return err;
    if (is_vector_element(e))
      if (auto err = check_vector_run(i, e, x, runs)) return err;
    if (is_barrier(e.kind)) {
      arrivals += e.kind == EventKind::BarrierArrive;
      if (auto err = barrier_structure.add(i, e)) return err;
    }
  }
  if (complete && !runs.empty()) {
    const auto& [key, r] = *std::min_element(runs.begin(), runs.end(), [](auto& p, auto& q) {
      return p.second.first_event < q.second.first_event;
    });
    return "event " + num(r.first_event) + ": a 16-byte access by block " + num(key >> 16) +
           " thread " + num(key & 0xFFFF) + " ends after element " + num(r.next_element - 1) +
           "; it must record four elements";
  }
  if (complete) {
    if (auto err = barrier_structure.finish(thread_count)) return err;
    // With every barrier kept, the closed form counts the arrivals exactly
    // (a plain CUDA file has bounds only: engine/plain_cuda_launch.cpp).
    if (recorded > 0 && !is_plain_cuda_path(x.v->source_file) &&
        c.barrier_mask.keeps_all_of(int(x.barriers)) && arrivals != counts.barrier_arrivals)
      return "events: " + num(arrivals) + " barrier arrivals recorded; " + run +
             " with every barrier kept (barrier mask " + hex(c.barrier_mask.mask()) + ") records " +
             num(counts.barrier_arrivals);
  }
  return std::nullopt;
}

}  // namespace ts
