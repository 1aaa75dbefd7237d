#include "app/app.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>  // settings handler for our layout in imgui.ini
#include <stb/stb_image_write.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "app/palette.hpp"
#include "kernels/perf.hpp"
#include "kernels/reference.hpp"
#include "trace/stale_reads.hpp"
#include "trace/trace_file.hpp"

namespace ts::app {

namespace {

constexpr float kMinFont = 10.0f, kMaxFont = 40.0f;
constexpr size_t kStaleReadDetail = 512;  // stale reads the race panel lists (all are counted)
constexpr float kMinSide = 0.12f, kMaxSide = 0.5f;  // a side column's share of the width

const char* kFontDirs[] = {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF",
                           "/usr/share/fonts/dejavu", "/usr/local/share/fonts"};

std::string find_font(const char* file) {
  for (const char* d : kFontDirs) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::path(d) / file;
    if (std::filesystem::exists(p, ec)) return p.string();
  }
  return {};
}

// The verdict of a trace from a file: recompute the reference from its inputs.
Verdict verdict_for(const Trace& t) {
  const Variant* v = find_variant(t.config.variant);
  if (!v) return {};
  std::vector<BufferData> inputs;
  const BufferData* out = nullptr;
  for (const BufferData& b : t.buffers) {
    if (b.is_output)
      out = &b;
    else
      inputs.push_back(b);
  }
  if (!out) return {};
  const BufferData want = reference_output(*v, t.config.params, inputs);
  return check_output(*v, t.config.params, *out, want);
}

std::unique_ptr<JobOutput> run_job(RunRequest req) {
  auto out = std::make_unique<JobOutput>();
  try {
    out->result = ts::run(req);
    out->ok = out->result.ok;
    out->error = out->result.error;
    out->source = "run";
    if (out->ok) {
      out->trace = std::make_shared<const Trace>(std::move(out->result.trace));
      out->result.trace = Trace{};
      // One definition of a stale read for the grid, --position stale and the race panel.
      out->replay = std::make_unique<Replay>(
          out->trace, std::make_shared<const StaleReadReport>(
                          find_stale_reads(*out->trace, req.inputs, kStaleReadDetail)));
    }
  } catch (const std::exception& e) {
    out->ok = false;
    out->error = std::string("the run failed: ") + e.what();
  }
  return out;
}

std::unique_ptr<JobOutput> load_job(std::string path) {
  auto out = std::make_unique<JobOutput>();
  out->source = path;
  try {
    std::string err;
    auto t = load_trace(path, &err);
    if (!t) {
      out->error = "Cannot open " + path + ": " + err;
      return out;
    }
    out->result.verdict = verdict_for(*t);
    out->result.backend_note =
        std::string("trace file recorded on ") +
        (t->config.device_name.empty() ? to_string(t->config.backend) : t->config.device_name);
    out->trace = std::make_shared<const Trace>(std::move(*t));
    out->replay = std::make_unique<Replay>(
        out->trace, std::make_shared<const StaleReadReport>(
                        find_stale_reads(*out->trace, InputKind::SmallIntegers, kStaleReadDetail)));
    out->ok = true;
  } catch (const std::exception& e) {
    out->error = "Cannot open " + path + ": " + e.what();
  }
  return out;
}

// imgui.ini: our layout and presentation under [TileScope][Layout].
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
}
void settings_write(ImGuiContext*, ImGuiSettingsHandler* h, ImGuiTextBuffer* buf) {
  auto* s = static_cast<AppState*>(h->UserData);
  buf->appendf("[%s][Layout]\n", h->TypeName);
  buf->appendf("Left=%.3f\nRight=%.3f\nBottom=%.3f\n", s->layout.left, s->layout.right,
               s->layout.bottom);
  buf->appendf("LeftTop=%.3f\nRightTop=%.3f\nRightTopRaces=%.3f\n", s->layout.left_top,
               s->layout.right_top, s->layout.right_top_races);
  buf->appendf("FontSize=%.1f\nTheme=%d\n\n", s->present.font_size,
               s->present.theme == Theme::Light ? 1 : 0);
}

// "matmul.tiled_square_n10_tile4.tstrace", "..._without-barrier-2.tstrace": a
// name that says what the trace holds, so that saved traces do not collide.
std::string suggested_trace_name(const Trace& t) {
  std::string name = t.config.variant.empty() ? "trace" : t.config.variant;
  if (const Variant* v = find_variant(t.config.variant)) {
    for (const NamedParam& p : used_params(v->uses, t.config.params))
      name.append("_").append(p.name).append(std::to_string(p.value));
    std::string removed;
    for (const BarrierInfo& b : v->barriers)
      if (!((t.config.barrier_mask >> (b.id - 1)) & 1u))
        removed.append(removed.empty() ? "" : "-").append(std::to_string(b.id));
    if (!removed.empty()) name.append("_without-barrier-").append(removed);
  }
  if (t.config.backend == BackendKind::Cuda) name += "_gpu";
  return name + kTraceFileExtension;
}

}  // namespace

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
  s.replay_ui.order_request =
      opt_.order == "recorded" ? ReplayOrder::AsRecorded : ReplayOrder::Lockstep;

  ImGuiSettingsHandler h;
  h.TypeName = "TileScope";
  h.TypeHash = ImHashStr("TileScope");
  h.ReadOpenFn = settings_open;
  h.ReadLineFn = settings_read;
  h.WriteAllFn = settings_write;
  h.UserData = &state_;
  ImGui::GetCurrentContext()->SettingsHandlers.push_back(h);
  if (!opt_.scripted()) ImGui::LoadIniSettingsFromDisk(ImGui::GetIO().IniFilename);

  // The lesson: parsed and checked by main() like tilescope-cli's; without
  // one, the catalogue's default (a tiled multiply whose size is not a
  // multiple of the tile, so padding shows).
  s.request = opt_.request;
  if (!find_variant(s.request.variant)) {
    const Variant* v = find_variant(Options::kDefaultLesson);
    if (!v && !catalogue().empty()) v = &catalogue()[0];
    if (v) {
      s.request.variant = v->id;
      s.request.params = v->defaults;
      s.request.barrier_mask = all_barriers(*v);
    }
  }
  if (opt_.select_block >= 0) s.selection.block = uint32_t(opt_.select_block);
  s.select_tab = opt_.tab;
  s.select_hazard = opt_.hazard;
  s.present.focus_grid = opt_.focus_grid;
  if (opt_.focus_grid) s.present.focus_auto = false;
  s.file_dialog_open = opt_.dialog == "open";
  s.save_dialog_open = opt_.dialog == "save";
  // A performance report goes to the Performance panel, also where a trace would
  // (tilescope report.json); the lesson then runs as without a file.
  if (is_perf_report_path(opt_.trace_file)) {
    if (opt_.perf_report.empty()) opt_.perf_report = opt_.trace_file;
    opt_.trace_file.clear();
  }
  s.open_perf_report_request = opt_.perf_report;

  if (!opt_.scripted()) {
    if (!opt_.trace_file.empty())
      start_load(opt_.trace_file);
    else
      s.run_requested = true;
  }
  last_time_ = glfwGetTime();
}

App::~App() {
  // A run in flight finishes on its own thread; wait so nothing outlives us.
  if (state_.job.active()) state_.job.future.wait();
}

void App::start_run() {
  AppState& s = state_;
  s.run_requested = false;
  const Variant* v = find_variant(s.request.variant);
  if (!v) {
    s.banner.show(Banner::Error, "Unknown lesson '" + s.request.variant + "'");
    return;
  }
  const CudaStatus& gpu = cuda_status();
  const bool use_gpu = s.request.backend != BackendChoice::Sim && gpu.usable;
  const DeviceLimits lim = use_gpu ? gpu.limits() : simulator_model().limits();
  if (auto err = validate(*v, s.request.params, lim)) {
    s.param_error = *err;
    s.banner.show(Banner::Error, "Not run: " + *err);
    return;
  }
  if (s.job.active()) {
    s.banner.show(Banner::Info, "A run is still in progress; wait for it to finish.");
    return;
  }
  if (!budget_.admit_run(s, opt_.scripted())) return;
  s.job.what = std::string(v->id);
  s.job.started = std::chrono::steady_clock::now();
  s.job.future = std::async(std::launch::async, run_job, s.request);
}

void App::start_load(const std::string& path) {
  AppState& s = state_;
  if (is_perf_report_path(path)) {  // from File > Open or a drop: the Performance panel reads it
    s.open_perf_report_request = path;
    return;
  }
  if (s.job.active()) {
    s.banner.show(Banner::Info, "Busy: wait for the current run to finish, then open the file.");
    return;
  }
  if (!budget_.admit_file(s, path, opt_.scripted())) return;
  s.job.what = "loading " + path;
  s.job.started = std::chrono::steady_clock::now();
  s.job.future = std::async(std::launch::async, load_job, path);
}

void App::poll_job(bool wait) {
  AppState& s = state_;
  if (!s.job.active()) return;
  if (!wait && s.job.future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  install(s.job.future.get());
}

void App::install(std::unique_ptr<JobOutput> out) {
  AppState& s = state_;
  if (!out || !out->ok) {
    // The last good result stays on screen.
    s.banner.show(Banner::Error, out ? out->error : std::string("the run failed"));
    return;
  }
  s.result.trace = out->trace;
  s.result.verdict = out->result.verdict;
  std::sort(s.result.verdict.wrong_cells.begin(), s.result.verdict.wrong_cells.end());
  s.result.backend_note = out->result.backend_note;
  s.result.faults = out->result.faults;
  s.result.source = out->source;
  ++s.result.generation;
  s.replay = std::move(out->replay);
  s.replay->set_order(s.replay_ui.order_request);
  s.replay->seek(0);
  s.replay_ui.playing = false;
  s.replay_ui.carry = 0;
  s.replay_ui.speed = std::max(20.0, double(s.replay->size()) / 60.0);
  if (s.selection.block >= s.replay->block_count()) s.selection.block = 0;
  s.selection.thread = -1;
  const Trace& t = *s.result.trace;
  if (t.truncated())
    s.banner.show(Banner::Warning,
                  "The trace was truncated: " + std::to_string(t.events_dropped) +
                      " events did not fit (needs " + std::to_string(t.events_needed()) +
                      "). The replay shows what was recorded; use smaller sizes to see all.");
  else if (out->source != "run")
    s.banner.show(Banner::Info, "Opened " + out->source + " (" + std::to_string(t.events.size()) +
                                    " events, " + t.config.variant + ")");
  else if (!s.result.faults.empty())
    s.banner.show(Banner::Warning, s.result.faults.front());
  else
    s.banner.clear();
  // A trace from a file: the lesson panel follows it.
  if (out->source != "run" && find_variant(t.config.variant)) {
    s.request.variant = t.config.variant;
    s.request.params = t.config.params;
    s.request.barrier_mask = t.config.barrier_mask;
  }
}

void App::apply_requests(double dt) {
  AppState& s = state_;
  if (s.run_requested) start_run();
  if (!s.open_trace_request.empty()) {
    start_load(s.open_trace_request);
    s.open_trace_request.clear();
  }
  if (s.file_dialog_open) {
    dialog_.open("", std::vector<std::string>{kTraceFileExtension, kPerfReportExtension});
    s.file_dialog_open = false;
  }
  if (s.save_dialog_open) {
    if (s.has_trace())
      dialog_.open("", kTraceFileExtension, FileDialogMode::Save, suggested_trace_name(s.trace()));
    s.save_dialog_open = false;
  }
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
  return state_.replay_ui.playing || state_.job.active() || state_.busy || focus_measuring_ ||
         (!state_.banner.text.empty() && state_.banner.kind == Banner::Info);
}

void App::handle_shortcuts() {
  AppState& s = state_;
  ImGuiIO& io = ImGui::GetIO();
  const bool ctrl = io.KeyCtrl, shift = io.KeyShift;
  auto pressed = [](int key, bool repeat = true) { return ImGui::IsKeyPressed(key, repeat); };
  // Font size: Ctrl + / Ctrl - / Ctrl 0 (GLFW key codes; '=' shares the '+' key).
  if (ctrl && (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD))) {
    s.present.font_size = std::min(kMaxFont, s.present.font_size + 2);
    s.present.font_rebuild = true;
  }
  if (ctrl && (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT))) {
    s.present.font_size = std::max(kMinFont, s.present.font_size - 2);
    s.present.font_rebuild = true;
  }
  if (ctrl && pressed(GLFW_KEY_0, false)) {
    s.present.font_size = 18;
    s.present.font_rebuild = true;
  }
  if (ctrl && !dialog_.is_open() && pressed(GLFW_KEY_O, false)) s.file_dialog_open = true;
  if (ctrl && !dialog_.is_open() && pressed(GLFW_KEY_S, false)) s.save_dialog_open = true;
  if (pressed(GLFW_KEY_F11, false)) s.present.fullscreen = !s.present.fullscreen;
  if (pressed(GLFW_KEY_F5, false)) s.run_requested = true;
  if (io.WantTextInput || ctrl || dialog_.is_open() || budget_.is_open())
    return;  // keys belong to the dialog
  if (pressed(GLFW_KEY_T, false))
    s.present.theme = s.present.theme == Theme::Dark ? Theme::Light : Theme::Dark;
  if (pressed(GLFW_KEY_H, false)) s.present.heatmap = !s.present.heatmap;
  if (pressed(GLFW_KEY_G, false)) {
    s.present.focus_grid = !s.present.focus_grid;
    s.present.focus_auto = false;  // the user's choice from now on
  }
  if (!s.replay) return;
  Replay& r = *s.replay;
  const uint64_t pos = r.position();
  auto go = [&](uint64_t p) {
    s.replay_ui.playing = false;
    s.request_position(p);
  };
  if (pressed(GLFW_KEY_SPACE, false)) {
    if (pos >= r.size()) s.request_position(0);
    s.replay_ui.playing = !s.replay_ui.playing;
  }
  if (pressed(GLFW_KEY_RIGHT)) go(shift ? std::min(r.size(), pos + 1) : r.warp_step(pos, true));
  if (pressed(GLFW_KEY_LEFT)) go(shift ? (pos ? pos - 1 : 0) : r.warp_step(pos, false));
  if (pressed(GLFW_KEY_PAGE_DOWN) || pressed(GLFW_KEY_DOWN))
    go(r.phase_step(pos, true, s.selection.block));
  if (pressed(GLFW_KEY_PAGE_UP) || pressed(GLFW_KEY_UP))
    go(r.phase_step(pos, false, s.selection.block));
  if (pressed(GLFW_KEY_B)) go(r.barrier_step(pos, !shift, s.selection.block));
  if (pressed(GLFW_KEY_HOME, false)) go(0);
  if (pressed(GLFW_KEY_END, false)) go(r.size());
}

void App::apply_theme() {
  AppState& s = state_;
  const float scale = s.present.content_scale;
  if (applied_theme_ == s.present.theme && applied_scale_ == scale) return;
  applied_theme_ = s.present.theme;
  applied_scale_ = scale;
  ImGuiStyle& st = ImGui::GetStyle();
  st = ImGuiStyle();
  const Palette& p = palette(s.present.theme);
  if (s.present.theme == Theme::Light) {
    ImGui::StyleColorsLight(&st);
  } else {
    ImGui::StyleColorsDark(&st);
  }
  auto c = [](Rgb rgb, float a = 1.0f) { return ImVec4(to_f(rgb.r), to_f(rgb.g), to_f(rgb.b), a); };
  st.Colors[ImGuiCol_WindowBg] = c(p.background);
  // Transparent children and slot windows: the clear colour is the background, so
  // a software renderer (llvmpipe) does not fill the screen three times a frame.
  st.Colors[ImGuiCol_ChildBg] = c(p.background, 0.0f);
  // Dialogs, menus and tooltips opaque: nothing of the grid shows through them.
  st.Colors[ImGuiCol_PopupBg] = c(p.background, 1.0f);
  st.Colors[ImGuiCol_Text] = c(p.text);
  st.Colors[ImGuiCol_TextDisabled] = c(p.text_dim);
  const Rgb accent = okabe_ito::kBlue;
  st.Colors[ImGuiCol_Button] = c(accent, 0.55f);
  st.Colors[ImGuiCol_ButtonHovered] = c(accent, 0.8f);
  st.Colors[ImGuiCol_ButtonActive] = c(accent, 1.0f);
  st.Colors[ImGuiCol_Tab] = c(accent, 0.35f);
  st.Colors[ImGuiCol_TabActive] = c(accent, 0.9f);
  st.Colors[ImGuiCol_TabHovered] = c(accent, 0.75f);
  st.Colors[ImGuiCol_TabUnfocusedActive] = c(accent, 0.8f);
  st.Colors[ImGuiCol_CheckMark] = c(okabe_ito::kOrange);
  st.Colors[ImGuiCol_SliderGrab] = c(okabe_ito::kOrange);
  st.WindowRounding = 0;
  st.FrameRounding = 4;
  st.TabRounding = 4;
  st.GrabRounding = 4;
  st.WindowBorderSize = 1;
  st.FramePadding = ImVec2(8, 5);
  st.ItemSpacing = ImVec2(10, 7);
  st.WindowPadding = ImVec2(12, 10);
  st.ScaleAllSizes(scale);
}

void App::rebuild_fonts() {
  AppState& s = state_;
  if (!s.present.font_rebuild) return;
  s.present.font_rebuild = false;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const float px = std::round(s.present.font_size * s.present.content_scale);
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x2010, 0x2027, 0x2190, 0x21FF, 0x2200,
                                   0x22FF, 0x25A0, 0x25FF, 0x23E9, 0x23FA, 0};
  const std::string sans = find_font("DejaVuSans.ttf");
  const std::string mono = find_font("DejaVuSansMono.ttf");
  const std::string bold = find_font("DejaVuSans-Bold.ttf");
  ImFont* main_font = nullptr;
  if (!sans.empty()) main_font = io.Fonts->AddFontFromFileTTF(sans.c_str(), px, nullptr, ranges);
  if (!main_font) {
    ImFontConfig cfg;
    cfg.SizePixels = px;
    main_font = io.Fonts->AddFontDefault(&cfg);
    s.present.font_note =
        "DejaVu Sans not found (install fonts-dejavu-core): using Dear ImGui's built-in font";
    s.present.have_symbols = false;
  } else {
    s.present.font_note = "DejaVu Sans";
    s.present.have_symbols = true;
  }
  ImFont* mono_font =
      mono.empty() ? nullptr : io.Fonts->AddFontFromFileTTF(mono.c_str(), px, nullptr, ranges);
  ImFont* big_font = bold.empty() ? nullptr
                                  : io.Fonts->AddFontFromFileTTF(
                                        bold.c_str(), std::round(px * 1.25f), nullptr, ranges);
  ImFont* mono_small = mono.empty() ? nullptr
                                    : io.Fonts->AddFontFromFileTTF(
                                          mono.c_str(), std::round(px * 0.88f), nullptr, ranges);
  s.present.mono_font = mono_font;
  s.present.mono_small_font = mono_small;
  s.present.big_font = big_font;
  io.FontDefault = main_font;
  io.Fonts->Build();
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

void App::draw_menu() {
  AppState& s = state_;
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open trace or performance report...", "Ctrl+O")) s.file_dialog_open = true;
    if (ImGui::MenuItem("Save trace as...", "Ctrl+S", false, s.has_trace()))
      s.save_dialog_open = true;
    if (ImGui::MenuItem("Run the lesson", "F5")) s.run_requested = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Quit")) s.quit_requested = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Dark theme", "T", s.present.theme == Theme::Dark))
      s.present.theme = Theme::Dark;
    if (ImGui::MenuItem("Light theme (projectors)", "T", s.present.theme == Theme::Light))
      s.present.theme = Theme::Light;
    if (ImGui::MenuItem("Larger text", "Ctrl +")) {
      s.present.font_size = std::min(kMaxFont, s.present.font_size + 2);
      s.present.font_rebuild = true;
    }
    if (ImGui::MenuItem("Smaller text", "Ctrl -")) {
      s.present.font_size = std::max(kMinFont, s.present.font_size - 2);
      s.present.font_rebuild = true;
    }
    ImGui::MenuItem("Fullscreen", "F11", &s.present.fullscreen);
    if (ImGui::MenuItem("Grid and timeline only", "G", &s.present.focus_grid))
      s.present.focus_auto = false;
    ImGui::Separator();
    ImGui::MenuItem("Values in cells", nullptr, &s.present.show_values);
    ImGui::MenuItem("Global-load heatmap", "H", &s.present.heatmap);
    ImGui::MenuItem("Barrier lines in the source", nullptr, &s.present.show_barrier_lines);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted(
        "Space        play / pause\n"
        "Left/Right   one warp instruction back / forward\n"
        "Shift+arrow  one event\n"
        "Up/Down      one barrier phase (PageUp/PageDown too)\n"
        "B / Shift+B  next / previous barrier\n"
        "Home / End   start / end\n"
        "F5           run the lesson\n"
        "Ctrl +/-/0   text size\n"
        "T            light / dark theme\n"
        "H            global-load heatmap\n"
        "F11          fullscreen\n"
        "G            grid and timeline only (side panels hidden)\n"
        "Ctrl+O       open a trace or a performance report (.json; or drop one on the window)\n"
        "Ctrl+S       save the trace (to replay it on any machine)");
    ImGui::Separator();
    ImGui::TextDisabled("Font: %s", s.present.font_note.c_str());
    ImGui::EndMenu();
  }
  // Status on the right of the menu bar: what is running, where.
  const std::string status =
      s.job.active()
          ? "running " + s.job.what + "..."
          : (s.result.backend_note.empty() ? std::string("no trace yet") : s.result.backend_note);
  const float w = ImGui::CalcTextSize(status.c_str()).x;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 20, ImGui::GetWindowWidth() - w - 20));
  ImGui::TextDisabled("%s", status.c_str());
  ImGui::EndMainMenuBar();
}

float App::draw_banner(float y, float w) {
  AppState& s = state_;
  if (s.banner.text.empty()) return 0;
  const double now = glfwGetTime();
  if (s.banner.shown_at < 0) s.banner.shown_at = now;
  if (s.banner.kind == Banner::Info && now - s.banner.shown_at > 6.0) {
    s.banner.clear();
    return 0;
  }
  const Rgb col = s.banner.kind == Banner::Error     ? okabe_ito::kVermillion
                  : s.banner.kind == Banner::Warning ? okabe_ito::kOrange
                                                     : okabe_ito::kBlue;
  ImGui::SetNextWindowPos(ImVec2(0, y));
  ImGui::SetNextWindowSize(ImVec2(w, 0));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(to_f(col.r), to_f(col.g), to_f(col.b), 0.95f));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  ImGui::Begin("##banner", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoFocusOnAppearing);
  ImGui::PushTextWrapPos(w - ImGui::GetFontSize() * 4);
  ImGui::TextUnformatted(s.banner.text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::SameLine(w - ImGui::GetFontSize() * 3);
  if (ImGui::SmallButton("Close")) s.banner.clear();
  // Its height this frame (auto-sized windows settle on the next one).
  const float h = std::max(ImGui::GetWindowHeight(), ImGui::GetFrameHeightWithSpacing());
  ImGui::End();
  ImGui::PopStyleColor(2);
  return h;
}

void App::splitter(const char* id, ImVec2 pos, ImVec2 size, bool vertical,
                   const std::function<void(ImVec2)>& drag, const std::function<void()>& reset) {
  ImGui::SetNextWindowPos(pos);
  ImGui::SetNextWindowSize(size);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  ImGui::Begin(id, nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoBackground |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
  ImGui::InvisibleButton("##drag", size);
  const bool hot = ImGui::IsItemHovered() || ImGui::IsItemActive();
  if (hot) {
    ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    const ImVec2 a =
        vertical ? ImVec2(pos.x + size.x * 0.5f, pos.y) : ImVec2(pos.x, pos.y + size.y * 0.5f);
    const ImVec2 b = vertical ? ImVec2(a.x, pos.y + size.y) : ImVec2(pos.x + size.x, a.y);
    ImGui::GetWindowDrawList()->AddLine(a, b, ImGui::GetColorU32(ImGuiCol_SeparatorActive), 3.0f);
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
    drag(ImGui::GetIO().MousePos);
    ImGui::MarkIniSettingsDirty();
  }
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    reset();
    ImGui::MarkIniSettingsDirty();
  }
  if (hot && !ImGui::IsItemActive()) ImGui::SetTooltip("Drag to resize; double-click: default");
  ImGui::End();
  ImGui::PopStyleVar(3);
}

void App::draw_slots(float top) {
  AppState& s = state_;
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  const float W = ds.x, H = ds.y - top;
  if (W < 320 || H < 200) {
    ImGui::SetNextWindowPos(ImVec2(0, top));
    ImGui::SetNextWindowSize(ImVec2(std::max(W, 1.0f), std::max(H, 1.0f)));
    ImGui::Begin("##small", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
    ImGui::TextWrapped("The window is too small to show the lesson. Make it larger.");
    ImGui::End();
    return;
  }
  Layout& lay = s.layout;
  // The centre keeps at least a fifth of the width whatever the side columns ask.
  if (lay.left + lay.right > 0.8f) lay.right = 0.8f - lay.left;
  const ImGuiStyle& st = ImGui::GetStyle();
  // A slot's tab bar and padding around its view.
  const float chrome = ImGui::GetFrameHeightWithSpacing() + 2 * st.WindowPadding.y;
  auto front = [&](Slot slot) -> View* {
    for (const auto& v : views_)
      if (v->slot() == slot && front_[int(slot)] == v->name()) return v.get();
    return nullptr;
  };
  // The timeline strip: no taller than its controls and lanes need (the rest
  // goes to the grid), but tall enough for them; in a narrow window its
  // controls wrap onto more rows and it grows, up to half the window.
  float B = std::round(H * lay.bottom);
  if (View* v = front(Slot::Bottom)) {
    if (v->preferred_height() > 0) B = std::min(B, std::ceil(v->preferred_height() + chrome));
    B = std::min(std::max(B, std::ceil(v->min_height() + chrome)), std::round(H * 0.5f));
  }
  // A wide view in front of the centre (Performance) takes the right column's place too.
  bool wide_center = false;
  for (const auto& v : views_)
    if (v->slot() == Slot::Center && v->wide() && front_[int(Slot::Center)] == v->name())
      wide_center = true;
  // Grid focus (G) hides the side columns: the grid and the timeline get the
  // width. Until the user chooses (G), the app chooses: focus while the side
  // columns leave the grid's cells too small for values and focus does not.
  const float Lp = std::round(W * lay.left), Rp = std::round(W * lay.right);
  // Decided once per window size, font and trace, from a frame drawn with
  // the panels (the grid's header is measured there): while the window is
  // dragged larger or smaller the panels show, then the choice is made again.
  // A side panel asked for (--tab) stays in view.
  for (const auto& v : views_)
    if (s.select_tab == v->name() && v->slot() != Slot::Center && v->slot() != Slot::Bottom)
      s.present.focus_auto = false;
  if (s.present.focus_auto && !wide_center && front_[int(Slot::Center)] == "Grid") {
    const float key[4] = {W, H, ImGui::GetFontSize(), float(s.result.generation)};
    if (!std::equal(key, key + 4, focus_key_)) {
      if (!focus_measuring_ || s.present.focus_grid) {
        s.present.focus_grid = false;  // measure the panels on this frame
        focus_measuring_ = true;
      } else if (View* grid = front(Slot::Center)) {
        const float panels = grid->cell_size_if_grown(ImVec2(0, 0));
        const float focus = grid->cell_size_if_grown(ImVec2(Lp + Rp, 0));
        if (panels > 0) {
          s.present.focus_grid =
              !values_readable(panels, ImGui::GetFontSize()) && focus > panels * 1.15f;
          std::copy(key, key + 4, focus_key_);
          focus_measuring_ = false;
        }
      }
    }
  } else {
    focus_measuring_ = false;
  }
  const bool focus = s.present.focus_grid;
  const float L = focus ? 0 : Lp, R = focus ? 0 : Rp;
  // The left column: the lesson gets the height its controls need (none
  // half-hidden), the verdict the rest. When both need less than the room above
  // the timeline, the timeline runs under them, across the whole width.
  const float lesson_need = [&] {
    for (const auto& v : views_)
      if (v->slot() == Slot::Left && front_[int(Slot::Left)] == v->name() &&
          v->preferred_height() > 0)
        return std::ceil(v->preferred_height() + chrome);
    return 0.0f;
  }();
  const float verdict_need =
      chrome + ImGui::GetFontSize() * 1.6f + 3 * ImGui::GetTextLineHeightWithSpacing();
  const bool bottom_full = !focus && lesson_need > 0 && lesson_need + verdict_need <= H - B;
  const float HL = bottom_full ? H - B : H;  // the left column's height
  const float BX = bottom_full ? 0 : L;      // the timeline's left edge
  struct Rect {
    float x, y, w, h;
  };
  // The race list needs height, and its marks need the grid beside it: the
  // right column's upper pane grows while Races is in front.
  const bool races_front = front_[int(Slot::Right)] == "Races";
  float& right_frac = races_front ? lay.right_top_races : lay.right_top;
  const float left_split = std::round(std::clamp(
      std::max(HL * lay.left_top, lesson_need), HL * 0.2f, std::max(HL * 0.2f, HL - verdict_need)));
  const float right_split = std::round((H - B) * right_frac);
  auto rect = [&](Slot slot) -> Rect {
    switch (slot) {
      case Slot::Left:
        return {0, top, L, left_split};
      case Slot::LeftLower:
        return {0, top + left_split, L, HL - left_split};
      case Slot::Center:
        return {L, top, wide_center ? W - L : W - L - R, H - B};
      case Slot::Right:
        return {W - R, top, R, right_split};
      case Slot::RightLower:
        return {W - R, top + right_split, R, H - B - right_split};
      case Slot::Bottom:
        return {BX, top + H - B, W - BX, B};
    }
    return {0, 0, 0, 0};
  };
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBackground;
  for (size_t i = 0; i < views_.size();) {
    const Slot slot = views_[i]->slot();
    size_t j = i;
    while (j < views_.size() && views_[j]->slot() == slot)
      ++j;
    const bool side = slot == Slot::Left || slot == Slot::LeftLower || slot == Slot::Right ||
                      slot == Slot::RightLower;
    if ((wide_center && (slot == Slot::Right || slot == Slot::RightLower)) || (focus && side)) {
      i = j;
      continue;
    }
    const Rect r = rect(slot);
    ImGui::SetNextWindowPos(ImVec2(r.x, r.y));
    ImGui::SetNextWindowSize(ImVec2(std::max(r.w, 1.0f), std::max(r.h, 1.0f)));
    char id[32];
    std::snprintf(id, sizeof id, "##slot%d", int(slot));
    if (ImGui::Begin(id, nullptr, flags)) {
      if (ImGui::BeginTabBar(id)) {
        for (size_t k = i; k < j; ++k) {
          const bool pick = !s.select_tab.empty() && s.select_tab == views_[k]->name();
          if (pick) s.select_tab.clear();
          if (ImGui::BeginTabItem(views_[k]->name(), nullptr,
                                  pick ? ImGuiTabItemFlags_SetSelected : 0)) {
            front_[int(slot)] = views_[k]->name();
            ImGui::BeginChild(views_[k]->name(), ImVec2(0, 0), false);
            views_[k]->draw(s);
            ImGui::EndChild();
            ImGui::EndTabItem();
          }
        }
        ImGui::EndTabBar();
      }
    }
    ImGui::End();
    i = j;
  }

  // The borders between slots drag the layout's fractions (after the slots, so on top).
  const float t = std::max(4.0f, std::round(ImGui::GetFontSize() * 0.3f));
  const Layout def;
  // Grid focus has no side columns: only the bottom border (L is 0 there).
  if (!focus)
    splitter(
        "##split_left", ImVec2(L - t / 2, top), ImVec2(t, HL), true,
        [&](ImVec2 m) {
          lay.left = std::clamp(m.x / W, kMinSide, std::min(kMaxSide, 0.8f - lay.right));
        },
        [&] { lay.left = def.left; });
  if (!wide_center && !focus)
    splitter(
        "##split_right", ImVec2(W - R - t / 2, top), ImVec2(t, H - B), true,
        [&](ImVec2 m) {
          lay.right = std::clamp((W - m.x) / W, kMinSide, std::min(kMaxSide, 0.8f - lay.left));
        },
        [&] { lay.right = def.right; });
  splitter(
      "##split_bottom", ImVec2(BX, top + H - B - t / 2), ImVec2(W - BX, t), false,
      [&](ImVec2 m) { lay.bottom = std::clamp((top + H - m.y) / H, 0.12f, 0.5f); },
      [&] { lay.bottom = def.bottom; });
  if (focus) return;
  splitter(
      "##split_left_top", ImVec2(0, top + left_split - t / 2), ImVec2(L, t), false,
      [&](ImVec2 m) { lay.left_top = std::clamp((m.y - top) / HL, 0.2f, 0.9f); },
      [&] { lay.left_top = def.left_top; });
  if (!wide_center)
    splitter(
        "##split_right_top", ImVec2(W - R, top + right_split - t / 2), ImVec2(R, t), false,
        [&](ImVec2 m) { right_frac = std::clamp((m.y - top) / (H - B), 0.15f, 0.9f); },
        [&] { right_frac = races_front ? def.right_top_races : def.right_top; });
}

bool App::frame() {
  AppState& s = state_;
  const double now = glfwGetTime();
  const double dt = std::min(0.25, now - last_time_);
  last_time_ = now;

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
  rebuild_fonts();
  apply_theme();
  poll_job(false);

  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // Scripted pictures show no tooltip from wherever the X server's pointer is.
  if (opt_.scripted()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
  handle_shortcuts();
  apply_requests(dt);
  s.busy = false;   // views with work in flight set it again in update() or draw()
  s.drawn.clear();  // the grid refills it when its tab is in front
  std::fill(std::begin(s.lanes_rect), std::end(s.lanes_rect), 0.0f);  // so does the timeline
  s.plot_marks.clear();                                               // and the performance panel
  for (auto& v : views_)
    v->update(s);

  draw_menu();
  const float top = ImGui::GetFrameHeight();
  const float banner_h = draw_banner(top, ImGui::GetIO().DisplaySize.x);
  draw_slots(top + banner_h);
  std::string chosen;
  if (dialog_.draw(&chosen)) {
    if (dialog_.mode() == FileDialogMode::Open) {
      s.open_trace_request = chosen;
    } else if (s.has_trace()) {
      std::string err;
      if (save_trace(s.trace(), chosen, &err))
        s.banner.show(Banner::Info, "Saved the trace to " + chosen +
                                        " (open it on any machine: File > Open trace)");
      else
        s.banner.show(Banner::Error, "Cannot save the trace: " + err);
    }
  }
  budget_.draw(s);

  ImGui::Render();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  glViewport(0, 0, fw, fh);
  const Palette& p = palette(s.present.theme);
  glClearColor(to_f(p.background.r), to_f(p.background.g), to_f(p.background.b), 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  return !s.quit_requested;
}

bool App::apply_position_spec(const std::string& spec, std::string* error) {
  AppState& s = state_;
  Replay& r = *s.replay;
  uint64_t pos = 0;
  try {
    if (spec.empty() || spec == "start") {
      pos = 0;
    } else if (spec == "end") {
      pos = r.size();
    } else if (spec.rfind("phase:", 0) == 0) {
      const int n = std::stoi(spec.substr(6));
      for (int i = 0; i < n; ++i)
        pos = r.phase_step(pos, true, s.selection.block);
    } else if (spec == "stale") {
      // The first read that saw an unsynchronised value (a race that bit).
      pos = r.first_stale_position();
      if (pos > 0) {
        const Event& e = r.trace().events[r.event_at(pos)];
        s.selection.block = e.block;
        s.selection.thread = e.thread;
      } else {
        pos = r.size();
      }
    } else if (spec.rfind("barrier:", 0) == 0) {
      const int n = std::stoi(spec.substr(8));
      for (int i = 0; i < n; ++i)
        pos = r.barrier_step(pos, true, s.selection.block);
    } else {
      pos = std::stoull(spec);
    }
  } catch (const std::exception&) {
    *error =
        "--position '" + spec + "': use an event index, start, end, phase:N, barrier:N or stale";
    return false;
  }
  r.seek(pos);
  return true;
}

bool App::prepare_scripted(std::string* error) {
  AppState& s = state_;
  // Refused up front (beyond the memory budget): a screenshot shows the dialog that says why.
  auto refused = [&] {
    *error = s.banner.text;
    if (opt_.screenshot.empty()) return false;
    const double until = glfwGetTime() + 0.3;  // the modal's dimming fades in
    for (int i = 0; i < 4 || glfwGetTime() < until; ++i) {
      glfwPollEvents();
      frame();
      glfwSwapBuffers(window_);
    }
    frame();
    std::string err;
    if (write_screenshot(opt_.screenshot, "", &err))
      std::printf("wrote %s\n", opt_.screenshot.c_str());
    return false;
  };
  if (!opt_.trace_file.empty()) {
    if (!budget_.admit_file(s, opt_.trace_file, true)) return refused();
    install(load_job(opt_.trace_file));
  } else {
    start_run();
    if (budget_.is_open()) return refused();
    if (!s.job.active()) {
      *error = s.banner.text.empty() ? "nothing to run" : s.banner.text;
      return false;
    }
    poll_job(true);
  }
  if (!s.replay) {
    *error = s.banner.text.empty() ? "no trace" : s.banner.text;
    return false;
  }
  return apply_position_spec(opt_.position, error);
}

bool App::write_screenshot(const std::string& png, const std::string& json, std::string* error) {
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  if (fw <= 0 || fh <= 0) {
    *error = "the window has no pixels";
    return false;
  }
  std::vector<unsigned char> px(size_t(fw) * size_t(fh) * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, fw, fh, GL_RGB, GL_UNSIGNED_BYTE, px.data());
  // OpenGL's rows start at the bottom; PNG's at the top.
  std::vector<unsigned char> flipped(px.size());
  const size_t row = size_t(fw) * 3;
  for (int y = 0; y < fh; ++y)
    std::copy_n(px.data() + size_t(fh - 1 - y) * row, row, flipped.data() + size_t(y) * row);
  if (!stbi_write_png(png.c_str(), fw, fh, 3, flipped.data(), int(row))) {
    *error = "cannot write " + png;
    return false;
  }
  if (json.empty()) return true;
  // Where every array's cells are, in PNG pixels, and what the replay says of
  // them: the screenshot test checks pixels against this.
  const AppState& s = state_;
  const float sx = float(fw) / ImGui::GetIO().DisplaySize.x;
  const float sy = float(fh) / ImGui::GetIO().DisplaySize.y;
  const Palette& pal = palette(s.present.theme);
  auto rgb = [](Rgb c) { return nlohmann::json::array({c.r, c.g, c.b}); };
  nlohmann::json j;
  j["width"] = fw;
  j["height"] = fh;
  j["palette"] = {{"loaded", rgb(pal.loaded)},
                  {"padded", rgb(pal.padded)},
                  {"hatch", rgb(pal.hatch)},
                  {"written", rgb(pal.written)},
                  {"shared_loaded", rgb(pal.shared_loaded)},
                  {"halo", rgb(pal.halo)},
                  {"wrong", rgb(pal.wrong)},
                  {"touched", rgb(pal.touched)},
                  {"cell", rgb(pal.cell)},
                  {"background", rgb(pal.background)},
                  {"phase_a", rgb(pal.phase_a)},
                  {"phase_b", rgb(pal.phase_b)},
                  {"barrier", rgb(pal.barrier)}};
  j["position"] = s.replay ? s.replay->position() : 0;
  j["events"] = s.replay ? s.replay->size() : 0;
  j["selected_block"] = s.selection.block;
  j["selected_thread"] = s.selection.thread;
  // The event just applied, and every panel's marks on the grid: what a
  // chosen hazard (--hazard) put on screen.
  if (s.replay && s.replay->last_event()) {
    const Event& e = *s.replay->last_event();
    j["last_event"] = {{"kind", to_string(e.kind)}, {"buffer", to_string(e.buffer)},
                       {"element", e.element},      {"block", e.block},
                       {"thread", e.thread},        {"line", e.line}};
  }
  nlohmann::json marks = nlohmann::json::array();
  for (const auto& [owner, list] : s.marks)
    for (const CellMark& m : list)
      marks.push_back({{"owner", owner},
                       {"buffer", to_string(m.buffer)},
                       {"block", m.block},
                       {"element", m.element},
                       {"style", int(m.style)},
                       {"label", m.label}});
  j["marks"] = marks;
  j["variant"] = s.request.variant;
  nlohmann::json arrays = nlohmann::json::array();
  for (const DrawnArray& a : s.drawn) {
    arrays.push_back({{"buffer", to_string(a.id)},
                      {"shared", a.shared},
                      {"block", a.block},
                      {"rows", a.rows},
                      {"cols", a.cols},
                      {"data_rows", a.data_rows},
                      {"data_cols", a.data_cols},
                      {"x", a.x * sx},
                      {"y", a.y * sy},
                      {"cell_w", a.cell_w * sx},
                      {"cell_h", a.cell_h * sy}});
  }
  j["arrays"] = arrays;
  // The layout the window chose and what the grid's header says about values
  // and about who waits at the barrier (the grid marks the same threads).
  const float font = ImGui::GetFontSize();
  const float cell = s.drawn.empty() ? 0.0f : s.drawn.front().cell_w;
  j["layout"] = {{"focus_grid", s.present.focus_grid},
                 {"focus_auto", s.present.focus_auto},
                 {"font", font},
                 {"values_readable", values_readable(cell, font)}};
  if (s.replay) {
    const BarrierWait w = barrier_wait(*s.replay, s.selection.block);
    nlohmann::json at = nlohmann::json::array();
    for (uint32_t i = 0; i < w.threads; ++i)
      if (w.at_barrier[i]) at.push_back(i);
    j["barrier_wait"] = {{"active", w.active}, {"barrier", w.barrier}, {"line", w.line},
                         {"phase", w.phase},   {"threads", w.threads}, {"arrived", w.arrived},
                         {"text", w.text},     {"arrived_threads", at}};
  }
  nlohmann::json plot_marks = nlohmann::json::array();
  for (const PlotMark& m : s.plot_marks)
    plot_marks.push_back(
        {{"plot", m.plot},
         {"kind", m.kind},
         {"label", m.label},
         {"x", m.x * sx},
         {"y", m.y * sy},
         {"w", m.w * sx},
         {"h", m.h * sy},
         {"rgb", {m.colour & 255, (m.colour >> 8) & 255, (m.colour >> 16) & 255}}});
  j["plot_marks"] = plot_marks;
  j["banner"] = {{"kind", s.banner.kind == Banner::Error     ? "error"
                          : s.banner.kind == Banner::Warning ? "warning"
                                                             : "info"},
                 {"text", s.banner.text}};
  j["timeline_lanes"] = {{"x", s.lanes_rect[0] * sx},
                         {"y", s.lanes_rect[1] * sy},
                         {"w", s.lanes_rect[2] * sx},
                         {"h", s.lanes_rect[3] * sy}};
  // The output cell written last, with its value as the grid prints it.
  if (s.replay) {
    const Replay& r = *s.replay;
    for (uint64_t p = r.position(); p > 0; --p) {
      const Event& e = r.trace().events[r.event_at(p)];
      if (e.kind == EventKind::GlobalStore) {
        j["last_store"] = {
            {"buffer", to_string(e.buffer)}, {"element", e.element}, {"value", e.value}};
        break;
      }
    }
  }
  std::ofstream f(json);
  f << j.dump(1) << "\n";
  if (!f) {
    *error = "cannot write " + json;
    return false;
  }
  return true;
}

}  // namespace ts::app
