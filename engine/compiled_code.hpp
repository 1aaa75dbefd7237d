// What nvcc made of each lesson's timed kernel: the memory instructions of
// launch_body<Body, PlainRec> (engine/cuda/launch.cuh), read from its SASS with
// line info, one entry per instruction, tied to the lesson source line the
// trace records for the access. The trace says what the source asks for (one
// event per element and thread); this table says what the GPU executes: four
// scalar loads of one line merged into one LDS.128, a store issued by a warp
// whose lanes are all predicated off. warp_accesses() (analysis/warp_access.hpp)
// groups the lanes into these instructions, so that its counts are Nsight
// Compute's.
//
// Where the table comes from: at build time, where nvcc and nvdisasm are
// found, the build compiles every lesson's kernel for the default architecture
// and reads its SASS (scripts/sass_table.py); elsewhere the copy kept in the
// tree for that architecture is compiled in. compiled_code_origin() says which.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/array.hpp"
#include "model/params.hpp"

namespace ts {

// The architecture whose SASS the table holds: the GPUs this project measures on.
inline constexpr std::string_view kCompiledArch = "sm_90";

// What a memory instruction does.
enum class SassOp : uint8_t {
  Load,    // LDS, LDG, LDC (a __constant__ array)
  Store,   // STS, STG
  Atomic,  // ATOMS, ATOMG (the old value is used)
  Reduce,  // RED (an atomic whose old value is not used)
};

// One memory instruction of a compiled lesson kernel, in program order.
struct CompiledAccess {
  uint32_t offset = 0;    // its address in the kernel's SASS
  uint16_t line = 0;      // the source line the trace records for the access
  std::string_view file;  // that line's header, e.g. "reduction_kit.hpp"
  Space space = Space::Global;
  SassOp op = SassOp::Load;
  uint8_t bytes = 4;        // per lane: 4, 8 or 16
  bool predicated = false;  // guarded by a predicate (@P0 ...): the warp issues it
                            // even when every lane's predicate is false
  std::string_view opcode;  // as disassembled: "LDS.128", "LDG.E.CONSTANT", "STS"
  uint8_t barriers = 0;     // block barriers (BAR.SYNC) before it in program order: a
                            // line's copies with the same count run in one barrier phase
};

// The table of one kernel instantiation.
struct CompiledKernel {
  std::string_view body;  // the Body type, demangled: "ts::lessons::reduction_sequential::Body"
  std::string_view arch;  // "sm_90"
  std::span<const CompiledAccess> accesses;
};

// The compiled kernel the lesson at `lesson_index` (all_lessons()) runs with
// parameters `p` (the Body visit_lesson picks), for kCompiledArch; nullptr when
// the table has no entry for it (a lesson added after the table was made:
// the counts then follow the source, and say so).
const CompiledKernel* compiled_kernel(size_t lesson_index, const Params& p);

// "generated at build time (nvcc 13.0, nvdisasm 13.0)" or "the copy kept in
// the tree (engine/compiled/sm_90.cpp, nvcc 13.0)".
std::string_view compiled_code_origin();

}  // namespace ts
