// A lesson file checked in a child process before the window loads it: the
// child (this program again, `tilescope --check-lesson-file ...`) compiles the
// file into the plug-in cache, loads the plug-in, asks its descriptor and runs
// the request the window is about to run. A plug-in that crashes (a null
// dereference in its descriptor, a segfault in kernel code on the simulator)
// or never returns (a host-side endless loop) takes the child down, not the
// window; the child's signal handler says where (the phase, and in the kernel
// the simulated thread and its last line). The window then loads the plug-in
// the child left in the cache (engine/lesson_file.hpp, cached_only) in
// milliseconds and runs it in process, as any lesson.
//
// Why a child process and not fork(): the window has threads (jobs, the GL
// driver's), and a fork of a threaded process may only call async-signal-safe
// functions before exec; the compile and the run need the allocator and the
// dynamic loader. Exec'ing the same program keeps the cache key (it hashes the
// program) and the symbols the plug-in resolves against.
#pragma once

#include <optional>
#include <string>

#include "engine/backend.hpp"
#include "engine/lesson_file.hpp"

namespace ts::app {

struct LessonCheck {
  LessonFile file;        // ok, or the failure (diagnostics, or where it crashed)
  bool crashed = false;   // the child died of a signal or was stopped after the time limit
  std::string run_error;  // the checked run's error (file.ok): the window's run says it too
  double seconds = 0;     // the whole check, compile included
};

// The first argument that makes main() the checking child.
inline constexpr const char* kCheckLessonFileFlag = "--check-lesson-file";

// Runs the check in a child; `req` (its lesson id ignored: the file's) is run
// there too when given. `timeout_s`: a child still busy then is killed.
LessonCheck check_lesson_file_in_child(const std::string& path, const RunRequest* req,
                                       double timeout_s = 120);

// The child's side: `--check-lesson-file PATH [REQUEST]`; prints one JSON
// object on stdout. Returns the exit code.
int lesson_check_child_main(int argc, char** argv);

// The request in one command-line word ("m=..;k=..;...") and back: exact, for the child.
std::string encode_request(const RunRequest& r);
std::optional<RunRequest> decode_request(const std::string& text);

}  // namespace ts::app
