// Runs the built tilescope-cli as a user runs it, for the tests that check
// what it prints and how it exits. TS_CLI_PATH is defined only where the CLI
// is built; without it there is no run_cli and tests skip.
#pragma once

#ifdef TS_CLI_PATH
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ts::testing {

struct CliRun {
  int code = -1;    // exit code, -1 when it did not exit normally
  std::string out;  // stdout, with stderr merged in when asked
};

// The CLI under test: the one built beside the tests, or TS_TEST_CLI's (to
// run the same tests against another build, e.g. the one before a fix).
inline std::string cli_path() {
  const char* other = std::getenv("TS_TEST_CLI");
  return other && *other ? other : TS_CLI_PATH;
}

// `tilescope-cli <args>`; with `with_stderr` stderr is merged into `out`,
// otherwise it is discarded.
inline CliRun run_cli(const std::string& args, bool with_stderr) {
  CliRun r;
  const std::string cmd = "'" + cli_path() + "' " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace ts::testing
#endif
