#include "app/shell/file_dialog.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstring>

namespace ts::app {

namespace fs = std::filesystem;

void FileDialog::open(const std::string& start_dir, std::vector<std::string> extensions,
                      FileDialogMode mode, const std::string& suggested) {
  std::error_code ec;
  dir_ = start_dir.empty() ? fs::current_path(ec) : fs::path(start_dir);
  extensions_ = std::move(extensions);
  mode_ = mode;
  shown_title_ = !title_.empty()                ? title_
                 : mode == FileDialogMode::Save ? "Save the trace"
                                                : "Open a trace or a performance report";
  title_.clear();
  open_ = true;
  just_opened_ = true;
  confirm_replace_.clear();
  path_buf_[0] = 0;
  if (mode == FileDialogMode::Save && !suggested.empty()) set_path((dir_ / suggested).string());
  list();
}

void FileDialog::set_path(const std::string& path) {
  std::strncpy(path_buf_, path.c_str(), sizeof path_buf_ - 1);
  path_buf_[sizeof path_buf_ - 1] = 0;
  confirm_replace_.clear();
}

bool FileDialog::listed(const fs::path& p) const {
  return std::find(extensions_.begin(), extensions_.end(), p.extension().string()) !=
         extensions_.end();
}

void FileDialog::list() {
  entries_.clear();
  error_.clear();
  std::error_code ec;
  for (fs::directory_iterator it(dir_, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    const auto& e = *it;
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code ec2;
    if (e.is_directory(ec2) || listed(e.path())) entries_.push_back(e);
  }
  if (ec) error_ = "cannot list " + dir_.string() + ": " + ec.message();
  std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
    std::error_code e1, e2;
    const bool da = a.is_directory(e1), db = b.is_directory(e2);
    if (da != db) return da;
    return a.path().filename() < b.path().filename();
  });
}

bool FileDialog::draw(std::string* chosen) {
  if (!open_) return false;
  const bool save = mode_ == FileDialogMode::Save;
  const char* title = shown_title_.c_str();
  if (just_opened_) {
    ImGui::OpenPopup(title);
    just_opened_ = false;
  }
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(std::min(ds.x * 0.9f, 900.0f), std::min(ds.y * 0.8f, 640.0f)),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  bool picked = false;
  bool keep = true;
  if (ImGui::BeginPopupModal(title, &keep)) {
    ImGui::TextWrapped("Folder: %s", dir_.string().c_str());
    fs::path go_into;
    if (ImGui::Button("Up") && dir_.has_parent_path()) go_into = dir_.parent_path();
    ImGui::SameLine();
    std::string kinds;
    for (size_t i = 0; i < extensions_.size(); ++i)
      kinds += (i ? (i + 1 == extensions_.size() ? " and " : ", ") : "") + extensions_[i];
    ImGui::TextDisabled("folders and %s files", kinds.c_str());
    if (!error_.empty()) ImGui::TextColored(ImVec4(0.9f, 0.4f, 0.1f, 1), "%s", error_.c_str());
    const float footer = ImGui::GetFrameHeightWithSpacing() * 2.2f;
    ImGui::BeginChild("files", ImVec2(0, -footer), true);
    for (const auto& e : entries_) {
      std::error_code ec;
      const bool is_dir = e.is_directory(ec);
      const std::string label = (is_dir ? "[dir]  " : "       ") + e.path().filename().string();
      if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_AllowDoubleClick)) {
        if (is_dir) {
          go_into = e.path();
        } else {
          set_path(e.path().string());
          if (ImGui::IsMouseDoubleClicked(0)) picked = true;
        }
      }
    }
    ImGui::EndChild();
    if (!go_into.empty()) {
      dir_ = go_into;
      list();
      // Saving: the name stays, the folder follows the browsing.
      if (save && path_buf_[0]) set_path((dir_ / fs::path(path_buf_).filename()).string());
    }
    if (save && !confirm_replace_.empty()) {
      // Saving over a file that exists loses it: ask first.
      ImGui::TextColored(ImVec4(0.9f, 0.6f, 0.0f, 1), "%s exists.", confirm_replace_.c_str());
      if (ImGui::Button("Replace it")) picked = true;
      ImGui::SameLine();
      if (ImGui::Button("Keep it, choose another name")) confirm_replace_.clear();
      if (picked) {
        *chosen = confirm_replace_;
        keep = false;
      }
    } else {
      const char* action = save ? "Save" : "Open";
      ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Save  Cancel").x - 40);
      if (ImGui::InputText("##path", path_buf_, sizeof path_buf_,
                           ImGuiInputTextFlags_EnterReturnsTrue))
        picked = true;
      ImGui::SameLine();
      if (ImGui::Button(action)) picked = true;
      ImGui::SameLine();
      if (ImGui::Button("Cancel")) keep = false;
      if (picked && path_buf_[0]) {
        std::string path = path_buf_;
        if (save && !extensions_.empty() && !listed(path)) path += extensions_.front();
        if (save && fs::path(path).is_relative()) path = (dir_ / path).string();
        std::error_code ec;
        if (save && fs::exists(path, ec)) {
          confirm_replace_ = path;
          picked = false;
        } else {
          *chosen = path;
          keep = false;
        }
      } else {
        picked = false;
      }
    }
    if (!keep) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
  if (!keep) open_ = false;
  return picked;
}

}  // namespace ts::app
