// The model against a bank probe measurement, on the CPU (no GPU needed):
//   bank_probe_model docs/measurements/bank_probe_h200.json         the disagreements
//   bank_probe_model docs/measurements/bank_probe_h200.json --all   every counter
// Exit status: 0 every measured pattern exact, 1 some differ, 2 unreadable.
#include <cstdio>
#include <cstring>
#include <string>

#include "io/bank_probe.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || (argc == 3 && std::strcmp(argv[2], "--all") != 0) || argc > 3) {
    std::fprintf(stderr, "usage: bank_probe_model FILE [--all]\n");
    return 2;
  }
  std::string err;
  const auto f = ts::read_bank_probe(argv[1], &err);
  if (!f) {
    std::fprintf(stderr, "bank_probe_model: %s\n", err.c_str());
    return 2;
  }
  std::fputs(ts::bank_probe_table(*f, argc == 3).c_str(), stdout);
  return f->agreeing() == f->measured() ? 0 : 1;
}
