// A small file browser in ImGui (no third-party dialog): folders first, then
// trace files; type a path or pick one. In save mode it suggests a name and
// asks before it replaces a file that exists.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ts::app {

enum class FileDialogMode { Open, Save };

class FileDialog {
 public:
  // `suggested`: the file name a save starts with (save mode only).
  void open(const std::string& start_dir, const std::string& extension,
            FileDialogMode mode = FileDialogMode::Open, const std::string& suggested = "");
  // Draws the dialog while open; returns true once when a file was chosen
  // (to save: the extension added if missing, a replacement confirmed).
  bool draw(std::string* chosen);
  bool is_open() const { return open_; }
  FileDialogMode mode() const { return mode_; }

 private:
  void list();
  void set_path(const std::string& path);
  FileDialogMode mode_ = FileDialogMode::Open;
  std::string confirm_replace_;  // a path that exists, shown with "Replace?"
  bool open_ = false;
  bool just_opened_ = false;
  std::filesystem::path dir_;
  std::string extension_;
  std::vector<std::filesystem::directory_entry> entries_;
  std::string error_;
  char path_buf_[1024] = {};
};

}  // namespace ts::app
