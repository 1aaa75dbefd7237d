// The memory budget the user can see: before a run or a trace file, what the
// window would need. Beyond the budget (analysis/memory_estimate.hpp) nothing
// starts; a dialog says how many events and how much memory it would take and
// offers the largest size of the lesson that fits. A run the trace capacity
// would cut short is asked about too: the size recorded whole, or the
// truncated run. Scripted runs get the message instead (main prints it, exit 1).
//
//   if (!budget_.admit_run(s, scripted)) return;   // App::start_run
//   budget_.draw(s);                               // App::frame, after the views
#pragma once

#include <optional>
#include <string>

#include "analysis/memory_estimate.hpp"
#include "app/core/app_state.hpp"

namespace ts::app {

struct BudgetCheck {
  enum Verdict : uint8_t { Fits, Truncated, OverBudget };
  Verdict verdict = Fits;
  bool file = false;
  std::string what;  // "matmul.tiled_square n=256 tile=16", or the file's path
  RunEstimate need;  // files: the events estimated from the file's size
  uint64_t capacity = 0;
  uint64_t budget = 0;
  uint64_t held = 0;              // what another trace already keeps in the window (in need.bytes)
  std::string budget_origin;      // "TILESCOPE_MEMORY_BUDGET", "a quarter of ..."
  std::optional<Params> fitting;  // runs: the largest size recorded whole within the budget
  RunEstimate fitting_need;
  std::string fitting_label;    // "n = 128"
  std::string fitting_options;  // "--n 128"

  // One paragraph: what it would need, the budget, the size that fits (with
  // its command-line options when `scripted`).
  std::string message(bool scripted = false) const;
};

// A run of `req` (its lesson must exist) against the budget and its capacity,
// beside `held` bytes another trace keeps (compare mode: A while B runs).
BudgetCheck check_run(const RunRequest& req, uint64_t held = 0);
// A trace file against the budget, from its size; Fits when it cannot be
// read or is not a trace (its header checked first: the loader says why).
BudgetCheck check_trace_file(const std::string& path);

// "41.9 M", "208.3 K", "4096": event counts in messages.
std::string count_text(uint64_t n);

class BudgetDialog {
 public:
  // Whether s.request may run now. Otherwise the banner says why and the
  // dialog opens (scripted: for a screenshot only; a truncated run goes on
  // there, with a note on stderr).
  bool admit_run(AppState& s, bool scripted, uint64_t held = 0);
  // Whether the trace file may be opened now; as admit_run.
  bool admit_file(AppState& s, const std::string& path, bool scripted);
  // Draws the dialog while open; a choice becomes a request in `s`.
  void draw(AppState& s);
  bool is_open() const { return open_; }

 private:
  void open(BudgetCheck check);

  BudgetCheck check_;
  bool open_ = false;
  bool just_opened_ = false;
  // The truncated run the user accepted: asked once, not on every F5.
  std::string accepted_lesson_;
  Params accepted_params_;
  uint64_t accepted_capacity_ = 0;
};

}  // namespace ts::app
