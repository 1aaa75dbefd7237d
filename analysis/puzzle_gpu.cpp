// The grader's rule "gpu" (`tilescope-cli check --backend cuda`): the
// solution on the real GPU at every hidden size, its output checked as the
// simulator's is, and each thread's events compared with the simulator's
// lockstep run of the same size. The simulator's schedules prove the hazards;
// this proves the kernel the student will run on their own card is the one
// that was graded.
#include <string>

#include "analysis/puzzle_rules.hpp"
#include "analysis/trace_compare.hpp"

namespace ts::puzzle_rules {

RuleResult gpu_rule(const LessonSpec& theirs, const std::vector<GpuRun>& runs, bool output_right) {
  RuleResult r;
  r.rule = "gpu";
  if (!output_right) {
    r.reason = "not compared until the output is right on the simulator";
    return r;
  }
  std::string device, sizes;
  size_t compared = 0;
  for (const GpuRun& run : runs) {
    if (run.gpu->error.rfind("not run", 0) == 0 || !run.sim->ok) continue;  // a failure before
    if (!run.gpu->ok) {
      r.status = RuleStatus::Fail;
      r.at = run.at;
      r.reason = "at " + run.at + " on the GPU the run stopped: " + run.gpu->error;
      return r;
    }
    if (auto problem = output_problem(theirs, *run.gpu, run.at, ScheduleKind::Lockstep)) {
      r = *problem;
      r.rule = "gpu";
      r.reason = "on the GPU: " + r.reason;
      return r;
    }
    if (auto d =
            first_thread_difference(run.gpu->trace, run.sim->trace, "the GPU", "the simulator")) {
      r.status = RuleStatus::Fail;
      r.at = run.at;
      r.reason = "at " + run.at + " the GPU and the simulator ran different accesses: " + *d;
      return r;
    }
    if (device.empty()) device = run.gpu->trace.config.device_name;
    sizes += (sizes.empty() ? "" : ", ") + run.at;
    ++compared;
  }
  if (!compared) {
    r.status = RuleStatus::NotChecked;
    r.reason = "not run on the GPU: the simulator's runs did not finish (see output)";
    return r;
  }
  r.status = RuleStatus::Pass;
  r.reason = "on " + (device.empty() ? std::string("the GPU") : device) +
             ": right output and, thread by thread, the simulator's accesses at " +
             std::to_string(compared) + " sizes (" + sizes + ")";
  return r;
}

}  // namespace ts::puzzle_rules
