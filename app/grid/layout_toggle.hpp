// The padding / swizzle toggle: lessons that share a layout_group
// (lessons/lesson.hpp) are one kernel with different shared-memory layouts; a
// segmented control in the grid's toggle row lists them by layout_label and
// re-runs at once with the same parameters and barriers. Found through the
// registry, so no lesson is named here.
#pragma once

#include <string>
#include <vector>

#include "app/core/app_state.hpp"

namespace ts::app {

// The lessons of v's layout group, in catalogue order; empty without a group.
std::vector<const LessonInfo*> layout_siblings(const LessonInfo& v);
// The sibling of v labelled `label`, else nullptr.
const LessonInfo* layout_named(const LessonInfo& v, const std::string& label);
// Runs `to` with the request's parameters and barriers (as the toggle does).
void choose_layout(AppState& s, const LessonInfo& to);
// The segmented control ("layout: plain [32][32] | padded [32][33]"); nothing
// for a lesson without a group. Its options go to s.plot_marks (plot "layout").
void layout_toggle(AppState& s);

}  // namespace ts::app
