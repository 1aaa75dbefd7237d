// `tilescope-cli run <lesson>` (or `run --lesson-file my_lesson.hpp`): run a
// lesson on the GPU or the simulator, print the backend, the verdict and the
// counters, and save the trace.
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "cli/command.hpp"
#include "cli/report.hpp"
#include "engine/backend.hpp"
#include "engine/lesson_options.hpp"
#include "io/output_file.hpp"
#include "io/trace_file.hpp"

namespace ts::cli {
namespace {

// What a lesson file's kernel printed, its last 40 lines, under a heading.
void print_printed(std::ostream& out, const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  constexpr size_t kShown = 40;
  out << "printed by the kernel (" << lines.size() << (lines.size() == 1 ? " line" : " lines")
      << "):\n";
  if (lines.size() > kShown)
    out << "  ... " << lines.size() - kShown << " lines before these (--json has them all)\n";
  for (size_t i = lines.size() > kShown ? lines.size() - kShown : 0; i < lines.size(); ++i)
    out << "  " << lines[i] << "\n";
}

struct RunOptions {
  LessonOptions lesson;
  std::string out;
  bool json = false, check = false, force = false;
  bool untraced = false;  // the plain kernel, as timed (scripts/ncu_compare.sh profiles it)
};

int run_command(const RunOptions& o) {
  const char* cmd = "run";
  RunRequest req;
  // The parameters are checked against the backend that will run them, so
  // that a bad value is a usage error (2) and not a failed run (1).
  std::vector<std::string> notes;
  const auto err = o.lesson.to_request(req, &notes);
  print_notes(cmd, notes);
  if (const LessonFile* f = o.lesson.lesson_file_result(); f && !f->ok)
    return lesson_file_failure(cmd, *f, o.json);
  if (err) return usage_error(cmd, *err, o.json);
  req.traced = !o.untraced;
  // Before the run, so that a refused file costs no time: checked (a usage
  // error), then opened (a FIFO nobody reads, a read-only folder: a failure),
  // never blocking.
  OutputOptions dest;
  dest.force = o.force;
  if (!o.out.empty())
    if (auto e = check_output(o.out, dest)) return usage_error(cmd, *e, o.json);
  std::string open_error;
  std::optional<OutputTarget> target =
      o.out.empty() ? std::nullopt : open_output(o.out, dest, &open_error);
  if (!o.out.empty() && !target) return failure(cmd, open_error, o.json);

  RunResult r = run(req);
  // A kernel's printf, as CUDA shows it: before the result (the last 40 lines).
  if (!o.json && !r.printed.empty()) print_printed(std::cout, r.printed), std::cout.flush();
  if (!r.ok) {
    if (!r.backend_note.empty() && !o.json) std::cout << "backend:  " << r.backend_note << "\n";
    return failure(cmd, r.error.empty() ? "the run failed without a message" : r.error, o.json);
  }
  const Counters c = count_accesses(r.trace);
  std::string saved_error;
  bool saved = false;
  if (target) {
    const std::vector<uint8_t> bytes = serialize_trace(r.trace);
    target->write(bytes.data(), bytes.size());
    saved = target->commit(&saved_error);
  }

  if (o.json) {
    nlohmann::json j = summary_json(r.trace, c, r.verdict);
    j["ok"] = true;
    j["backend_note"] = r.backend_note;
    j["faults"] = r.faults;
    j["kernel_ms"] = r.kernel_ms;
    if (!r.printed.empty()) j["printed"] = r.printed;
    if (const LessonFile* f = o.lesson.lesson_file_result())
      j["lesson_file"] = {
          {"path", f->path}, {"cached", f->cached}, {"seconds", f->seconds}, {"gpu", f->gpu}};
    if (!o.out.empty()) j["trace_file"] = saved ? nlohmann::json(o.out) : nlohmann::json();
    if (!saved_error.empty()) j["trace_file_error"] = saved_error;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "backend:  " << r.backend_note << "\n";
    print_summary(std::cout, r.trace, c, r.verdict);
    if (!r.faults.empty()) {
      std::cout << "faults:   " << r.faults.size() << "\n";
      for (size_t i = 0; i < r.faults.size() && i < 20; ++i)
        std::cout << "  " << r.faults[i] << "\n";
      if (r.faults.size() > 20) std::cout << "  ... " << r.faults.size() - 20 << " more\n";
    }
    if (saved) std::cout << "trace:    " << o.out << "\n";
  }
  if (!saved_error.empty()) return failure(cmd, saved_error, false);
  if (o.check && r.verdict.checked && !r.verdict.correct) return kExitWrongOutput;
  return kExitOk;
}

TS_CLI_COMMAND(run_cmd, "run",
               "Run a lesson on the GPU or the CPU simulator and print verdict and counters",
               [](CLI::App& sub) -> std::function<int()> {
                 auto o = std::make_shared<RunOptions>();
                 o->lesson.add_to(sub, LessonOptions::Naming::Positional);
                 sub.add_option("-o,--output", o->out, "Write the trace to this file (.tstrace)");
                 sub.add_flag("--force", o->force, "Overwrite the output file if it exists");
                 sub.add_flag("--json", o->json, "Print one JSON object instead of text");
                 sub.add_flag("--check", o->check, "Exit with 3 when the output is wrong");
                 sub.add_flag("--untraced", o->untraced,
                              "Run the plain kernel, recording nothing (outputs and verdict only)");
                 return [o] { return run_command(*o); };
               });

}  // namespace
}  // namespace ts::cli
