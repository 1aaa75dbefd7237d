// TileScope: the window. Interactive by default; with --screenshot, --frames
// or --exit it renders the real window from command-line settings and exits
// (the screenshot test and the README's pictures use that).
//
//   tilescope                                   the default lesson
//   tilescope trace.tstrace                     replay a trace recorded elsewhere
//   tilescope --lesson-file my_scan.hpp         a lesson of your own (engine/lesson_file.hpp)
//   tilescope --lesson matmul.tiled_square --n 10 --tile 4 --position barrier:1
//             --screenshot out.png --size 1600x900 --exit
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "app/compare/compare_mode.hpp"
#include "app/core/jobs.hpp"
#include "app/core/lesson_check.hpp"
#include "app/export/export.hpp"
#include "app/shell/app.hpp"
#include "app/shell/fonts_themes.hpp"
#include "app/shell/window_args.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_options.hpp"
#include "io/lecture_file.hpp"
#include "io/output_file.hpp"
#include "tilescope_version.hpp"  // generated: cmake/packaging.cmake

namespace {

// Files dropped on the window: the first trace file is opened.
ts::app::App* g_app_for_drop =
    nullptr;  // set while the window lives; GLFW callbacks take no user data here
void on_drop(GLFWwindow*, int count, const char** paths) {
  if (g_app_for_drop && count > 0) g_app_for_drop->state().open_trace_request = paths[0];
}
void on_glfw_error(int code, const char* what) {
  std::fprintf(stderr, "tilescope: GLFW error %d: %s\n", code, what);
}

// The command line's words that are not options of ts::app::Options itself.
struct CommandLine {
  CLI::App cli{"TileScope: CUDA shared memory, made visible"};
  std::string size = "1600x900";
  // The lesson options are the command line's own (engine/lesson_options.hpp):
  // the same names, ranges, checks and messages.
  ts::LessonOptions lesson;
  std::string quiz_seed;
  CLI::Option* quiz = nullptr;
  std::string compare;
  CLI::Option* compare_opt = nullptr;
};

// A whole number of int's range, for the options whose range the launch
// gives (window_args.cpp checks them against it, naming its numbers).
CLI::Validator launch_index(const std::string& range) {
  return CLI::Validator(
      [range](std::string& s) -> std::string {
        int v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || r.ptr != s.data() + s.size() ||
            (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
          return "'" + s + "' is not a whole number: give one " + range;
        if (r.ec == std::errc::result_out_of_range)
          return s + " is out of range: give a whole number " + range;
        return {};
      },
      "INT");
}

// Every option of the window, as --help lists them.
void add_window_options(CommandLine& line, ts::app::Options& opt) {
  CLI::App& cli = line.cli;
  std::string& size = line.size;
  // Answered while parsing, before GLFW: no display needed.
  cli.set_version_flag("--version", std::string("tilescope ") + ts::build_info::kVersionLine,
                       "Print the version and exit");
  cli.add_option("trace", opt.trace_file,
                 "a .tstrace file to replay (recorded anywhere), or a lesson file (.hpp) to open "
                 "as File > Open lesson file does");
  ts::LessonOptions& lesson = line.lesson;
  lesson.default_lesson = ts::default_lesson().id;
  // The window's simulator lets the odd warps fall behind by default, so that
  // unticking a barrier shows the race at once (the CLI keeps lockstep).
  lesson.schedule = "skew";
  lesson.add_to(cli, ts::LessonOptions::Naming::LessonFlag);
  cli.add_option("--order", opt.order, "replay order: lockstep or recorded")
      ->check(CLI::IsMember({"lockstep", "recorded"}));
  cli.add_option("--position", opt.position,
                 "event index, start, end, phase:N, barrier:N, access:N (the N-th warp access "
                 "complete) or stale (the first stale read)");
  cli.add_option("--select-block", opt.select_block, "the block whose shared memory is shown")
      ->check(launch_index("from 0 to the launch's last block"));
  cli.add_option("--select-thread", opt.select_thread,
                 "scripted: follow this thread of that block (x + y * block width): its register "
                 "and warp tiles are outlined")
      ->check(launch_index("from 0 to the block's last thread"));
  cli.add_option("--tab", opt.tab, "bring this panel to the front of its column, e.g. Memory");
  cli.add_option("--screenshot", opt.screenshot, "write a PNG of the window");
  cli.add_option("--cells-json", opt.cells_json,
                 "write where each array's cells are (with --screenshot)");
  cli.add_option("--size", size, "window size WIDTHxHEIGHT");
  cli.add_flag("--exit", opt.exit_after, "exit after the screenshot (scripted mode)");
  cli.add_flag("--force", opt.force,
               "let --screenshot, --cells-json and --record replace files that exist");
  cli.add_option("--frames", opt.frames,
                 "render N frames while playing and print frames per second")
      ->check(ts::whole_number(0, 1000000));
  cli.add_option("--font-size", opt.font_size, "text size in points (Ctrl +/- in the window)")
      ->check(ts::real_number(ts::app::kMinFont, ts::app::kMaxFont, "a size in points"));
  cli.add_option("--theme", opt.theme, "dark or light")->check(CLI::IsMember({"dark", "light"}));
  cli.add_flag("--heatmap", opt.heatmap, "show the global-load heatmap");
  cli.add_option("--memory", opt.memory,
                 "colour the grid by how memory serves the accesses (M in the window)")
      ->check(
          CLI::IsMember({"state", "banks", "conflicts", "sectors", "coalescing", "contention"}));
  cli.add_option("--layout", opt.layout,
                 "run the lesson with this shared-memory layout of its group (\"padded "
                 "[32][33]\"), as the grid's layout toggle does");
  cli.add_flag("--focus-grid", opt.focus_grid,
               "grid and timeline only, side panels hidden (G in the window)");
  cli.add_option("--dialog", opt.dialog,
                 "show the open or save file dialog (Ctrl+O / Ctrl+S), File > Export replay, "
                 "View > Compare with... or File > Open lesson file (lesson)")
      ->check(CLI::IsMember({"open", "save", "export", "compare", "lesson"}));
  cli.add_option("--wait-reloads", opt.wait_reloads,
                 "scripted, with --lesson-file: before the screenshot, wait until the file has "
                 "been saved, compiled and run again N times (prints when it starts watching)")
      ->check(ts::whole_number(1, 1000));
  cli.add_option("--hazard", opt.hazard,
                 "choose this hazard in the race panel (0 = the first), as a click would")
      ->check(ts::whole_number(0, INT32_MAX));
  cli.add_option("--perf-report", opt.perf_report,
                 "open this performance report (tilescope-cli bench --json) in the Performance "
                 "panel")
      ->check(CLI::ExistingFile);
  std::vector<std::string> families;  // the bandwidth ones: a multiply's ladder is charted anyway
  for (const ts::LessonInfo& v : ts::all_lessons())
    if (v.metric == ts::PerfMetric::Bytes &&
        std::find(families.begin(), families.end(), v.family) == families.end())
      families.push_back(v.family);
  cli.add_option("--perf-family", opt.perf_family,
                 "the family whose ladder the Performance panel charts (GB/s per step against "
                 "the copy and the library), where the report timed three of its steps or more")
      ->check(CLI::IsMember(families));
  cli.add_option("--lecture", opt.lecture,
                 "present this lecture script (.tslecture, docs/lectures.md): PageDown / PageUp");
  cli.add_option("--step", opt.lecture_step, "the lecture's step to open at (1 = the first)")
      ->check(ts::whole_number(1, INT32_MAX));
  cli.add_flag("--all-steps", opt.all_steps,
               "scripted, with --lecture: a screenshot (and cells JSON) of every step, "
               "FILE_step1.png, ...");
  cli.add_flag("--present", opt.present,
               "presenter mode (P): the grid gets the window, captions, narration and questions "
               "a strip of their own beside or below it");
  cli.add_option("--keys", opt.keys, "scripted: press these keys before the screenshot")
      ->delimiter(',')
      ->check(CLI::IsMember(
          {"pagedown",   "pageup",     "escape",      "q",     "enter", "n",     "space",
           "up",         "down",       "left",        "right", "1",     "2",     "3",
           "4",          "5",          "6",           "7",     "8",     "9",     "shift+up",
           "shift+down", "shift+left", "shift+right", "p",     "plus",  "minus", "0",
           "c",          "shift+c",    "m",           "b"}));
  line.quiz = cli.add_option("--quiz", line.quiz_seed,
                             "start a quiz on the run (SEED: which questions; 1 when "
                             "left out); Q in the window")
                  ->expected(0, 1);
  cli.add_option("--quiz-answer", opt.quiz_answer,
                 "scripted: answer the quiz's first question: truth, truth-1, truth+1, none, "
                 "cells 3,17,20, rectangles rect:ARRAY:r0,c0-r1,c1 (joined by ;) or choice:N "
                 "(the first choice question's)");
  cli.add_option("--record", opt.record,
                 "export the replay from --from to --to: FILE.gif (animated), FILE.mp4 (H.264, "
                 "needs ffmpeg) or FILE.png (FILE_0000.png, ...); a frame is the window at one "
                 "replay position, evenly spaced over the range");
  cli.add_option("--from", opt.record_from, "--record from this position (as --position)");
  cli.add_option("--to", opt.record_to, "--record up to this position (as --position)");
  cli.add_option("--fps", opt.record_fps, "--record frames per second")
      ->check(ts::whole_number(1, 60));
  cli.add_option("--duration", opt.record_seconds,
                 "--record length in seconds: fps x duration frames, the first at --from and the "
                 "last at --to (fewer when the range has fewer events)")
      ->check(ts::real_number(0.1, 3600));
  cli.add_option("--speed", opt.record_speed,
                 "--record at this many events a second instead of --duration")
      ->check(ts::real_number(0.001, 1e9));
  cli.add_option("--panels", opt.record_panels,
                 "what --record (and --screenshot) draws: grid (the grid alone, for a slide), "
                 "grid+timeline (and the warp lanes under it) or window (all of it)")
      ->check(CLI::IsMember({"grid", "grid+timeline", "window"}));
  cli.add_option("--title", opt.record_title,
                 "a title line above what --record (and --screenshot) draws");
  line.compare_opt = cli.add_option(
      "--compare", line.compare,
      "show a second run beside this one, on one scrubber aligned by barrier phase: the lesson "
      "options that differ for it, e.g. \"--barriers 1\", \"--lesson matmul.naive_grid\", "
      "\"--layout padded\" (View > Compare with... in the window)");
}

// --lecture and --step, refused here with the step and field, before any window.
bool check_lecture(const ts::app::Options& opt) {
  if (opt.lecture.empty()) return true;
  std::string err;
  const auto lecture = ts::load_lecture(opt.lecture, &err);
  if (!lecture) {
    std::fprintf(stderr, "tilescope: error: --lecture %s\n", err.c_str());
    return false;
  }
  if (opt.lecture_step < 1 || size_t(opt.lecture_step) > lecture->steps.size()) {
    std::fprintf(stderr, "tilescope: error: --step %d: %s has %zu steps; give 1 to %zu\n",
                 opt.lecture_step, opt.lecture.c_str(), lecture->steps.size(),
                 lecture->steps.size());
    return false;
  }
  return true;
}

// The files it will write, checked before any window as tilescope-cli's -o:
// never an input, never a file there without --force, never twice.
bool check_output_files(const ts::app::Options& opt) {
  ts::OutputOptions out;
  out.force = opt.force;
  for (const std::string* in : {&opt.trace_file, &opt.perf_report, &opt.lecture})
    if (!in->empty()) out.inputs.push_back(*in);
  std::vector<std::pair<const char*, std::string>> files;
  if (!opt.screenshot.empty()) files.push_back({"--screenshot", opt.screenshot});
  if (!opt.cells_json.empty()) files.push_back({"--cells-json", opt.cells_json});
  ts::app::ExportFormat format;
  if (!opt.record.empty())  // a PNG sequence: its first frame (the others once counted)
    files.push_back({"--record", ts::app::export_format_for(opt.record, &format) &&
                                         format == ts::app::ExportFormat::PngSequence
                                     ? opt.record.substr(0, opt.record.size() - 4) + "_0000.png"
                                     : opt.record});
  for (size_t i = 0; i < files.size(); ++i) {
    std::optional<std::string> e = ts::check_output(files[i].second, out);
    for (size_t j = 0; j < i && !e; ++j)
      if (ts::same_file(files[i].second, files[j].second))
        e = files[i].second + " is also " + files[j].first + "'s file; give each its own";
    if (e) {
      std::fprintf(stderr, "tilescope: error: %s: %s\n", files[i].first, e->c_str());
      return false;
    }
  }
  return true;
}

// The options checked as tilescope-cli checks its own, before any window:
// an exit code (0 for --help, 2 for a usage error) where the window must not open.
std::optional<int> parse_window_options(int argc, char** argv, CommandLine& line,
                                        ts::app::Options& opt) {
  CLI::App& cli = line.cli;
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help succeeds; every other parse error is a usage error (2), said as
    // tilescope-cli says it.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return cli.exit(e);
    std::fprintf(stderr, "tilescope: error: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  if (line.quiz->count() > 0) {
    // Digits only: "-1" would wrap to a huge seed, then read as "no quiz".
    const std::string& s = line.quiz_seed;
    uint64_t seed = 1;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), seed);
    if (!s.empty() && (r.ec != std::errc() || r.ptr != s.data() + s.size() || seed > INT64_MAX)) {
      std::fprintf(stderr,
                   "tilescope: error: --quiz '%s': give a seed, a whole number from 0 to %lld\n",
                   s.c_str(), (long long)INT64_MAX);
      return 2;
    }
    opt.quiz_seed = int64_t(seed);
  }
  std::vector<std::string> notes;
  const ts::LessonOptions& lesson = line.lesson;
  std::optional<std::string> lesson_error;
  bool file_failed = false;
  if (!lesson.lesson_file.empty()) {
    // Compiled, loaded and described in a child process first: a plug-in that
    // crashes takes the child, and the window opens and says where.
    const ts::app::LessonCheck c = ts::app::check_lesson_file_in_child(lesson.lesson_file, nullptr);
    opt.lesson_file_watch = lesson.lesson_file;  // watched either way: a save compiles it again
    if (!c.file.ok) {
      std::fprintf(stderr, "tilescope: %s", ts::describe_failure(c.file).c_str());
      opt.lesson_file_failure = c.file;
      ts::LessonOptions without_file = lesson;
      without_file.lesson_file.clear();
      lesson_error = without_file.to_request(opt.request, &notes);
      file_failed = true;
    } else if (!c.file.cached) {
      std::fprintf(stderr,
                   "tilescope: note: %s: compiled into a plug-in in %.2f s (in a child process), "
                   "lesson %s\n",
                   c.file.path.c_str(), c.file.seconds, c.file.lesson_id.c_str());
    }
  }
  if (!file_failed) lesson_error = lesson.to_request(opt.request, &notes);
  if (const ts::LessonFile* f = lesson.lesson_file_result(); f && !f->ok) {
    // The window opens all the same, on the default lesson, and shows why.
    std::fprintf(stderr, "tilescope: %s", ts::describe_failure(*f).c_str());
    opt.lesson_file_failure = *f;
    ts::LessonOptions without_file = lesson;
    without_file.lesson_file.clear();
    lesson_error = without_file.to_request(opt.request, &notes);
  }
  for (const auto& n : notes)
    std::fprintf(stderr, "tilescope: note: %s\n", n.c_str());
  if (lesson_error) {
    std::fprintf(stderr, "tilescope: error: %s\n", lesson_error->c_str());
    return 2;
  }
  if (line.compare_opt->count()) {  // B: A's options with these on top, checked as A's are
    ts::RunRequest b;
    std::vector<std::string> b_notes;
    if (auto err = ts::app::compare_request_from_args(line.compare, lesson, opt.request, opt.layout,
                                                      &b, &b_notes)) {
      std::fprintf(stderr, "tilescope: error: %s\n", err->c_str());
      if (opt.scripted()) return 2;
      opt.compare_error = "Not compared: " + *err;  // the window says it and runs the lesson
    } else {
      opt.compare = b;
    }
  }
  if (!opt.trace_file.empty() && lesson.any_given())
    std::fprintf(stderr,
                 "tilescope: note: %s is replayed with its own lesson and settings; the lesson "
                 "options are for new runs from the window\n",
                 opt.trace_file.c_str());
  const bool opens_lesson_file = ts::app::is_lesson_file_path(opt.trace_file);
  if (opt.wait_reloads > 0 &&
      ((opt.lesson_file_watch.empty() && !opens_lesson_file) || !opt.scripted())) {
    std::fprintf(stderr,
                 "tilescope: error: --wait-reloads needs a lesson file (--lesson-file, or one "
                 "given as the file to open) and a scripted run "
                 "(--screenshot or --exit)\n");
    return 2;
  }
  if (!check_lecture(opt)) return 2;
  if (auto e = ts::app::parse_window_size(line.size, &opt.width, &opt.height)) {
    std::fprintf(stderr, "tilescope: error: %s\n", e->c_str());
    return 2;
  }
  const ts::app::GivenOptions given{cli.count("--select-block") > 0,
                                    cli.count("--select-thread") > 0, cli.count("--hazard") > 0,
                                    cli.count("--frames") > 0, cli.count("--font-size") > 0};
  if (auto e = ts::app::check_window_options(opt, given)) {  // as the CLI: exit 2, no window
    std::fprintf(stderr, "tilescope: error: %s\n", e->c_str());
    return 2;
  }
  if (!check_output_files(opt)) return 2;
  return std::nullopt;
}

// Creates the OpenGL 3.3 core window and loads its functions; null (said on
// stderr) where there is no display or no such context.
GLFWwindow* open_window(const ts::app::Options& opt) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr,
                 "tilescope: cannot open a window (no display?). The command line, tilescope-cli, "
                 "runs the lessons without one.\n");
    return nullptr;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  if (opt.scripted()) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "TileScope", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "tilescope: cannot create an OpenGL 3.3 core window\n");
    glfwTerminate();
    return nullptr;
  }
  glfwMakeContextCurrent(window);
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::fprintf(stderr, "tilescope: cannot load OpenGL 3.3 functions\n");
    return nullptr;
  }
  // Scripted runs draw as fast as they can; interactive ones follow the display.
  glfwSwapInterval(opt.scripted() ? 0 : 1);
  return window;
}

void start_imgui(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  // imgui.ini is read and written by the app through io/ (App::save_settings).
  io.IniFilename = nullptr;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard;  // arrows drive the replay, not focus
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

void close_window(GLFWwindow* window) {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
}

// Frames until the panels' background work (the race analysis) is in, then a
// few more so that fonts, layout and auto-sized items settle.
void settle_frames(ts::app::App& app, GLFWwindow* window) {
  const auto settle_from = std::chrono::steady_clock::now();
  auto waited = [&] { return std::chrono::steady_clock::now() - settle_from; };
  // Again while the last frames started work of their own (the Puzzles panel
  // grades the lesson file once it is on screen).
  do {
    do {
      glfwPollEvents();
      app.frame();
      glfwSwapBuffers(window);
      if (app.state().busy) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (app.state().busy && waited() < std::chrono::seconds(60));
    for (int i = 0; i < 4; ++i) {
      glfwPollEvents();
      app.frame();
      if (i < 3) glfwSwapBuffers(window);
    }
  } while (app.state().busy && waited() < std::chrono::seconds(60));
}

// --screenshot (one, or one per lecture step): the exit code.
int write_screenshots(ts::app::App& app, const ts::app::Options& opt) {
  std::string err;
  if (!app.state().option_error.empty()) {  // --hazard, --quiz-answer beyond the run's
    std::fprintf(stderr, "tilescope: error: %s\n", app.state().option_error.c_str());
    return 2;
  }
  if (!opt.screenshot.empty() && opt.all_steps) {
    if (!app.screenshot_lecture_steps(&err)) {
      std::fprintf(stderr, "tilescope: %s\n", err.c_str());
      return 1;
    }
  } else if (!opt.screenshot.empty()) {
    if (!app.write_screenshot(opt.screenshot, opt.cells_json, &err)) {
      std::fprintf(stderr, "tilescope: %s\n", err.c_str());
      return 1;
    }
    std::printf("wrote %s\n", opt.screenshot.c_str());
  }
  return 0;
}

// --frames: frames per second while the replay plays (the cells change every frame).
void measure_frame_rate(ts::app::App& app, const ts::app::Options& opt, GLFWwindow* window) {
  auto& s = app.state();
  s.request_position(0);
  s.replay_ui.playing = true;
  s.replay_ui.speed = std::max(1000.0, double(s.replay->size()) / 5.0);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < opt.frames; ++i) {
    glfwPollEvents();
    if (!s.replay_ui.playing) s.replay_ui.playing = true, s.request_position(0);
    app.frame();
    glfwSwapBuffers(window);
  }
  glFinish();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%d frames at %dx%d in %.2f s: %.1f frames per second (%s)\n", opt.frames, opt.width,
              opt.height, sec, opt.frames / sec,
              reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
}

// Scripted mode: the screenshots, --record and --frames, then (without --exit)
// the window stays open. The exit code.
int run_scripted(ts::app::App& app, const ts::app::Options& opt, GLFWwindow* window) {
  std::string err;
  int rc = 0;
  if (!app.prepare_scripted(&err)) {
    std::fprintf(stderr, "tilescope: %s\n", err.c_str());
    rc = app.state().option_error.empty() ? 1 : 2;  // an option out of the run's range
  } else {
    settle_frames(app, window);
    if (opt.wait_reloads > 0 && !app.wait_for_reloads(opt.wait_reloads, &err)) {
      std::fprintf(stderr, "tilescope: %s\n", err.c_str());
      return 1;
    }
    app.press_keys();
    rc = write_screenshots(app, opt);
    if (app.state().quiz.active())  // what a test of keyboard-only answering checks
      std::printf("quiz: %s\n", app.state().quiz.score_line().c_str());
    glfwSwapBuffers(window);
    if (!opt.record.empty() && rc == 0 && !app.record_scripted(&err)) {
      std::fprintf(stderr, "tilescope: %s\n", err.c_str());
      rc = app.state().option_error.empty() ? 1 : 2;  // refused (an input, no --force): 2
    }
    if (opt.frames > 0) measure_frame_rate(app, opt, window);
  }
  if (!opt.exit_after && rc == 0) {
    while (!glfwWindowShouldClose(window) && app.frame()) {
      glfwSwapBuffers(window);
      glfwWaitEventsTimeout(app.needs_continuous_redraw() ? 0.0 : 1.0);
    }
  }
  return rc;
}

// Idle when nothing moves: wait for input; redraw continuously only while
// playing or while a run is in flight.
void run_interactive(ts::app::App& app, GLFWwindow* window) {
  int settle = 2;
  while (!glfwWindowShouldClose(window)) {
    if (app.needs_continuous_redraw() || settle > 0) {
      if (!app.export_frame_next()) glfwPollEvents();
      --settle;
    } else {
      glfwWaitEventsTimeout(app.idle_wait_seconds());  // a watched lesson file: 4 looks a second
      settle = 2;  // ImGui needs a frame or two after an input to settle
    }
    if (!app.frame()) break;
    if (app.frame_for_screen()) glfwSwapBuffers(window);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The child that runs a lesson file's code (engine/lesson_child.hpp): no window.
  if (argc >= 2 && std::string_view(argv[1]) == ts::kLessonChildFlag)
    return ts::lesson_child_main(argc - 1, argv + 1);
  ts::app::Options opt;
  CommandLine line;
  add_window_options(line, opt);
  if (const auto rc = parse_window_options(argc, argv, line, opt)) return *rc;
  GLFWwindow* window = open_window(opt);
  if (!window) return 1;
  start_imgui(window);
  int rc = 0;
  {
    ts::app::App app(window, opt);
    g_app_for_drop = &app;
    glfwSetDropCallback(window, on_drop);
    if (opt.scripted())
      rc = run_scripted(app, opt, window);
    else
      run_interactive(app, window);
    g_app_for_drop = nullptr;
  }
  close_window(window);
  return rc;
}
