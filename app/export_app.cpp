// The app's side of an export: the replay placed at each frame's position,
// the frame taken after it is rendered, --record's loop (export.cpp encodes).
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/app.hpp"

namespace ts::app {

namespace {
constexpr int kWarmupFrames = 3;  // the grid's tab to the front, layout settled
int export_warmup = 0;            // frames before the first capture (one export at a time)
}  // namespace

bool App::start_export(const ExportRequest& req, std::string* error) {
  AppState& s = state_;
  if (!s.replay) {
    *error = "no replay to export";
    return false;
  }
  ExportRequest r = req;
  r.from = std::min(r.from, s.replay->size());
  r.to = std::min(r.to, s.replay->size());
  export_error_.clear();
  if (!exporter_.start(r, error)) return false;
  if (r.panels != ExportPanels::Window) s.select_tab = "Grid";
  s.replay_ui.playing = false;
  s.exporting = true;
  export_warmup = kWarmupFrames;
  return true;
}

void App::export_before_frame() {
  const bool was = export_capture_;
  export_capture_ = false;
  if (!exporter_.active() || exporter_.done()) return;
  if (export_warmup > 0) {
    --export_warmup;
    return;
  }
  // Interactive: every other frame is the export's (no dialog drawn, not
  // shown); the others draw the progress. Scripted: all of them.
  export_capture_ = opt_.scripted() || !was;
}

bool App::export_frame_next() const {
  return exporter_.active() && !exporter_.done() && export_warmup == 0 && !export_capture_ &&
         !opt_.scripted();
}

void App::export_place_replay() {
  if (!exporter_.active() || exporter_.done()) return;
  // After the shortcuts: the keys do not move the replay under the export.
  state_.replay_ui.playing = false;
  state_.request_position(exporter_.next_position());
}

void App::export_after_render(int fw, int fh) {
  if (!export_capture_ || !exporter_.active()) return;
  AppState& s = state_;
  const ImVec2 disp = ImGui::GetIO().DisplaySize;
  const float sx = disp.x > 0 ? float(fw) / disp.x : 1, sy = disp.y > 0 ? float(fh) / disp.y : 1;
  float x0 = 0, y0 = 0, x1 = disp.x, y1 = disp.y;
  const ExportPanels panels = exporter_.request().panels;
  if (panels != ExportPanels::Window) {
    const float* g = s.slot_rects[int(Slot::Center)];
    x0 = g[0], y0 = g[1], x1 = g[0] + g[2], y1 = g[1] + g[3];
    const float* t = s.slot_rects[int(Slot::Bottom)];
    if (panels == ExportPanels::GridTimeline && t[2] > 0) {
      x0 = std::min(x0, t[0]), y0 = std::min(y0, t[1]);
      x1 = std::max(x1, t[0] + t[2]), y1 = std::max(y1, t[1] + t[3]);
    }
  }
  const int rect[4] = {int(std::lround(x0 * sx)), int(std::lround(y0 * sy)),
                       int(std::lround((x1 - x0) * sx)), int(std::lround((y1 - y0) * sy))};
  std::string err;
  if (!exporter_.capture(fw, fh, rect, &err)) {
    export_error_ = err;
    s.exporting = false;
    s.banner.show(Banner::Error, "Export failed: " + err);
    return;
  }
  if (!exporter_.done()) return;
  s.exporting = false;
  if (!exporter_.finish(&err)) {
    export_error_ = err;
    s.banner.show(Banner::Error, "Export failed: " + err);
    return;
  }
  char what[160];
  std::snprintf(what, sizeof what, ": %d frames, %dx%d, %.1f s", exporter_.frames_done(),
                exporter_.width(), exporter_.height(), exporter_.seconds_elapsed());
  s.banner.show(Banner::Info, "Exported " + exporter_.written() + what);
}

bool App::record_scripted(std::string* error) {
  AppState& s = state_;
  if (!s.replay) {
    *error = "no replay to record";
    return false;
  }
  Replay& r = *s.replay;
  const uint64_t here = r.position();
  ExportRequest req;
  req.path = opt_.record;
  if (!apply_position_spec(s, opt_.record_from, error, "--from")) return false;
  req.from = r.position();
  if (!apply_position_spec(s, opt_.record_to, error, "--to")) return false;
  req.to = r.position();
  r.seek(here);
  req.fps = opt_.record_fps;
  req.seconds = opt_.record_seconds;
  req.events_per_second = opt_.record_speed;
  req.panels = opt_.record_panels == "grid"            ? ExportPanels::Grid
               : opt_.record_panels == "grid+timeline" ? ExportPanels::GridTimeline
                                                       : ExportPanels::Window;
  if (!start_export(req, error)) return false;
  while (exporter_.active()) {
    glfwPollEvents();
    frame();  // no swap: the frame is read from the back buffer, nobody watches
  }
  if (!export_error_.empty()) {
    *error = export_error_;
    return false;
  }
  std::printf("wrote %s: %d frames, %dx%d, %.1f s\n", exporter_.written().c_str(),
              exporter_.frames_done(), exporter_.width(), exporter_.height(),
              exporter_.seconds_elapsed());
  return true;
}

}  // namespace ts::app
