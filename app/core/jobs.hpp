// The window's background work: a lesson run or a trace file loaded on a
// thread of its own (AppState::job), and what a finished one puts on screen.
#pragma once

#include <memory>
#include <string>

#include "app/core/app_state.hpp"
#include "app/core/budget_dialog.hpp"

namespace ts::app {

// The work itself, on any thread: everything it finds goes into the output.
// `lesson_file`: the lesson is that file's; the run is checked in a child first
// (app/core/lesson_check.hpp), and a crash there is the output's failure.
std::unique_ptr<JobOutput> run_job(RunRequest req, std::string lesson_file = "");
std::unique_ptr<JobOutput> load_job(std::string path);

// Starts the lesson of s.request, unless it is invalid, a job is running or the
// budget refuses it (the banner or the budget dialog says why). `held`: bytes
// another trace keeps in the window meanwhile (compare mode's A).
void start_run(AppState& s, BudgetDialog& budget, bool scripted, uint64_t held = 0);
// A trace file; a performance report goes to the Performance panel instead.
void start_load(AppState& s, BudgetDialog& budget, const std::string& path, bool scripted);
// Installs the job's output once it is ready (wait: block until it is).
void poll_job(AppState& s, bool wait);
// The output on screen: the new trace and replay, or a banner with the error
// (the last good result stays).
void install(AppState& s, std::unique_ptr<JobOutput> out);

// Lesson files in the window (AppState::lesson_watch): File > Open lesson...
// asks for one; watch_lesson_file() takes the one the command line loaded.
// update_lesson_watch(), every frame: a save (the file's time or size) is
// compiled in a child process, loaded from the cache, and the lesson run again;
// the replay comes back to its phase and step (restore_position, from install()).
// A compiler error or a crash leaves the last good run on screen.
inline constexpr size_t kRecentLessonFiles = 8;
void open_lesson_file(AppState& s, const std::string& path);
// A header (.hpp, .h, .cuh): what File > Open and a drop open as a lesson file.
bool is_lesson_file_path(const std::string& path);
void watch_lesson_file(AppState& s, const std::string& path);
void remember_lesson_file(AppState& s, const std::string& path);
void update_lesson_watch(AppState& s, BudgetDialog& budget, bool scripted, double now);
void restore_position(AppState& s);

// A lesson file's failure on screen: the Source panel in front (and in view),
// the banner. The last good run stays.
void show_lesson_file_failure(AppState& s, const LessonFile& f);
// What the banner says while a lesson file's failure stands (AppState::lesson_file_failure).
std::string lesson_file_banner(const LessonFile& f);
// Its error with the file named by its name, not its whole path (a temporary
// folder would fill the banner).
std::string lesson_file_error(const LessonFile& f);

// "matmul.tiled_square_n10_tile4.tstrace", "..._without-barrier-2.tstrace": a
// name that says what the trace holds, so that saved traces do not collide.
std::string suggested_trace_name(const Trace& t);

}  // namespace ts::app
