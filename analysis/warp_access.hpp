// How the memory system serves each warp-level access of a trace: the lanes'
// events grouped into warp instructions, then for shared memory the bank of
// every lane and the conflict degree, for global memory the 32-byte sectors
// and 128-byte lines touched. The totals are named as Nsight Compute names
// its counters, so that `scripts/ncu_compare.sh` can put them side by side.
//
// Grouping rule (the source level: what the source asks for). A warp
// instruction is the set of lane accesses of one (block, warp, source line,
// kind, array) at one dynamic instance. The instance is counted from an
// anchor: a site (access, barrier or shuffle) that every lane of the warp with
// any event runs the same number of times (a uniform site: a barrier, a load
// outside any lane-dependent branch). Each lane access is placed after its
// thread's latest uniform event (the anchor's site and how many times the
// thread had run it) and by how many accesses of its own site the thread made
// since then; lanes with the same place form one instruction. Where the site
// is itself uniform it is its own anchor, and the place is simply its k-th
// execution (what this rule counted before anchors).
// Why anchors: the k-th access of a line is not the same instruction for every
// lane when lanes skip some instances. conv2d.naive skips the taps outside the
// image (`if (x >= 0 && ..) sum += weight * in[..]`): a lane at column 0 made
// its first load at tap (-2, 0) while its neighbours were at (-2, -2); paired
// by k they gave 714 sectors, Nsight Compute 739 on an H200 (ncu_compare,
// session 9). Anchored at the mask read every lane makes at every tap, the
// lanes pair by tap: 739. scan.blelloch's down-sweep adds threads level by
// level (`if (tid < d)`): by k, lanes of different levels met in one
// "instruction" (4 bank conflicts ncu did not see); anchored at the level's
// barrier, none.
// Limits: lanes are assumed to reconverge before each access (what the
// compiler arranges for these kernels; independent thread scheduling does not
// promise it), and a uniform site to be run by the lanes at the same point
// (a site that lanes run equally often but in different iterations of a loop
// would pair them wrongly). What the compiler makes of the accesses (wider
// instructions, predicated issues, merged stores) is the compiled level:
// analysis/compiled_access.hpp.
//
// Addresses. Shared: the array's `shared_offset` in the block's shared memory
// plus element * element size (a wider access starts at its element). Global:
// element * element size from the array's start, which cudaMalloc aligns to
// 256 bytes, so sector and line boundaries are those of the offsets.
//
// Bank rule. 32 banks of 4-byte words; bank = (byte address / 4) % 32. A warp
// access is served in passes of consecutive lanes (the whole warp, half-warps
// 0-15/16-31 or quarter-warps of 8). In a pass the busiest bank decides: its
// number of DISTINCT words is the pass's wavefronts (lanes on one word share
// it: a broadcast, no conflict). Wavefronts = the sum over passes; ideal =
// the passes with an active lane (`phases`); bank conflicts = wavefronts -
// ideal, which is what ncu's l1tex__data_bank_conflicts_* report (its ideal
// is these passes, not the fewest wavefronts the bytes could take).
// The rules below were derived from the bank probe (bench/bank_probe.cu, 94
// patterns per kind and width, run under Nsight Compute on an NVIDIA H200,
// docs/measurements/bank_probe_h200.json; ids are its pattern ids); the
// model reproduces every counter of all 861 patterns
// (BankProbe.CommittedMeasurementsEqualTheModel).
//
// Store pass rule: one pass per 4 bytes of width: 4-byte stores the whole
// warp, 8-byte half-warps, 16-byte quarter-warps, whatever the lanes ask
// (STS, STS.64, STS.128: 282 of 282 patterns, e.g. 16-byte pairs #507 and
// quads #508: 4 wavefronts where two quarter-warps on different banks could
// have shared one; column_padded_33w #535: 16 / 12; 8-byte bcast_all #409: 2).
//
// Load pass rule: a load takes the fewest passes its lane quads (lanes
// 4q..4q+3) allow: a quad gets 16 bytes per pass, so a quad asking for n
// distinct words needs 1 pass (n <= 4), 2 (n <= 8) or 4, and twice as many
// (at most 4) when two of its words are in one bank. The passes are at least
// one per 8 bytes of width and at most one per 4 (4-byte loads: always one
// pass; 8-byte: the whole warp or half-warps; 16-byte: half- or
// quarter-warps). Evidence (LDS 94/94, LDS.64 94/94, LDS.128 94/94):
//  - 8-byte, every quad <= 16 bytes -> one pass over the whole warp:
//    bcast_all #127, pairs #131, quads #132, two_words #133 (lanes alternate
//    two elements) and groups_one_elem_side_by_side #165 take 1 wavefront,
//    not 2; eight_words_by_8 #136 takes 4 with 3 conflicts (bank 0 holds 4
//    distinct words of the whole warp), mask_every_4th_stride_32 #145 8 / 7,
//    two_words_same_bank #137 and mask_odd #142 2 / 1;
//  - 8-byte, a quad of 4 distinct elements -> half-warps: four_words #134
//    (lanes l%4: 2 / 0, though the warp asks for 8 words only),
//    four_words_same_bank #135 8 / 6, mask_quarters_0_2 #144 2 / 0, and all
//    unit and stride patterns #94-#126;
//  - 16-byte, every quad <= 32 bytes on distinct banks -> half-warps:
//    bcast_all #221 2 (not 4), two_words #227 2, pairs #225 2, mask_odd #236
//    4 / 2 (each half-warp holds two elements of one bank),
//    groups_one_elem_same_bank #260 4 / 2, eight_words_by_8 #230 8 / 6;
//  - 16-byte, a quad of more -> quarter-warps: unit #188 4, four_words #228
//    4, column_padded_33w #253 16 / 12 (each quarter's 8 elements 4 to a
//    bank), groups_half_banks #261 4; the bank clause: mask_random_stride_8
//    #242 (quads of two elements, both on bank 0) 12 / 8, i.e. 4 passes.
//  No probe pattern has an 8-byte quad of two elements on one bank: the
//  bank clause is untested there.
//
// Atomics. Shared, ATOMS.ADD of a lane-dependent value (AtomicOperand::
// PerLane, what the probe issues: `lane + 1`): no broadcast, no passes:
// wavefronts = the most active lanes on one bank, ideal 1 (94 of 94: e.g.
// all lanes on one word #597 32 / 31, two words #603 16, pairs #601 2,
// four words of one bank #605 32, random_few_words_0 #652 18 / 17). An
// atomicAdd of one value for every lane (AtomicOperand::SameForAllLanes, the
// lessons' atomicAdd(&bin, 1), which ptxas may compile to an aggregating
// form) is served like a load of the same words: Nsight Compute counted
// 14 wavefronts / 7 conflicts for histogram.shared_atomics on an H100
// (docs/measurements.md), where the per-lane rule gives 55 conflicts.
// Global (RED): requests as for a store; sectors: see the red rule.
// Global rule. One request per warp instruction; sectors = the distinct
// 32-byte sectors the active lanes' bytes fall in; lines = distinct 128-byte
// lines; ideal = the fewest sectors that hold the distinct bytes asked for:
// ceil(distinct 4-byte words * 4 / 32), 4 for 32 lanes x 4 distinct bytes each.
// (LDG/STG of 4, 8 and 16 bytes: 174 of 174 probe patterns.)
//
// Red rule. A global RED's sectors are counted per sector once for each lane
// on its busiest address: the sum over the distinct sectors of the most lanes
// that name one address in it (lanes on one address are served one after
// another; distinct addresses of one sector go together). Probe (RED.E.ADD,
// 29 of 29): bcast_all #846 32, two_elems #847 (two words of one sector, 16
// lanes each) 16, pairs #848 4 (two sectors, two lanes per word),
// two_elems_far #849 32, random_near_0 #858 18.
//
// Constant rule. A read of a constant-memory array (a GlobalLoad event on an
// array whose table entry says Space::Constant) is no global request: the
// constant cache serves one address to the whole warp at once (a broadcast),
// and a warp that asks for several addresses is served one address after
// another. Its cost is the number of distinct addresses, 1 when all lanes
// agree. These accesses are kept apart (WarpAccesses::constant_loads), out of
// the global totals and out of ncu's l1tex global counters.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.hpp"

namespace ts {

inline constexpr int kWarpLanes = 32;
inline constexpr int kSharedBanks = 32;
inline constexpr int kBankWordBytes = 4;
inline constexpr int kSectorBytes = 32;
inline constexpr int kCacheLineBytes = 128;

// Accesses to shared memory: loads, stores and atomics.
constexpr bool shared_access(EventKind k) {
  return is_shared(k) || k == EventKind::SharedAtomic;
}

// The byte address of an element: shared, from the block's shared base;
// global, from the array's (256-byte aligned) start.
uint64_t byte_address(const ArrayInfo& a, uint32_t element);
constexpr int bank_of(uint64_t byte_address) {
  return int((byte_address / kBankWordBytes) % kSharedBanks);
}

// One lane's part of a warp access: its address and width.
struct LaneAccess {
  int lane = 0;  // 0..31
  uint64_t address = 0;
  int bytes = 4;  // 4, 8 or 16; 1 for a byte array's element (model/array.hpp: lane_bytes)
};

// How a shared warp access is served.
struct BankService {
  int phases = 0;         // passes with an active lane: the ideal wavefronts, as ncu counts them
  int wavefronts = 0;     // sum over passes of the busiest bank's distinct words
  int degree = 0;         // the worst phase's: "32-way"; 1 = conflict-free
  int busiest_bank = -1;  // in the worst phase (lowest bank on a tie)
  int conflicts() const { return wavefronts - phases; }
};
// What a shared atomic's lanes add: one value for all (atomicAdd(&x, 1)) or a
// value per lane (the probe's ATOMS.ADD); the hardware serves them apart.
enum class AtomicOperand : uint8_t { SameForAllLanes, PerLane };
// `kind`: SharedLoad, SharedStore or SharedAtomic: loads and stores take
// passes differently, atomics per `operand` (the rules above).
BankService serve_shared(std::span<const LaneAccess> lanes, EventKind kind = EventKind::SharedLoad,
                         AtomicOperand operand = AtomicOperand::SameForAllLanes);

// How a global warp access is served.
struct SectorService {
  int sectors = 0, lines = 0;
  int ideal_sectors = 0;  // ceil(distinct words * 4 / 32): 4 for 32 lanes x 4 distinct bytes
};
// `kind`: GlobalLoad, GlobalStore or GlobalAtomic (a RED: the red rule).
SectorService serve_global(std::span<const LaneAccess> lanes,
                           EventKind kind = EventKind::GlobalLoad);

// How a constant-memory warp access is served: one address at a time.
int distinct_addresses(std::span<const LaneAccess> lanes);

// Which grouping a WarpAccesses holds: what the source asks for (one access
// per element and thread) or what the GPU executes (compiled_access.hpp).
enum class AccessLevel : uint8_t { Source, Compiled };

// One warp-level instruction.
struct WarpAccess {
  uint32_t block = 0;
  uint16_t warp = 0;
  uint16_t line = 0;
  EventKind kind = EventKind::GlobalLoad;
  ArraySlot array = kNoArray;
  uint8_t bytes = 4;       // per lane (the widest lane's)
  uint32_t instance = 0;   // k: the dynamic instance of this access for each of its lanes
  uint32_t lane_mask = 0;  // bit l: lane l took part
  uint32_t lanes_begin =
      0;  // its lanes' event indices: WarpAccesses::lane_events[begin, begin + count)
  uint8_t lane_count = 0;
  BankService bank;            // shared accesses
  SectorService sector;        // global accesses
  bool constant = false;       // a read of a constant-memory array (kind GlobalLoad)
  int constant_addresses = 0;  // its distinct addresses: the serialised constant-cache reads
  uint32_t phase = 0;          // block barriers its lanes had passed
  // The compiled level only (compiled_access.hpp):
  std::string_view opcode;  // the instruction it runs as, "LDS.128"; empty: not in the table
  uint8_t merged = 1;  // source accesses per lane it serves (4: four scalar loads, one LDS.128)
  uint16_t merged_line = 0;  // another source line whose lanes it serves (an if/else's two stores)
  bool idle = false;         // issued with every lane predicated off: no lane, no wavefront
};

// Totals of one kind of access (or of one source line's).
struct AccessTotals {
  uint64_t requests = 0;  // warp instructions with an active lane (ncu: l1tex requests)
  uint64_t idle = 0;      // issued with every lane predicated off (compiled level)
  uint64_t lanes = 0;     // thread accesses (of the compiled level: lanes, however wide)
  // What smsp__inst_executed counts: every issue, idle ones too.
  uint64_t instructions() const { return requests + idle; }
  // Shared.
  uint64_t wavefronts = 0, ideal_wavefronts = 0;
  uint64_t conflicted = 0;  // requests with at least one extra wavefront
  int worst_degree = 0;
  uint64_t bank_conflicts() const { return wavefronts - ideal_wavefronts; }
  // Global.
  uint64_t sectors = 0, lines = 0, ideal_sectors = 0;
  // Constant: the sum of each warp access's distinct addresses (= requests
  // when every warp reads one address at a time: broadcasts only).
  uint64_t constant_addresses = 0;
  uint64_t serialised() const { return constant_addresses - requests; }
  double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0; }
  double ideal_sectors_per_request() const {
    return requests ? double(ideal_sectors) / double(requests) : 0;
  }
  void add(const WarpAccess& a);
};

// The totals of one access site: a line, a kind and an array.
struct SiteTotals {
  uint16_t line = 0;
  EventKind kind = EventKind::GlobalLoad;
  ArraySlot array = kNoArray;
  AccessTotals totals;
};

struct WarpAccesses {
  AccessLevel level = AccessLevel::Source;
  // In the order of their first event in the trace; the compiled level's idle
  // issues (no event) after them.
  std::vector<WarpAccess> accesses;
  // Indices into trace.events, each access's in lane order (of a 16-byte
  // access, the event of its first element).
  std::vector<uint32_t> lane_events;
  // Indexed by EventKind: the four load and store kinds and the two atomic ones.
  std::array<AccessTotals, kEventKindCount> per_kind{};
  AccessTotals constant_loads;       // reads of constant arrays: not in per_kind
  std::vector<SiteTotals> per_site;  // by line, then kind, then array
  bool partial = false;              // the trace is truncated: the counts cover what it holds

  std::span<const uint32_t> lanes_of(const WarpAccess& a) const {
    return {lane_events.data() + a.lanes_begin, a.lane_count};
  }
  const AccessTotals& totals(EventKind k) const { return per_kind[size_t(k)]; }
};

// The source level (the grouping rule above).
WarpAccesses warp_accesses(const Trace& t);

// The lanes of one warp access with their addresses (for the lane x bank view).
std::vector<LaneAccess> lane_accesses(const Trace& t, const WarpAccesses& w, const WarpAccess& a);

// Nsight Compute's metric names and our values, in the order ncu_compare.sh prints them.
struct NcuCounter {
  const char* name;
  uint64_t value;
};
std::vector<NcuCounter> ncu_counters(const WarpAccesses& w);

// The access as the kernel's source writes it: "tile[tx][ty]" from the
// lesson's source line, or the array's name when the line does not show it.
std::string access_text(const Trace& t, uint16_t line, ArraySlot array);
// The access of one warp instruction as the source writes it. A line may
// access the array more than once (`sdata[i] += sdata[i + s]`: two loads and
// a store): a load of the element the thread then stores on that line is the
// compound assignment's target (loaded first or last, as the compiler chose);
// among the others the instruction's place among its thread's accesses of
// that line picks the expression, in source order.
std::string access_text(const Trace& t, const WarpAccesses& w, const WarpAccess& a);

}  // namespace ts
