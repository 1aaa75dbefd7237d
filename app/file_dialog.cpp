#include "app/file_dialog.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstring>

namespace ts::app {

namespace fs = std::filesystem;

void FileDialog::open(const std::string& start_dir, const std::string& extension) {
  std::error_code ec;
  dir_ = start_dir.empty() ? fs::current_path(ec) : fs::path(start_dir);
  extension_ = extension;
  open_ = true;
  just_opened_ = true;
  path_buf_[0] = 0;
  list();
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
    if (e.is_directory(ec2) || e.path().extension() == extension_) entries_.push_back(e);
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
  if (just_opened_) {
    ImGui::OpenPopup("Open a trace file");
    just_opened_ = false;
  }
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(std::min(ds.x * 0.9f, 900.0f), std::min(ds.y * 0.8f, 640.0f)),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  bool picked = false;
  bool keep = true;
  if (ImGui::BeginPopupModal("Open a trace file", &keep)) {
    ImGui::TextWrapped("Folder: %s", dir_.string().c_str());
    if (ImGui::Button("Up") && dir_.has_parent_path()) {
      dir_ = dir_.parent_path();
      list();
    }
    ImGui::SameLine();
    ImGui::TextDisabled("folders and %s files", extension_.c_str());
    if (!error_.empty()) ImGui::TextColored(ImVec4(0.9f, 0.4f, 0.1f, 1), "%s", error_.c_str());
    const float footer = ImGui::GetFrameHeightWithSpacing() * 2.2f;
    ImGui::BeginChild("files", ImVec2(0, -footer), true);
    fs::path go_into;
    for (const auto& e : entries_) {
      std::error_code ec;
      const bool is_dir = e.is_directory(ec);
      const std::string label = (is_dir ? "[dir]  " : "       ") + e.path().filename().string();
      if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_AllowDoubleClick)) {
        if (is_dir) {
          go_into = e.path();
        } else {
          std::strncpy(path_buf_, e.path().string().c_str(), sizeof path_buf_ - 1);
          if (ImGui::IsMouseDoubleClicked(0)) picked = true;
        }
      }
    }
    ImGui::EndChild();
    if (!go_into.empty()) {
      dir_ = go_into;
      list();
    }
    ImGui::SetNextItemWidth(-ImGui::CalcTextSize("Open  Cancel").x - 40);
    if (ImGui::InputText("##path", path_buf_, sizeof path_buf_,
                         ImGuiInputTextFlags_EnterReturnsTrue))
      picked = true;
    ImGui::SameLine();
    if (ImGui::Button("Open")) picked = true;
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) keep = false;
    if (picked && path_buf_[0]) {
      *chosen = path_buf_;
      keep = false;
    } else {
      picked = false;
    }
    if (!keep) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
  if (!keep) open_ = false;
  return picked;
}

}  // namespace ts::app
