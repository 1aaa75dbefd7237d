#include "app/shell/settings.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // ImGuiSettingsHandler

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "app/core/jobs.hpp"
#include "app/shell/fonts_themes.hpp"
#include "app/shell/layout.hpp"

namespace ts::app {

namespace {

void* settings_open(ImGuiContext*, ImGuiSettingsHandler* h, const char*) {
  return h->UserData;
}
void settings_read(ImGuiContext*, ImGuiSettingsHandler*, void* entry, const char* line) {
  auto* s = static_cast<AppState*>(entry);
  float f = 0;
  int i = 0;
  if (std::sscanf(line, "Left=%f", &f) == 1) s->layout.left = std::clamp(f, kMinSide, kMaxSide);
  if (std::sscanf(line, "Right=%f", &f) == 1) s->layout.right = std::clamp(f, kMinSide, kMaxSide);
  if (std::sscanf(line, "Bottom=%f", &f) == 1) s->layout.bottom = std::clamp(f, 0.12f, 0.5f);
  if (std::sscanf(line, "LeftTop=%f", &f) == 1) s->layout.left_top = std::clamp(f, 0.2f, 0.9f);
  if (std::sscanf(line, "RightTop=%f", &f) == 1) s->layout.right_top = std::clamp(f, 0.15f, 0.9f);
  if (std::sscanf(line, "RightTopRaces=%f", &f) == 1)
    s->layout.right_top_races = std::clamp(f, 0.15f, 0.9f);
  if (std::sscanf(line, "FontSize=%f", &f) == 1 && !s->present.font_pinned) {
    s->present.font_size = std::clamp(f, kMinFont, kMaxFont);
    s->present.font_rebuild = true;
  }
  if (std::sscanf(line, "Theme=%d", &i) == 1 && !s->present.theme_pinned)
    s->present.theme = i == 1 ? Theme::Light : Theme::Dark;
  // File > Recent lesson files, newest first.
  constexpr std::string_view recent = "RecentLessonFile=";
  if (std::string_view(line).substr(0, recent.size()) == recent) {
    std::vector<std::string>& r = s->lesson_watch.recent;
    const std::string path(line + recent.size());
    if (!path.empty() && r.size() < kRecentLessonFiles &&
        std::find(r.begin(), r.end(), path) == r.end())
      r.push_back(path);
  }
}
void settings_write(ImGuiContext*, ImGuiSettingsHandler* h, ImGuiTextBuffer* buf) {
  auto* s = static_cast<AppState*>(h->UserData);
  buf->appendf("[%s][Layout]\n", h->TypeName);
  buf->appendf("Left=%.3f\nRight=%.3f\nBottom=%.3f\n", s->layout.left, s->layout.right,
               s->layout.bottom);
  buf->appendf("LeftTop=%.3f\nRightTop=%.3f\nRightTopRaces=%.3f\n", s->layout.left_top,
               s->layout.right_top, s->layout.right_top_races);
  buf->appendf("FontSize=%.1f\nTheme=%d\n", s->present.font_size,
               s->present.theme == Theme::Light ? 1 : 0);
  for (const std::string& path : s->lesson_watch.recent)
    if (path.find('\n') == std::string::npos) buf->appendf("RecentLessonFile=%s\n", path.c_str());
  buf->append("\n");
}

}  // namespace

void add_settings_handler(AppState& s) {
  ImGuiSettingsHandler h;
  h.TypeName = "TileScope";
  h.TypeHash = ImHashStr("TileScope");
  h.ReadOpenFn = settings_open;
  h.ReadLineFn = settings_read;
  h.WriteAllFn = settings_write;
  h.UserData = &s;
  ImGui::GetCurrentContext()->SettingsHandlers.push_back(h);
}

}  // namespace ts::app
