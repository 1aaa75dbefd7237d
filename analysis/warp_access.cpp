// Warp instructions from a trace, and how shared and global memory serve them
// (analysis/warp_access.hpp states the rules).
#include "analysis/warp_access.hpp"

#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "engine/catalogue.hpp"

namespace ts {

uint64_t byte_address(const ArrayInfo& a, uint32_t element) {
  const uint64_t offset = uint64_t(element) * uint64_t(std::max(a.elem_bytes, 1));
  return a.shared() ? a.shared_offset + offset : offset;
}

namespace {

// The (bank, word) pairs one pass's lanes ask for, each once.
using BankWords = std::vector<std::pair<int, uint64_t>>;

// The busiest bank's distinct words in `bw` (sorted, unique), and that bank.
std::pair<int, int> busiest(const BankWords& bw) {
  int degree = 0, bank = -1;
  for (size_t i = 0; i < bw.size();) {
    size_t j = i;
    while (j < bw.size() && bw[j].first == bw[i].first)
      ++j;
    if (int(j - i) > degree) degree = int(j - i), bank = bw[i].first;
    i = j;
  }
  return {degree, bank};
}

// How many passes a shared load of `widest` bytes per lane takes (the load
// pass rule in warp_access.hpp): each lane quad's distinct words, 16 bytes
// of them per pass and never two of one bank in a pass; at least one pass
// per 8 bytes of width, at most the width's natural phases.
int load_passes(std::span<const LaneAccess> lanes, int widest) {
  std::array<std::vector<uint64_t>, kWarpLanes / 4> quads;
  for (const LaneAccess& l : lanes) {
    const uint64_t first = l.address / kBankWordBytes;
    for (int w = 0; w < std::max(1, l.bytes / kBankWordBytes); ++w)
      quads[size_t(l.lane / 4)].push_back(first + uint64_t(w));
  }
  int need = 1;
  for (std::vector<uint64_t>& q : quads) {
    std::sort(q.begin(), q.end());
    q.erase(std::unique(q.begin(), q.end()), q.end());
    int passes = q.size() <= 4 ? 1 : q.size() <= 8 ? 2 : 4;
    std::array<bool, kSharedBanks> used{};
    for (uint64_t w : q) {
      bool& u = used[size_t(w % kSharedBanks)];
      if (u) {
        passes = std::min(4, passes * 2);  // two words of one bank: never in one pass
        break;
      }
      u = true;
    }
    need = std::max(need, passes);
  }
  return std::clamp(need, std::max(1, widest / 8), widest / kBankWordBytes);
}

}  // namespace

BankService serve_shared(std::span<const LaneAccess> lanes, EventKind kind, AtomicOperand operand) {
  BankService s;
  if (lanes.empty()) return s;
  if (kind == EventKind::SharedAtomic && operand == AtomicOperand::PerLane) {
    // ATOMS.ADD of lane-dependent values: every lane on a bank is a wavefront
    // of its own, lanes on one word included (no broadcast).
    std::array<int, kSharedBanks> per_bank{};
    for (const LaneAccess& l : lanes)
      ++per_bank[size_t(bank_of(l.address))];
    for (int b = 0; b < kSharedBanks; ++b)
      if (per_bank[size_t(b)] > s.degree) s.degree = per_bank[size_t(b)], s.busiest_bank = b;
    s.phases = 1;
    s.wavefronts = s.degree;
    return s;
  }
  int widest = 4;
  for (const LaneAccess& l : lanes)
    widest = std::max(widest, l.bytes);
  // Stores (and atomics): one pass per 4 bytes of width, by whole, half or
  // quarter warps. Loads: as few as their lane quads allow.
  const int passes =
      kind == EventKind::SharedLoad ? load_passes(lanes, widest) : widest / kBankWordBytes;
  const int lanes_per_pass = kWarpLanes / passes;
  std::vector<BankWords> groups(static_cast<size_t>(passes));
  for (const LaneAccess& l : lanes) {
    const uint64_t first = l.address / kBankWordBytes;
    const int words = std::max(1, l.bytes / kBankWordBytes);
    for (int w = 0; w < words; ++w)
      groups[size_t(l.lane / lanes_per_pass)].push_back(
          {bank_of((first + uint64_t(w)) * kBankWordBytes), first + uint64_t(w)});
  }
  // Lanes on one word are one access (a broadcast; of a store, one write).
  // Shared atomics of one value for every lane (atomicAdd(&bin, 1), what the
  // lessons do) too, as Nsight Compute counted them on an H100
  // (scripts/ncu_compare.sh, histogram.shared_atomics at its defaults: 7
  // instructions, 14 wavefronts, 7 conflicts, exactly a load of the same
  // words); the atomic unit serialises the lanes of one word after the bank
  // access (analysis/atomic_contention.hpp counts that queue).
  for (BankWords& bw : groups) {
    std::sort(bw.begin(), bw.end());
    bw.erase(std::unique(bw.begin(), bw.end()), bw.end());
    if (bw.empty()) continue;
    const auto [degree, bank] = busiest(bw);
    ++s.phases;
    s.wavefronts += degree;
    if (degree > s.degree) s.degree = degree, s.busiest_bank = bank;
  }
  return s;
}

SectorService serve_global(std::span<const LaneAccess> lanes, EventKind kind) {
  SectorService s;
  std::vector<uint64_t> sectors, lines, words;
  for (const LaneAccess& l : lanes) {
    const uint64_t last = l.address + uint64_t(std::max(l.bytes, 1)) - 1;
    for (uint64_t x = l.address / kSectorBytes; x <= last / kSectorBytes; ++x)
      sectors.push_back(x);
    for (uint64_t x = l.address / kCacheLineBytes; x <= last / kCacheLineBytes; ++x)
      lines.push_back(x);
    for (uint64_t x = l.address / kBankWordBytes; x <= last / kBankWordBytes; ++x)
      words.push_back(x);
  }
  const auto distinct = [](std::vector<uint64_t>& v) {
    std::sort(v.begin(), v.end());
    return int(std::unique(v.begin(), v.end()) - v.begin());
  };
  s.sectors = distinct(sectors);
  s.lines = distinct(lines);
  // The fewest sectors that can hold the distinct bytes asked for (lanes on
  // one element ask for it once).
  s.ideal_sectors = (distinct(words) * kBankWordBytes + kSectorBytes - 1) / kSectorBytes;
  if (kind == EventKind::GlobalAtomic) {
    // RED: each sector once per lane on its busiest address (the red rule).
    std::vector<std::pair<uint64_t, uint64_t>> at;  // (sector, address), one per lane
    for (const LaneAccess& l : lanes)
      at.push_back({l.address / kSectorBytes, l.address});
    std::sort(at.begin(), at.end());
    s.sectors = 0;
    for (size_t i = 0; i < at.size();) {
      int most = 0;
      size_t j = i;
      while (j < at.size() && at[j].first == at[i].first) {
        size_t k = j;
        while (k < at.size() && at[k] == at[j])
          ++k;
        most = std::max(most, int(k - j));
        j = k;
      }
      s.sectors += most;
      i = j;
    }
  }
  return s;
}

int distinct_addresses(std::span<const LaneAccess> lanes) {
  std::vector<uint64_t> addresses;
  for (const LaneAccess& l : lanes)
    addresses.push_back(l.address);
  std::sort(addresses.begin(), addresses.end());
  return int(std::unique(addresses.begin(), addresses.end()) - addresses.begin());
}

void AccessTotals::add(const WarpAccess& a) {
  ++requests;
  lanes += a.lane_count;
  if (a.constant) {
    constant_addresses += uint64_t(a.constant_addresses);
  } else if (shared_access(a.kind)) {
    wavefronts += uint64_t(a.bank.wavefronts);
    ideal_wavefronts += uint64_t(a.bank.phases);
    conflicted += a.bank.conflicts() > 0;
    worst_degree = std::max(worst_degree, a.bank.degree);
  } else {
    sectors += uint64_t(a.sector.sectors);
    lines += uint64_t(a.sector.lines);
    ideal_sectors += uint64_t(a.sector.ideal_sectors);
  }
}

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

bool is_access(EventKind k) {
  return is_load(k) || is_store(k) || is_atomic(k);
}

LaneAccess lane_access(const Trace& t, const Event& e) {
  LaneAccess l;
  l.lane = int(e.thread % kWarpLanes);
  l.bytes = access_bytes(e.flags);
  if (const ArrayInfo* a = t.array(e.array)) l.address = byte_address(*a, e.element);
  return l;
}

}  // namespace

WarpAccesses warp_accesses(const Trace& t) {
  WarpAccesses w;
  w.partial = t.truncated();
  const std::vector<Event>& ev = t.events;

  // A site is one (line, kind, array): numbered so that the keys below fit 64 bits.
  std::unordered_map<uint32_t, uint32_t> site_of;
  std::vector<SiteTotals> sites;
  // (block, thread, site) -> accesses this thread made there so far: its next k.
  std::unordered_map<uint64_t, uint32_t> instances;
  // (block, warp, site) -> the warp access of each k.
  std::unordered_map<uint64_t, uint32_t> group_of;
  std::vector<std::vector<uint32_t>> groups;
  std::vector<uint32_t> access_of(ev.size(), kNone);

  for (size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    // A 16-byte access is one lane access, counted from its first element.
    if (!is_access(e.kind) || !leads_access(e)) continue;
    const uint32_t site_key = uint32_t(e.line) << 16 | uint32_t(e.kind) << 8 | e.array;
    const auto [s, new_site] = site_of.try_emplace(site_key, uint32_t(sites.size()));
    if (new_site) sites.push_back({e.line, e.kind, e.array, {}});
    const uint64_t site = s->second & 0xFFFFu;  // < 65536 sites: a line, 4 kinds, 16 arrays
    const uint32_t k = instances[uint64_t(e.block) << 32 | uint64_t(e.thread) << 16 | site]++;
    const uint64_t group_key = uint64_t(e.block) << 32 | uint64_t(warp_of(e)) << 16 | site;
    const auto [g, new_group] = group_of.try_emplace(group_key, uint32_t(groups.size()));
    if (new_group) groups.emplace_back();
    std::vector<uint32_t>& by_k = groups[g->second];
    if (by_k.size() <= k) by_k.resize(k + 1, kNone);
    if (by_k[k] == kNone) {
      by_k[k] = uint32_t(w.accesses.size());
      WarpAccess a;
      a.block = e.block;
      a.warp = uint16_t(warp_of(e));
      a.line = e.line;
      a.kind = e.kind;
      a.array = e.array;
      a.instance = k;
      const ArrayInfo* info = t.array(e.array);
      a.constant = info && info->space == Space::Constant && is_load(e.kind);
      w.accesses.push_back(a);
    }
    WarpAccess& a = w.accesses[by_k[k]];
    a.lane_mask |= 1u << (e.thread % kWarpLanes);
    ++a.lane_count;
    a.bytes = uint8_t(std::max<int>(a.bytes, access_bytes(e.flags)));
    access_of[i] = by_k[k];
  }

  // Each access's lanes, contiguous and in lane order.
  uint32_t begin = 0;
  for (WarpAccess& a : w.accesses)
    a.lanes_begin = begin, begin += a.lane_count;
  w.lane_events.resize(begin);
  std::vector<uint32_t> fill(w.accesses.size(), 0);
  for (size_t i = 0; i < ev.size(); ++i)
    if (const uint32_t a = access_of[i]; a != kNone)
      w.lane_events[w.accesses[a].lanes_begin + fill[a]++] = uint32_t(i);

  std::vector<LaneAccess> lanes;
  for (WarpAccess& a : w.accesses) {
    uint32_t* first = w.lane_events.data() + a.lanes_begin;
    std::sort(first, first + a.lane_count,
              [&](uint32_t x, uint32_t y) { return ev[x].thread < ev[y].thread; });
    lanes.clear();
    for (uint32_t i = 0; i < a.lane_count; ++i)
      lanes.push_back(lane_access(t, ev[first[i]]));
    if (a.constant)
      a.constant_addresses = distinct_addresses(lanes);
    else if (shared_access(a.kind))
      a.bank = serve_shared(lanes, a.kind);
    else
      a.sector = serve_global(lanes, a.kind);
    (a.constant ? w.constant_loads : w.per_kind[size_t(a.kind)]).add(a);
    const uint32_t site_key = uint32_t(a.line) << 16 | uint32_t(a.kind) << 8 | a.array;
    sites[site_of[site_key]].totals.add(a);
  }
  std::sort(sites.begin(), sites.end(), [](const SiteTotals& x, const SiteTotals& y) {
    return std::tie(x.line, x.kind, x.array) < std::tie(y.line, y.kind, y.array);
  });
  w.per_site = std::move(sites);
  return w;
}

std::vector<LaneAccess> lane_accesses(const Trace& t, const WarpAccesses& w, const WarpAccess& a) {
  std::vector<LaneAccess> out;
  for (uint32_t i : w.lanes_of(a))
    out.push_back(lane_access(t, t.events[i]));
  return out;
}

std::vector<NcuCounter> ncu_counters(const WarpAccesses& w) {
  const AccessTotals& sl = w.totals(EventKind::SharedLoad);
  const AccessTotals& ss = w.totals(EventKind::SharedStore);
  const AccessTotals& gl = w.totals(EventKind::GlobalLoad);
  const AccessTotals& gs = w.totals(EventKind::GlobalStore);
  const AccessTotals& sa = w.totals(EventKind::SharedAtomic);
  const AccessTotals& ga = w.totals(EventKind::GlobalAtomic);
  // The lessons discard atomicAdd's result on global memory, so the compiler
  // issues RED (a reduction, no value back): ncu counts those under op_red,
  // not op_atom. Shared memory has no RED: ATOMS, counted under op_atom.
  // op_red sectors follow the red rule (warp_access.hpp): 189 for
  // histogram.global_atomics at its defaults, as ncu counted on an H100,
  // where the lanes touch 53 distinct sectors.
  return {
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", sl.bank_conflicts()},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", ss.bank_conflicts()},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", sl.wavefronts},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", ss.wavefronts},
      {"smsp__inst_executed_op_shared_ld.sum", sl.requests},
      {"smsp__inst_executed_op_shared_st.sum", ss.requests},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", gl.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", gl.sectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", gs.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", gs.sectors},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", sa.bank_conflicts()},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", sa.wavefronts},
      {"smsp__inst_executed_op_shared_atom.sum", sa.requests},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", ga.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", ga.sectors},
  };
}

namespace {

// Line `line` (1-based) of `text`, or "".
std::string_view line_of(std::string_view text, int line) {
  size_t start = 0;
  for (int i = 1; i < line; ++i) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  const size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

namespace {

// One `name[...]..[...]` on a source line: its text, where it is, and
// whether it is read, written or both (a compound assignment's target).
struct Occurrence {
  std::string text;
  size_t at = 0;
  bool load = false, store = false;
};

// Every access of `name` on the line, and where its assignment operator is
// (npos: none): `=` or `op=`, not `==`, `<=`, `>=`, `!=`.
std::vector<Occurrence> occurrences(std::string_view src, const std::string& name, size_t* assign) {
  *assign = std::string_view::npos;
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] != '=') continue;
    if (i + 1 < src.size() && src[i + 1] == '=') {
      ++i;
      continue;
    }
    if (i > 0 && (src[i - 1] == '=' || src[i - 1] == '<' || src[i - 1] == '>' || src[i - 1] == '!'))
      continue;
    *assign = i;
    break;
  }
  std::vector<Occurrence> out;
  for (size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + 1)) {
    const size_t after = at + name.size();
    if ((at > 0 && ident_char(src[at - 1])) || after >= src.size() || src[after] != '[') continue;
    size_t end = after;
    bool closed = true;
    while (end < src.size() && src[end] == '[') {
      int depth = 0;
      for (; end < src.size(); ++end) {
        depth += src[end] == '[' ? 1 : src[end] == ']' ? -1 : 0;
        if (depth == 0) break;
      }
      if (end >= src.size()) {
        closed = false;
        break;
      }
      ++end;
    }
    if (!closed) break;
    Occurrence o;
    o.text = std::string(src.substr(at, end - at));
    o.at = at;
    // What follows: `=` a store, `op=` a load and a store, else a load.
    size_t k = end;
    while (k < src.size() && src[k] == ' ')
      ++k;
    const bool target = *assign != std::string_view::npos && k <= *assign && *assign <= k + 2 &&
                        src.find_first_not_of("+-*/%&|^<> ", k) == *assign;
    o.store = target;
    o.load = !target || *assign > k;  // `x op= y` reads x too
    out.push_back(std::move(o));
    at = end - 1;
  }
  return out;
}

}  // namespace

std::string access_text(const Trace& t, const WarpAccesses& w, const WarpAccess& a) {
  const std::span<const uint32_t> lanes = w.lanes_of(a);
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (lanes.empty() || !v) return access_text(t, a.line, a.array);
  const std::string name = array_name(t.config.arrays, a.array);
  size_t assign = 0;
  std::vector<Occurrence> all =
      occurrences(line_of(lesson_source(v->source_file), a.line), name, &assign);
  const bool writing = !is_load(a.kind);
  const Event& e0 = t.events[lanes.front()];
  // A compound assignment's target is loaded before or after its right-hand
  // side, as the compiler chose (lessons/access.hpp records `a[i] += b[j]`'s
  // target first): a load is the target's when its thread's next store of
  // this array on the line stores the element it loaded.
  const auto stored_next = [&](size_t from) -> int64_t {
    int64_t budget = int64_t(1) << 22;  // events looked at, at most
    for (size_t i = from + 1; i < t.events.size() && budget-- > 0; ++i) {
      const Event& e = t.events[i];
      if (e.block != e0.block || e.thread != e0.thread) continue;
      if (e.line != a.line || is_barrier(e.kind)) break;
      if (e.array == a.array && e.kind == EventKind::SharedStore) return e.element;
      if (e.array == a.array && e.kind == EventKind::GlobalStore) return e.element;
    }
    return -1;
  };
  const auto is_target_load = [&](size_t i) {
    return stored_next(i) == int64_t(t.events[i].element);
  };
  const Occurrence* target = nullptr;
  for (const Occurrence& o : all)
    if (o.load && o.store) target = &o;
  if (!writing && target && is_target_load(lanes.front())) return target->text;
  // Otherwise the right-hand side's loads in source order; stores in source order.
  std::vector<const Occurrence*> cands;
  for (const Occurrence& o : all) {
    if (writing ? !o.store : !o.load || &o == target) continue;
    cands.push_back(&o);
  }
  if (cands.empty()) return access_text(t, a.line, a.array);
  if (cands.size() == 1 || is_atomic(a.kind)) return cands.front()->text;
  // The instruction's place among its thread's accesses of this array on this
  // line, of its kind, counted back over the thread's run of events on the line.
  size_t k = 0;
  int64_t budget = int64_t(1) << 22;  // events looked at, at most
  for (size_t i = lanes.front(); i-- > 0 && budget-- > 0;) {
    const Event& e = t.events[i];
    if (e.block != e0.block || e.thread != e0.thread) continue;
    if (e.line != a.line || is_barrier(e.kind)) break;
    if (e.array == a.array && is_load(e.kind) == !writing && leads_access(e) &&
        (writing || !target || !is_target_load(i)))
      ++k;
  }
  return cands[k % cands.size()]->text;
}

std::string access_text(const Trace& t, uint16_t line, ArraySlot array) {
  const std::string name = array_name(t.config.arrays, array);
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (!v) return name;
  std::string_view src = line_of(lesson_source(v->source_file), line);
  // The first `name[...]...[...]` on the line: its name and every subscript that follows.
  for (size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + 1)) {
    const size_t after = at + name.size();
    if ((at > 0 && ident_char(src[at - 1])) || after >= src.size() || src[after] != '[') continue;
    size_t end = after;
    while (end < src.size() && src[end] == '[') {
      int depth = 0;
      for (; end < src.size(); ++end) {
        depth += src[end] == '[' ? 1 : src[end] == ']' ? -1 : 0;
        if (depth == 0) break;
      }
      if (end >= src.size()) return name;
      ++end;
    }
    return std::string(src.substr(at, end - at));
  }
  return name;
}

}  // namespace ts
