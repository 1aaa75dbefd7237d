// A small file browser in ImGui (no third-party dialog): folders first, then
// the files it opens (traces, performance reports); type a path or pick one. In save mode it
// suggests a name and asks before it replaces a file that exists.
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
            FileDialogMode mode = FileDialogMode::Open, const std::string& suggested = "") {
    open(start_dir, std::vector<std::string>{extension}, mode, suggested);
  }
  // Files with any of these extensions are listed; a save adds the first one.
  void open(const std::string& start_dir, std::vector<std::string> extensions,
            FileDialogMode mode = FileDialogMode::Open, const std::string& suggested = "");
  // Draws the dialog while open; returns true once when a file was chosen
  // (to save: the extension added if missing, a replacement confirmed).
  bool draw(std::string* chosen);
  bool is_open() const { return open_; }
  // The title of the next open() ("Open a trace or a performance report" when none is given).
  void set_title(std::string title) { title_ = std::move(title); }
  FileDialogMode mode() const { return mode_; }

 private:
  void list();
  bool listed(const std::filesystem::path& p) const;  // has one of the extensions
  void set_path(const std::string& path);
  FileDialogMode mode_ = FileDialogMode::Open;
  std::string title_, shown_title_;
  std::string confirm_replace_;  // a path that exists, shown with "Replace?"
  bool open_ = false;
  bool just_opened_ = false;
  std::filesystem::path dir_;
  std::vector<std::string> extensions_;
  std::vector<std::filesystem::directory_entry> entries_;
  std::string error_;
  char path_buf_[1024] = {};
};

}  // namespace ts::app
