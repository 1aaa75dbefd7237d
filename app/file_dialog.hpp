// A small file browser in ImGui (no third-party dialog): folders first, then
// trace files; type a path or pick one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ts::app {

class FileDialog {
 public:
  void open(const std::string& start_dir, const std::string& extension);
  // Draws the dialog while open; returns true once when a file was chosen.
  bool draw(std::string* chosen);
  bool is_open() const { return open_; }

 private:
  void list();
  bool open_ = false;
  bool just_opened_ = false;
  std::filesystem::path dir_;
  std::string extension_;
  std::vector<std::filesystem::directory_entry> entries_;
  std::string error_;
  char path_buf_[1024] = {};
};

}  // namespace ts::app
