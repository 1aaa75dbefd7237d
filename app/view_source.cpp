// Source: the kernel's real header (the code that ran), read at run time from
// the source tree (TS_SOURCE_DIR) or next to the program; the line of the
// current event highlighted, each barrier line marked on or off.
#include <imgui.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/palette.hpp"
#include "app/view.hpp"

namespace ts::app {

class SourceView final : public View {
 public:
  const char* name() const override { return "Source"; }
  Slot slot() const override { return Slot::RightLower; }
  int order() const override { return 0; }

  void draw(AppState& s) override {
    const std::string id = s.has_trace() ? s.trace().config.variant : s.request.variant;
    const Variant* v = find_variant(id);
    if (!v) {
      ImGui::TextDisabled("No lesson.");
      return;
    }
    load(v);
    if (!error_.empty()) {
      ImGui::TextWrapped("%s", error_.c_str());
      return;
    }
    const uint32_t mask = s.has_trace() ? s.trace().config.barrier_mask : s.request.barrier_mask;
    const Event* e = s.has_trace() ? s.replay->last_event() : nullptr;
    const int current = e ? int(e->line) : -1;
    ImGui::TextDisabled("%s  -  %s()", v->source_file, v->function);
    const Palette& pal = palette(s.present.theme);
    ImGui::BeginChild("##code", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    if (s.present.mono_font) ImGui::PushFont(static_cast<ImFont*>(s.present.mono_font));
    const float lh = ImGui::GetTextLineHeight();
    // Show the kernel's function, not the whole header: from its line to the next blank-brace end.
    for (int i = first_; i <= last_ && i < int(lines_.size()); ++i) {
      const int line = i + 1;
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const BarrierInfo* bar = nullptr;
      for (const BarrierInfo& b : v->barriers)
        if (b.line == line) bar = &b;
      if (line == current) {
        ImGui::GetWindowDrawList()->AddRectFilled(
            p, ImVec2(p.x + ImGui::GetContentRegionAvail().x + 2000, p.y + lh),
            okabe_ito::kSkyBlue.abgr(90));
        if (line != scrolled_to_) {
          ImGui::SetScrollHereY(0.4f);
          scrolled_to_ = line;
        }
      }
      char num[16];
      std::snprintf(num, sizeof num, "%4d ", line);
      ImGui::TextColored(
          ImVec4(to_f(pal.text_dim.r), to_f(pal.text_dim.g), to_f(pal.text_dim.b), 1), "%s", num);
      ImGui::SameLine(0, 0);
      if (bar && s.present.show_barrier_lines) {
        const bool on = (mask >> (bar->id - 1)) & 1u;
        const Rgb c = on ? okabe_ito::kGreen : okabe_ito::kVermillion;
        ImGui::TextColored(ImVec4(to_f(c.r), to_f(c.g), to_f(c.b), 1), "%s",
                           on ? "[on] " : "[OFF]");
        ImGui::SameLine(0, 4);
        if (!on) {
          ImGui::TextDisabled("%s", lines_[size_t(i)].c_str());
          const ImVec2 q = ImGui::GetItemRectMin(), q2 = ImGui::GetItemRectMax();
          ImGui::GetWindowDrawList()->AddLine(ImVec2(q.x, (q.y + q2.y) * 0.5f),
                                              ImVec2(q2.x, (q.y + q2.y) * 0.5f), c.abgr(), 1.5f);
          continue;
        }
      }
      ImGui::TextUnformatted(lines_[size_t(i)].c_str());
    }
    if (s.present.mono_font) ImGui::PopFont();
    ImGui::EndChild();
  }

 private:
  void load(const Variant* v) {
    if (v == loaded_) return;
    loaded_ = v;
    lines_.clear();
    error_.clear();
    scrolled_to_ = -1;
    namespace fs = std::filesystem;
    const fs::path candidates[] = {fs::path(TS_SOURCE_DIR) / v->source_file,
                                   fs::path("share/tilescope") / v->source_file,
                                   fs::path(v->source_file)};
    for (const fs::path& p : candidates) {
      std::ifstream f(p);
      if (!f) continue;
      std::string line;
      while (std::getline(f, line))
        lines_.push_back(line);
      break;
    }
    if (lines_.empty()) {
      error_ = std::string("The kernel's source (") + v->source_file +
               ") was not found next to the program or in " TS_SOURCE_DIR ".";
      return;
    }
    // The function's own lines: from the template line before its name to its closing brace.
    first_ = 0;
    last_ = int(lines_.size()) - 1;
    const std::string sig = std::string(v->function) + "(";
    for (int i = 0; i < int(lines_.size()); ++i)
      if (lines_[size_t(i)].find(sig) != std::string::npos &&
          lines_[size_t(i)].find("TS_DEVICE") != std::string::npos) {
        first_ = i;
        while (first_ > 0 && lines_[size_t(first_) - 1].rfind("template", 0) == 0)
          --first_;
        while (first_ > 0 && lines_[size_t(first_) - 1].rfind("//", 0) == 0)
          --first_;
        for (int j = i; j < int(lines_.size()); ++j)
          if (lines_[size_t(j)] == "}") {
            last_ = j;
            break;
          }
        break;
      }
  }

  const Variant* loaded_ = nullptr;
  std::vector<std::string> lines_;
  std::string error_;
  int first_ = 0, last_ = 0, scrolled_to_ = -1;
};

TS_REGISTER_VIEW(SourceView);

}  // namespace ts::app
