// What `run` and `inspect` print about a trace: the same summary, as text
// for people and as JSON for scripts.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compiled_access.hpp"
#include "analysis/counters.hpp"
#include "analysis/verdict.hpp"
#include "engine/lesson_file.hpp"
#include "engine/reference.hpp"
#include "model/trace.hpp"

namespace ts::cli {

// Exit codes of every command (also in `tilescope-cli --help`).
enum ExitCode : int {
  kExitOk = 0,           // done (a run that produced wrong output is still done: that is a lesson)
  kExitFailed = 1,       // could not do it: the run failed, a file could not be read or written
  kExitUsage = 2,        // usage error: unknown option, lesson or barrier, parameters out of range
  kExitWrongOutput = 3,  // `run --check`: the output was wrong; `check`: a puzzle's rule failed
};

// Prints "tilescope-cli <cmd>: error: <msg>" to stderr and returns kExitUsage;
// with `json`, also {"ok": false, "usage_error": true, "error": ...} to stdout.
int usage_error(const std::string& cmd, const std::string& msg, bool json = false);
// "tilescope-cli <cmd>: note: <note>" on stderr, one line each.
void print_notes(const std::string& cmd, const std::vector<std::string>& notes);
// Same for a failure (kExitFailed); with `json`, also prints {"ok": false, "error": ...} to stdout.
int failure(const std::string& cmd, const std::string& msg, bool json);
// A lesson file that did not compile or load (kExitFailed): the compiler's
// errors at their lines on stderr ("file:line:column: error: ..." and the
// line), with `json` also {"ok": false, "error", "diagnostics": [...]}.
int lesson_file_failure(const std::string& cmd, const LessonFile& f, bool json);

// "1 (line 30) on, 2 (line 36) off", or "none".
std::string barrier_summary(const Trace& t);
std::string params_summary(const Trace& t);

void print_summary(std::ostream& out, const Trace& t, const Counters& c,
                   const std::optional<Verdict>& verdict);
nlohmann::json summary_json(const Trace& t, const Counters& c,
                            const std::optional<Verdict>& verdict);

// The compiled level (cli/report_compiled.cpp): where it comes from, in
// words; its lines in the text summary; its table for the JSON.
std::string compiled_level_name(const AccessLevels& l);
void print_compiled_level(std::ostream& out, const Trace& t, const AccessLevels& l);
nlohmann::json compiled_level_json(const Trace& t, const AccessLevels& l);

}  // namespace ts::cli
