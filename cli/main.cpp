// tilescope-cli: TileScope's lessons without a window. Every subcommand
// registers itself (cli/command.hpp); this file only parses and dispatches.
//   tilescope-cli list
//   tilescope-cli run matmul.tiled_square --n 17 --tile 4 --no-barrier 2 -o t.tstrace
//   tilescope-cli inspect t.tstrace
//   tilescope-cli export t.tstrace -o t.json      (open in https://ui.perfetto.dev)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "cli/command.hpp"
#include "cli/report.hpp"
#include "engine/lesson_child.hpp"
#include "engine/lesson_options.hpp"
#include "tilescope_version.hpp"  // generated: cmake/packaging.cmake

int main(int argc, char** argv) {
  // The child that runs a lesson file's code (engine/lesson_child.hpp).
  if (argc >= 2 && std::string_view(argv[1]) == ts::kLessonChildFlag)
    return ts::lesson_child_main(argc - 1, argv + 1);
  CLI::App app{
      "tilescope-cli: run TileScope's CUDA shared-memory lessons headless, record "
      "their traces and inspect or export them."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tilescope-cli ") + ts::build_info::kVersionLine,
                       "Print the version and exit");
  ts::use_readable_help(app);  // before the subcommands: they share it
  app.footer(
      "Exit codes: 0 done (a run with wrong output is still done), 1 could not do it (run "
      "failed, file unreadable or corrupt), 2 usage error, 3 `run --check` and the output was "
      "wrong, or `check` and a rule failed.");
  auto& all = ts::cli::commands();
  // Registration order across files is unspecified: show the core commands first.
  const std::string order[] = {"list", "run", "inspect", "export"};
  auto rank = [&](const ts::cli::Command& c) {
    auto it = std::find(std::begin(order), std::end(order), c.name);
    return std::make_pair(int(it - std::begin(order)), c.name);
  };
  std::sort(all.begin(), all.end(),
            [&](const auto& a, const auto& b) { return rank(a) < rank(b); });

  std::vector<std::pair<CLI::App*, std::function<int()>>> actions;
  for (auto& c : all) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    actions.emplace_back(sub, c.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and succeeds; every other parse error is a usage error,
    // said like the commands' own ("tilescope-cli run: error: ..."), as JSON
    // too when the command line asked for JSON.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::string who = "tilescope-cli";
    for (auto& [sub, action] : actions)
      if (sub->parsed()) who += " " + sub->get_name();
    std::fprintf(stderr, "%s: error: %s\nRun with --help for more information.\n", who.c_str(),
                 e.what());
    if (std::any_of(argv + 1, argv + argc,
                    [](const char* a) { return std::strcmp(a, "--json") == 0; }))
      std::cout << nlohmann::json{{"ok", false}, {"usage_error", true}, {"error", e.what()}}.dump(
                       2, ' ', false, nlohmann::json::error_handler_t::replace)
                << "\n";
    return ts::cli::kExitUsage;
  }
  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    try {
      const int rc = action();
      // What went to standard output must have arrived (`sass --json > /dev/full`).
      // stdio keeps no errno of a failed write it made while buffering: a flag.
      std::cout.flush();
      if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
        std::fprintf(stderr,
                     "tilescope-cli %s: cannot write the standard output: a write to it failed "
                     "(a full device, or a closed pipe)\n",
                     sub->get_name().c_str());
        return rc == ts::cli::kExitOk ? ts::cli::kExitFailed : rc;
      }
      return rc;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tilescope-cli %s: internal error: %s\n", sub->get_name().c_str(),
                   e.what());
      return ts::cli::kExitFailed;
    }
  }
  return ts::cli::kExitUsage;
}
