// The compiled level (analysis/compiled_access.hpp states the rules).
#include "analysis/compiled_access.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/warp_grouping.hpp"
#include "engine/catalogue.hpp"

namespace ts {
namespace {

using grouping::kNone;
using grouping::Place;
using grouping::site_array;
using grouping::site_code;
using grouping::site_kind;
using grouping::site_line;

// Marks a group key numbered by (phase, chunk) rather than by anchor.
constexpr uint32_t kChunked = 0xFFFFFFFEu;

// Whether compiled instruction `c` can serve an access of `kind` to an array of `space`.
bool serves(const CompiledAccess& c, EventKind kind, Space space) {
  const Space want = is_shared(kind) || kind == EventKind::SharedAtomic ? Space::Shared : space;
  if (c.space != want) return false;
  if (is_load(kind)) return c.op == SassOp::Load;
  if (is_store(kind)) return c.op == SassOp::Store;
  return c.op == SassOp::Atomic || c.op == SassOp::Reduce;
}

// One thread's accesses of one site between two barriers: where the merge
// rule looks for whole chunks.
struct RunKey {
  uint32_t site = 0, block = 0, phase = 0;
  uint16_t thread = 0;
  bool operator==(const RunKey&) const = default;
};
struct RunKeyHash {
  size_t operator()(const RunKey& k) const {
    return size_t((uint64_t(k.site) * 0x9E3779B97F4A7C15ull) ^
                  (uint64_t(k.block) << 32 | uint64_t(k.thread) << 16) ^ (uint64_t(k.phase) << 7));
  }
};

// What the table says of one source site.
struct SiteCode {
  std::vector<const CompiledAccess*> on_line;   // its line's instructions of its kind
  std::vector<const CompiledAccess*> anywhere;  // the kernel's of its kind, any line
  int kernel_widest = 4;                        // the kernel's widest of its kind, any line
  uint32_t target = kNone;                      // the if/else rule: the site it runs with
  int source_bytes = 0;                         // the widest of its events
  int merge_bytes = 0;                          // the merge rule's width, 0: not merged
  // Whether any of its line's instructions is predicated (the predicated rule).
  bool any_predicated() const {
    return std::any_of(on_line.begin(), on_line.end(),
                       [](const CompiledAccess* c) { return c->predicated; });
  }
  // Its line's instructions that a warp passes in barrier phase `phase`, and
  // how many of them are predicated: those after as many block barriers in
  // program order; past the last such count, the last (a later turn of a loop).
  std::pair<uint32_t, uint32_t> in_phase(uint32_t phase) const {
    int chosen = -1;
    for (const CompiledAccess* c : on_line)
      if (c->barriers <= phase) chosen = std::max<int>(chosen, c->barriers);
    if (chosen < 0)
      for (const CompiledAccess* c : on_line)
        chosen = chosen < 0 ? c->barriers : std::min<int>(chosen, c->barriers);
    uint32_t all = 0, predicated = 0;
    for (const CompiledAccess* c : on_line)
      if (c->barriers == chosen) ++all, predicated += c->predicated;
    return {all, predicated};
  }
  // The opcode of its line's instruction of `bytes`, else the line's first;
  // where its line has none (nvcc's line info put it elsewhere), the kernel's
  // first of its kind and width.
  std::string_view opcode(int bytes) const {
    for (const CompiledAccess* c : on_line)
      if (c->bytes == bytes) return c->opcode;
    if (!on_line.empty()) return on_line.front()->opcode;
    for (const CompiledAccess* c : anywhere)
      if (c->bytes == bytes) return c->opcode;
    return {};
  }
  // The widths its instructions have, widest first (its line's, else the kernel's widest).
  std::vector<int> widths;
  void settle() {
    for (const CompiledAccess* c : on_line)
      widths.push_back(c->bytes);
    if (on_line.empty()) widths.push_back(kernel_widest);
    std::sort(widths.rbegin(), widths.rend());
    widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  }
};

std::string_view base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

Space space_of(const Trace& t, ArraySlot array) {
  const ArrayInfo* a = t.array(array);
  return a ? a->space : Space::Global;
}

// Every site's compiled instructions, from the lesson's own header first
// (a line number of a kit header is another line).
std::map<uint32_t, SiteCode> site_codes(const Trace& t, const CompiledKernel& code,
                                        const grouping::Placer& placer) {
  std::string_view file;
  if (const LessonInfo* v = find_lesson(t.config.lesson_id)) file = base_name(v->source_file);
  std::map<uint32_t, SiteCode> sites;
  placer.for_each([&](const Place& p) {
    SiteCode& s = sites[p.site];
    const Event& e = t.events[p.event];
    s.source_bytes = std::max(s.source_bytes, lane_bytes(e, t.array(e.array)));
  });
  for (auto& [site, s] : sites) {
    const EventKind kind = site_kind(site);
    const Space space = space_of(t, site_array(site));
    for (const CompiledAccess& c : code.accesses) {
      if (!serves(c, kind, space)) continue;
      s.kernel_widest = std::max<int>(s.kernel_widest, c.bytes);
      s.anywhere.push_back(&c);
      if (c.line == site_line(site) && (file.empty() || c.file.empty() || c.file == file))
        s.on_line.push_back(&c);
    }
    s.settle();
  }
  return sites;
}

// The if/else rule: a store site with nothing on its line runs with the
// nearest store site of the same kind and array whose lanes never meet its own.
void pair_if_else(const grouping::Placer& placer, const Trace& t,
                  std::map<uint32_t, SiteCode>& sites) {
  // (site, block, warp, instance) -> lane mask.
  std::map<std::tuple<uint32_t, uint32_t, uint16_t, uint32_t>, uint32_t> masks;
  placer.for_each([&](const Place& p) {
    if (!is_store(site_kind(p.site))) return;
    const Event& e = t.events[p.event];
    masks[{p.site, e.block, uint16_t(warp_of(e)), p.slot}] |= 1u << (e.thread % kWarpLanes);
  });
  const auto complementary = [&](uint32_t a, uint32_t b) {
    bool met = false;
    for (auto it = masks.lower_bound({a, 0, 0, 0});
         it != masks.end() && std::get<0>(it->first) == a; ++it) {
      auto key = it->first;
      std::get<0>(key) = b;
      const auto other = masks.find(key);
      if (other == masks.end()) continue;
      if (other->second & it->second) return false;
      met = true;
    }
    return met;
  };
  for (auto& [site, s] : sites) {
    if (!is_store(site_kind(site)) || !s.on_line.empty()) continue;
    int best = 1 << 30;
    for (const auto& [other, o] : sites) {
      if (other == site || o.on_line.empty() || site_kind(other) != site_kind(site) ||
          site_array(other) != site_array(site))
        continue;
      const int distance = std::abs(int(site_line(other)) - int(site_line(site)));
      if (distance < best && complementary(site, other)) best = distance, s.target = other;
    }
  }
}

// The merge rule: the widest of the line's widths whose aligned chunks every
// thread fills, between each pair of barriers; 0 when none.
void choose_merges(const grouping::Placer& placer, const Trace& t,
                   std::map<uint32_t, SiteCode>& sites) {
  std::unordered_map<RunKey, std::vector<uint64_t>, RunKeyHash>
      words;  // the words each run touched
  placer.for_each([&](const Place& p) {
    const SiteCode& s = sites[p.site];
    const EventKind kind = site_kind(p.site);
    // Byte accesses are never merged into a wider instruction here.
    if (is_atomic(kind) || s.widths.front() <= s.source_bytes || s.source_bytes < kBankWordBytes)
      return;
    const Event& e = t.events[p.event];
    const ArrayInfo* a = t.array(e.array);
    if (!a || a->space == Space::Constant) return;
    const uint64_t address = byte_address(*a, e.element);
    for (int b = 0; b < access_bytes(e.flags); b += kBankWordBytes)
      words[{p.site, e.block, p.phase, e.thread}].push_back(address + uint64_t(b));
  });
  std::unordered_map<uint32_t, std::vector<int>> failed;  // site -> widths some thread breaks
  for (auto& [key, w] : words) {
    std::sort(w.begin(), w.end());
    const bool repeated = std::adjacent_find(w.begin(), w.end()) != w.end();
    const uint32_t site = key.site;
    for (int width : sites[site].widths) {
      bool whole = !repeated;
      // Sorted distinct words fill whole chunks when every chunk holds width / 4 of them.
      for (size_t i = 0; whole && i < w.size(); i += size_t(width / kBankWordBytes)) {
        const size_t n = size_t(width / kBankWordBytes);
        whole = i + n <= w.size() && w[i] % uint64_t(width) == 0 &&
                w[i + n - 1] == w[i] + uint64_t(width - kBankWordBytes);
      }
      if (!whole) failed[site].push_back(width);
    }
  }
  std::unordered_set<uint32_t> seen;
  for (const auto& [key, w] : words)
    seen.insert(key.site);
  for (auto& [site, s] : sites) {
    if (!seen.count(site)) continue;
    for (int width : s.widths) {
      if (width <= s.source_bytes) break;
      const std::vector<int>& f = failed[site];
      if (std::find(f.begin(), f.end(), width) == f.end()) {
        s.merge_bytes = width;
        break;
      }
    }
  }
}

}  // namespace

namespace {
WarpAccesses compiled_level(const Trace& t, const grouping::Placer& placer,
                            const CompiledKernel* code);
}  // namespace

const CompiledKernel* compiled_kernel_for(const Trace& t) {
  const std::optional<size_t> index = lesson_index(t.config.lesson_id);
  return index ? compiled_kernel(*index, t.config.params) : nullptr;
}

WarpAccesses compiled_warp_accesses(const Trace& t, const CompiledKernel* code) {
  return compiled_level(t, grouping::Placer(t), code);
}

AccessLevels access_levels(const Trace& t) {
  AccessLevels l;
  const grouping::Placer placer(t);
  l.source = grouping::source_level(t, placer);
  const std::optional<size_t> index = lesson_index(t.config.lesson_id);
  l.code = index ? compiled_kernel(*index, t.config.params) : nullptr;
  l.compiled = compiled_level(t, placer, l.code);
  if (index) {
    l.origin = compiled_code_origin(*index);
    if (!l.code) l.why_source = compiled_code_note(*index, t.config.params);
  } else {
    l.why_source = "'" + t.config.lesson_id +
                   "' is no lesson of this program: no compiled code, the counts follow the source";
  }
  return l;
}

namespace {

WarpAccesses compiled_level(const Trace& t, const grouping::Placer& placer,
                            const CompiledKernel* code) {
  if (!code) {
    WarpAccesses w = grouping::source_level(t, placer);
    w.level = AccessLevel::Compiled;
    return w;
  }
  std::map<uint32_t, SiteCode> sites = site_codes(t, *code, placer);
  pair_if_else(placer, t, sites);
  choose_merges(placer, t, sites);

  grouping::GroupBuilder b(t, AccessLevel::Compiled);
  // Per run of a merged site: its chunks so far, in the order of their first access.
  std::unordered_map<RunKey, std::vector<uint64_t>, RunKeyHash> chunks;
  placer.for_each([&](const Place& p) {
    const Event& e = t.events[p.event];
    const SiteCode& s = sites[p.site];
    const uint32_t site = s.target != kNone ? s.target : p.site;
    const SiteCode& runs_as = sites[site];
    WarpAccess a;
    a.block = e.block;
    a.warp = uint16_t(warp_of(e));
    a.line = site_line(site);
    a.kind = e.kind;
    a.array = e.array;
    a.instance = p.k;
    a.phase = p.phase;
    a.constant = space_of(t, e.array) == Space::Constant && is_load(e.kind);
    if (s.target != kNone) a.merged_line = e.line;
    grouping::GroupKey key{e.block, site, a.warp, p.slot, 0, 0};
    if (s.merge_bytes) {
      const ArrayInfo* info = t.array(e.array);
      const uint64_t address = info ? byte_address(*info, e.element) : 0;
      const uint64_t chunk = address - address % uint64_t(s.merge_bytes);
      std::vector<uint64_t>& mine = chunks[{p.site, e.block, p.phase, e.thread}];
      if (std::find(mine.begin(), mine.end(), chunk) != mine.end())
        return;  // a later word of a chunk this lane already loads
      a.bytes = uint8_t(s.merge_bytes);
      a.merged = uint8_t(s.merge_bytes / std::max(s.source_bytes, 1));
      key.a = kChunked, key.b = p.phase, key.c = uint32_t(mine.size());
      a.opcode = runs_as.opcode(s.merge_bytes);
      mine.push_back(chunk);
      b.add(key, p.event, a);
      return;
    }
    a.opcode = runs_as.opcode(lane_bytes(e, t.array(e.array)));
    b.add(key, p.event, a);
  });
  WarpAccesses w = b.finish();

  // The predicated rule: per block and phase, every running warp issues each
  // predicated instruction of a site's line once per pass over the line's code.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::map<uint16_t, uint32_t>> ran;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, const WarpAccess*> example;
  for (const WarpAccess& a : w.accesses) {
    const uint32_t site = site_code(a.line, a.kind, a.array);
    const auto it = sites.find(site);
    if (it == sites.end() || !it->second.any_predicated()) continue;
    ++ran[{site, a.block, a.phase}][a.warp];
    example.try_emplace({site, a.block, a.phase}, &a);
  }
  std::vector<WarpAccess> idle;
  const std::vector<std::pair<uint32_t, uint16_t>> warps = placer.warps();
  for (const auto& [key, per_warp] : ran) {
    uint32_t most = 0;
    for (const auto& [warp, n] : per_warp)
      most = std::max(most, n);
    const auto [site, block, phase] = key;
    const auto [copies, predicated] = sites.at(site).in_phase(phase);
    const uint32_t issues = predicated * ((most + copies - 1) / copies);
    for (const auto& [wblock, warp] : warps) {
      if (wblock != block || placer.last_phase(block, warp) < int64_t(phase)) continue;
      const auto mine = per_warp.find(warp);
      const uint32_t have = mine == per_warp.end() ? 0 : mine->second;
      WarpAccess a = *example[key];
      a.warp = warp;
      a.merged_line = 0;
      for (uint32_t i = have; i < issues; ++i)
        idle.push_back(a);
    }
  }
  for (WarpAccess& a : idle) {
    a.idle = true;
    a.lane_mask = 0, a.lane_count = 0;
    a.bank = {}, a.sector = {};
    a.lanes_begin = uint32_t(w.lane_events.size());
    (a.constant ? w.constant_loads : w.per_kind[size_t(a.kind)]).add(a);
    for (SiteTotals& s : w.per_site)
      if (s.line == a.line && s.kind == a.kind && s.array == a.array) s.totals.add(a);
    w.accesses.push_back(a);
  }
  return w;
}

}  // namespace

const WarpAccess* compiled_of(const WarpAccesses& compiled, const WarpAccesses& source,
                              const Trace& t, const WarpAccess& a) {
  const std::span<const uint32_t> lanes = source.lanes_of(a);
  if (lanes.empty()) return nullptr;
  const Event& e = t.events[lanes.front()];
  const ArrayInfo* info = t.array(e.array);
  const uint64_t address = info ? byte_address(*info, e.element) : 0;
  // The compiled access of the same warp, phase, kind and array whose lanes
  // hold this thread's access: the same event, or (merged) its chunk.
  for (const WarpAccess& c : compiled.accesses) {
    if (c.idle || c.block != a.block || c.warp != a.warp || c.phase != a.phase ||
        c.kind != a.kind || c.array != a.array || (c.line != a.line && c.merged_line != a.line))
      continue;
    for (uint32_t i : compiled.lanes_of(c)) {
      const Event& x = t.events[i];
      if (x.thread != e.thread) continue;
      if (i == lanes.front()) return &c;
      const uint64_t at = info ? byte_address(*info, x.element) : 0;
      if (c.merged > 1 && at / c.bytes == address / c.bytes) return &c;
    }
  }
  return nullptr;
}

uint64_t idle_issues(const WarpAccesses& compiled, uint16_t line, EventKind kind, ArraySlot array) {
  for (const SiteTotals& s : compiled.per_site)
    if (s.line == line && s.kind == kind && s.array == array) return s.totals.idle;
  return 0;
}

}  // namespace ts
