// The window's outputs: see outputs.hpp.
#include "app/core/outputs.hpp"

#include <imgui.h>

#include <sys/stat.h>

namespace ts::app {

std::vector<std::string> window_inputs(const AppState& s) {
  std::vector<std::string> in = s.fixed_inputs;
  if (!s.result.source.empty() && s.result.source != "run") in.push_back(s.result.source);
  if (s.lecture.active() && !s.lecture.path.empty()) in.push_back(s.lecture.path);
  if (!s.perf_report_source.empty()) in.push_back(s.perf_report_source);
  return in;
}

OutputOptions window_output_options(const AppState& s, bool replace) {
  OutputOptions o;
  o.force = replace;
  o.inputs = window_inputs(s);
  return o;
}

WriteCheck check_window_output(const AppState& s, const std::vector<std::string>& paths,
                               std::string* why) {
  // Refusals that no confirmation lifts come first (an input, a folder).
  const OutputOptions replace = window_output_options(s, true);
  bool exists = false;
  for (const std::string& p : paths) {
    if (auto e = check_output(p, replace)) {
      *why = *e;
      return WriteCheck::Refuse;
    }
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      *why = "cannot write " + p + ": it is a directory";
      return WriteCheck::Refuse;
    }
    exists = exists || (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode));
  }
  return exists ? WriteCheck::Ask : WriteCheck::Write;
}

void ReplacePrompt::ask(std::string what, int action) {
  what_ = std::move(what);
  action_ = action;
  open_ = just_opened_ = true;
}

bool ReplacePrompt::draw(int* action) {
  if (!open_) return false;
  const char* title = "Replace the file?";
  if (just_opened_) {
    ImGui::OpenPopup(title);
    just_opened_ = false;
  }
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  bool replace = false;
  if (ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::Text("Replace %s?", what_.c_str());
    ImGui::TextDisabled("It exists; what it holds now is lost.");
    if (ImGui::Button("Replace")) replace = true;
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
      open_ = false;
    if (replace) open_ = false;
    if (!open_) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  } else {
    open_ = false;
  }
  if (replace) *action = action_;
  return replace;
}

}  // namespace ts::app
