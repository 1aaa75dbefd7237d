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
// Where the table comes from: one text file per lesson, lessons/compiled/
// sm_90/<lesson>.tsv (scripts/sass_table.py writes them; the format is there),
// each with the hashes of the sources that lesson's kernels are compiled
// from (its header, the lessons/ headers it includes, the launch and the
// recorders). The build embeds them (engine/compiled/embed_compiled_table.cmake,
// no nvcc needed); where nvcc and nvdisasm are found it first remakes them in
// the build directory from the lessons' SASS. A lesson whose file is missing,
// unreadable or made from other sources than the ones built has its compiled
// view turned off, with a message that says why and how to remake it: its
// counts then follow the source. Every other lesson keeps its compiled view.
#pragma once

#include <cstdint>
#include <span>
#include <string>
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

// Whether a lesson's compiled view is on, and if not, why.
enum class CompiledState : uint8_t {
  Current,     // made from the sources built: its kernels are in the table
  Stale,       // made from other sources (a lesson, a kit, the launch changed)
  Missing,     // no file for the lesson (added since the table was made)
  Unreadable,  // a file that is not a table of this lesson for kCompiledArch
  LessonFile,  // a lesson file compiled at run time: its SASS is not read
};

struct CompiledStatus {
  CompiledState state = CompiledState::Missing;
  // "the copy kept in the tree (lessons/compiled/sm_90/scan_blelloch.tsv, nvcc
  // 13.0)" or "generated at build time (nvcc 13.0, nvdisasm 13.0)"; empty
  // where there is no table.
  std::string origin;
  // Empty when Current; else one sentence for the user: "the compiled-code
  // table for scan.blelloch was made from other sources (lessons/scan_kit.hpp
  // changed): the counts follow the source; run scripts/sass_table.sh (needs
  // nvcc and nvdisasm)".
  std::string message;
  bool current() const { return state == CompiledState::Current; }
};

// The status of the lesson at `lesson_index` (all_lessons()), read and
// checked once, the first time any lesson is asked for.
const CompiledStatus& compiled_code_status(size_t lesson_index);

// The compiled kernel the lesson at `lesson_index` runs with parameters `p`
// (the Body visit_lesson picks), for kCompiledArch; nullptr when the lesson's
// status is not Current or its table has no kernel for those parameters.
const CompiledKernel* compiled_kernel(size_t lesson_index, const Params& p);

// Why compiled_kernel(lesson_index, p) is nullptr, for the user (the status's
// message, or that the table has no kernel for these parameters); "" when it
// is not.
std::string compiled_code_note(size_t lesson_index, const Params& p);

// Where the lesson's table comes from: compiled_code_status(i).origin.
std::string_view compiled_code_origin(size_t lesson_index);

}  // namespace ts
