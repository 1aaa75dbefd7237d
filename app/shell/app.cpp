// The frame loop: what runs each frame and in which order. The parts live by
// concern: jobs.cpp (runs and trace files in the background), settings.cpp
// (imgui.ini), fonts_themes.cpp, shortcuts.cpp, menu.cpp (menu bar, banner),
// layout.cpp (slots, splitters, grid focus) and scripted.cpp (--screenshot).
#include "app/shell/app.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/compare/compare_mode.hpp"
#include "app/core/jobs.hpp"
#include "app/core/outputs.hpp"
#include "app/core/palette.hpp"
#include "app/export/slide.hpp"
#include "app/lecture/caption_strip.hpp"
#include "app/lecture/lecture.hpp"
#include "app/quiz/quiz.hpp"
#include "app/shell/menu.hpp"
#include "app/shell/settings.hpp"
#include "app/shell/shortcuts.hpp"
#include "io/input_file.hpp"
#include "io/perf_report.hpp"
#include "io/trace_file.hpp"

namespace ts::app {

App::App(GLFWwindow* window, Options opt) : window_(window), opt_(std::move(opt)) {
  views_ = make_views();
  AppState& s = state_;
  if (opt_.font_size > 0) {
    s.present.font_size = std::clamp(opt_.font_size, kMinFont, kMaxFont);
    s.present.font_pinned = true;
  }
  if (opt_.theme == "light") s.present.theme = Theme::Light;
  s.present.theme_pinned = !opt_.theme.empty() || opt_.scripted();
  if (opt_.scripted()) s.present.font_pinned = true;
  s.present.heatmap = opt_.heatmap;
  const char* const memory_modes[] = {"state",   "banks",      "conflicts",
                                      "sectors", "coalescing", "contention"};
  for (int m = 0; m < kMemoryColourModes; ++m)
    if (opt_.memory == memory_modes[m]) s.present.memory = MemoryColours(m);
  s.replay_ui.order_request =
      opt_.order == "recorded" ? ReplayOrder::AsRecorded : ReplayOrder::Lockstep;

  add_settings_handler(state_);
  if (!opt_.scripted()) {  // imgui.ini through the input layer (ImGui's own fopen would wait on a
                           // FIFO)
    std::string err;
    if (std::error_code ec; std::filesystem::exists(kIniFile, ec)) {
      if (auto text = read_input_text(kIniFile, {"window settings", 1 << 20}, &err))
        ImGui::LoadIniSettingsFromMemory(text->data(), text->size());
      else
        std::fprintf(stderr, "tilescope: note: settings not read: %s\n", err.c_str());
    }
  }

  // The lesson: parsed and checked by main() like tilescope-cli's; without
  // one, the catalogue's default (a tiled multiply whose size is not a
  // multiple of the tile, so padding shows).
  s.request = opt_.request;
  if (!find_lesson(s.request.lesson_id)) {
    const LessonInfo& v = default_lesson();
    s.request.lesson_id = v.id;
    s.request.params = v.defaults;
    s.request.barrier_mask = all_barriers(v);
  }
  if (opt_.select_block >= 0) s.selection.block = uint32_t(opt_.select_block);
  s.select_tab = opt_.tab;
  s.select_hazard = opt_.hazard;
  if (opt_.quiz_seed >= 0) {
    s.quiz.seed = uint64_t(opt_.quiz_seed);
    s.quiz.start_request = true;  // once the run is in
  }
  s.present.presenter = opt_.present;
  s.present.presenter_chosen = opt_.present || opt_.focus_grid;
  s.present.focus_grid = opt_.focus_grid;
  if (opt_.focus_grid) s.present.focus_auto = false;
  s.file_dialog_open = opt_.dialog == "open";
  s.save_dialog_open = opt_.dialog == "save";
  s.export_dialog_open = opt_.dialog == "export";
  s.lesson_watch.dialog_open = opt_.dialog == "lesson";
  // A header where a trace would be (tilescope my_kernel.hpp): opened as File >
  // Open lesson file opens it, once the window runs.
  if (is_lesson_file_path(opt_.trace_file)) {
    open_lesson_file(s, opt_.trace_file);
    opt_.trace_file.clear();
  }
  // A performance report goes to the Performance panel, also where a trace would
  // (tilescope report.json); the lesson then runs as without a file.
  if (is_perf_report_path(opt_.trace_file)) {
    if (opt_.perf_report.empty()) opt_.perf_report = opt_.trace_file;
    opt_.trace_file.clear();
  }
  s.open_perf_report_request = opt_.perf_report;
  s.perf_family_request = opt_.perf_family;
  for (const std::string& in : {opt_.trace_file, opt_.perf_report, opt_.lecture})
    if (!in.empty()) s.fixed_inputs.push_back(in);  // never written over (app/core/outputs.hpp)

  // --compare: the second run starts with the first (app/compare/compare_mode.hpp).
  if (!opt_.compare_error.empty()) s.banner.show(Banner::Error, opt_.compare_error);
  if (opt_.lesson_file_failure) {  // the Source panel shows the errors at their lines
    show_lesson_file_failure(s, *opt_.lesson_file_failure);
  }
  if (!opt_.lesson_file_watch.empty()) watch_lesson_file(s, opt_.lesson_file_watch);
  if (opt_.compare && !opt_.scripted()) request_compare(s, *opt_.compare);
  if (opt_.dialog == "compare") open_compare_dialog(s);

  // A lecture: its step's run replaces the lesson's (main() checked the file).
  if (!opt_.lecture.empty() && open_lecture(s, opt_.lecture, opt_.lecture_step - 1, nullptr))
    opt_.trace_file.clear();
  if (!opt_.scripted() && !s.lecture.active()) {
    if (!opt_.trace_file.empty())
      start_load(s, budget_, opt_.trace_file, opt_.scripted());
    else
      s.run_requested = true;
  }
  last_time_ = glfwGetTime();
}

App::~App() {
  // A run in flight finishes on its own thread; wait so nothing outlives us.
  if (state_.job.active()) state_.job.future.wait();
  if (state_.lesson_watch.compiling()) state_.lesson_watch.check.wait();
  save_settings();
}

void App::save_settings() {
  // As ImGui would, but through the output layer: complete or not at all.
  ImGuiIO& io = ImGui::GetIO();
  io.WantSaveIniSettings = false;
  if (opt_.scripted()) return;
  size_t n = 0;
  const char* text = ImGui::SaveIniSettingsToMemory(&n);
  OutputOptions o;
  o.force = true;
  std::string err;
  if (!write_output(kIniFile, o, std::string_view(text, n), &err))
    std::fprintf(stderr, "tilescope: note: settings not saved: %s\n", err.c_str());
}

void App::apply_requests(double dt) {
  AppState& s = state_;
  if (s.run_requested) start_run(s, budget_, opt_.scripted());
  if (is_lesson_file_path(s.open_trace_request)) {  // File > Open, a drop, Recent
    open_lesson_file(s, s.open_trace_request);
    s.open_trace_request.clear();
  }
  update_lesson_watch(s, budget_, opt_.scripted(), glfwGetTime());
  if (s.lesson_watch.dialog_open) {  // File > Open lesson...: where the last one was
    namespace fs = std::filesystem;
    const std::string& last =
        !s.lesson_watch.path.empty()
            ? s.lesson_watch.path
            : (s.lesson_watch.recent.empty() ? std::string() : s.lesson_watch.recent.front());
    std::error_code ec;
    const std::string dir = !last.empty() && fs::is_directory(fs::path(last).parent_path(), ec)
                                ? fs::path(last).parent_path().string()
                                : "";
    dialog_.set_title("Open a lesson file (your kernel: a .cu, or the form of lessons/*.hpp)");
    dialog_.open(dir, std::vector<std::string>{".cu", ".hpp", ".h", ".cuh"});
    s.lesson_watch.dialog_open = false;
  }
  if (is_lecture_path(s.open_trace_request)) {  // File > Open or a drop
    s.lecture.open_request = s.open_trace_request;
    s.open_trace_request.clear();
  }
  update_lecture(s, budget_, opt_.scripted(), false);
  if (!s.open_trace_request.empty()) {
    start_load(s, budget_, s.open_trace_request, opt_.scripted());
    s.open_trace_request.clear();
  }
  if (s.file_dialog_open) {
    dialog_.open(
        "", std::vector<std::string>{kTraceFileExtension, kPerfReportExtension, kLectureExtension});
    s.file_dialog_open = false;
  }
  if (s.save_dialog_open) {
    if (s.has_trace())
      dialog_.open("", kTraceFileExtension, FileDialogMode::Save, suggested_trace_name(s.trace()));
    s.save_dialog_open = false;
  }
  update_quiz(s);
  if (!s.replay) {
    s.replay_ui.position_request.reset();
    s.replay_ui.event_request.reset();
    return;
  }
  Replay& r = *s.replay;
  if (r.order() != s.replay_ui.order_request) r.set_order(s.replay_ui.order_request);
  if (s.replay_ui.event_request) {
    r.seek(r.position_after(*s.replay_ui.event_request));
    s.replay_ui.event_request.reset();
  }
  if (s.replay_ui.position_request) {
    r.seek(*s.replay_ui.position_request);
    s.replay_ui.position_request.reset();
  }
  if (s.replay_ui.playing) {
    s.replay_ui.carry += dt * s.replay_ui.speed;
    const double steps = std::floor(s.replay_ui.carry);
    s.replay_ui.carry -= steps;
    const uint64_t target = std::min<uint64_t>(r.size(), r.position() + uint64_t(steps));
    r.seek(target);
    if (target >= r.size()) s.replay_ui.playing = false;
  }
}

bool App::needs_continuous_redraw() const {
  return state_.replay_ui.playing || state_.exporting || state_.job.active() || state_.busy ||
         state_.lesson_watch.compiling() || state_.lesson_watch.rerun_pending ||
         slots_.measuring() || (!state_.banner.text.empty() && state_.banner.kind == Banner::Info);
}

bool App::frame() {
  AppState& s = state_;
  const double now = glfwGetTime();
  const double dt = std::min(0.25, now - last_time_);
  last_time_ = now;
  if (ImGui::GetIO().WantSaveIniSettings) save_settings();

  float xs = 1, ys = 1;
  glfwGetWindowContentScale(window_, &xs, &ys);
  if (xs != s.present.content_scale && xs > 0) {
    s.present.content_scale = xs;
    s.present.font_rebuild = true;
  }
  // Fullscreen on the monitor the window is on (F11), back to the old place after.
  const bool is_full = glfwGetWindowMonitor(window_) != nullptr;
  if (s.present.fullscreen != is_full) {
    if (s.present.fullscreen) {
      glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
      glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
      GLFWmonitor* mon = glfwGetPrimaryMonitor();
      const GLFWvidmode* mode = mon ? glfwGetVideoMode(mon) : nullptr;
      if (mode)
        glfwSetWindowMonitor(window_, mon, 0, 0, mode->width, mode->height, mode->refreshRate);
      else
        s.present.fullscreen = false;
    } else {
      glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3],
                           0);
    }
  }
  rebuild_fonts(s.present);
  apply_theme(s.present, style_);
  poll_job(s, false);

  export_before_frame();  // decides whether this frame is the export's
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // Scripted pictures and exported frames show no tooltip from wherever the pointer is.
  if (opt_.scripted() || export_capture_) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
  handle_shortcuts(s, dialog_.is_open(), budget_.is_open());
  export_place_replay();
  apply_requests(dt);
  s.busy = false;   // views with work in flight set it again in update() or draw()
  s.drawn.clear();  // the grid refills it when its tab is in front
  s.grid_facts.clear();
  std::fill(std::begin(s.lanes_rect), std::end(s.lanes_rect), 0.0f);  // so does the timeline
  s.plot_marks.clear();                                               // and the performance panel
  s.race_hint.clear();                                                // and the race hint
  for (auto& r : s.slot_rects)                                        // and the layout
    std::fill(std::begin(r), std::end(r), 0.0f);
  std::fill(std::begin(s.grid_rect), std::end(s.grid_rect), 0.0f);
  for (auto& v : views_)
    v->update(s);

  std::string title;
  const ExportPanels panels = frame_panels(&title);
  if (panels != ExportPanels::Window) {  // a slide: no menu, tabs, controls or side panels
    draw_slide(s, views_, SlideSpec{panels == ExportPanels::GridTimeline, title});
  } else {
    // Presenter mode: no menu bar either (P leaves it; the keys stay).
    if (!s.present.presenter) draw_menu(s);
    float top = s.present.presenter ? 0.0f : ImGui::GetFrameHeight();
    top += draw_title_line(s, title, top);
    const float banner_h = draw_banner(s, top, ImGui::GetIO().DisplaySize.x);
    slots_.draw(s, views_, top + banner_h);
    draw_caption_strip(s, views_);  // the caption, question or narration beside the grid
  }
  std::string chosen;
  if (dialog_.draw(&chosen)) {
    if (dialog_.mode() == FileDialogMode::Open) {
      s.open_trace_request = chosen;
    } else if (s.has_trace()) {
      // The dialog asked before replacing a file; never over a file being read.
      const std::vector<uint8_t> bytes = serialize_trace(s.trace());
      std::string err;
      if (write_output(chosen, window_output_options(s, true),
                       std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                       &err))
        s.banner.show(Banner::Info, "Saved the trace to " + chosen +
                                        " (open it on any machine: File > Open trace)");
      else
        s.banner.show(Banner::Error, "Cannot save the trace: " + err);
    }
  }
  budget_.draw(s);
  if (!export_capture_) {
    ExportRequest req;
    bool cancel = false;
    if (export_dialog_.draw(s, exporter_, &req, &cancel)) {
      std::string err;
      if (!start_export(req, &err)) s.banner.show(Banner::Error, "Cannot export: " + err);
    }
    if (cancel && exporter_.active()) {
      exporter_.cancel();
      s.exporting = false;
      s.banner.show(Banner::Info, "Export cancelled");
    }
  }

  ImGui::Render();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  glViewport(0, 0, fw, fh);
  const Palette& p = palette(s.present.theme);
  glClearColor(to_f(p.background.r), to_f(p.background.g), to_f(p.background.b), 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  export_after_render(fw, fh);
  return !s.quit_requested;
}

}  // namespace ts::app
