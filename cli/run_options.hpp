// The options of every command that runs a lesson (run, races): variant,
// parameters, barriers, backend, schedule, skew, inputs and trace capacity,
// defined once so that their names, meanings and messages agree.
//
//   auto o = std::make_shared<LessonOptions>();
//   o->add_to(sub);                                  // in the command's setup
//   RunRequest req;
//   if (auto err = o->to_request("races", req)) return usage_error("races", *err);
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backend.hpp"

namespace ts::cli {

struct LessonOptions {
  std::string variant;
  int m = 0, k = 0, n = 0, tile = 0, length = 0, radius = 0, block = 0;
  std::vector<std::string> keep, drop;
  std::string backend = "auto", schedule = "lockstep", skew_warps = "odd", inputs = "int";
  uint64_t seed = 1, input_seed = 1;
  int skew_steps = 64, skew_ns = 0;
  uint64_t capacity = 8u << 20;

  // Adds the options to `sub`; the variant is a positional argument.
  void add_to(CLI::App& sub, bool variant_required = true);

  // Builds the request; nullopt when it can run, else a usage error message
  // (unknown variant or barrier, parameters out of range for the backend
  // that will run them, ...). Notes on ignored options go to stderr.
  std::optional<std::string> to_request(const char* cmd, RunRequest& req) const;

  // Which of these the user gave on the command line (set by add_to).
  CLI::Option *o_m = nullptr, *o_k = nullptr, *o_n = nullptr, *o_tile = nullptr,
              *o_length = nullptr, *o_radius = nullptr, *o_block = nullptr;
  CLI::Option *o_keep = nullptr, *o_drop = nullptr;
  CLI::Option *o_seed = nullptr, *o_skew_warps = nullptr, *o_skew_steps = nullptr;
};

// "odd", "even", "all", "none", a mask like "0xAA", or warp numbers "1,3".
std::optional<uint32_t> parse_warp_mask(const std::string& s);

}  // namespace ts::cli
