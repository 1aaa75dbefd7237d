// A scratch folder that a test owns (removed when it ends) and whole-file
// reads, for the tests of what either program reads and writes.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ts::test {

struct TempDir {
  std::filesystem::path path;
  // temp/<prefix><name>_<pid>, empty.
  TempDir(const std::string& prefix, const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             (prefix + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& n) const { return (path / n).string(); }
};

inline std::string read_all(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace ts::test
