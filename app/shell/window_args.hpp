// The window's own options checked as tilescope-cli checks its options: a
// value the window cannot use is a usage error (exit 2) with a message that
// names the option, the value and what is allowed, never silently clamped,
// wrapped or ignored. The lesson options are checked by engine/lesson_options.
#pragma once

#include <optional>
#include <string>

#include "app/shell/app.hpp"

namespace ts::app {

// Which of the options with a "not given" default (-1, 0) were given.
struct GivenOptions {
  bool select_block = false, select_thread = false, hazard = false, frames = false,
       font_size = false;
};

// "WIDTHxHEIGHT" exactly, both in range: nullopt and width, height set.
std::optional<std::string> parse_window_size(const std::string& size, int* width, int* height);

// Before any window: each option's syntax and range, and where there is no
// trace file, the ranges the lesson's launch gives (blocks, threads per block).
std::optional<std::string> check_window_options(const Options& opt, const GivenOptions& given);

// Once the run or trace is in: --select-block and --select-thread within the
// blocks and threads of the trace actually shown (negative ones were refused before).
std::optional<std::string> check_options_against_trace(const Options& opt, const Trace& t);

// --quiz-answer's syntax: truth, truth-1, truth+1, none, choice:N or cells 3,17,20.
bool valid_quiz_answer(const std::string& spec);

}  // namespace ts::app
