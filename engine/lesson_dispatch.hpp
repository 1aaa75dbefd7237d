// From a lesson's catalogue index and its parameters to the kernel body, at
// compile time. Both backends use it: the CUDA backend wraps `Body::run` in a
// __global__ function, the simulator calls it on every fiber.
//
//   visit_lesson(run.index, params, [&](auto body) {
//     using Body = decltype(body);
//     Body::run(rec, args);        // or launch<Body><<<...>>>(rec, args)
//   });
//
// The table is generated from AllLessons (lessons/CMakeLists.txt), in the
// order of all_lessons(): entry i visits the i-th lesson. One table per visitor
// type, built at compile time; a call is one indexed jump, not a string compare.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "lessons/all_lessons.hpp"  // generated from lessons/CMakeLists.txt

namespace ts {

namespace detail {
template <class Lesson, class F>
bool visit_one(const Params& p, F& f) {
  return Lesson::visit(p, f);
}

template <class F, class... L>
constexpr auto dispatch_table(LessonList<L...>) {
  using Entry = bool (*)(const Params&, F&);
  return std::array<Entry, sizeof...(L)>{&visit_one<L, F>...};
}

template <class... L>
constexpr size_t lesson_count(LessonList<L...>) {
  return sizeof...(L);
}
}  // namespace detail

// How many lessons the table holds: all_lessons().size().
inline constexpr size_t kLessonCount = detail::lesson_count(AllLessons{});

// False when the index is out of range or the parameters select no compiled
// body (a tile width that is not one of kTileWidths).
template <class F>
bool visit_lesson(size_t lesson_index, const Params& p, F&& f) {
  using Visitor = std::remove_reference_t<F>;
  static constexpr auto table = detail::dispatch_table<Visitor>(AllLessons{});
  return lesson_index < table.size() && table[lesson_index](p, f);
}

}  // namespace ts
