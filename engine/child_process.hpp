// A program run as hostile input may make it behave: it can hang, print
// without end, fill the disk or take all memory. The compiler of a lesson
// file (engine/compiler_run.cpp) and the lesson file's own code (the lesson
// child, engine/lesson_child.hpp) both run through here: a process group of
// their own, under limits, their output read from pipes up to a cap, and the
// whole group killed at the deadline, so nothing is left behind.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ts {

struct ChildLimits {
  double seconds = 60;        // wall clock, from the start; the group is killed at it
  uint64_t memory_bytes = 0;  // address space (RLIMIT_AS; 0: none)
  // Heap and private writable mappings (RLIMIT_DATA; 0: none): unlike the
  // address space, it leaves out CUDA's reservations (PROT_NONE), so a
  // child that may initialise CUDA can still be held to it.
  uint64_t data_bytes = 0;
  uint64_t file_bytes = 1u << 30;  // the largest file it may write (RLIMIT_FSIZE)
  uint64_t cpu_seconds = 0;        // processor time (RLIMIT_CPU; 0: none)
  size_t output_bytes = 1u << 20;  // stdout and stderr together: kept, the rest counted
  // A pipe on the child's descriptor 3 for what it reports (0: no such pipe),
  // kept up to this many bytes; a child that writes more is stopped.
  uint64_t report_bytes = 0;
};

struct ChildRun {
  bool started = false;
  std::string error;             // why it did not start
  int exit_code = -1;            // when it exited
  int signal = 0;                // when a signal ended it (SIGKILL at the deadline too)
  bool timed_out = false;        // stopped at the deadline, with its process group
  bool report_overflow = false;  // stopped: it reported more than report_bytes
  std::string output;            // stdout and stderr, at most output_bytes
  uint64_t dropped_bytes = 0;    // what it printed beyond that
  std::string report;            // what it wrote to descriptor 3
  double seconds = 0;
};

// Runs argv (argv[0] a path) with `env` in a process group of its own under
// `limits`: stdin /dev/null, no core files, killed with TileScope
// (PR_SET_PDEATHSIG). Never throws.
ChildRun run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   const ChildLimits& limits);

// This process's environment, as "NAME=value" strings.
std::vector<std::string> current_environment();
// The path of this program (/proc/self/exe), "" when it cannot be read.
std::string this_program();
// "SIGSEGV (Segmentation fault)".
std::string signal_text(int sig);
// A time limit as the messages say it: "4", "0.5", "60".
std::string seconds_text(double s);

}  // namespace ts
