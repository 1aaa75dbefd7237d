// The registry: every lesson of lessons/CMakeLists.txt, in menu order, with
// the checks that apply to all of them. Menus, the command line, the tests,
// the benchmarks and the performance panel iterate `all_lessons()`; no other
// file names a lesson id.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lessons/kernel_args.hpp"
#include "lessons/lesson.hpp"
#include "model/array.hpp"
#include "model/barrier_set.hpp"
#include "model/params.hpp"

namespace ts {

using lesson_kit::kMaxLength;
using lesson_kit::kMaxMatrixSide;
using lesson_kit::kTileWidths;
inline constexpr int kMaxBlockThreads = 1024;
inline constexpr int kMaxStencilRadius = 1024;

// Every lesson, in menu order, barrier lines read from its source.
std::span<const LessonInfo> all_lessons();
// The lesson's place in all_lessons() (and in the dispatch table,
// engine/lesson_dispatch.hpp), through one sorted index; nullopt when unknown.
std::optional<size_t> lesson_index(std::string_view id);
// nullptr when the id is unknown.
const LessonInfo* find_lesson(const std::string& id);
// The one message for an id that names no lesson:
// "unknown lesson 'x'; the lessons are: matmul.naive_one_block, ...".
std::string unknown_lesson(std::string_view id);
// The lesson the window opens with (the one marked opens_the_window).
const LessonInfo& default_lesson();
// All ids, comma-separated, for usage messages.
std::string lesson_ids();
// The families in menu order ("matmul", "stencil", ...), each once.
std::vector<const char*> families();
// The text of a lesson header as it was compiled ("" when unknown).
std::string_view lesson_source(const std::string& source_file);
// The text of a lesson's narration (lessons/narration/<key>.json) as it was
// compiled; key: the lesson's narration_key ("" when unknown).
std::string_view lesson_narration(std::string_view key);
// The barrier statements of a header's text: the line of each `SYNCTHREADS(id);`
// or `SYNCWARP(id);` statement and which of the two it is, by id (index 0
// unused; line 0 where an id does not occur).
struct BarrierStatement {
  int line = 0;
  bool warp_scope = false;  // SYNCWARP: a __syncwarp
};
std::vector<BarrierStatement> barrier_statements(std::string_view source);

// Empty when the parameters can run; otherwise a message that names the limit
// that was hit and what is allowed ("tile 64: a block of 64 x 64 = 4096 threads
// exceeds the 1024 threads per block this device allows; use 2, 4, 8, 16 or 32").
std::optional<std::string> validate(const LessonInfo& v, const Params& p, const DeviceLimits& lim);
// Only the lesson's own limits: its declared ranges, then its check (not the
// shared or device memory, which a GPU may opt in to more of).
std::optional<std::string> check_lesson_limits(const LessonInfo& v, const Params& p,
                                               const DeviceLimits& lim);
// Only the barrier numbers the lesson has: bit (id - 1) of `mask`. Bits
// beyond the lesson's barriers may be all set (~0u = keep all) or all clear.
std::optional<std::string> validate_barrier_mask(const LessonInfo& v, BarrierSet kept);
// A barrier number the user named (to remove or keep): 1 .. barriers.size().
std::optional<std::string> validate_barrier_id(const LessonInfo& v, int id);
inline uint32_t all_barriers(const LessonInfo& v) {
  return BarrierSet::first(int(v.barriers.size())).mask();
}

// One size larger than the defaults, for measurements that should not rest
// on the defaults alone (scripts/ncu_compare.sh LARGER=1): the lesson's
// tests.larger where it names more work than the defaults (the product of
// m, k, n and length), else the defaults with each of those doubled where the
// lesson's limits (validate) accept it, else the defaults. `from` says which:
// "tests.larger", "the defaults, sizes doubled" or "the defaults".
Params larger_size(const LessonInfo& v, std::string* from = nullptr);

LaunchGeometry geometry(const LessonInfo& v, const Params& p);
// Warps in one block: threads per block / 32, rounded up.
int warps_per_block(const LessonInfo& v, const Params& p);
// The same lesson with `warps` (1 or 2) warps per block: tile 4 or 8, a
// stencil block of 32 or 64 threads; sizes grow to the defaults' where they
// would leave the second warp idle. nullopt for a lesson without barriers or
// without such a knob. Within one warp a removed barrier stays latent (the
// warp's threads run together); across two it makes loads stale.
std::optional<Params> params_with_warps(const LessonInfo& v, const Params& p, int warps);
ExpectedCounts expected_counts(const LessonInfo& v, const Params& p);
// The lesson's array table for these parameters: global arrays, then shared.
ArrayTable arrays(const LessonInfo& v, const Params& p);

// The kernel's parameters and array extents (pointers left null): what both
// backends pass to the kernel body.
KernelArgs kernel_args(const LessonInfo& v, const Params& p);
// Elements to allocate for one of the lesson's global arrays: its count, or
// more where a kernel reads and writes past the end by design
// (matmul.tiled_exact on a size that is not a multiple of the tile), so that
// those accesses stay inside the allocation. Both backends allocate this much.
uint64_t allocation_elements(const LessonInfo& v, const Params& p, ArraySlot slot);
// The same with the lesson's table for these parameters already at hand.
uint64_t allocation_elements(const LessonInfo& v, const Params& p, const ArrayTable& table,
                             ArraySlot slot);
// "n=10 tile=4", only the parameters the lesson uses.
std::string describe(const LessonInfo& v, const Params& p);

}  // namespace ts
