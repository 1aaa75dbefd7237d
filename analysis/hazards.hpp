// Shared-memory hazards in a trace, in compute-sanitizer racecheck's model.
//
// Two accesses race when they touch the same element of the same shared array
// of one block, come from different threads, at least one writes, not both
// are atomics, and no barrier of that block lies between them. A barrier needs
// every thread of the block, so each thread's accesses fall into numbered
// barrier intervals (how many barriers it has left before the access); two
// accesses of different threads with the same interval number are unordered.
// Which of the pair is "first" (and so read-after-write or write-after-read)
// is the order in which they were recorded, as racecheck reports what it saw.
//
// A __syncwarp (barrier events flagged kFlagWarpScope) orders the threads of
// its own warp only: it does not end a block's barrier interval, but two
// threads of one warp that passed different numbers of barriers (of either
// scope) are ordered. Warp shuffles touch no memory and are not barriers here.
//
// What racecheck reports of those races: its rules, learned from its logs.
// Evidence: compute-sanitizer racecheck (CUDA 13.0) on an NVIDIA H200,
// `--racecheck-report all`, one untraced launch per lesson and barrier subset
// (scripts/racecheck_compare.sh); the hazard records are kept, one line per
// word, in docs/measurements/racecheck_h200/ and replayed against this
// analysis of simulator traces of the same launches by
// tests/test_racecheck_extracts.cpp, one test per rule. "Records" below are
// (block, element, kind, first thread, second thread).
//
//  - Last access. racecheck's shadow memory keeps ONE access per byte; each
//    access is checked against that one alone and then takes its place (a
//    read replaces a read), except that a thread reading back its own write
//    leaves the write there. So a stored value read by several threads gives
//    one RAW, with its first reader, and a write that follows the writer's
//    own read of the cell gives no WAR and no WAW, whoever read or wrote it
//    before. Evidence: reduction.warp_volatile with both barriers kept: the
//    unrolled warp's `v[tid] += v[tid + s]` loads v[tid + s] (SASS 0x300)
//    before v[tid] (0x310), so lane i + s's store follows its own load of the
//    cell lane i read: racecheck reports 258 warnings, all RAW, the same 258
//    records as this model; every read since the last write
//    (HazardModel::SinceLastWrite) adds 258 WAR. reduction.interleaved_strided
//    without barrier 1: the tree's store to sdata[2st] follows that thread's
//    own load of it, so the initial store before it is no WAW: racecheck 384
//    error and 124 warning records, all RAW, each of them this model's (and
//    none more); every pair since the last write adds 219 (RAW, WAW).
//    conv2d.tiled without its barrier: racecheck 424 words, where every
//    reader of every cell makes 3,344 pairs; with the read-back exception
//    276 of racecheck's 290 warning records are this model's (244 without).
//  - Values. A write after a write is reported only for the bytes whose value
//    it changes (the record's "Current Value" and "Incoming Value"): all 82
//    WAW byte records of the 22 logs change their byte, and each of the 47
//    WAW words is reported for 1 or 2 of its 4 bytes (the low bytes of small
//    integers stay 0); WAR records carry unchanged bytes too (379 of 596).
//    Here: a store after a store is WAW only when the value's bits change.
//  - Bytes. A record is one byte; an element is checked once, as a whole.
//  - Severity. Threads of different warps -> error; two threads of one warp
//    -> warning ("Warp Level Programming"): hazards that assume the warp's
//    threads run in step, which independent thread scheduling no longer
//    promises. Every record of the extracts follows it.
//  - Order. Two accesses of two warps with no barrier between them ran in
//    whichever order the warps happened to take: a read and a write are RAW
//    or WAR by that order, and the one-access shadow meets a pair only when
//    nothing came between them. reduction.interleaved_divergent without
//    barrier 2: racecheck reports thread 96's store and thread 64's load of
//    sdata[96] (line 35, block 2) both as RAW and as WAR; the simulator's
//    lockstep order gives RAW only. sgemm.blocktile_2d without barrier 2: a
//    GPU trace had RAW and WAR, where a warp stored the next tile before a
//    slower warp read this one; lockstep gives WAR, the simulator's warp skew
//    RAW and WAR again. So the kinds of errors belong to the run:
//    HazardReport::error_kinds_by_order names every kind another order could
//    show, and the verdict marks such errors "(order-dependent: RAW/WAR)".
//    The lanes of one warp run in the program's order (the simulator
//    reconverges them where the GPU does: engine/sim/fiber_block.hpp), so
//    warnings belong to the program: the extracts' warnings are this model's
//    records but for 14 of conv2d's 290 and 8 of scan.blelloch's 328 (see
//    Limits), and no warning of ours is missing from racecheck's on a cell
//    that one warp alone touches. Where another warp's access came first it
//    took the shadow and the pair within the warp went unreported
//    (matmul.tiled_square with barrier 2 only: 32 of block 0's 96 within-warp
//    RAWs, all on tileB cells that warp 1 reads too): the run's records, the
//    same kinds.
//  - Warp syncs. Within a warp racecheck orders two accesses when a WARPSYNC
//    instruction ran between them -- what __syncwarp compiles to, and what
//    nvcc puts before a __syncthreads that a diverged warp might reach -- and
//    not when only a reconvergence (BSYNC) lies between. That WARPSYNC need
//    not sit where the barrier is: ptxas can schedule it above the accesses
//    before the barrier. Evidence (session 10 logs, *_skewrec.txt): the race
//    lab's stall, a branch on the warp's bit, made every mask-conditional
//    barrier of the untraced kernel get a WARPSYNC.ALL; matmul.tiled_square
//    with barrier 1 only: barrier 1's WARPSYNC ran above the next tile's
//    stores, and racecheck reported 0 of our 384 within-warp WARs at tile 4
//    (one warp per block) and none at tile 8, where in session 2 the same
//    case without that code had them; reduction.interleaved_strided and
//    interleaved_divergent with barrier 2 only: barrier 2's WARPSYNC at the
//    top of the tree loop hid all within-warp RAWs of the first step (ours
//    124 and 256 records; the same case without that code: racecheck's 124,
//    reduction.interleaved_strided_2.txt). Across the stall's BSYNC racecheck
//    still warned (tiled_square with barrier 2 only: the tile store at 0x430,
//    the load after the BSYNC at 0x550; scan.single_buffer with barrier 1
//    only: 1,448 RAW records across it). So the untraced run racecheck
//    examines has no stall (engine/cuda/recorders.cuh, MaskRec): in all 105
//    kernels the same WARPSYNCs as the timed ones, none but
//    matmul.row_col_shared's, after its last shared access. This model
//    orders a warp at the trace's __syncwarp only; in reduction.warp_syncwarp
//    nvcc compiled those to NOPs in a converged warp, and racecheck (session
//    9) agreed with this model there: it sees them all the same.
//  - Compiled order. racecheck sees the order of the SASS. In `a[i] += b[j]`
//    the compiler picks which load comes first: nvcc (sm_90) loads a[i] first
//    in 7 of the lessons' 8 such lines without volatile (every reduction,
//    scan.single_buffer; scan.blelloch's up-sweep the other way, where no
//    third thread touches the cell in that step); through a volatile pointer
//    the program's order stands (b[j] first, reduction.warp_volatile). The
//    recorder follows (lessons/access.hpp): scan.single_buffer's racy step is
//    then a WAR, as on the GPU, where the program's order hid it. The order
//    is the kernel's, not the line's: with the stall compiled in, nvcc loaded
//    scan.single_buffer's temp[tid - d] first, the thread's own load then
//    took the shadow before its store, and racecheck saw no WAR in the step
//    (session 10: "error RAW; warning RAW" with a barrier removed, "error
//    WAR; warning WAR" with both kept, which runs the timed kernel).
//  - Atomics are not checked at all (histogram.shared_atomics on an H100:
//    no report, with wrong bins); HazardOptions::atomics counts them.
// Limits: where the compiler reorders other independent loads (conv2d.tiled's
// 25 unrolled tile loads), "the first reader" of a value can be another lane
// than on the GPU: the same kinds, other records. The SASS line table puts
// some accesses on a neighbouring line (scan.blelloch's second store of line
// 43 on line 42, conv2d's tile store of line 53 on 67): the extracts keep the
// instruction as well.
//
//   HazardReport r = analyze_hazards(trace);
//   for (const HazardGroup& g : r.groups) ...   // racecheck's "analysis" mode
//   for (const Hazard& h : r.hazards) ...       // racecheck's "hazard" mode (capped)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace ts {

enum class HazardKind : uint8_t { ReadAfterWrite = 0, WriteAfterRead = 1, WriteAfterWrite = 2 };
inline constexpr int kHazardKindCount = 3;
enum class HazardSeverity : uint8_t { Warning = 0, Error = 1 };

const char* to_string(HazardKind k);      // "RAW", "WAR", "WAW"
const char* long_name(HazardKind k);      // "read-after-write"
const char* to_string(HazardSeverity s);  // "warning", "error"
// A few sentences, in our words, on what the hazard type means and why it bites.
const char* explanation(HazardKind k);

// One side of a hazard: one recorded access.
struct HazardAccess {
  uint64_t event = 0;  // index into Trace::events
  uint16_t thread = 0, warp = 0, line = 0;
  bool is_write = false;   // a store or an atomic
  bool is_atomic = false;  // an atomic read-modify-write (atomicAdd)
  float value = 0;         // the value stored (an atomic's: the new one), or the value the load saw
};

// One racing pair, as racecheck's hazard mode prints it.
struct Hazard {
  HazardKind kind = HazardKind::ReadAfterWrite;
  HazardSeverity severity = HazardSeverity::Error;
  uint32_t block = 0;
  ArraySlot buffer = kNoArray;
  uint32_t element = 0;
  uint32_t interval = 0;  // barrier interval both accesses lie in (0 = before the first barrier)
  HazardAccess first;     // recorded first (RAW: the write; WAR: the read)
  HazardAccess second;    // recorded second
};

// Racecheck's analysis mode: all hazards of one kind between two source lines.
struct HazardGroup {
  HazardKind kind = HazardKind::ReadAfterWrite;
  HazardSeverity severity = HazardSeverity::Error;
  ArraySlot buffer = kNoArray;
  uint16_t first_line = 0, second_line = 0;
  uint64_t count = 0;            // every hazard of the group, also those not kept as detail
  uint64_t elements = 0;         // distinct (block, element) pairs involved
  uint64_t blocks = 0;           // distinct blocks involved
  std::vector<uint32_t> detail;  // indices into HazardReport::hazards (at most detail_per_group)
};

// Which earlier accesses of the same cell an access is checked against.
enum class HazardModel : uint8_t {
  // racecheck's shadow memory (the rules at the top of this file): the one
  // access before it (a write stays while its own thread reads it back), and
  // a store after a store only when it changes the value. What
  // compute-sanitizer racecheck reports.
  LastAccess = 0,
  // The last write and every thread's last read since it: also the pairs
  // racecheck's shadow hides behind a later access (every reader of a stored
  // value, not only the first; a write after another thread's read when the
  // writer read the cell itself in between). The races a barrier prevents.
  SinceLastWrite = 1,
};

struct HazardOptions {
  uint32_t detail_per_group = 256;  // hazards kept per group (all are counted)
  // Shared atomics. racecheck does not check them at all (measured on an
  // H100: histogram.shared_atomics without its barriers, where the zeroing
  // store and the merge's read race with the atomics and the bins come out
  // wrong, gets no report), so by default neither do we. true: an atomic
  // counts as a write against plain loads and stores of other threads (two
  // atomics still never race) -- the races racecheck misses.
  bool atomics = false;
  HazardModel model = HazardModel::LastAccess;
};

struct HazardReport {
  std::vector<HazardGroup> groups;  // errors first, then by count
  std::vector<Hazard> hazards;      // detail, grouped as in `groups`
  uint64_t total = 0, errors = 0, warnings = 0;
  uint64_t by_kind[kHazardKindCount] = {};
  uint64_t by_severity[2][kHazardKindCount] = {};  // [HazardSeverity][HazardKind]
  // The kinds of error another order of the warps could show (the rule
  // "Order" above): a read and a write of two warps, RAW or WAR; two writes
  // of two warps that store different values, WAW.
  bool error_kinds_by_order[kHazardKindCount] = {};
  uint64_t shared_accesses = 0;  // shared loads, stores and atomics analysed
  bool trace_truncated = false;  // the trace lost events: hazards may be missing
  HazardModel model = HazardModel::LastAccess;
  // With atomics off (racecheck's model) on a trace with shared atomics: the
  // verdict and count with atomics counted (HazardOptions::atomics), so that a
  // report can say which races racecheck would not show. Empty otherwise.
  std::string with_atomics_verdict;
  uint64_t with_atomics_total = 0;
  // With the LastAccess model: the verdict and count of SinceLastWrite on the
  // same trace (atomics as in the options), so that a report can say which
  // races racecheck's shadow does not show. Empty otherwise.
  std::string since_last_write_verdict;
  uint64_t since_last_write_total = 0;
  // Hazards racecheck's model leaves out: pairs of a plain access and an atomic.
  uint64_t missed_by_racecheck() const {
    return with_atomics_total > total ? with_atomics_total - total : 0;
  }
  // Racing pairs racecheck's shadow hides behind a later access.
  uint64_t hidden_by_shadow() const {
    return since_last_write_total > total ? since_last_write_total - total : 0;
  }
  bool has(HazardKind k) const { return by_kind[int(k)] > 0; }
  bool has(HazardSeverity s, HazardKind k) const { return by_severity[int(s)][int(k)] > 0; }
  bool empty() const { return total == 0; }
  // The errors' kinds depend on the order the warps ran in: another order
  // could show a kind this trace did not, or there is more than one kind a
  // pair could take (RAW/WAR).
  bool order_dependent() const;
  // "none", or the kinds per severity, e.g. "error RAW (order-dependent:
  // RAW/WAR); warning RAW": errors first, the kinds this trace shows, then,
  // where they depend on the order of the warps, every kind another order
  // could show. The compact verdict the racecheck comparison uses.
  std::string verdict() const;
  // The same without the order mark: "error RAW; warning RAW".
  std::string seen_verdict() const;
};

HazardReport analyze_hazards(const Trace& trace, const HazardOptions& opt = {});

}  // namespace ts
