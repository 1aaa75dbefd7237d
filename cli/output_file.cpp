#include "cli/output_file.hpp"

#include <filesystem>
#include <system_error>

namespace ts::cli {

namespace fs = std::filesystem;

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;
  const fs::path ra = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path rb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && ra == rb;
}

std::optional<std::string> check_output(const std::string& out,
                                        const std::vector<std::string>& inputs, bool force) {
  for (const auto& in : inputs)
    if (same_file(out, in))
      return "the output " + out + " is the input " + in +
             ": writing it would destroy what is being read; choose another output file";
  std::error_code ec;
  const fs::file_status st = fs::status(out, ec);  // follows links: their target counts
  if (!force && fs::is_regular_file(st)) return out + " exists; add --force to overwrite it";
  return std::nullopt;
}

}  // namespace ts::cli
