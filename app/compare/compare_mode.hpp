// The window's compare mode: a second run (B) beside the main one (A), both
// drawn by the grid (app/compare/view_compare.cpp), one transport for both. B runs in
// the background like any run (app/core/jobs.hpp); each frame B is placed at A's
// position aligned by phase (app/compare/compare.hpp) and the differing cells counted.
//
//   View > Compare with... (the dialog), or --compare "--barriers 1":
//   RunRequest b = ...;  request_compare(s, b);   // B starts; the Compare tab comes to the front
//   update_compare(s, false);                     // every frame (the Compare view does it)
//   close_compare(s);                             // Esc, or "Close compare"
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "app/compare/compare.hpp"
#include "app/core/app_state.hpp"
#include "app/core/budget_dialog.hpp"
#include "engine/lesson_options.hpp"

namespace ts::app {

struct CompareState {
  bool active = false;  // compare mode on: B in flight or on screen
  RunRequest request;   // B's run
  AppState b;           // B's job, result, replay and selection (the grid draws it)
  BudgetDialog budget;  // B's admission, as a run's (its refusal is said in the banner)
  bool start_requested = false;
  bool dialog_open = false;  // View > Compare with...
  bool focus_was = false;    // the grid focus before compare mode forced it
  bool focus_forced = false;
  // Each frame: the alignment, cached per pair of traces and orders.
  uint64_t gen_a = ~0ull, gen_b = ~0ull;
  ReplayOrder order = ReplayOrder::AsRecorded;
  PhaseTable table_a, table_b;
  Alignment align;
  DiffSummary now, end;  // differing cells at the aligned positions, and at both ends
  uint64_t now_a = ~0ull, now_b = ~0ull;
  std::string too_small;         // what the view says when the cells are too small for values
  float ring_px = 0;             // the difference rings' width as drawn (the pixel test reads it)
  std::string common;            // what both run, when only the barriers differ
  std::string label_a, label_b;  // "matmul.tiled_square n=10 tile=4, without barrier 2"
};

bool compare_active(const AppState& s);
// Compare mode with B = b: B's run starts (in the background), the Compare tab comes to the front.
void request_compare(AppState& s, const RunRequest& b);
void close_compare(AppState& s);
// View > Compare with...: the dialog that picks B (app/compare/view_compare.cpp draws it).
void open_compare_dialog(AppState& s);
// Every frame: B's run in or started, B placed at A's aligned position, the
// differences counted. wait: block until B's run is in (scripted mode).
void update_compare(AppState& s, bool scripted, bool wait);

// --compare "<options>": B's request: A's (a_req, from the options a) with
// these on top, through the command line's own parser and checks; --layout as
// there. What the text leaves out stays A's (the sizes; for the same lesson,
// the barriers).
// nullopt when B can run, else what is wrong.
std::optional<std::string> compare_request_from_args(const std::string& text,
                                                     const LessonOptions& a,
                                                     const RunRequest& a_req,
                                                     const std::string& layout_a, RunRequest* out,
                                                     std::vector<std::string>* notes);
// B's default in the dialog: A's lesson without its last kept barrier.
RunRequest default_compare_request(const RunRequest& a);
// "matmul.tiled_square n=10 tile=4, without barrier 2"
std::string describe_run(const RunRequest& r);

// The scripted mode's map (--cells-json): both runs' positions, where B's
// arrays were drawn, the differences (sx, sy: screen to PNG pixels).
nlohmann::json compare_json(const AppState& s, float sx, float sy);

}  // namespace ts::app
