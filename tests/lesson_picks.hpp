// Lessons picked by what they have, never by id. A test says why it runs a
// lesson ("the first lesson with a dynamic shared array", "the ladder's step
// 5"), so that adding, renaming or removing a lesson never needs a test edit;
// scripts/check_layers.sh refuses a lesson id in tests/ and bench/.
//
// A pick that finds no lesson throws std::runtime_error naming the property:
// the test fails with that message (GoogleTest reports the exception), it
// never skips silently.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/catalogue.hpp"

namespace ts::picks {

using Property = std::function<bool(const LessonInfo&)>;

// Every lesson with the property, in menu order (possibly none).
inline std::vector<const LessonInfo*> all_with(const Property& has) {
  std::vector<const LessonInfo*> found;
  for (const LessonInfo& v : all_lessons())
    if (has(v)) found.push_back(&v);
  return found;
}

// The first lesson, in menu order, with the property `what` describes.
inline const LessonInfo& first_with(const std::string& what, const Property& has) {
  for (const LessonInfo& v : all_lessons())
    if (has(v)) return v;
  throw std::runtime_error("no lesson is " + what + ": the test needs one");
}

// --- properties, at the lesson's defaults ------------------------------------

inline ExpectedCounts default_counts(const LessonInfo& v) {
  return expected_counts(v, v.defaults);
}
inline bool reads(const LessonInfo& v, uint32_t param_bits) {
  return (v.uses & param_bits) == param_bits;
}
inline int shared_array_count(const LessonInfo& v) {
  int n = 0;
  for (const ArrayInfo& a : arrays(v, v.defaults))
    n += a.shared();
  return n;
}
inline bool has_shared_arrays(const LessonInfo& v) {
  return shared_array_count(v) > 0;
}
inline bool has_dynamic_shared(const LessonInfo& v) {
  return geometry(v, v.defaults).dynamic_shared_bytes > 0;
}
inline bool has_warp_barrier(const LessonInfo& v) {
  for (const BarrierInfo& b : v.barriers)
    if (b.warp_scope) return true;
  return false;
}
inline bool has_global_atomics(const LessonInfo& v) {
  return default_counts(v).global_atomics > 0;
}
inline bool has_shared_atomics(const LessonInfo& v) {
  return default_counts(v).shared_atomics > 0;
}
inline bool has_warp_shuffles(const LessonInfo& v) {
  return default_counts(v).warp_shuffles > 0;
}
inline bool has_constant_memory(const LessonInfo& v) {
  return default_counts(v).constant_loads > 0;
}
// The kernel reads and writes past its arrays' ends by design (allocation).
inline bool reaches_past_its_arrays(const LessonInfo& v) {
  return v.allocation != nullptr;
}
// The lesson header's text holds `text` (a statement a test is about).
inline bool source_has(const LessonInfo& v, std::string_view text) {
  return lesson_source(v.source_file).find(text) != std::string_view::npos;
}
inline bool same_family(const LessonInfo& a, const LessonInfo& b) {
  return std::string(a.family) == b.family;
}

// --- array slots, by the name the kernel's source gives the array ------------

// The slot of the array called `name` in the table at hand; throws naming the
// array when there is none (a renamed array fails the test, never a wrong slot).
inline ArraySlot array_slot(const ArrayTable& table, const std::string& name,
                            const std::string& whose = "the table") {
  const ArraySlot slot = slot_named(table, name);
  if (slot == kNoArray)
    throw std::runtime_error(whose + " has no array called \"" + name + "\": the test needs one");
  return slot;
}
// The same in the lesson's table for `p` (its defaults where left out).
inline ArraySlot array_slot(const LessonInfo& v, const std::string& name, const Params& p) {
  return array_slot(arrays(v, p), name, std::string(v.id));
}
inline ArraySlot array_slot(const LessonInfo& v, const std::string& name) {
  return array_slot(v, name, v.defaults);
}

// --- picks --------------------------------------------------------------------

// The lesson the window opens with.
inline const LessonInfo& default_lesson() {
  return ::ts::default_lesson();
}
// The slot of the default lesson's array `name` ("A", "tileA"): the hand-built
// traces and events of the tests are the default lesson's.
inline ArraySlot default_lesson_slot(const std::string& name) {
  return array_slot(default_lesson(), name);
}

// Step `step` (1-based) of the default lesson's optimisation ladder.
inline const LessonInfo& ladder_step(int step) {
  const char* ladder = default_lesson().ladder;
  return first_with(
      "step " + std::to_string(step) + " of the default lesson's ladder", [&](const LessonInfo& v) {
        return ladder && v.ladder && std::string(v.ladder) == ladder && v.ladder_step == step;
      });
}

// The first lesson of the default lesson's family with the property.
inline const LessonInfo& first_of_default_family(const std::string& what, const Property& has) {
  return first_with("in the default lesson's family and " + what, [&](const LessonInfo& v) {
    return same_family(v, default_lesson()) && has(v);
  });
}

// The first lesson of the family of `like` with the property.
inline const LessonInfo& first_in_family_of(const LessonInfo& like, const std::string& what,
                                            const Property& has) {
  return first_with("in the family of " + std::string(like.id) + " and " + what,
                    [&](const LessonInfo& v) { return same_family(v, like) && has(v); });
}

// --- the lessons the tests keep coming back to, by what they are --------------

// The only parameter is n: one block of n x n threads, whatever n is.
inline const LessonInfo& one_block_lesson() {
  return first_with("read n alone (one block of n x n threads)",
                    [](const LessonInfo& v) { return v.uses == kUsesN; });
}
// Rectangular matrices (m, k and n) with a tile.
inline const LessonInfo& rectangular_tiled_lesson() {
  return first_with("reading m, k, n and a tile", [](const LessonInfo& v) {
    return reads(v, kUsesM | kUsesK | kUsesN | kUsesTile);
  });
}
// Reads and writes past its arrays by design (sizes not a multiple of the tile).
inline const LessonInfo& overreaching_lesson() {
  return first_with("reaching past its arrays by design", reaches_past_its_arrays);
}
// The default family's lesson that stages `count` arrays (rows of A; and
// columns of B) in dynamic shared memory, sized by n.
inline const LessonInfo& dynamic_staging_lesson(int count) {
  return first_of_default_family(
      "staging " + std::to_string(count) + " arrays in dynamic shared memory",
      [&](const LessonInfo& v) { return has_dynamic_shared(v) && shared_array_count(v) == count; });
}

// Where a 1D lesson with a radius (a halo) keeps its neighbours.
enum class Halo { Global, StaticShared, DynamicShared };
inline const LessonInfo& halo_lesson(Halo kind) {
  const char* what[] = {"a 1D lesson with a radius and no shared array",
                        "a 1D lesson with a radius and a fixed-size shared array",
                        "a 1D lesson with a radius and a dynamic shared array"};
  return first_with(what[int(kind)], [&](const LessonInfo& v) {
    if (!reads(v, kUsesLength | kUsesRadius)) return false;
    if (kind == Halo::Global) return !has_shared_arrays(v);
    return has_shared_arrays(v) && has_dynamic_shared(v) == (kind == Halo::DynamicShared);
  });
}

// The first m x n lesson with a shared-memory layout toggle (plain, padded,
// ...): its plain member, the first of its group.
inline const LessonInfo& layout_lesson() {
  return first_with("an m x n lesson with a layout group", [](const LessonInfo& v) {
    return v.layout_group && reads(v, kUsesM | kUsesN);
  });
}
inline bool in_layout_group_of(const LessonInfo& v, const LessonInfo& plain) {
  return v.layout_group && &v != &plain && std::string(v.layout_group) == plain.layout_group;
}
// A sibling of layout_lesson() whose shared array is wider than it is tall
// (a padding column) or as square as the plain one (the swizzled index).
inline const LessonInfo& padded_layout_lesson() {
  const LessonInfo& plain = layout_lesson();
  return first_with("a padded sibling of " + std::string(plain.id), [&](const LessonInfo& v) {
    if (!in_layout_group_of(v, plain)) return false;
    for (const ArrayInfo& a : arrays(v, v.defaults))
      if (a.shared() && a.cols > a.rows) return true;
    return false;
  });
}
inline const LessonInfo& swizzled_layout_lesson() {
  const LessonInfo& plain = layout_lesson();
  return first_with("an unpadded sibling of " + std::string(plain.id), [&](const LessonInfo& v) {
    return in_layout_group_of(v, plain) && arrays(v, v.defaults) == arrays(plain, plain.defaults);
  });
}
// The layout lesson's family without shared memory: the naive version.
inline const LessonInfo& layout_family_naive_lesson() {
  return first_in_family_of(layout_lesson(), "without shared arrays",
                            [](const LessonInfo& v) { return !has_shared_arrays(v); });
}

// Atomics: global ones only, one per element read (a histogram's count; not
// a reduction's one atomicAdd per block), or shared ones.
inline const LessonInfo& global_atomics_lesson() {
  return first_with(
      "with a global atomic per element and no shared atomics", [](const LessonInfo& v) {
        const ExpectedCounts c = default_counts(v);
        return c.global_atomics > 0 && c.global_atomics == c.global_loads && !has_shared_atomics(v);
      });
}
inline const LessonInfo& shared_atomics_lesson() {
  return first_with("with shared atomics", has_shared_atomics);
}
inline const LessonInfo& warp_shuffle_lesson() {
  return first_with("with warp shuffles", has_warp_shuffles);
}
// A constant-memory array (a filter), with or without a shared tile.
inline const LessonInfo& constant_memory_lesson(bool shared_tile) {
  return first_with(shared_tile ? "with a constant-memory array and a shared tile"
                                : "with a constant-memory array and no shared array",
                    [&](const LessonInfo& v) {
                      return has_constant_memory(v) && has_shared_arrays(v) == shared_tile;
                    });
}

// --- the reduction family: Harris's steps, in menu order ---------------------

// The family of the first lesson with warp shuffles (the reduction), in menu
// order: its steps run from the interleaved tree to the shuffled last warp.
inline std::vector<const LessonInfo*> reduction_steps() {
  const LessonInfo& shuffled = warp_shuffle_lesson();
  return all_with([&](const LessonInfo& v) { return same_family(v, shuffled); });
}
// Step `step` (1-based) of reduction_steps(): 1 interleaved with a divergent
// branch, 2 interleaved with a strided index, 3 sequential, 4 first add.
inline const LessonInfo& reduction_step(int step) {
  const std::vector<const LessonInfo*> steps = reduction_steps();
  if (step < 1 || step > int(steps.size()))
    throw std::runtime_error("no lesson is step " + std::to_string(step) +
                             " of the reduction family: the test needs one");
  return *steps[size_t(step - 1)];
}
// The lesson whose race is the lesson (an unrolled last warp without __syncwarp).
inline const LessonInfo& racy_by_design_lesson() {
  return first_with("racy by design", [](const LessonInfo& v) { return v.tests.racy_by_design; });
}
// The first lesson with a __syncwarp (a warp-scope barrier).
inline const LessonInfo& warp_barrier_lesson() {
  return first_with("with a warp barrier (__syncwarp)", has_warp_barrier);
}

}  // namespace ts::picks
