#include "app/export/export_dialog.hpp"

#include "app/core/outputs.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace ts::app {

bool ExportDialog::draw(AppState& s, const Exporter& running, ExportRequest* req, bool* cancel) {
  const bool show = s.export_dialog_open || running.active();
  if (!show) {
    was_open_ = false;
    return false;
  }
  const ImVec2 centre(ImGui::GetIO().DisplaySize.x * 0.5f, ImGui::GetIO().DisplaySize.y * 0.5f);
  const float em = ImGui::GetFontSize();
  if (running.active()) {
    // Frames are taken inside the render loop (they need the GL context);
    // every other frame draws this window and the others are the export's.
    // A plain window of a fixed size: a modal or an auto-sized window would be
    // "appearing" (drawn hidden) on each of these frames.
    ImGui::SetNextWindowPos(centre, ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    const ImGuiStyle& st = ImGui::GetStyle();
    const float h = ImGui::GetFrameHeight() + st.WindowPadding.y * 2 +
                    ImGui::GetTextLineHeightWithSpacing() * 2 +
                    ImGui::GetFrameHeightWithSpacing() * 2;
    ImGui::SetNextWindowSize(ImVec2(em * 26, h), ImGuiCond_Always);
    ImGui::Begin("Exporting the replay", nullptr,
                 ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings);
    const int done = running.frames_done(), total = std::max(1, running.frames_total());
    ImGui::Text("Writing %s", running.request().path.c_str());
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "%d of %d frames", done, total);
    ImGui::ProgressBar(float(done) / float(total), ImVec2(-1, 0), overlay);
    ImGui::Text("%.1f s", running.seconds_elapsed());
    // Tested on the press and by the rectangle: this window is absent from
    // the export's frames in between, so ImGui never sees it hovered.
    ImGui::Button("Cancel");
    if ((ImGui::IsMouseClicked(0) &&
         ImGui::IsMouseHoveringRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), false)) ||
        ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
      *cancel = true;
    ImGui::End();
    return false;
  }
  const char* title = "Export replay";
  if (!ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
  ImGui::SetNextWindowPos(centre, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  bool pressed = false;
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return false;
  const uint64_t size = s.replay ? s.replay->size() : 0;
  if (!was_open_) {  // a fresh dialog starts from the replay as it is now
    to_ = int(std::min<uint64_t>(size, uint64_t(INT32_MAX)));
    was_open_ = true;
  }
  ImGui::InputText("File (.gif, .mp4, .png = numbered sequence)", path_, sizeof path_);
  ImGui::RadioButton("Whole run", &range_, 0);
  ImGui::SameLine();
  ImGui::RadioButton("Current phase", &range_, 1);
  ImGui::SameLine();
  ImGui::RadioButton("From A to B", &range_, 2);
  if (range_ == 2) {
    const int hi = int(std::min<uint64_t>(size, uint64_t(INT32_MAX)));
    ImGui::SliderInt("A (event)", &from_, 0, hi);
    ImGui::SliderInt("B (event)", &to_, 0, hi);
  }
  ImGui::SliderInt("Frames per second", &fps_, 1, 50);
  ImGui::SliderFloat("Length (seconds)", &seconds_, 1, 60, "%.0f");
  ImGui::TextUnformatted("Panels");
  ImGui::SameLine();
  ImGui::RadioButton("Grid", &panels_, int(ExportPanels::Grid));
  ImGui::SameLine();
  ImGui::RadioButton("Grid + timeline", &panels_, int(ExportPanels::GridTimeline));
  ImGui::SameLine();
  ImGui::RadioButton("Whole window", &panels_, int(ExportPanels::Window));
  ImGui::InputTextWithHint("Title", "none (a line above the frames)", title_, sizeof title_);
  const int frames = export_frame_count(0, UINT64_MAX, fps_, seconds_, 0);
  ImGui::TextDisabled(
      "%d frames of %.0f x %.0f (the window's size)%s", frames, ImGui::GetIO().DisplaySize.x,
      ImGui::GetIO().DisplaySize.y,
      panels_ == int(ExportPanels::Window) ? "" : ": the panels alone fill it, no controls");
  if (!refused_.empty()) ImGui::TextColored(ImVec4(0.9f, 0.4f, 0.1f, 1), "%s", refused_.c_str());
  // Asked as the Save dialog asks: a file that exists is replaced only when confirmed.
  bool confirmed = false;
  if (!replace_.empty()) {
    ImGui::TextColored(ImVec4(0.9f, 0.6f, 0.0f, 1), "Replace %s?", replace_.c_str());
    confirmed = ImGui::Button("Replace it");
    ImGui::SameLine();
    if (ImGui::Button("Keep it, choose another name")) replace_.clear();
    ImGui::SameLine();
  }
  if (((replace_.empty() && ImGui::Button("Export")) || confirmed) && s.replay) {
    Replay& r = *s.replay;
    req->path = path_;
    req->fps = fps_;
    req->seconds = seconds_;
    req->panels = ExportPanels(panels_);
    req->title = title_;
    if (range_ == 0) {
      req->from = 0, req->to = r.size();
    } else if (range_ == 1) {
      req->to = r.phase_step(r.position(), true, s.selection.block);
      req->from = r.phase_step(req->to, false, s.selection.block);
    } else {
      req->from = uint64_t(std::max(0, from_)), req->to = uint64_t(std::max(0, to_));
    }
    req->from = std::min(req->from, r.size()), req->to = std::min(req->to, r.size());
    const std::vector<std::string> files = export_files(*req);
    std::string why;
    const WriteCheck c = confirmed ? WriteCheck::Write : check_window_output(s, files, &why);
    refused_ = c == WriteCheck::Refuse ? why : "";
    if (c == WriteCheck::Ask)
      replace_ = files.size() == 1 ? files.front() : files.front() + " .. " + files.back();
    if (c == WriteCheck::Write) {
      req->output.force = confirmed;
      replace_.clear();
      s.export_dialog_open = false;
      pressed = true;
      ImGui::CloseCurrentPopup();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Close")) {
    replace_.clear();
    refused_.clear();
    s.export_dialog_open = false;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
  return pressed;
}

}  // namespace ts::app
