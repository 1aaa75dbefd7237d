// The options that choose and configure a lesson run (lesson, parameters,
// barriers, backend, schedule, skew, inputs, trace capacity), shared by
// tilescope-cli (run, races) and the window, so that both programs accept the
// same values and refuse the same mistakes in the same words.
//
//   LessonOptions o;
//   o.add_to(app, LessonOptions::Naming::Positional);   // before parsing
//   ... app.parse(argc, argv) ...
//   RunRequest req;
//   std::vector<std::string> notes;                     // ignored options, said once
//   if (auto err = o.to_request(req, &notes)) { print *err; exit 2; }
//
// Each number is checked while parsing (which option, the value and the
// range: "--n: 2147483648 is out of range: give a whole number from 1 to
// 32768"); to_request() then reports what run() would refuse (check_run:
// tile widths, barrier numbers, device limits, the trace's memory, the
// simulator's step limit), in the same words.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/lesson_file.hpp"

namespace ts {

struct LessonOptions {
  // How the lesson is named: the CLI's `run <lesson>`, `races [lesson]`
  // (optional there: `races --cases` needs none), the window's `--lesson`.
  enum class Naming { Positional, OptionalPositional, LessonFlag };

  std::string lesson_id;
  std::string default_lesson;  // used when no lesson is given (the window's first lesson)
  // --lesson-file: a lesson header of the user's, compiled and registered by
  // to_request() (engine/lesson_file.hpp) in place of a lesson id.
  std::string lesson_file;
  Params params;  // one option per parameter (kParamFields): --m, --tile, ...
  std::vector<std::string> keep, drop;
  std::string backend = "auto", schedule = "lockstep", skew_warps = "odd", inputs = "int";
  uint64_t seed = 1, input_seed = 1;
  int skew_steps = 64, skew_ns = 0;
  uint64_t capacity = RunRequest{}.trace_capacity;
  // `races`: without --schedule its repeated runs use the random schedule, so
  // --seed applies there and deserves no "goes with --schedule random" note.
  bool seed_without_schedule = false;

  void add_to(CLI::App& app, Naming naming);

  // Builds the request; nullopt when it can run, else the usage error (unknown
  // lesson or barrier, parameters out of range for the backend that will run
  // them, a trace that cannot fit, ...). Options that do not apply (a
  // parameter the lesson does not use, --seed without the random schedule,
  // --skew-ns on the simulator) are said in `notes`.
  std::optional<std::string> to_request(RunRequest& req, std::vector<std::string>* notes) const;

  // The lesson file as to_request() loaded it (its compiler diagnostics where
  // it failed); nullptr without --lesson-file or before to_request().
  const LessonFile* lesson_file_result() const { return file_ ? &*file_ : nullptr; }

  // Whether any of these options was given (the window ignores them for a trace file).
  bool any_given() const;
  // Whether this one was given, e.g. given("--schedule").
  bool given(const std::string& name) const;

 private:
  mutable std::optional<LessonFile> file_;   // loaded once, by the first to_request()
  std::vector<CLI::Option*> given_;          // every option add_to() added, to ask count()
  std::vector<CLI::Option*> param_options_;  // by kParamFields index
  CLI::Option *o_keep = nullptr, *o_drop = nullptr;
  CLI::Option *o_seed = nullptr, *o_skew_warps = nullptr, *o_skew_steps = nullptr,
              *o_skew_ns = nullptr;
};

// Help that reads on an 80-column terminal: every option's text wrapped in its
// column (each lesson's meaning of --n on a line of its own). add_to() sets it
// on its app; set on a parent before add_subcommand(), the subcommands share it.
void use_readable_help(CLI::App& app);

// Checks while parsing that an option's value is a whole number in [lo, hi]:
// "--detail-limit: -5 is out of range: give a whole number from 1 to 100000".
CLI::Validator whole_number(long long lo, long long hi);
// The same for 64-bit unsigned values (seeds, capacities): "-1" is refused, not wrapped.
CLI::Validator unsigned_number(uint64_t lo = 0, uint64_t hi = UINT64_MAX);
// A decimal number in [lo, hi] (NaN and infinity refused, never a 309-digit
// bound): "--duration: nan is not a number: give a number from 0.1 to 3600".
// `what` names it in the message ("a size in points").
CLI::Validator real_number(double lo, double hi, const std::string& what = "a number");

// "odd", "even", "all", "none", a mask like "0xAA", or warp numbers "1,3".
std::optional<uint32_t> parse_warp_mask(const std::string& s);

}  // namespace ts
