// A lesson file checked before the window loads it: compiled, loaded, its
// descriptor asked and, when given, the request the window is about to run
// run, all in the lesson child (engine/lesson_child.hpp). A plug-in that
// crashes, exits or never returns takes the child down, not the window, and
// the check says where (the phase, and in the kernel the simulated thread and
// its last line). The window then loads the plug-in the child left in the
// cache (engine/lesson_file.hpp, cached_only) in milliseconds.
#pragma once

#include <string>

#include "engine/backend.hpp"
#include "engine/lesson_child.hpp"
#include "engine/lesson_file.hpp"

namespace ts::app {

struct LessonCheck {
  LessonFile file;        // ok, or the failure (diagnostics, or where it crashed)
  bool crashed = false;   // the child died, exited early or was stopped after the time limit
  std::string run_error;  // the checked run's error (file.ok): the window's run says it too
  double seconds = 0;     // the whole check, compile included
};

// Runs the check in the lesson child; `req` (its lesson id ignored: the
// file's) is run there too when given.
LessonCheck check_lesson_file_in_child(const std::string& path, const RunRequest* req);

// The check's result as the window shows a failure: the file failed, with
// the line it happened after marked for the Source panel.
LessonCheck lesson_check_of(const std::string& path, const LessonChildResult& c);

}  // namespace ts::app
