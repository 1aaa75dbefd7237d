// From a lesson id and its parameters to the kernel body, at compile time.
// Both backends use it: the CUDA backend wraps `Body::run` in a __global__
// function, the simulator calls it on every fiber.
//
//   visit_lesson(variant.id, params, [&](auto body) {
//     using Body = decltype(body);
//     Body::run(rec, args);        // or launch<Body><<<...>>>(rec, args)
//   });
#pragma once

#include <string_view>

#include "lessons/all_lessons.hpp"  // generated from lessons/CMakeLists.txt

namespace ts {

namespace detail {
template <class F, class... L>
bool visit_one_of(LessonList<L...>, std::string_view id, const Params& p, F& f) {
  bool found = false, ran = false;
  ((!found && id == L::id ? (found = true, ran = L::visit(p, f)) : false), ...);
  return ran;
}
}  // namespace detail

// False when the id is unknown or the parameters select no compiled body
// (a tile width that is not one of kTileWidths).
template <class F>
bool visit_lesson(std::string_view id, const Params& p, F&& f) {
  return detail::visit_one_of(AllLessons{}, id, p, f);
}

}  // namespace ts
