// Everything the window shows, in explicit structs (no function statics): the
// lesson being edited, the run in flight, the current trace and its replay,
// the selection, marks other panels put on the grid, and presentation.
//
// How a panel uses it (see app/core/view.hpp for registering one):
//
//   Read the current trace and result:
//     if (!s.has_trace()) { ImGui::TextDisabled("No trace yet"); return; }
//     const ts::Trace& t = s.trace();            // config, events, buffers
//     const ts::Replay& r = *s.replay;          // cell states at the position
//     const ts::Verdict& v = s.result.verdict;
//     Both stay valid for the whole frame; a new run replaces them between
//     frames (keep the shared_ptr s.result.trace if you cache derived data,
//     and compare it to detect a new trace).
//
//   Move the replay position:
//     s.request_jump_to_event(i);   // show the state right after trace event i
//     s.request_position(p);        // p events applied in the current order
//     s.replay_ui.playing = false;  // stop playback if you jump
//     Requests are applied by the app at the start of the next frame.
//
//   Highlight cells on the grid (and the shared-memory grid):
//     std::vector<CellMark> marks = {{slot, block, element,
//                                      MarkStyle::Write, "t5 wrote 3.0"}};
//     s.set_marks("races", std::move(marks));  // replaces this owner's marks
//     s.clear_marks("races");
//     Marks persist until their owner replaces or clears them; the grid draws
//     them as outlines in the style's colour, the label shows in the tooltip.
//
//   Select a block or thread (the grid and timeline follow it):
//     s.selection.block = b; s.selection.thread = t;
//
//   Show a message: s.banner.show(Banner::Error, "what happened and what to do");
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/replay.hpp"
#include "app/core/grid_facts.hpp"
#include "app/core/lesson_check.hpp"
#include "app/core/quiz_state.hpp"
#include "app/core/warp_index.hpp"
#include "engine/backend.hpp"
#include "engine/lesson_file.hpp"
#include "io/lecture_file.hpp"

namespace ts::app {

// What a background job (a run, or loading a trace file) hands back: the trace
// with its replay model already built, so the window never waits.
struct JobOutput {
  bool ok = false;
  std::string error;
  RunResult result;  // trace moved out into `trace`
  std::shared_ptr<const Trace> trace;
  std::unique_ptr<Replay> replay;
  std::shared_ptr<const WarpIndex> warp;  // its warp accesses (app/core/warp_index.hpp)
  std::string source;                     // "run" or the file's path
  // A lesson file's run whose check crashed (app/core/lesson_check.hpp): the Source panel says
  // where.
  std::optional<LessonFile> lesson_file_failure;
};

// A run of the engine in the background, so the window stays responsive.
struct RunJob {
  std::future<std::unique_ptr<JobOutput>> future;
  std::string what;  // "matmul.tiled_square n=10 tile=4"
  std::chrono::steady_clock::time_point started;
  bool active() const { return future.valid(); }
};

// What the current trace came from: a run here, or a file.
struct CurrentResult {
  std::shared_ptr<const Trace> trace;  // null until the first run or file
  Verdict verdict;
  std::string backend_note;               // "GPU: ..." or "CPU simulator: no CUDA device"
  std::vector<std::string> faults;        // simulator: out-of-range accesses
  std::string source;                     // "run" or the trace file's path
  std::shared_ptr<const WarpIndex> warp;  // the trace's warp accesses, built with it
  uint64_t generation = 0;                // bumps with every new trace: compare to refresh caches
};

struct ReplayUi {
  bool playing = false;
  double speed = 200;                                   // events per second
  double carry = 0;                                     // fractional events owed by the play clock
  std::optional<uint64_t> position_request;             // applied at the start of the next frame
  std::optional<uint32_t> event_request;                // trace event index to show as just applied
  ReplayOrder order_request = ReplayOrder::AsRecorded;  // the order the user picked
};

struct HoverCell {
  bool valid = false;
  ArraySlot buffer = kNoArray;
  uint32_t block = 0;  // for shared arrays
  uint32_t element = 0;
};

struct Selection {
  uint32_t block = 0;  // the block whose shared memory and warps are shown
  int thread = -1;     // followed thread in that block, -1 for none
  HoverCell hover;     // the cell under the mouse this frame
};

enum class MarkStyle : uint8_t { Write, Read, Hazard, Wrong, Info };

struct CellMark {
  ArraySlot buffer = kNoArray;
  uint32_t block = 0;  // for shared arrays; ignored for global ones
  uint32_t element = 0;
  MarkStyle style = MarkStyle::Info;
  std::string label;  // shown in the cell's tooltip
};

struct Banner {
  enum Kind : uint8_t { Info, Warning, Error };
  Kind kind = Info;
  std::string text;
  double shown_at = 0;  // glfwGetTime() when shown; info banners fade after a while
  void show(Kind k, std::string t) {
    kind = k;
    text = std::move(t);
    shown_at = -1;  // stamped by the app on the next frame
  }
  void clear() { text.clear(); }
};

enum class Theme : uint8_t { Dark, Light };

// What the grid colours cells by (app/grid/grid_memory_overlay.hpp): the replay's
// state, or how memory serves the accesses.
enum class MemoryColours : uint8_t {
  State,       // loaded, written, stale, ... (the legend's chips)
  Banks,       // shared arrays: each element in its bank's colour
  Conflicts,   // shared arrays: the bank conflicts of the accesses that touched it
  Sectors,     // global arrays: sectors per request of the accesses that touched it
  Coalescing,  // the current warp access: its lanes' elements and the sectors they fall in
  Contention,  // atomically updated arrays: the atomics each element (bin) received
};
inline constexpr int kMemoryColourModes = int(MemoryColours::Contention) + 1;

struct Presentation {
  Theme theme = Theme::Dark;
  float font_size = 18.0f;     // in points before the monitor's content scale
  float content_scale = 1.0f;  // HiDPI: from glfwGetWindowContentScale
  bool font_rebuild = true;    // set after font_size changes: the atlas is rebuilt between frames
  bool fullscreen = false;
  bool show_values = true;  // values in cells when they fit
  bool heatmap = false;     // global-load heatmap instead of state colours
  MemoryColours memory = MemoryColours::State;
  bool show_barrier_lines = true;
  bool focus_grid = false;  // grid and timeline only, the side columns hidden (a projector)
  bool focus_auto = true;   // the app sets focus_grid itself while the panels leave the
                            // grid too small for values; G or --focus-grid ends that
  // Presenter mode (P, --present): the grid gets the window; captions, narration and the
  // quiz's question take their own strip beside or below it (app/lecture/caption_strip.hpp).
  bool presenter = false;
  // The grid's zoom over fit-to-room (1: fit) and its pan in pixels (app/grid/grid_zoom.hpp):
  // the cell size follows the room and this, never the font.
  float grid_zoom = 1.0f;
  float grid_pan[2] = {0, 0};
  // Presenter mode: where the whole grid would be too small to read, zoom to
  // the step's subject (app/grid/grid_auto_zoom.hpp); 0 toggles it.
  bool auto_zoom = true;
  // The app turned presenter mode on itself (a projector font leaves the grid
  // too small even without the side panels: app/shell/layout.cpp); once the
  // user chooses (P, --present) the app leaves it alone.
  bool presenter_auto = false;
  bool presenter_chosen = false;
  // The puzzle desk (app/shell/layout.cpp: Puzzles in front beside the grid):
  // the grid zooms to the moment's subject as in presenter mode, since three
  // panels share the width with it; set by the layout every frame.
  bool puzzle_desk = false;
  // Where the desk leaves the grid too little width, the lesson column gives
  // way (lesson_dropped, set by the layout every frame); desk_lesson: the
  // user brought it back (the centre's "Lesson" tab button), until hidden again.
  bool lesson_dropped = false;
  bool desk_lesson = false;
  // The desk at a projector's text with the lesson column dropped (1280 x 720
  // at 28 or 32): every line counts, so the panes there fold what can wait.
  bool desk_narrow = false;
  // A projector's text (24 points and up): the window presents by itself where
  // the grid would be too small (app/shell/layout.cpp), and the grid focus
  // zooms to the moment's subject with a compact timeline (app/grid/grid_auto_zoom.hpp).
  bool projector_text() const { return font_size >= 24.0f; }
  void* mono_font = nullptr;        // ImFont* for source code (nullptr: the default font)
  void* mono_small_font = nullptr;  // the same a little smaller: the source pane is narrow
  // Smaller still: the narrow desk's code (app/views/view_source.cpp).
  void* mono_desk_font = nullptr;
  void* big_font = nullptr;  // ImFont* for headings
  bool font_pinned = false;  // set on the command line: imgui.ini does not override it
  bool theme_pinned = false;
  bool have_symbols = false;  // the font has arrows and shapes (DejaVu)
  std::string font_note;      // "DejaVu Sans" or why the default font is used
};

// The layout of the fixed panels, as fractions of the window; persisted in
// imgui.ini. The borders between slots are splitters that drag these.
struct Layout {
  float left = 0.22f;             // width of the left column
  float right = 0.33f;            // width of the right column
  float bottom = 0.24f;           // height of the timeline strip
  float left_top = 0.74f;         // the lesson's share of the left column (verdict below)
  float right_top = 0.45f;        // the right column's upper tabs' share (source below)
  float right_top_races = 0.72f;  // the same while Races is in front: its list needs room
};

// Where the grid drew an array this frame (screen pixels), for hit tests and
// for the scripted mode's cell map.
struct DrawnArray {
  ArraySlot id = kNoArray;
  bool shared = false;
  uint32_t block = 0;
  int rows = 0, cols = 0;            // cells drawn (may include padding beyond the array)
  int data_rows = 0, data_cols = 0;  // the array's own extent
  int wrap = 0, lead = 0;            // a 1D array's row width and empty cells before element 0
  float x = 0, y = 0, cell_w = 0, cell_h = 0;
};

// A mark a plot drew this frame (screen pixels), for the scripted mode's map:
// the performance panel's roofline dots, rings, labels and legend.
struct PlotMark {
  std::string plot;                  // "roofline"
  std::string kind;                  // "issued", "compulsory", "label", "legend", "area"
  std::string label;                 // the kernel ("matmul.tiled_square T16"), or the text drawn
  float x = 0, y = 0, w = 0, h = 0;  // a point: its centre and 0 x 0; text: its box
  uint32_t colour = 0;               // ImU32 as drawn
  double value = 0;                  // the number it stands for (a bar's GB/s); 0: none
};

// A lecture script being presented (app/lecture/lecture.hpp).
struct LectureState {
  std::shared_ptr<const Lecture> lecture;  // null: no lecture
  std::string path;
  int step = -1;                    // 0-based, the step on screen
  std::optional<int> step_request;  // go there once no run is in flight
  bool awaiting_run = false;        // the step's run is in flight: place the replay when it is in
  uint64_t generation = 0;          // result.generation when that run started
  std::string open_request;         // a .tslecture from File > Open or a drop
  bool leave_request = false;       // Esc
  float band[4] = {0, 0, 0, 0};     // the caption band as drawn this frame (x, y, w, h)
  float caption_bottom = 0;         // where the caption's last line ends (y): inside the band
  float caption_px = 0;             // the caption's text size as drawn
  bool active() const { return lecture != nullptr; }
};

// The Races panel's hazard count for the trace on screen (app/views/view_races.cpp),
// for the presenter's strip, which shows it with the verdict.
struct RaceSummary {
  bool ready = false;  // the analysis of this trace is in
  uint64_t hazards = 0, errors = 0, warnings = 0;
};

struct CompareState;  // app/compare/compare_mode.hpp

// A lesson file open in the window (--lesson-file, File > Open lesson...):
// watched, compiled again in a child process on every save, loaded and run
// again, the replay kept where it was (app/core/jobs.hpp, update_lesson_watch).
struct LessonFileWatch {
  std::string path;                 // absolute; empty: no lesson file
  std::string open_request;         // File > Open lesson... or Recent chose this
  bool dialog_open = false;         // File > Open lesson...: the file dialog for headers
  std::vector<std::string> recent;  // the lesson files opened last, newest first (imgui.ini)
  int64_t seen_stamp = -1;          // the file's mtime (ns) and size as last compiled
  uint64_t seen_size = 0;
  int64_t changed_stamp = -1;  // a save seen, compiled once the file has been still a moment
  double changed_at = 0, polled_at = -1;
  std::future<LessonCheck> check;  // the compile in flight
  bool rerun_pending = false;      // compiled and loaded: run once the window is free
  bool awaiting_run = false;       // the rerun is in flight: keep the position when it is in
  // Where the replay was: its phase for the selected block, the events into
  // it, and whether it was at the end (app/core/jobs.cpp, keep_position).
  int keep_phase = -1;
  uint64_t keep_offset = 0;
  bool keep_end = false;
  int reloads = 0;  // saves handled (compiled and rerun, or failed): scripted --wait-reloads
  std::chrono::steady_clock::time_point saved;  // when the save was seen
  double last_reload_seconds = 0;               // save seen to replay updated
  bool compiling() const { return check.valid(); }
};

struct AppState {
  // The lesson as edited in the Lesson panel; Run sends a copy to the engine.
  RunRequest request;
  std::string param_error;  // validate()'s reason; Run is disabled while set

  RunJob job;
  CurrentResult result;
  std::unique_ptr<Replay> replay;  // over result.trace; null when there is none
  ReplayUi replay_ui;
  AccessStops access_stops;  // the transport's warp step, in the current order
  Selection selection;
  std::map<std::string, std::vector<CellMark>> marks;  // owner -> its marks
  Banner banner;
  Presentation present;
  Layout layout;

  std::vector<DrawnArray> drawn;  // filled by the grid each frame
  GridFacts grid_facts;  // what its cells print and its legend says (app/core/grid_facts.hpp)
  // The timeline's warp lanes as drawn this frame (x, y, width, height; 0 wide
  // when they had no room): the screenshot test checks they stay in view.
  float lanes_rect[4] = {0, 0, 0, 0};
  float center_rect[4] = {0, 0, 0, 0};  // the grid's pane (x, y, w, h), for the lecture caption
  // Where the grid painted its arrays this frame (x, y, w, h: the clip, zoomed or not), and
  // the caption strip laid out beside or below it (0 wide: none); they never overlap.
  float grid_rect[4] = {0, 0, 0, 0};
  float strip_rect[4] = {0, 0, 0, 0};
  bool strip_beside = false;      // the strip is right of the grid (else below it)
  float strip_drawn[2] = {0, 0};  // its text's width and height as last drawn (the narration)
  LectureState lecture;
  QuizState quiz;                    // app/core/quiz_state.hpp, driven by app/quiz/quiz.hpp
  std::vector<PlotMark> plot_marks;  // filled by the performance panel each frame
  // The race hint as drawn this frame (Verdict, Races): its text, then its
  // buttons' labels; the scripted mode's cells JSON reports them.
  std::vector<std::string> race_hint;
  RaceSummary races;  // set by the Races panel each frame

  // A lesson file (--lesson-file) that did not compile or load: the Source
  // panel shows its text with the compiler's errors at their lines until dismissed.
  std::optional<LessonFile> lesson_file_failure;
  LessonFileWatch lesson_watch;

  std::string select_tab;          // a view name (View::name) to bring to the front of its slot
  bool run_requested = false;      // a panel asks for request to run
  std::string open_trace_request;  // a path to load, set by the file dialog or a drop
  std::string open_perf_report_request;  // a performance report (.json) for the Performance panel
  // The family whose ladder the Performance panel charts (--perf-family).
  std::string perf_family_request;
  // Files being read, never written over (app/core/outputs.hpp): the command line's
  // (trace, --perf-report, --lecture), the report the Performance panel shows.
  std::vector<std::string> fixed_inputs;
  std::string perf_report_source;
  bool file_dialog_open = false;
  bool save_dialog_open = false;    // "Save trace as...": the dialog in save mode
  bool export_dialog_open = false;  // File > Export replay...
  bool exporting = false;           // an export is taking frames: the window redraws continuously
  // Each slot's rectangle as laid out this frame (x, y, w, h; 0 wide when
  // hidden), indexed by Slot (a slide sets the grid's and the timeline's, app/export/slide.hpp).
  float slot_rects[6][4] = {};
  bool quit_requested = false;

  // Set by a view (in update() or draw()) while it has background work in
  // flight (a sweep, repeated runs, an analysis); cleared by the app at the
  // start of every frame. The window then redraws continuously so progress
  // bars move, instead of waiting for input.
  bool busy = false;
  void mark_busy() { busy = true; }

  // Scripted mode: choose this hazard in the race panel once its analysis is in (-1: none).
  int select_hazard = -1;
  // Scripted mode: an option beyond what the run turned out to hold (--hazard
  // past the last hazard, --select-block past the last block): exit 2 with it.
  std::string option_error;

  // Compare mode: a second run beside this one (app/compare/compare_mode.hpp); null until first
  // used.
  std::shared_ptr<CompareState> compare;

  bool has_trace() const { return replay != nullptr; }
  const Trace& trace() const { return replay->trace(); }
  // The lesson on screen: the replayed trace's, else the one about to run.
  const LessonInfo* lesson() const {
    return find_lesson(has_trace() ? trace().config.lesson_id : request.lesson_id);
  }

  void request_position(uint64_t p) { replay_ui.position_request = p; }
  void request_jump_to_event(uint32_t trace_index) { replay_ui.event_request = trace_index; }
  void set_marks(const std::string& owner, std::vector<CellMark> m) { marks[owner] = std::move(m); }
  void clear_marks(const std::string& owner) { marks.erase(owner); }
};

}  // namespace ts::app
