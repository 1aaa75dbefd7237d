// The window's frame loop: jobs in the background, requests from panels, the
// fixed slot layout, shortcuts, fonts and themes (app.cpp says which file holds
// which). main.cpp drives it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "app/core/budget_dialog.hpp"
#include "app/core/view.hpp"
#include "app/export/export.hpp"
#include "app/export/export_dialog.hpp"
#include "app/replay/position_spec.hpp"
#include "app/shell/file_dialog.hpp"
#include "app/shell/fonts_themes.hpp"
#include "app/shell/layout.hpp"

struct GLFWwindow;

namespace ts::app {

// Command-line options (interactive and scripted).
struct Options {
  // The lesson to run: lesson, parameters, barriers, backend, schedule, ...,
  // parsed and checked by main() as tilescope-cli does (engine/lesson_options.hpp).
  // An empty lesson: the default lesson.
  RunRequest request;
  std::string order = "lockstep";  // recorded, lockstep
  std::string position;            // event index, 'end', 'phase:N', 'barrier:N', 'access:N'
  int select_block = -1;
  int select_thread = -1;  // scripted: follow this thread of the selected block (linear index)
  std::string tab;         // bring this panel to the front (e.g. Memory)
  std::string trace_file;  // open this trace instead of running
  std::string screenshot;  // write a PNG of the window
  std::string cells_json;  // and where the cells were
  int width = 1600, height = 900;
  bool exit_after = false;
  int frames = 0;       // render N frames and print frames per second
  float font_size = 0;  // 0: default
  std::string theme;    // dark, light; empty: as last time (imgui.ini)
  bool heatmap = false;
  std::string memory;  // the grid's memory colours: banks, conflicts, sectors, coalescing
  std::string layout;  // scripted: run the lesson's sibling with this layout_label, as its toggle
  int hazard = -1;     // scripted: choose this hazard (0 = the first listed) in the race panel
  bool focus_grid = false;  // scripted or at start: grid and timeline only (G)
  bool present = false;     // presenter mode (P): app/lecture/caption_strip.hpp
  bool all_steps = false;   // scripted, --lecture: a screenshot of every step (lecture_steps.cpp)
  std::string dialog;       // scripted: "open" or "save" shows that file dialog, as Ctrl+O / Ctrl+S
  std::string lecture;      // a lecture script (.tslecture) to present
  int lecture_step = 1;     // its step to open at, 1-based
  std::vector<std::string> keys;  // scripted: keys pressed before the screenshot (pagedown, ...)
  int64_t quiz_seed = -1;         // --quiz [SEED]: start a quiz (app/quiz/quiz.hpp); -1: none
  std::string quiz_answer;        // scripted: answer the first question so (quiz.hpp)
  std::string perf_report;        // a performance report (JSON) to open in the Performance panel
  std::string perf_family;        // the family whose ladder that panel shows (a bandwidth family)
  // --compare "<options>": a second run beside the lesson, parsed by main()
  // (app/compare/compare_mode.hpp); compare_error: why the text was refused (the window says it).
  std::optional<RunRequest> compare;
  std::string compare_error;
  // --lesson-file that did not compile or load: the window opens on the
  // default lesson and shows why (app/views/view_source.cpp).
  std::optional<LessonFile> lesson_file_failure;
  // --lesson-file, compiled or not: the window watches it and reruns it on every save.
  std::string lesson_file_watch;
  int wait_reloads = 0;  // scripted: wait for this many saves of it to be handled
  // --record FILE: export the replay from --from to --to (positions as --position takes them).
  // --panels: the grid or grid+timeline alone (app/export/slide.hpp), for --screenshot too;
  // --title: a line above them.
  std::string record, record_from = "start", record_to = "end", record_panels = "window";
  std::string record_title;
  int record_fps = 10;
  bool force = false;  // --force: scripted outputs may replace existing files
  double record_seconds = 10, record_speed = 0;
  bool scripted() const {
    return !screenshot.empty() || exit_after || frames > 0 || !record.empty();
  }
};

class App {
 public:
  App(GLFWwindow* window, Options opt);
  ~App();

  // One frame: poll jobs, apply requests, draw every view, render. Returns
  // false when the app should close.
  bool frame();
  bool needs_continuous_redraw() const;

  // Scripted mode: run (or load) synchronously, then place the replay.
  bool prepare_scripted(std::string* error);
  bool write_screenshot(const std::string& png, const std::string& json, std::string* error);
  // Scripted: --keys pressed through GLFW's key callback, as a keyboard (or a
  // presenter's remote) sends them, each followed by frames until its run is in.
  void press_keys();
  // Scripted, --wait-reloads N: frames until N saves of the lesson file were
  // compiled and run again (or failed), then the layout settles. Prints each.
  bool wait_for_reloads(int n, std::string* error);
  // How long the idle window may sleep between frames: short while a lesson file is watched.
  double idle_wait_seconds() const { return state_.lesson_watch.path.empty() ? 1.0 : 0.25; }

  // Scripted, --all-steps: every step of the lecture in turn, each written as
  // PNG and JSON with "_stepK" before the extension (K from 1); prints each.
  bool screenshot_lecture_steps(std::string* error);

  // Scripted mode: export the replay as --record asks (export_app.cpp); prints what it wrote.
  bool record_scripted(std::string* error);
  // Starts an export (the dialog's, or --record's); frames then follow in frame().
  bool start_export(const ExportRequest& req, std::string* error);
  // False for a frame drawn only to be exported (the dialog hidden): not for the screen.
  bool frame_for_screen() const { return !export_capture_; }
  // The next frame is the export's: input waits for the one after (which
  // draws the progress and its Cancel, with the pointer where it is).
  bool export_frame_next() const;

  AppState& state() { return state_; }

 private:
  void apply_requests(double dt);
  void save_settings();  // imgui.ini (interactive only)
  static constexpr const char* kIniFile = "imgui.ini";
  void export_before_frame();
  void export_place_replay();
  void export_after_render(int fw, int fh);
  // What this frame draws: the whole window or a slide of the panels
  // (an export's frame, a scripted --panels), and the title line above them.
  ExportPanels frame_panels(std::string* title) const;

  GLFWwindow* window_;
  Options opt_;
  AppState state_;
  std::vector<std::unique_ptr<View>> views_;
  FileDialog dialog_;
  BudgetDialog budget_;  // runs and files beyond the memory budget or the trace capacity
  double last_time_ = 0;
  int windowed_[4] = {100, 100, 1600, 900};
  AppliedStyle style_;
  SlotLayout slots_;
  Exporter exporter_;
  ExportDialog export_dialog_;
  bool export_capture_ = false;  // this frame is taken by the export
  std::string export_error_;     // the last export's failure, for --record
};

}  // namespace ts::app
