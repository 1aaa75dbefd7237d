// The bank and sector probe's measurements (scripts/bank_probe.sh on a GPU:
// docs/measurements/bank_probe_<gpu>.json) against the model: for every
// pattern, the lanes' offsets, widths and kind as the file records them go
// through serve_shared / serve_global (analysis/warp_access.hpp), and each of
// Nsight Compute's counters is compared exactly with the model's value (the
// counters of the other kinds must be 0: one warp instruction per launch).
//
//   std::string err;
//   auto f = read_bank_probe("docs/measurements/bank_probe_h200.json", &err);
//   std::fputs(bank_probe_table(*f, false).c_str(), stdout);  // the disagreements
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

struct ProbeCounter {
  std::string metric;  // Nsight Compute's name
  int64_t model = 0;
  int64_t measured = 0;
};

struct ProbeRow {
  int id = 0;
  std::string name, kind, kernel;  // "stride_2", "shared_ld", "probe_shared_ld_32"
  int bytes = 4;
  uint32_t mask = 0;
  bool measured = false;               // ncu profiled it (a partial run may leave some out)
  std::vector<ProbeCounter> counters;  // every counter the file holds for it
  bool agrees() const {
    for (const ProbeCounter& c : counters)
      if (c.model != c.measured) return false;
    return true;
  }
};

struct ProbeFile {
  std::string gpu, driver, ncu;
  bool partial = false;
  bool sass_checked = false, sass_ok = false;
  std::vector<ProbeRow> rows;
  int measured() const;
  int agreeing() const;  // measured rows whose every counter agrees
};

// The model's counters for one pattern: `kind` as in the file ("shared_ld",
// "shared_st", "shared_atom", "global_ld", "global_st", "global_red"), lane
// byte offsets of the active lanes (mask). Returns {} for an unknown kind.
std::vector<ProbeCounter> probe_model_counters(std::string_view kind, int bytes, uint32_t mask,
                                               const std::vector<uint64_t>& offsets);

// Reads the file (or the probe's --patterns-only table: no row measured) and
// fills every row's model values. nullopt and `error` when it cannot.
std::optional<ProbeFile> read_bank_probe(const std::string& path, std::string* error);
std::optional<ProbeFile> parse_bank_probe(std::string_view json_text, std::string* error);

// A table for the terminal: every counter that differs (all counters of
// every measured row with `all`), then a summary per kernel.
std::string bank_probe_table(const ProbeFile& f, bool all);

}  // namespace ts
