// Every file the window writes (screenshots, cells-json, exports, traces,
// performance reports and CSV, imgui.ini) goes through io/output_file.hpp
// with the options made here: the files being read are never written over,
// and a file that exists is replaced only when the user said so (--force in
// scripted mode, "Replace X?" in the window).
#pragma once

#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "io/output_file.hpp"

namespace ts::app {

// The files the window reads now: the trace replayed, the lecture presented,
// the performance report shown, the command line's files.
std::vector<std::string> window_inputs(const AppState& s);

// Output options for a write: `replace`: an existing file may be replaced
// (--force, or confirmed).
OutputOptions window_output_options(const AppState& s, bool replace);

// What a Save or Export button does with `paths` (a PNG sequence: several):
// Write (new files, a device), Ask (a file is there: "Replace X?") or Refuse
// (an input, a folder), with the reason in `why`.
enum class WriteCheck { Write, Ask, Refuse };
WriteCheck check_window_output(const AppState& s, const std::vector<std::string>& paths,
                               std::string* why);

// A modal "Replace X?" (Replace / Cancel) for a panel's Save buttons; the
// file dialog and the export dialog ask inline in their own modal.
class ReplacePrompt {
 public:
  // Opens the question for `what` (the file or files named) on the next draw.
  void ask(std::string what, int action);
  // Draws it while open; true once when Replace was chosen, with the
  // action given to ask().
  bool draw(int* action);

 private:
  std::string what_;
  int action_ = 0;
  bool open_ = false, just_opened_ = false;
};

}  // namespace ts::app
