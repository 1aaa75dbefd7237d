// A lesson file checked in the lesson child (app/core/lesson_check.hpp).
#include "app/core/lesson_check.hpp"

#include <filesystem>

namespace ts::app {

LessonCheck lesson_check_of(const std::string& path, const LessonChildResult& c) {
  LessonCheck out;
  out.file = c.file;
  out.seconds = c.seconds;
  if (c.failure.empty()) {
    if (!c.runs.empty() && !c.runs.front().ok) out.run_error = c.runs.front().error;
    return out;
  }
  out.crashed = true;
  std::error_code ec;
  out.file.ok = false;
  out.file.path = std::filesystem::absolute(path, ec).lexically_normal().string();
  out.file.error = out.file.path + ": " + c.failure;
  if (c.failure_line > 0)  // the Source panel marks the line
    out.file.diagnostics.push_back(
        {out.file.path, c.failure_line, 0, "error", "the lesson's code ended after this line"});
  return out;
}

LessonCheck check_lesson_file_in_child(const std::string& path, const RunRequest* req) {
  std::vector<RunRequest> requests;
  if (req) requests.push_back(*req);
  return lesson_check_of(path, run_lesson_file_in_child(path, requests));
}

}  // namespace ts::app
