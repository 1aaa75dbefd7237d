// The command line's subcommands register themselves here, one file each
// (cli/cmd_<name>.cpp), so that adding a command touches no other file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace ts::cli {

struct Command {
  std::string name;
  std::string help;
  // Adds the subcommand's options to `sub` and returns the action run when it
  // is chosen; the action returns the process exit code.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

std::vector<Command>& commands();

struct Registrar {
  explicit Registrar(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace ts::cli

#define TS_CLI_COMMAND(var, ...) \
  static const ::ts::cli::Registrar var(::ts::cli::Command{__VA_ARGS__})
