// One compiler run, as hostile input may make it behave: it can hang (an
// #include of a FIFO, a compiler that never returns), print without end (a
// template bomb's diagnostics, #include </dev/zero>) or fill the disk. The
// compiler runs in a process group of its own, under limits, its output read
// from a pipe up to a cap, and the whole group is killed at the deadline, so
// no cc1plus is left behind.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/child_process.hpp"
#include "engine/lesson_file_compile.hpp"

namespace ts::lesson_file_detail {
namespace {

using Clock = std::chrono::steady_clock;

// A positive number from the environment, or `fallback`; `problem` says why
// a value set there is refused.
double env_number(const char* name, double fallback, double most, std::string& problem) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end || !std::isfinite(x) || x <= 0 || x > most) {
    problem =
        std::string(name) + "=" + v + " is not a number above 0 and at most " + seconds_text(most);
    return fallback;
  }
  return x;
}

}  // namespace

CompileLimits compile_limits(std::string& problem) {
  CompileLimits l;
  l.seconds = env_number("TILESCOPE_COMPILE_SECONDS", l.seconds, 86400, problem);
  l.memory_bytes = uint64_t(env_number("TILESCOPE_COMPILE_MEMORY_MB", double(l.memory_bytes >> 20),
                                       1 << 24, problem))
                   << 20;
  return l;
}

CompilerRun run_compiler(const std::vector<std::string>& argv, const CompileLimits& limits,
                         Clock::time_point deadline) {
  CompilerRun r;
  const std::string name = argv[0].substr(argv[0].rfind('/') + 1);
  // The environment with the C locale: the messages are parsed.
  std::vector<std::string> env;
  for (std::string& e : current_environment())
    if (e.rfind("LC_", 0) != 0 && e.rfind("LANG", 0) != 0) env.push_back(std::move(e));
  env.emplace_back("LC_ALL=C");
  ChildLimits child;
  child.seconds = std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count());
  child.memory_bytes = limits.memory_bytes;
  child.file_bytes = limits.file_bytes;
  child.output_bytes = limits.output_bytes;
  const ChildRun run = run_child(argv, env, child);
  r.output = run.output;
  r.dropped_bytes = run.dropped_bytes;
  if (!run.started) {
    r.error = run.error;
    return r;
  }
  if (run.timed_out) {
    r.timed_out = true;
    r.error = "the compiler (" + name + ") did not finish within " + seconds_text(limits.seconds) +
              " s, the compile time limit (TILESCOPE_COMPILE_SECONDS sets it): it was stopped, "
              "with every process it started";
    return r;
  }
  r.exit_code = run.exit_code;
  if (run.signal) r.error = name + " was stopped by signal " + signal_text(run.signal);
  return r;
}

}  // namespace ts::lesson_file_detail
