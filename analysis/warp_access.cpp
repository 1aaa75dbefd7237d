// Warp instructions from a trace, and how shared and global memory serve them
// (analysis/warp_access.hpp states the rules).
#include "analysis/warp_access.hpp"

#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "analysis/warp_grouping.hpp"

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
  if (a.idle) {  // no lane: no wavefront, no request, no sector
    ++idle;
    return;
  }
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

WarpAccesses warp_accesses(const Trace& t) {
  return grouping::source_level(t, grouping::Placer(t));
}

WarpAccesses grouping::source_level(const Trace& t, const Placer& placer) {
  grouping::GroupBuilder b(t, AccessLevel::Source);
  placer.for_each([&](const grouping::Place& p) {
    const Event& e = t.events[p.event];
    WarpAccess a;
    a.block = e.block;
    a.warp = uint16_t(warp_of(e));
    a.line = e.line;
    a.kind = e.kind;
    a.array = e.array;
    a.instance = p.k;
    a.phase = p.phase;
    const ArrayInfo* info = t.array(e.array);
    a.constant = info && info->space == Space::Constant && is_load(e.kind);
    b.add({e.block, p.site, a.warp, p.slot, 0, 0}, p.event, a);
  });
  return b.finish();
}

std::vector<LaneAccess> lane_accesses(const Trace& t, const WarpAccesses& w, const WarpAccess& a) {
  std::vector<LaneAccess> out;
  for (uint32_t i : w.lanes_of(a))
    out.push_back(grouping::lane_access(t, t.events[i], a));
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
  // where the lanes touch 53 distinct sectors. smsp__inst_executed counts
  // every issue, those with every lane predicated off too (the compiled
  // level's idle issues); l1tex requests only those with an active lane.
  return {
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", sl.bank_conflicts()},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", ss.bank_conflicts()},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", sl.wavefronts},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", ss.wavefronts},
      {"smsp__inst_executed_op_shared_ld.sum", sl.instructions()},
      {"smsp__inst_executed_op_shared_st.sum", ss.instructions()},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", gl.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", gl.sectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", gs.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", gs.sectors},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", sa.bank_conflicts()},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", sa.wavefronts},
      {"smsp__inst_executed_op_shared_atom.sum", sa.instructions()},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", ga.requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", ga.sectors},
  };
}

}  // namespace ts
