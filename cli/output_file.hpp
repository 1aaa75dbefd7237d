// Before a command writes a file: never onto one of its inputs, never over an
// existing file unless the user said --force. Special files (/dev/null, a
// terminal) are not "existing files": writing to them loses nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ts::cli {

// Whether two paths name the same file: the same inode when both exist, else
// the same resolved path (links and ".." followed).
bool same_file(const std::string& a, const std::string& b);

// nullopt when `out` may be written; else the usage error, naming --force
// where that is the way out.
std::optional<std::string> check_output(const std::string& out,
                                        const std::vector<std::string>& inputs, bool force);

}  // namespace ts::cli
