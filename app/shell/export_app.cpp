// The app's side of an export: the replay placed at each frame's position,
// the frame taken after it is rendered, --record's loop (export.cpp encodes).
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/core/outputs.hpp"
#include "app/shell/app.hpp"

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
  r.output.inputs = window_inputs(s);  // whoever asked: never over a file being read
  r.from = std::min(r.from, s.replay->size());
  r.to = std::min(r.to, s.replay->size());
  export_error_.clear();
  if (!exporter_.start(r, error)) return false;
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

ExportPanels App::frame_panels(std::string* title) const {
  // An export's frames (and, scripted, the frames before them, so that the
  // slide's layout has settled): what the export asks for.
  if (exporter_.active() && (export_capture_ || opt_.scripted())) {
    *title = exporter_.request().title;
    return exporter_.request().panels;
  }
  // Scripted: --panels and --title shape the screenshot as the recording.
  ExportPanels p = ExportPanels::Window;
  if (opt_.scripted() && export_panels_for(opt_.record_panels, &p)) {
    *title = opt_.record_title;
    return p;
  }
  title->clear();
  return ExportPanels::Window;
}

void App::export_after_render(int fw, int fh) {
  if (!export_capture_ || !exporter_.active()) return;
  AppState& s = state_;
  // The frame is the panels asked for, drawn to fill the window (app/export/slide.hpp).
  std::string err;
  if (!exporter_.capture(fw, fh, &err)) {
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
  if (!export_panels_for(opt_.record_panels, &req.panels)) req.panels = ExportPanels::Window;
  req.title = opt_.record_title;
  req.output = window_output_options(s, opt_.force);
  req.output.force_hint = "add --force to overwrite it";
  // Every file of the export checked before a frame is drawn: an input, or a
  // file there without --force, is a usage error (exit 2), as the CLI's -o.
  for (const std::string& f : export_files(req))
    if (auto e = check_output(f, req.output)) {
      *error = "error: --record: " + *e;
      s.option_error = *e;
      return false;
    }
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
