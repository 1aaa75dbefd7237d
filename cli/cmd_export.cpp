// `tilescope-cli export <file> -o out.json`: Chrome trace JSON for Perfetto.
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/report.hpp"
#include "io/chrome_export.hpp"
#include "io/output_file.hpp"
#include "io/trace_file.hpp"

namespace ts::cli {
namespace {

struct ExportOptions {
  std::string file, out, lanes = "auto";
  bool no_accesses = false, force = false;
};

int export_trace(const ExportOptions& o) {
  std::string error;
  const auto t = load_trace(o.file, &error);
  if (!t) return failure("export", error, false);
  std::string out = o.out;
  if (out.empty()) {
    out = o.file;
    const auto dot = out.rfind('.');
    if (dot != std::string::npos && out.find('/', dot) == std::string::npos) out.resize(dot);
    out += ".json";
  }
  OutputOptions dest;
  dest.force = o.force;
  dest.inputs = {o.file};
  if (auto e = check_output(out, dest)) return usage_error("export", *e);
  ChromeExportOptions opt;
  opt.lanes = o.lanes == "warps"     ? ChromeExportOptions::Lanes::Warps
              : o.lanes == "threads" ? ChromeExportOptions::Lanes::Threads
                                     : ChromeExportOptions::Lanes::Auto;
  opt.accesses = !o.no_accesses;
  ChromeExportStats st;
  if (!write_output(
          out, dest, [&](std::ostream& os) { return write_chrome_trace(*t, os, opt, &st); },
          &error))
    return failure("export", error, false);
  std::cout << "wrote " << out << ": " << st.total() << " trace events (" << st.instants
            << " accesses and barrier events, " << st.phase_slices << " phase slices, "
            << st.barrier_slices << " barrier slices)\nopen it in https://ui.perfetto.dev or "
            << "chrome://tracing\n";
  return kExitOk;
}

TS_CLI_COMMAND(export_cmd, "export", "Export a trace file as Chrome trace JSON (Perfetto)",
               [](CLI::App& sub) -> std::function<int()> {
                 auto o = std::make_shared<ExportOptions>();
                 sub.add_option("file", o->file, "A .tstrace file")->required();
                 sub.add_option("-o,--output", o->out, "The JSON file (default: <file>.json)");
                 sub.add_option("--lanes", o->lanes,
                                "One track per warp, per thread, or auto (threads when a "
                                "block has at most 64)")
                     ->check(CLI::IsMember({"auto", "warps", "threads"}))
                     ->capture_default_str();
                 sub.add_flag("--no-accesses", o->no_accesses,
                              "Only phases and barriers: a much smaller file");
                 sub.add_flag("--force", o->force, "Overwrite the output file if it exists");
                 return [o] { return export_trace(*o); };
               });

}  // namespace
}  // namespace ts::cli
