#include "trace/hazards.hpp"

#include <algorithm>
#include <map>
#include <tuple>
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

std::string HazardReport::verdict() const {
  if (total == 0) return "none";
  // Kinds present per severity, from the groups.
  bool present[2][kHazardKindCount] = {};
  for (const auto& g : groups)
    present[int(g.severity)][int(g.kind)] = true;
  std::string out;
  for (int s : {int(HazardSeverity::Error), int(HazardSeverity::Warning)}) {
    std::string kinds;
    for (int k = 0; k < kHazardKindCount; ++k)
      if (present[s][k]) kinds += std::string(kinds.empty() ? "" : ",") + to_string(HazardKind(k));
    if (kinds.empty()) continue;
    if (!out.empty()) out += "; ";
    out += std::string(to_string(HazardSeverity(s))) + " " + kinds;
  }
  return out;
}

namespace {

// One shared access, keyed so that sorting puts each (block, interval, buffer,
// element) together, in recorded order.
struct Access {
  uint64_t group_hi;  // block << 32 | interval
  uint64_t group_lo;  // buffer << 32 | element
  uint64_t order;     // clock: comparable within a block (one SM on the GPU; a global step in the
                      // simulator)
  uint32_t index;     // event index: program order, and the tie-break
  bool operator<(const Access& o) const {
    return std::tie(group_hi, group_lo, order, index) <
           std::tie(o.group_hi, o.group_lo, o.order, o.index);
  }
};

HazardAccess side(const Trace& t, uint32_t index) {
  const Event& e = t.events[index];
  HazardAccess a;
  a.event = index;
  a.thread = e.thread;
  a.warp = e.warp;
  a.line = e.line;
  a.is_write = e.kind == EventKind::SharedStore;
  a.value = e.value;
  return a;
}

struct GroupKey {
  HazardKind kind;
  HazardSeverity severity;
  Buffer buffer;
  uint16_t first_line, second_line;
  bool operator<(const GroupKey& o) const {
    return std::tie(kind, severity, buffer, first_line, second_line) <
           std::tie(o.kind, o.severity, o.buffer, o.first_line, o.second_line);
  }
};

struct GroupAcc {
  HazardGroup group;
  std::vector<Hazard> kept;
  std::unordered_set<uint64_t> elements;
  std::unordered_set<uint32_t> blocks;
};

}  // namespace

HazardReport analyze_hazards(const Trace& trace, const HazardOptions& opt) {
  HazardReport report;
  report.trace_truncated = trace.truncated();
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

  std::vector<Access> acc;
  acc.reserve(ev.size() / 2);
  for (uint32_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (e.kind == EventKind::BarrierLeave) {
      ++interval[e.block * threads + e.thread];
    } else if (is_shared(e.kind) && !(e.flags & kFlagOutOfRange)) {
      const uint32_t iv = interval[e.block * threads + e.thread];
      acc.push_back(
          {uint64_t(e.block) << 32 | iv, uint64_t(e.buffer) << 32 | e.element, e.clock, i});
    }
  }
  report.shared_accesses = acc.size();
  std::sort(acc.begin(), acc.end());

  std::map<GroupKey, GroupAcc> groups;
  auto add = [&](HazardKind kind, uint32_t first, uint32_t second, uint32_t iv) {
    const Event& a = ev[first];
    const Event& b = ev[second];
    Hazard h;
    h.kind = kind;
    h.severity = a.warp == b.warp ? HazardSeverity::Warning : HazardSeverity::Error;
    h.block = a.block;
    h.buffer = a.buffer;
    h.element = a.element;
    h.interval = iv;
    GroupKey key{kind, h.severity, a.buffer, a.line, b.line};
    GroupAcc& g = groups[key];
    if (g.group.count == 0) {
      g.group.kind = kind;
      g.group.severity = h.severity;
      g.group.buffer = a.buffer;
      g.group.first_line = a.line;
      g.group.second_line = b.line;
    }
    ++g.group.count;
    g.elements.insert(uint64_t(a.block) << 32 | a.element);
    g.blocks.insert(a.block);
    if (g.kept.size() < opt.detail_per_group) {
      h.first = side(trace, first);
      h.second = side(trace, second);
      g.kept.push_back(h);
    }
    ++report.total;
    ++report.by_kind[int(kind)];
    if (h.severity == HazardSeverity::Error)
      ++report.errors;
    else
      ++report.warnings;
  };

  // Within each group, replay the accesses in recorded order against a shadow
  // of the cell: the last write, and the last read of each thread since it.
  // Every access is checked against that state only, so the work stays linear
  // in the number of accesses (racecheck's shadow memory works the same way).
  struct Reader {
    uint16_t thread;
    uint32_t index;
  };
  std::vector<Reader> readers;
  for (size_t begin = 0; begin < acc.size();) {
    size_t end = begin + 1;
    while (end < acc.size() && acc[end].group_hi == acc[begin].group_hi &&
           acc[end].group_lo == acc[begin].group_lo)
      ++end;
    const uint32_t iv = uint32_t(acc[begin].group_hi);
    bool have_write = false;
    uint32_t last_write = 0;
    readers.clear();
    for (size_t j = begin; j < end; ++j) {
      const uint32_t i = acc[j].index;
      const Event& e = ev[i];
      if (e.kind == EventKind::SharedLoad) {
        if (have_write && ev[last_write].thread != e.thread)
          add(HazardKind::ReadAfterWrite, last_write, i, iv);
        auto it = std::find_if(readers.begin(), readers.end(),
                               [&](const Reader& r) { return r.thread == e.thread; });
        if (it != readers.end())
          it->index = i;
        else
          readers.push_back({e.thread, i});
      } else {
        for (const Reader& r : readers)
          if (r.thread != e.thread) add(HazardKind::WriteAfterRead, r.index, i, iv);
        if (have_write && ev[last_write].thread != e.thread)
          add(HazardKind::WriteAfterWrite, last_write, i, iv);
        have_write = true;
        last_write = i;
        readers.clear();
      }
    }
    begin = end;
  }

  // Errors first, then the biggest groups; detail follows the same order.
  std::vector<GroupAcc*> order;
  for (auto& [key, g] : groups)
    order.push_back(&g);
  std::stable_sort(order.begin(), order.end(), [](const GroupAcc* a, const GroupAcc* b) {
    if (a->group.severity != b->group.severity) return a->group.severity > b->group.severity;
    return a->group.count > b->group.count;
  });
  for (GroupAcc* g : order) {
    g->group.elements = g->elements.size();
    g->group.blocks = g->blocks.size();
    for (const Hazard& h : g->kept) {
      g->group.detail.push_back(uint32_t(report.hazards.size()));
      report.hazards.push_back(h);
    }
    report.groups.push_back(std::move(g->group));
  }
  return report;
}

}  // namespace ts
