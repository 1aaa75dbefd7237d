// The grader's rules that live in more than one file (analysis/puzzle.cpp,
// analysis/puzzle_gpu.cpp). Internal to the grader: analysis/puzzle.hpp is
// what the command line and the window call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/puzzle.hpp"
#include "engine/backend.hpp"
#include "lessons/lesson.hpp"

namespace ts::puzzle_rules {

// The output rule at one size: nullopt when right. `params` names the size
// ("length=37"), `schedule` the simulator's schedule it ran in.
std::optional<RuleResult> output_problem(const LessonSpec& theirs, const RunResult& r,
                                         const std::string& params, ScheduleKind schedule);

// One hidden size on the GPU, beside the simulator's lockstep run of it.
struct GpuRun {
  const RunResult* gpu = nullptr;
  const RunResult* sim = nullptr;
  std::string at;  // "length=37"
};

// The rule "gpu": at every size the GPU ran, its output is right and each
// thread's accesses, shuffles and barriers are the simulator's. Not checked
// while the simulator's output is wrong (that rule says why).
RuleResult gpu_rule(const LessonSpec& theirs, const std::vector<GpuRun>& runs, bool output_right);

}  // namespace ts::puzzle_rules
