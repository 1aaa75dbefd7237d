// The plug-in interface: what a lesson file, compiled at run time
// (engine/lesson_file.hpp), hands TileScope. The plug-in is the lesson header
// plus a few generated lines that include this file and export one C entry
// point, filled by make_lesson_plugin<Entry>() from the same Entry shape the
// built-in registry generates (lessons/generate_registry.cmake): the
// descriptor, and for the simulator the kernel body its parameters select,
// instantiated with the simulator's recorder inside the plug-in.
//
// The plug-in is compiled with the compiler and flags TileScope was built with
// and resolves what it does not define (the recorder's out-of-line parts, the
// lesson kits, the thread built-ins) against the program that loads it, which
// exports its symbols (ENABLE_EXPORTS). Its own symbols stay hidden, so that a
// kernel edited under a built-in lesson's names runs the edited code.
#pragma once

#include <cstddef>

#include "engine/sim/simulate.hpp"
#include "lessons/lesson.hpp"

// The entry point's name: `extern "C" void tilescope_lesson_plugin_v1(ts::LessonPlugin*)`.
#define TS_LESSON_PLUGIN_ENTRY tilescope_lesson_plugin_v1
#define TS_LESSON_PLUGIN_ENTRY_NAME "tilescope_lesson_plugin_v1"

namespace ts {

// Raised whenever LessonPlugin or what it points at changes shape.
inline constexpr int kLessonPluginAbi = 1;

struct LessonPlugin {
  int abi = 0;
  LessonSpec (*descriptor)() = nullptr;
  // The simulated thread for these parameters (nullptr: they select no compiled body).
  sim::ThreadFn (*sim_body)(const Params&) = nullptr;
};

// The plug-in's side: Entry has descriptor() and visit(p, f), as the generated
// registry's entries do.
template <class Entry>
sim::ThreadFn lesson_plugin_sim_body(const Params& p) {
  sim::ThreadFn fn = nullptr;
  Entry::visit(p, [&](auto body) { fn = &sim::run_body<decltype(body)>; });
  return fn;
}
template <class Entry>
LessonPlugin make_lesson_plugin() {
  return {kLessonPluginAbi, &Entry::descriptor, &lesson_plugin_sim_body<Entry>};
}

// TileScope's side (engine/sim/sim_backend.cpp): the simulator's bodies of the
// lessons plug-ins added, by catalogue index. set_ replaces the lesson's body
// (a file compiled again); runtime_sim_body gives the body for these
// parameters (nullptr: not a plug-in's lesson, or no body for them).
void set_runtime_sim_body(size_t lesson_index, sim::ThreadFn (*body)(const Params&));
sim::ThreadFn runtime_sim_body(size_t lesson_index, const Params& p);

}  // namespace ts
