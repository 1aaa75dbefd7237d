// A lesson file's code runs in a child process, never in the program that
// grades or draws it. A lesson file is native code written by a student: its
// kernel may call exit(), fault, loop for ever or allocate without end, and a
// static constructor may print a forged PASS. So every run of a lesson file
// (engine/backend.hpp's run() sends it here), the window's check of a file
// and every run of the puzzle grader happen in this program started again
// with kLessonChildFlag, under limits (engine/child_process.hpp). The child
// loads the plug-in, runs the requests and reports each result (the trace,
// engine/run_wire.hpp) through a pipe; the parent decides from what it
// received, never from the child's exit status or its printed text. A child
// that exits, aborts, faults, overruns a limit or never returns is a named
// failure ("the kernel called exit(0): thread (3, 0, 0) of block (1, 0, 0),
// after line 17") and the parent goes on.
//
// Why a new process and not fork(): the window has threads (jobs, the GL
// driver's), and a fork of a threaded process may only call
// async-signal-safe functions before exec; the child needs the allocator and
// the dynamic loader. The same program keeps the plug-in cache's key (it
// hashes the program) and the symbols the plug-in resolves against.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/lesson_file.hpp"

namespace ts {

// The first argument that makes main() the lesson child (both programs).
inline constexpr const char* kLessonChildFlag = "--ts-lesson-child";

struct LessonChildResult {
  LessonFile file;  // the child's load of the file (ok, the compiler's messages, where it failed)
  // One per request, in order. A run the child did not finish is not ok and
  // its error says why (the failure below); the runs after it say "not run".
  std::vector<RunResult> runs;
  std::string failure;   // empty when the child answered every request; else what ended it
  int failure_line = 0;  // the lesson file's line it happened after, when known
  bool crashed = false;  // a signal, a limit or the deadline ended it
  bool exited = false;   // the lesson's code ended the process itself (exit, _exit)
  std::string output;    // what the child printed (the kernel's printf), at most 64 KiB
  double seconds = 0;
};

// Loads `path` in a child and runs `requests` there (their lesson ids are
// ignored: the file's). With no requests, only loads it: compiles (where
// the cache has no plug-in), opens it, asks its descriptor.
struct LessonChildOptions {
  // The runs after one that is not ok are not run (a grader needs no more,
  // and an endless loop costs seconds a run).
  bool stop_at_failure = false;
  // This program compiled the file already: the child only loads it from the
  // cache, and its time limit is the run's alone (no compile in it).
  bool compiled = false;
};
LessonChildResult run_lesson_file_in_child(const std::string& path,
                                           const std::vector<RunRequest>& requests,
                                           const LessonChildOptions& options = {});

// Compiles `paths` into the plug-in cache side by side, each in a lesson
// child of its own, at most `jobs` at once (0: one per core). A plug-in with
// its GPU half takes nvcc about 10 s: a course's grader with a class's files,
// or a test with 32 of them, would wait for one core while the others idle.
// The loads that follow find them in the cache (the same program, the same
// key). Best effort: a file that fails here fails again, with its message,
// where it is loaded.
void compile_side_by_side(const std::vector<std::string>& paths, unsigned jobs = 0);

// True in the child: its runs are its own, not sent to another child.
bool in_lesson_child();

// The child's side: argv[0] is kLessonChildFlag, then PATH and the requests.
// Reports on descriptor 3; returns the exit code.
int lesson_child_main(int argc, char** argv);

// The request in one command-line word ("m=..;k=..;...") and back: exact.
std::string encode_request(const RunRequest& r);
std::optional<RunRequest> decode_request(const std::string& text);

// The run time limit of a lesson file's child: TILESCOPE_RUN_SECONDS, else
// 60 s (a grade's every run together); `problem` says why a value is refused.
double lesson_run_seconds(std::string* problem = nullptr);

}  // namespace ts
