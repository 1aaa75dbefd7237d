#include "analysis/hazards.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace ts {

const char* to_string(HazardKind k) {
  switch (k) {
    case HazardKind::ReadAfterWrite:
      return "RAW";
    case HazardKind::WriteAfterRead:
      return "WAR";
    case HazardKind::WriteAfterWrite:
      return "WAW";
  }
  return "?";
}

const char* long_name(HazardKind k) {
  switch (k) {
    case HazardKind::ReadAfterWrite:
      return "read-after-write";
    case HazardKind::WriteAfterRead:
      return "write-after-read";
    case HazardKind::WriteAfterWrite:
      return "write-after-write";
  }
  return "?";
}

const char* to_string(HazardSeverity s) {
  return s == HazardSeverity::Error ? "error" : "warning";
}

const char* explanation(HazardKind k) {
  switch (k) {
    case HazardKind::ReadAfterWrite:
      return "Read-after-write: one thread stores a value in shared memory and another thread "
             "loads it, with no barrier in between. Nothing makes the reader wait for the "
             "writer, so the load may see the old contents of the cell (whatever the previous "
             "tile left there) instead of the new value. A __syncthreads() between the store and "
             "the load makes every thread's stores visible before anyone reads.";
    case HazardKind::WriteAfterRead:
      return "Write-after-read: one thread still needs to read a shared cell while another "
             "thread already overwrites it, with no barrier in between. A fast thread that has "
             "moved on to the next tile can destroy data a slow thread has not used yet. A "
             "__syncthreads() after the last read and before the next store keeps the old value "
             "alive until everyone is done with it.";
    case HazardKind::WriteAfterWrite:
      return "Write-after-write: two threads store to the same shared cell with no barrier in "
             "between. Which value remains depends on which thread happened to store last, so "
             "the result can change from run to run.";
  }
  return "";
}

namespace {

std::string kinds_text(const bool (&present)[kHazardKindCount], const char* sep) {
  std::string kinds;
  for (int k = 0; k < kHazardKindCount; ++k)
    if (present[k]) kinds += std::string(kinds.empty() ? "" : sep) + to_string(HazardKind(k));
  return kinds;
}

}  // namespace

bool HazardReport::order_dependent() const {
  if (errors == 0) return false;
  int possible = 0;
  bool differs = false;
  for (int k = 0; k < kHazardKindCount; ++k) {
    possible += error_kinds_by_order[k];
    differs |= error_kinds_by_order[k] != (by_severity[int(HazardSeverity::Error)][k] > 0);
  }
  return possible > 1 || differs;
}

std::string HazardReport::seen_verdict() const {
  if (total == 0) return "none";
  std::string out;
  for (HazardSeverity s : {HazardSeverity::Error, HazardSeverity::Warning}) {
    bool present[kHazardKindCount] = {};
    for (int k = 0; k < kHazardKindCount; ++k)
      present[k] = by_severity[int(s)][k] > 0;
    const std::string kinds = kinds_text(present, ",");
    if (kinds.empty()) continue;
    if (!out.empty()) out += "; ";
    out += std::string(to_string(s)) + " " + kinds;
  }
  return out;
}

std::string HazardReport::verdict() const {
  std::string out = seen_verdict();
  if (!order_dependent()) return out;
  // The mark follows the errors' kinds, which come first.
  const size_t end = out.find(';');
  const std::string mark = " (order-dependent: " + kinds_text(error_kinds_by_order, "/") + ")";
  return end == std::string::npos ? out + mark : out.insert(end, mark);
}

namespace {

// One shared access: `cell` identifies (block, barrier interval, buffer,
// element), so that accesses that may race share a cell; sorting by cell, and
// within a cell by recorded order, puts each set of candidates together.
struct Access {
  uint64_t cell;
  uint64_t clock;     // recorded order: comparable within a block (one SM on the GPU; a global
                      // step in the simulator)
  uint32_t index;     // event index: program order, and the tie-break
  uint32_t interval;  // barrier interval (fills the padding)
};

int bit_width(uint64_t v) {
  int b = 0;
  while (v) {
    ++b;
    v >>= 1;
  }
  return b;
}

// Stable LSD radix sort by the low `bits` bits of `cell`.
void radix_sort_by_cell(std::vector<Access>& a, int bits) {
  constexpr int kDigit = 11;
  std::vector<Access> tmp(a.size());
  std::vector<uint32_t> count(size_t(1) << kDigit);
  for (int shift = 0; shift < bits; shift += kDigit) {
    std::fill(count.begin(), count.end(), 0);
    const uint64_t mask = (uint64_t(1) << kDigit) - 1;
    for (const Access& x : a)
      ++count[(x.cell >> shift) & mask];
    uint32_t sum = 0;
    for (auto& c : count) {
      const uint32_t n = c;
      c = sum;
      sum += n;
    }
    for (const Access& x : a)
      tmp[count[(x.cell >> shift) & mask]++] = x;
    a.swap(tmp);
  }
}

HazardAccess side(const Trace& t, uint32_t index) {
  const Event& e = t.events[index];
  HazardAccess a;
  a.event = index;
  a.thread = e.thread;
  a.warp = uint16_t(warp_of(e));
  a.line = e.line;
  a.is_write = e.kind == EventKind::SharedStore || e.kind == EventKind::SharedAtomic;
  a.is_atomic = e.kind == EventKind::SharedAtomic;
  a.value = e.value;
  return a;
}

struct GroupKey {
  HazardKind kind;
  HazardSeverity severity;
  ArraySlot buffer;
  uint16_t first_line, second_line;
  bool operator<(const GroupKey& o) const {
    return std::tie(kind, severity, buffer, first_line, second_line) <
           std::tie(o.kind, o.severity, o.buffer, o.first_line, o.second_line);
  }
  bool operator==(const GroupKey& o) const = default;
};

struct GroupAcc {
  HazardGroup group;
  std::vector<Hazard> kept;
  std::unordered_set<uint64_t> elements;
  std::unordered_set<uint32_t> blocks;
  uint64_t last_cell = UINT64_MAX;
};

bool is_write(const Event& e) {
  return e.kind == EventKind::SharedStore || e.kind == EventKind::SharedAtomic;
}
bool is_atomic_event(const Event& e) {
  return e.kind == EventKind::SharedAtomic;
}
bool same_bits(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

// The shared accesses of a trace, each with its cell (block, barrier
// interval, array, element), sorted by cell and, within a cell, by recorded
// order; and per event the barriers of either scope its thread had passed.
struct Cells {
  std::vector<Access> acc;
  std::vector<uint32_t> sync_of;
  uint64_t shared_accesses = 0;
};

Cells collect_cells(const Trace& trace, bool atomics) {
  Cells out;
  const auto& ev = trace.events;
  // Per (block, thread): barriers left so far, in that thread's program order
  // (the trace keeps each thread's events in program order).
  uint32_t max_block = 0, max_thread = 0;
  for (const Event& e : ev) {
    if (e.kind == EventKind::Empty) continue;
    max_block = std::max(max_block, e.block);
    max_thread = std::max<uint32_t>(max_thread, e.thread);
  }
  const uint64_t threads = uint64_t(max_thread) + 1;
  std::vector<uint32_t> interval((uint64_t(max_block) + 1) * threads, 0);
  // Barriers of either scope left so far: two threads of one warp with
  // different counts have a barrier (a __syncwarp at least) between them.
  std::vector<uint32_t> synced((uint64_t(max_block) + 1) * threads, 0);
  out.sync_of.assign(ev.size(), 0);

  // Each shared access with its barrier interval, in trace order.
  struct Raw {
    uint32_t index, interval;
  };
  std::vector<Raw> raw;
  raw.reserve(ev.size() / 2);
  uint32_t max_interval = 0, max_element = 0;
  for (uint32_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (e.kind == EventKind::BarrierLeave) {
      if (!(e.flags & kFlagWarpScope)) ++interval[e.block * threads + e.thread];
      ++synced[e.block * threads + e.thread];
    } else if ((is_shared(e.kind) || (atomics && e.kind == EventKind::SharedAtomic)) &&
               !(e.flags & kFlagOutOfRange)) {
      const uint32_t iv = interval[e.block * threads + e.thread];
      out.sync_of[i] = synced[e.block * threads + e.thread];
      raw.push_back({i, iv});
      max_interval = std::max(max_interval, iv);
      max_element = std::max(max_element, e.element);
    }
  }
  out.shared_accesses = raw.size();

  // Cell keys: packed into 64 bits when they fit (always, at lesson sizes),
  // otherwise numbered through a hash map.
  const int b_el = bit_width(max_element), b_buf = 4, b_iv = bit_width(max_interval),
            b_blk = bit_width(max_block);
  const int bits = b_el + b_buf + b_iv + b_blk;
  std::vector<Access>& acc = out.acc;
  acc.resize(raw.size());
  if (bits <= 64) {
    for (size_t j = 0; j < raw.size(); ++j) {
      const Event& e = ev[raw[j].index];
      const uint64_t cell =
          ((uint64_t(e.block) << b_iv | raw[j].interval) << b_buf | uint64_t(e.array)) << b_el |
          e.element;
      acc[j] = {cell, e.clock, raw[j].index, raw[j].interval};
    }
  } else {
    std::unordered_map<std::string, uint64_t> ids;
    for (size_t j = 0; j < raw.size(); ++j) {
      const Event& e = ev[raw[j].index];
      std::string k(reinterpret_cast<const char*>(&e.block), 4);
      k.append(reinterpret_cast<const char*>(&raw[j].interval), 4);
      k.append(reinterpret_cast<const char*>(&e.array), 1);
      k.append(reinterpret_cast<const char*>(&e.element), 4);
      const uint64_t id = ids.emplace(std::move(k), ids.size()).first->second;
      acc[j] = {id, e.clock, raw[j].index, raw[j].interval};
    }
  }
  // Recorded order first (the simulator's trace is in it already; a GPU
  // trace is in slot order), then a stable sort by cell keeps it per cell.
  auto by_clock = [](const Access& x, const Access& y) {
    return x.clock != y.clock ? x.clock < y.clock : x.index < y.index;
  };
  if (!std::is_sorted(acc.begin(), acc.end(), by_clock))
    std::sort(acc.begin(), acc.end(), by_clock);
  radix_sort_by_cell(acc, bits <= 64 ? bits : bit_width(acc.empty() ? 0 : acc.size()));
  return out;
}

// The kind racecheck gives an access `cur` checked against `prev` (its
// shadow), if any: two loads never race, nor two atomics; a store after a
// store only when it changes the value (rule "Values").
std::optional<HazardKind> shadow_kind(const Event& prev, const Event& cur) {
  const bool pw = is_write(prev), cw = is_write(cur);
  if (!pw && !cw) return std::nullopt;
  if (is_atomic_event(prev) && is_atomic_event(cur)) return std::nullopt;
  if (pw && !cw) return HazardKind::ReadAfterWrite;
  if (!pw) return HazardKind::WriteAfterRead;
  // (An atomic's value is the cell's after the add: the rule is for stores.)
  if (!is_atomic_event(prev) && !is_atomic_event(cur) && same_bits(prev.value, cur.value))
    return std::nullopt;
  return HazardKind::WriteAfterWrite;
}

// HazardModel::LastAccess over one cell: each access against the one access
// the shadow holds, which then becomes it, unless it is a thread reading back
// its own write (rule "Last access").
template <class Unordered, class Emit>
void replay_last_access(const std::vector<Event>& ev, const Access* a, size_t n,
                        Unordered unordered, Emit emit) {
  uint32_t shadow = a[0].index;
  for (size_t j = 1; j < n; ++j) {
    const uint32_t i = a[j].index;
    const Event& e = ev[i];
    if (unordered(shadow, i))
      if (const auto kind = shadow_kind(ev[shadow], e)) emit(*kind, shadow, i);
    // A thread reading back its own write leaves the write in the shadow.
    if (!is_write(e) && is_write(ev[shadow]) && ev[shadow].thread == e.thread) continue;
    shadow = i;
  }
}

// HazardModel::SinceLastWrite over one cell: a shadow of the last plain
// write, the last read of each thread since it, and the last atomic of each
// thread since it; every access is checked against that state, so the work
// stays linear in the number of accesses.
//
// Atomics (atomicAdd on shared memory, with HazardOptions::atomics): two
// atomics never make a hazard, whatever their order, since neither can split
// the other; an atomic and a plain load or store of the same cell, by another
// thread, in the same barrier interval, do: the atomic counts as a write (a
// plain store then an atomic is WAW, an atomic then a plain load RAW, a plain
// load then an atomic WAR). An atomic does not end the interval of the plain
// write or reads before it: they race with every later atomic of another
// thread. This is our extension: racecheck itself ignores atomics
// (scripts/racecheck_compare.sh on an H100: no report for
// histogram.shared_atomics with either barrier removed).
struct SinceLastWrite {
  struct Reader {
    uint16_t thread;
    uint32_t index;
  };
  std::vector<Reader> readers, atomics;

  static void remember(std::vector<Reader>& list, uint16_t thread, uint32_t index) {
    auto it =
        std::find_if(list.begin(), list.end(), [&](const Reader& r) { return r.thread == thread; });
    if (it != list.end())
      it->index = index;
    else
      list.push_back({thread, index});
  }

  template <class Unordered, class Emit>
  void replay(const std::vector<Event>& ev, const Access* a, size_t n, Unordered unordered,
              Emit emit) {
    bool have_write = false;
    uint32_t last_write = 0;
    readers.clear();
    atomics.clear();
    for (size_t j = 0; j < n; ++j) {
      const uint32_t i = a[j].index;
      const Event& e = ev[i];
      if (e.kind == EventKind::SharedLoad) {
        if (have_write && unordered(last_write, i)) emit(HazardKind::ReadAfterWrite, last_write, i);
        for (const Reader& r : atomics)
          if (unordered(r.index, i)) emit(HazardKind::ReadAfterWrite, r.index, i);
        remember(readers, e.thread, i);
        continue;
      }
      const bool atomic = is_atomic_event(e);
      for (const Reader& r : readers)
        if (unordered(r.index, i)) emit(HazardKind::WriteAfterRead, r.index, i);
      // A plain store after a plain store: only when it changes the value.
      if (have_write && unordered(last_write, i) &&
          (atomic || !same_bits(ev[last_write].value, e.value)))
        emit(HazardKind::WriteAfterWrite, last_write, i);
      if (atomic) {
        remember(atomics, e.thread, i);
        continue;
      }
      for (const Reader& r : atomics)
        if (unordered(r.index, i)) emit(HazardKind::WriteAfterWrite, r.index, i);
      have_write = true;
      last_write = i;
      readers.clear();
      atomics.clear();
    }
  }
};

// The kinds of error another order of the warps could give the cell's
// accesses (rule "Order"): a read and a write of two different warps are RAW
// or WAR, whichever ran first; writes of two warps WAW where the values
// differ (with two or more warps writing and two or more values, some pair of
// two warps stores different values).
void order_kinds(const std::vector<Event>& ev, const Access* a, size_t n,
                 bool (&out)[kHazardKindCount]) {
  bool has_read = false, has_write = false, many_warps = false;
  bool many_writer_warps = false, many_values = false;
  uint32_t warp = 0, writer_warp = 0;
  float value = 0;
  for (size_t j = 0; j < n; ++j) {
    const Event& e = ev[a[j].index];
    const uint32_t w = warp_of(e);
    if (j == 0) warp = w;
    many_warps |= w != warp;
    if (!is_write(e)) {
      has_read = true;
      continue;
    }
    if (!has_write) {
      writer_warp = w;
      value = e.value;
    }
    has_write = true;
    many_writer_warps |= w != writer_warp;
    many_values |= !same_bits(e.value, value);
  }
  if (has_read && has_write && many_warps)
    out[int(HazardKind::ReadAfterWrite)] = out[int(HazardKind::WriteAfterRead)] = true;
  if (many_writer_warps && many_values) out[int(HazardKind::WriteAfterWrite)] = true;
}

// Hazards, grouped by (kind, severity, array, lines) as racecheck's analysis
// mode groups them, with the first `detail` of each group kept.
class GroupCollector {
 public:
  GroupCollector(const Trace& t, HazardReport& r, uint32_t detail)
      : trace_(t), report_(r), detail_(detail) {}
  void next_cell() { ++cell_serial_; }
  void add(HazardKind kind, uint32_t first, uint32_t second, uint32_t iv) {
    const Event& a = trace_.events[first];
    const Event& b = trace_.events[second];
    Hazard h;
    h.kind = kind;
    h.severity = warp_of(a) == warp_of(b) ? HazardSeverity::Warning : HazardSeverity::Error;
    h.block = a.block;
    h.buffer = a.array;
    h.element = a.element;
    h.interval = iv;
    GroupKey key{kind, h.severity, a.array, a.line, b.line};
    // Most hazards of a cell fall into the group of the one before.
    if (!last_group_ || !(last_key_ == key)) {
      last_group_ = &groups_[key];
      last_key_ = key;
    }
    GroupAcc& g = *last_group_;
    if (g.group.count == 0) {
      g.group.kind = kind;
      g.group.severity = h.severity;
      g.group.buffer = a.array;
      g.group.first_line = a.line;
      g.group.second_line = b.line;
    }
    ++g.group.count;
    if (g.last_cell != cell_serial_) {  // count each cell once per group
      g.last_cell = cell_serial_;
      g.elements.insert(uint64_t(a.block) << 32 | a.element);
      g.blocks.insert(a.block);
    }
    if (g.kept.size() < detail_) {
      h.first = side(trace_, first);
      h.second = side(trace_, second);
      g.kept.push_back(h);
    }
    ++report_.total;
    ++report_.by_kind[int(kind)];
    ++report_.by_severity[int(h.severity)][int(kind)];
    if (h.severity == HazardSeverity::Error)
      ++report_.errors;
    else
      ++report_.warnings;
  }
  // Errors first, then the biggest groups; detail follows the same order.
  void finish() {
    std::vector<GroupAcc*> order;
    for (auto& [key, g] : groups_)
      order.push_back(&g);
    std::stable_sort(order.begin(), order.end(), [](const GroupAcc* a, const GroupAcc* b) {
      if (a->group.severity != b->group.severity) return a->group.severity > b->group.severity;
      return a->group.count > b->group.count;
    });
    for (GroupAcc* g : order) {
      g->group.elements = g->elements.size();
      g->group.blocks = g->blocks.size();
      for (const Hazard& h : g->kept) {
        g->group.detail.push_back(uint32_t(report_.hazards.size()));
        report_.hazards.push_back(h);
      }
      report_.groups.push_back(std::move(g->group));
    }
  }

 private:
  const Trace& trace_;
  HazardReport& report_;
  uint32_t detail_;
  std::map<GroupKey, GroupAcc> groups_;
  GroupAcc* last_group_ = nullptr;
  GroupKey last_key_{};
  uint64_t cell_serial_ = 0;
};

}  // namespace

HazardReport analyze_hazards(const Trace& trace, const HazardOptions& opt) {
  HazardReport report;
  report.trace_truncated = trace.truncated();
  report.model = opt.model;
  const auto& ev = trace.events;
  if (!opt.atomics && std::any_of(ev.begin(), ev.end(), [](const Event& e) {
        return e.kind == EventKind::SharedAtomic;
      })) {
    HazardOptions with = opt;
    with.atomics = true;
    with.detail_per_group = 1;
    const HazardReport all = analyze_hazards(trace, with);
    report.with_atomics_verdict = all.verdict();
    report.with_atomics_total = all.total;
  }

  const Cells cells = collect_cells(trace, opt.atomics);
  report.shared_accesses = cells.shared_accesses;
  const std::vector<Access>& acc = cells.acc;
  // Two accesses of different threads in one block interval race unless a
  // __syncwarp of their (common) warp lies between them.
  auto unordered = [&](uint32_t a, uint32_t b) {
    return ev[a].thread != ev[b].thread &&
           (warp_of(ev[a]) != warp_of(ev[b]) || cells.sync_of[a] == cells.sync_of[b]);
  };

  GroupCollector groups(trace, report, opt.detail_per_group);
  // The other model, counted only: SinceLastWrite beside LastAccess.
  HazardReport other;
  SinceLastWrite since_last_write;
  for (size_t begin = 0; begin < acc.size();) {
    size_t end = begin + 1;
    while (end < acc.size() && acc[end].cell == acc[begin].cell)
      ++end;
    groups.next_cell();
    const Access* a = acc.data() + begin;
    const size_t n = end - begin;
    const uint32_t iv = acc[begin].interval;
    begin = end;
    if (n < 2) continue;
    order_kinds(ev, a, n, report.error_kinds_by_order);
    auto add = [&](HazardKind k, uint32_t first, uint32_t second) {
      groups.add(k, first, second, iv);
    };
    auto count = [&](HazardKind k, uint32_t first, uint32_t second) {
      const HazardSeverity s = warp_of(ev[first]) == warp_of(ev[second]) ? HazardSeverity::Warning
                                                                         : HazardSeverity::Error;
      ++other.total;
      ++other.by_kind[int(k)];
      ++other.by_severity[int(s)][int(k)];
      ++(s == HazardSeverity::Error ? other.errors : other.warnings);
    };
    if (opt.model == HazardModel::LastAccess) {
      replay_last_access(ev, a, n, unordered, add);
      since_last_write.replay(ev, a, n, unordered, count);
    } else {
      since_last_write.replay(ev, a, n, unordered, add);
    }
  }
  groups.finish();
  if (opt.model == HazardModel::LastAccess) {
    std::copy(std::begin(report.error_kinds_by_order), std::end(report.error_kinds_by_order),
              std::begin(other.error_kinds_by_order));
    report.since_last_write_verdict = other.verdict();
    report.since_last_write_total = other.total;
  }
  return report;
}

}  // namespace ts
