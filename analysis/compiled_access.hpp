// The compiled level: the trace's lane accesses grouped into the instructions
// the GPU executes, as nvcc compiled the timed kernel (launch_body<Body,
// PlainRec>: engine/compiled_code.hpp holds its memory instructions from the
// SASS, by source line). Its counts are the ones Nsight Compute reports
// (scripts/ncu_compare.sh compares them); the source level (warp_access.hpp)
// stays what the lesson teaches: what the source asks for.
//
// Three rules turn source accesses into compiled ones. Each was read off
// Nsight Compute's source page (per SASS instruction: instructions executed,
// predicated-on threads, wavefronts, sectors) on an NVIDIA H200, CUDA 13.0,
// the lessons at their defaults (docs/measurements/ncu_h200.json: the
// numbers that tests/test_compiled_access.cpp replays, line by line).
//
// Merge rule (wider instructions). Where the compiled code has a W-byte
// instruction of the access's kind on its line (LDS.64, LDS.128, ...), and
// every thread's accesses of the site between two block barriers fill whole
// aligned W-byte chunks (each 4-byte word once), each chunk is one W-byte
// access: nvcc merges accesses it can prove neighbours and aligned, which a
// thread's loads of one row of a tile are, however the loops are nested.
// The chunks of a thread are numbered in the order of their first access, and
// lane l's j-th chunk runs with the other lanes' j-th. A site whose chunks are
// incomplete for any thread stays as the source has it (a column of a tile,
// `cache[s + j]` where s is not a multiple of 4). Evidence:
//  - matmul.tiled_square (n 12, tile 8): `sum += tileA[ty][kk] * tileB[kk][tx]`
//    runs per tile step as 2 LDS.128 (tileA's row, 4 kk each) and 8 LDS
//    (tileB's column), each executed 8 times (8 warps): 160 instructions, 192
//    wavefronts (an LDS.128 of one row per 8 lanes: 2 per warp), where the
//    source asks for 256 loads;
//  - sgemm.blocktile_2d (n 64, tile 32): 16 LDS.128 per k step, 8 rows of As
//    (As[r][k..k+3]: 4 k merged, though k is the outer loop) and 8 of Bs,
//    each executed 64 times: 1024 instructions, 4 wavefronts each (4096); each
//    As one 2 extra (two rows on one bank in each half-warp: the 16-byte load
//    pass rule), 1024 bank conflicts: exactly ncu's; the source asks for 4096
//    loads, 10240 wavefronts, 6144 conflicts;
//  - sgemm.blocktile_1d (n 64, tile 32): 8 LDS.128 (As, BK = 4 merged) and 4
//    LDS per k step: 3072 instructions, 5120 wavefronts (ncu_compare).
//  Global stores of neighbours are not merged where the compiler cannot prove
//  alignment (blocktile_2d's C: 16 STG.E of 4 bytes): the table says so, no
//  rule needed.
//
// Predicated rule (issues with every lane off). A guard the compiler turns
// into a predicate (@!P2 LDS) rather than a branch is issued by every warp
// that reaches it, whatever its lanes' predicates. Where the site's line has
// P predicated instructions among its C in a barrier phase (those after as
// many block barriers in program order as the phase; past the last such
// count, the last: a later turn of a loop): in each block and barrier phase,
// the warps pass over the line's code ceil(m / C) times, m = the most instructions
// of the site any warp ran in that phase (one pass for an unrolled loop, one
// per turn for a loop kept as a loop, C = 1); every warp of the block still
// running in that phase (an event in it or later) issues at least
// P x passes, those it ran with active lanes plus idle ones; an unpredicated
// instruction (behind a branch) only with an active lane. An idle issue counts
// as an instruction (smsp__inst_executed) and nothing else: no wavefront, no
// l1tex request, no sector. Evidence:
//  - reduction.sequential (length 512, block 128): `if (tid < s) sdata[tid] +=
//    sdata[tid + s]` compiles to @!P2 LDS, @!P2 LDS, @!P2 STS, each executed
//    112 times = 16 warps x 7 steps, 508 predicated-on threads (4 x 127), 32
//    wavefronts (only the issues with an active lane): 228 load instructions
//    where the source asks for 68; the same in every reduction step and in
//    scan.single_buffer / double_buffer's `if (tid >= d)` loads;
//  - stencil.shared (length 150, radius 3, block 64): the halo stores under
//    `if (tx < radius)`: @!P0 STS executed 6 times (every warp), 3 wavefronts;
//    their @!P0 LDG: 6 executed, 3 l1tex requests;
//  - transpose.four_per_thread (40 x 48: blocks of 32 x 8 threads, 8 warps,
//    2 x 2 blocks, the second row and column of blocks partial): the four
//    turns of `for (j ..) if (row < rows && col < cols) tile[ty + j][tx] = ..`
//    are @!P4/@!P2/@!P3/@!P0 STS, no branch: 32 warps x 4 = 128 instructions,
//    though in the last row of blocks only the j = 0 turn has a lane on (the
//    busiest warp there ran 1: 80 by "as often as the busiest warp"); its
//    write loop is three predicated LDS, `@P1 EXIT`, then an unpredicated LDS:
//    32 x 3 + the 16 warps of the first column of blocks = 112. The same in
//    transpose.vectorized's aligned path: 8 predicated STS, 16 warps, 128;
//  - matmul.tiled_square (n 12, tile 8): nvcc unrolled the two tile turns, so
//    line 38 has two @!P LDG, one after no barrier and one after two: each runs
//    in its own phase, 8 executions each (8 warps), not 16;
//  - a guard compiled as a branch (`if (tid < 32) warp_reduce(..)`: @P1 BRA)
//    is skipped by warps with no active lane: the table shows those accesses
//    unpredicated and the rule adds nothing (reduction.warp_volatile: 42
//    load instructions, as ncu).
//
// If/else rule (one store for two arms). A store whose line has no compiled
// store of its kind, where another line stores to the same array with lanes
// disjoint from it at every instance (`if (c) a[i] = x; else a[i] = y;`),
// runs in that line's instruction: nvcc selects the value and stores once.
// scan.double_buffer: `temp[..] = temp[..] + mine` (tid >= d) and `temp[..] =
// mine` (else): one STS (line 43), 28 instructions and 28 wavefronts where
// the source asks for 38.
//
// Limits. A site's line is the table's: where nvcc's line info puts an
// instruction on another line, a load there uses the widest instruction of
// its kind anywhere in the kernel and is taken as unpredicated. Merges across
// lines (two scalar stores on two lines into one STS.64) are not modelled:
// no lesson has one. The predicated rule assumes the warps that skip a
// predicated instruction are those that exited.
#pragma once

#include "analysis/warp_access.hpp"
#include "engine/compiled_code.hpp"
#include "model/trace.hpp"

namespace ts {

// The compiled kernel the trace's lesson runs with the trace's parameters
// (engine/compiled_code.hpp), or nullptr: no such lesson, or no current table
// entry (a stale or missing one: compiled_code_note says which).
const CompiledKernel* compiled_kernel_for(const Trace& t);

// The trace's accesses grouped as `code` executes them (the rules above).
// With code == nullptr, the source level (warp_accesses(t)) marked Compiled,
// every opcode empty: nothing is known of the compiled code.
WarpAccesses compiled_warp_accesses(const Trace& t, const CompiledKernel* code);

// Both levels of one trace, and where the compiled one comes from.
struct AccessLevels {
  WarpAccesses source;                   // what the source asks for: the lesson's teaching point
  WarpAccesses compiled;                 // what the GPU executes: Nsight Compute's counts
  const CompiledKernel* code = nullptr;  // nullptr: no table entry (compiled == source)
  std::string_view origin;               // compiled_code_origin() of the lesson
  std::string why_source;                // code == nullptr: why, for the user (compiled_code_note)
};
AccessLevels access_levels(const Trace& t);

// The compiled access that serves source access `a` of trace `t` (its first
// lane's), or nullptr. A search over the compiled accesses: for one access
// at a time (the Banks panel's), not for every access of a run.
const WarpAccess* compiled_of(const WarpAccesses& compiled, const WarpAccesses& source,
                              const Trace& t, const WarpAccess& a);

// The compiled level's idle issues (every lane predicated off) of one site.
uint64_t idle_issues(const WarpAccesses& compiled, uint16_t line, EventKind kind, ArraySlot array);

}  // namespace ts
