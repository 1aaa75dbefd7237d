// `tilescope-cli inspect <file>`: what a trace file holds.
#include <iostream>
#include <memory>

#include "analysis/decode.hpp"
#include "cli/command.hpp"
#include "cli/report.hpp"
#include "io/trace_file.hpp"

namespace ts::cli {
namespace {

struct InspectOptions {
  std::string file;
  bool json = false;
};

int inspect(const InspectOptions& o) {
  std::string error;
  const auto t = load_trace(o.file, &error);
  if (!t) return failure("inspect", error, o.json);
  const Counters c = count_accesses(*t);
  const auto verdict = verdict_of(*t);
  const DecodedTrace d = decode(*t);
  size_t barrier_instances = 0, unbalanced = 0;
  for (const auto& b : d.blocks) {
    barrier_instances = std::max(barrier_instances, b.barriers.size());
    if (!b.balanced) ++unbalanced;
  }
  if (o.json) {
    nlohmann::json j = summary_json(*t, c, verdict);
    j["ok"] = true;
    j["file"] = o.file;
    j["blocks_recorded"] = d.blocks.size();
    j["phases_per_block"] = d.max_phases;
    j["unbalanced_blocks"] = unbalanced;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  std::cout << "file:     " << o.file << " (format v" << kTraceFormatVersion << ")\n";
  print_summary(std::cout, *t, c, verdict);
  std::cout << "decode:   " << d.blocks.size() << " blocks recorded, up to " << barrier_instances
            << " barrier instances and " << d.max_phases << " phases per block";
  if (unbalanced) std::cout << "; " << unbalanced << " blocks with threads at different barriers";
  std::cout << "\n";
  if (!verdict && find_lesson(t->config.lesson_id) == nullptr)
    std::cout << "note:     lesson '" << t->config.lesson_id
              << "' is not one of this build's lessons: no verdict\n";
  return kExitOk;
}

TS_CLI_COMMAND(inspect_cmd, "inspect", "Summarise a trace file: run, verdict, counters",
               [](CLI::App& sub) -> std::function<int()> {
                 auto o = std::make_shared<InspectOptions>();
                 sub.add_option("file", o->file, "A .tstrace file")->required();
                 sub.add_flag("--json", o->json, "Print one JSON object instead of text");
                 return [o] { return inspect(*o); };
               });

}  // namespace
}  // namespace ts::cli
