// Lessons added while the program runs: lesson files compiled into plug-ins
// (engine/lesson_file.hpp). They join all_lessons() after the built-in ones,
// under the family "file" ("Lesson files"), and pass the registry's checks
// (title, summary, parameters, one BarrierInfo per barrier statement of the
// text); where the built-in registry aborts, a lesson file gets the problems
// back as a message.
//
// Registered lessons are never removed: the registry hands out pointers into
// its table (find_lesson, all_lessons), so the table is reserved once for
// kMaxRuntimeLessons more and never moves. Adding is not meant to race a run
// on another thread: the command line adds before it runs, the window between
// runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "lessons/lesson.hpp"

namespace ts {

inline constexpr size_t kMaxRuntimeLessons = 64;
// The family of every lesson file: ids "file.<name>".
inline constexpr const char* kLessonFileFamily = "file";

// What the registry reads from a lesson file besides its descriptor.
struct RuntimeLessonText {
  std::string id;           // "file.my_scan"
  std::string source_file;  // the absolute path: the Source panel's title
  std::string source;       // the header's text (barrier lines, the kernel's name)
  std::string narration;    // JSON, as lessons/narration/*.json
};

// Adds the lesson, or replaces the one with the same id (a file compiled
// again after an edit keeps its place). nullopt and `index` set (its place in
// all_lessons()), or what is wrong with it, one problem a line.
std::optional<std::string> add_runtime_lesson(const LessonSpec& spec, const RuntimeLessonText& text,
                                              size_t* index);
// How many lessons were compiled into this program (the first ones of all_lessons()).
size_t built_in_lesson_count();
// A lesson a plug-in added (its index is past the built-in ones).
inline bool is_runtime_lesson(size_t index) {
  return index >= built_in_lesson_count();
}

}  // namespace ts
