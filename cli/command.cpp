// The registry of subcommands (cli/command.hpp).
#include "cli/command.hpp"

namespace ts::cli {

std::vector<Command>& commands() {
  // A function-local static: registrars in other files run before main, in any order.
  static std::vector<Command> all;
  return all;
}

}  // namespace ts::cli
