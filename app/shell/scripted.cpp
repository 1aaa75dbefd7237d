// Scripted mode (--screenshot, --exit, --frames): the run or trace file
// synchronously, the replay placed at --position, and the window's PNG with a
// map of where every cell and plot mark is (--cells-json) for the tests.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <stb/stb_image_write.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "app/compare/compare_mode.hpp"
#include "app/core/jobs.hpp"
#include "app/core/outputs.hpp"
#include "app/core/palette.hpp"
#include "app/grid/grid_memory_overlay.hpp"
#include "app/grid/layout_toggle.hpp"
#include "app/lecture/caption_strip.hpp"
#include "app/lecture/lecture.hpp"
#include "app/quiz/quiz_colours.hpp"
#include "app/shell/app.hpp"
#include "app/shell/window_args.hpp"

namespace ts::app {

bool apply_position_spec(AppState& s, const std::string& spec, std::string* error,
                         const char* flag) {
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
    } else if (spec.rfind("access:", 0) == 0) {
      // As the transport's warp step N times: the N-th warp access with all its lanes.
      const uint64_t n = std::stoull(spec.substr(7));
      if (s.result.warp) pos = s.access_stops.nth(s.result.warp, r, n);
    } else if (spec.rfind("barrier:", 0) == 0) {
      const int n = std::stoi(spec.substr(8));
      for (int i = 0; i < n; ++i)
        pos = r.barrier_step(pos, true, s.selection.block);
    } else {
      pos = std::stoull(spec);
    }
  } catch (const std::exception&) {
    *error = std::string(flag) + " '" + spec +
             "': use an event index, start, end, phase:N, barrier:N, access:N or stale";
    return false;
  }
  r.seek(pos);
  return true;
}

namespace {

// The window's back buffer as a PNG, through the output layer (a failed or
// short write is an error, the file that was there stays); its size in
// pixels in fw, fh.
bool write_window_png(GLFWwindow* window, const std::string& png, const OutputOptions& o,
                      int* fw_out, int* fh_out, std::string* error) {
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window, &fw, &fh);
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
  std::string bytes;
  const auto put = [](void* to, void* data, int n) {
    static_cast<std::string*>(to)->append(static_cast<const char*>(data), size_t(n));
  };
  if (!stbi_write_png_to_func(put, &bytes, fw, fh, 3, flipped.data(), int(row))) {
    *error = "cannot write " + png + ": the PNG encoder failed";
    return false;
  }
  if (!write_output(png, o, bytes, error)) return false;
  *fw_out = fw;
  *fh_out = fh;
  return true;
}

// The marks the plots drew (the performance panel's), in PNG pixels.
nlohmann::json plot_marks_json(const std::vector<PlotMark>& marks, float sx, float sy) {
  nlohmann::json plot_marks = nlohmann::json::array();
  for (const PlotMark& m : marks)
    plot_marks.push_back({{"plot", m.plot},
                          {"kind", m.kind},
                          {"label", m.label},
                          {"x", m.x * sx},
                          {"y", m.y * sy},
                          {"w", m.w * sx},
                          {"h", m.h * sy},
                          {"rgb", {m.colour & 255, (m.colour >> 8) & 255, (m.colour >> 16) & 255}},
                          {"value", m.value}});
  return plot_marks;
}

// The lecture's step on screen and where its caption band is, in PNG pixels.
nlohmann::json lecture_json(const AppState& s, float sx, float sy) {
  const LectureState& L = s.lecture;
  return {{"title", L.lecture->title},
          {"facts", presenter_facts(s)},
          {"step", L.step + 1},
          {"steps", L.lecture->steps.size()},
          {"caption", L.step >= 0 ? L.lecture->steps[size_t(L.step)].caption : ""},
          {"caption_bottom", L.caption_bottom * sy},
          {"caption_px", L.caption_px * sy},
          {"band",
           {{"x", L.band[0] * sx},
            {"y", L.band[1] * sy},
            {"w", L.band[2] * sx},
            {"h", L.band[3] * sy}}}};
}

// Where every array's cells are, in PNG pixels (fw x fh), and what the replay
// says of them: the screenshot test checks pixels against this.
// The colours a test looks for: the banks', the heat ramp, the palette's,
// the controls' as drawn over the background.
void add_colours(nlohmann::json& j, const Palette& pal) {
  auto rgb = [](Rgb c) { return nlohmann::json::array({c.r, c.g, c.b}); };
  nlohmann::json banks = nlohmann::json::array();
  for (int b = 0; b < kSharedBanks; ++b)
    banks.push_back(rgb(bank_colour(b)));
  j["bank_colours"] = banks;
  nlohmann::json ramp = nlohmann::json::array();  // heat(i / 32): the memory heatmaps' scale
  for (int i = 0; i <= 32; ++i)
    ramp.push_back(rgb(heat(float(i) / 32.0f)));
  j["heat_ramp"] = ramp;
  j["palette"] = {{"loaded", rgb(pal.loaded)},
                  {"padded", rgb(pal.padded)},
                  {"hatch", rgb(pal.hatch)},
                  {"written", rgb(pal.written)},
                  {"shared_loaded", rgb(pal.shared_loaded)},
                  {"halo", rgb(pal.halo)},
                  {"wrong", rgb(pal.wrong)},
                  {"stale", rgb(pal.stale)},
                  {"touched", rgb(pal.touched)},
                  {"cell", rgb(pal.cell)},
                  {"background", rgb(pal.background)},
                  {"phase_a", rgb(pal.phase_a)},
                  {"phase_b", rgb(pal.phase_b)},
                  {"barrier", rgb(pal.barrier)}};
  // The controls' colours as drawn over the background (menu bar, tabs,
  // buttons, input frames): a test finds them, or their absence on a slide.
  {
    const ImGuiStyle& st = ImGui::GetStyle();
    auto over_bg = [&](ImGuiCol c) {
      const ImVec4 v = st.Colors[c];
      auto mix = [&](float f, uint8_t b) {
        return int(std::lround((f * v.w + b / 255.0f * (1 - v.w)) * 255));
      };
      return nlohmann::json::array(
          {mix(v.x, pal.background.r), mix(v.y, pal.background.g), mix(v.z, pal.background.b)});
    };
    j["chrome_colours"] = {{"menu_bar", over_bg(ImGuiCol_MenuBarBg)},
                           {"tab", over_bg(ImGuiCol_Tab)},
                           {"tab_active", over_bg(ImGuiCol_TabActive)},
                           {"button", over_bg(ImGuiCol_Button)},
                           {"frame", over_bg(ImGuiCol_FrameBg)}};
  }
}

// The question on screen, its truth, the answer and the grade.
template <class Name>
nlohmann::json quiz_json(const QuizState& Q, const Name& name, float sx, float sy) {
  auto rgb = [](Rgb c) { return nlohmann::json::array({c.r, c.g, c.b}); };
  const Question& q = *Q.question();
  nlohmann::json kinds = nlohmann::json::array(), choice_rects = nlohmann::json::array();
  for (const Question& each : Q.questions)
    kinds.push_back(to_string(each.kind));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& [what, r] : Q.items)
    items.push_back(
        {{"what", what}, {"x", r[0] * sx}, {"y", r[1] * sy}, {"w", r[2] * sx}, {"h", r[3] * sy}});
  for (const auto& c : Q.choice_rects)
    choice_rects.push_back(
        {{"x", c[0] * sx}, {"y", c[1] * sy}, {"w", c[2] * sx}, {"h", c[3] * sy}});
  return {{"index", Q.index},
          {"kinds", kinds},
          {"choice_rects", choice_rects},
          {"items", items},
          {"scope_cells", q.scope_cells},
          {"questions", Q.questions.size()},
          {"kind", to_string(q.kind)},
          {"text", q.text},
          {"buffer", name(q.array)},
          {"block", q.block},
          {"truth_cells", q.truth_cells},
          {"truth_choice", q.truth_choice},
          {"choices", q.choices},
          {"answer_cells", Q.answer.cells},
          {"answer_choice", Q.answer.choice},
          {"revealed", Q.revealed},
          {"right", Q.grade.right},
          {"missed", Q.grade.missed},
          {"extra", Q.grade.extra},
          {"score", Q.score_line()},
          {"colours",
           {{"chosen", rgb(kQuizChosen)},
            {"right", rgb(kQuizRight)},
            {"extra", rgb(kQuizExtra)},
            {"missed", rgb(kQuizMissed)}}},
          {"band",
           {{"x", Q.band[0] * sx},
            {"y", Q.band[1] * sy},
            {"w", Q.band[2] * sx},
            {"h", Q.band[3] * sy}}}};
}

nlohmann::json cells_map(const AppState& s, int fw, int fh) {
  const float sx = float(fw) / ImGui::GetIO().DisplaySize.x;
  const float sy = float(fh) / ImGui::GetIO().DisplaySize.y;
  const Palette& pal = palette(s.present.theme);
  // Arrays by their names in the kernel's source ("C", "tileA", "cache").
  auto name = [&s](ArraySlot slot) {
    return s.replay ? array_name(s.replay->trace().config.arrays, slot) : std::to_string(slot);
  };
  nlohmann::json j;
  j["width"] = fw;
  j["height"] = fh;
  add_colours(j, pal);
  j["position"] = s.replay ? s.replay->position() : 0;
  j["events"] = s.replay ? s.replay->size() : 0;
  j["selected_block"] = s.selection.block;
  j["selected_thread"] = s.selection.thread;
  // The event just applied, and every panel's marks on the grid: what a
  // chosen hazard (--hazard) put on screen.
  if (s.replay && s.replay->last_event()) {
    const Event& e = *s.replay->last_event();
    j["last_event"] = {{"kind", to_string(e.kind)}, {"buffer", name(e.array)},
                       {"element", e.element},      {"block", e.block},
                       {"thread", e.thread},        {"line", e.line},
                       {"value", e.value}};
  }
  nlohmann::json marks = nlohmann::json::array();
  for (const auto& [owner, list] : s.marks)
    for (const CellMark& m : list)
      marks.push_back({{"owner", owner},
                       {"buffer", name(m.buffer)},
                       {"block", m.block},
                       {"element", m.element},
                       {"style", int(m.style)},
                       {"label", m.label}});
  j["marks"] = marks;
  j["variant"] = s.request.lesson_id;
  // The warp access the replay is at (the Banks view's and the coalescing picture's).
  if (s.replay && s.result.warp) {
    bool earlier = false;
    const int32_t i = s.result.warp->current(*s.replay, &earlier);
    if (i >= 0) {
      const WarpAccess& a = s.result.warp->accesses.accesses[size_t(i)];
      j["warp_access"] = {{"index", i},
                          {"earlier", earlier},
                          {"kind", to_string(a.kind)},
                          {"buffer", name(a.array)},
                          {"block", a.block},
                          {"warp", a.warp},
                          {"line", a.line},
                          {"lanes", a.lane_count},
                          {"sectors", a.sector.sectors},
                          {"conflicts", a.bank.conflicts()}};
    }
  }
  nlohmann::json arrays = nlohmann::json::array();
  for (const DrawnArray& a : s.drawn) {
    arrays.push_back({{"buffer", name(a.id)},
                      {"shared", a.shared},
                      {"block", a.block},
                      {"rows", a.rows},
                      {"cols", a.cols},
                      {"data_rows", a.data_rows},
                      {"data_cols", a.data_cols},
                      {"wrap", a.wrap},
                      {"lead", a.lead},
                      {"x", a.x * sx},
                      {"y", a.y * sy},
                      {"cell_w", a.cell_w * sx},
                      {"cell_h", a.cell_h * sy}});
  }
  j["arrays"] = arrays;
  auto rect = [&](const float* r) {
    return nlohmann::json{{"x", r[0] * sx}, {"y", r[1] * sy}, {"w", r[2] * sx}, {"h", r[3] * sy}};
  };
  // Cell by cell, what the grid printed and hatched (app/core/grid_facts.hpp), and its legend's
  // lines.
  nlohmann::json cells = nlohmann::json::array();
  for (const DrawnCells& d : s.grid_facts.arrays)
    cells.push_back({{"buffer", name(d.id)},
                     {"block", d.block},
                     {"rows", d.rows},
                     {"cols", d.cols},
                     {"text", d.text},
                     {"hatched", d.hatched},
                     {"halo", d.halo},
                     {"value_px", d.value_px * sy}});
  j["grid_cells"] = cells;
  // Presenter mode's zoom to the moment's subject, and the labels on cells.
  const ZoomFacts& z = s.grid_facts.zoom;
  j["auto_zoom"] = {{"active", z.active}, {"zoom", z.zoom},
                    {"what", z.what},     {"buffer", z.active ? name(z.id) : ""},
                    {"block", z.block},   {"elements", z.elements},
                    {"box", rect(z.box)}, {"title_band", z.title_band * sy}};
  nlohmann::json callouts = nlohmann::json::array();
  auto rgb32c = [](uint32_t c) {
    return nlohmann::json::array({c & 255, (c >> 8) & 255, (c >> 16) & 255});
  };
  for (const CalloutFacts& c : s.grid_facts.callouts)
    callouts.push_back({{"text", c.text},
                        {"buffer", name(c.id)},
                        {"block", c.block},
                        {"element", c.element},
                        {"box", rect(c.box)},
                        {"cell", rect(c.cell)},
                        {"fill", rgb32c(c.fill)},
                        {"ink", rgb32c(c.ink)}});
  j["callouts"] = callouts;
  nlohmann::json legend = nlohmann::json::array();
  auto rgb32 = [](uint32_t c) {
    return nlohmann::json::array({c & 255, (c >> 8) & 255, (c >> 16) & 255});
  };
  for (const LegendLine& l : s.grid_facts.legend)
    legend.push_back({{"text", l.text}, {"from", rgb32(l.from)}, {"to", rgb32(l.to)}});
  j["grid_legend"] = legend;
  // The layout the window chose and what the grid's header says about values
  // and about who waits at the barrier (the grid marks the same threads).
  const float font = ImGui::GetFontSize();
  const float cell = s.drawn.empty() ? 0.0f : s.drawn.front().cell_w;
  j["layout"] = {{"focus_grid", s.present.focus_grid},
                 {"focus_auto", s.present.focus_auto},
                 {"font", font},
                 {"values_readable", values_readable(cell, font)},
                 {"presenter", s.present.presenter},
                 {"presenter_auto", s.present.presenter_auto},
                 {"grid_zoom", s.present.grid_zoom}};
  // Where the grid painted and the caption strip beside or below it: never overlapping.
  j["grid_rect"] = rect(s.grid_rect);
  // Each slot as laid out (0 wide: hidden), by its place in the window.
  const char* const slot_names[] = {"left",        "center", "right",
                                    "right_lower", "bottom", "left_lower"};
  for (int i = 0; i < 6; ++i)
    j["slots"][slot_names[i]] = rect(s.slot_rects[i]);
  j["strip"] = rect(s.strip_rect);
  j["strip"]["beside"] = s.strip_beside;
  if (s.replay) {
    const BarrierWait w = barrier_wait(*s.replay, s.selection.block);
    nlohmann::json at = nlohmann::json::array();
    for (uint32_t i = 0; i < w.threads; ++i)
      if (w.at_barrier[i]) at.push_back(i);
    j["barrier_wait"] = {{"active", w.active}, {"barrier", w.barrier}, {"line", w.line},
                         {"phase", w.phase},   {"threads", w.threads}, {"arrived", w.arrived},
                         {"text", w.text},     {"arrived_threads", at}};
  }
  j["plot_marks"] = plot_marks_json(s.plot_marks, sx, sy);
  j["race_hint"] = s.race_hint;
  j["compare"] = compare_json(s, sx, sy);
  if (s.lecture.active()) j["lecture"] = lecture_json(s, sx, sy);
  if (s.quiz.active()) j["quiz"] = quiz_json(s.quiz, name, sx, sy);
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
        j["last_store"] = {{"buffer", name(e.array)}, {"element", e.element}, {"value", e.value}};
        break;
      }
    }
  }
  return j;
}

}  // namespace

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
  if (s.lecture.active()) {  // the step's run, with its position
    update_lecture(s, budget_, true, true);
    if (budget_.is_open()) return refused();
    if (!s.replay) {
      *error = s.banner.text.empty() ? "no trace" : s.banner.text;
      return false;
    }
    return true;
  }
  if (!opt_.trace_file.empty()) {
    if (!budget_.admit_file(s, opt_.trace_file, true)) return refused();
    install(s, load_job(opt_.trace_file));
  } else {
    if (!opt_.layout.empty()) {  // as a click on the grid's layout toggle
      const LessonInfo* v = find_lesson(s.request.lesson_id);
      const LessonInfo* to = v ? layout_named(*v, opt_.layout) : nullptr;
      if (!to) {
        std::string labels;
        for (const LessonInfo* c : v ? layout_siblings(*v) : std::vector<const LessonInfo*>{})
          labels += std::string(labels.empty() ? "" : ", ") + "'" + c->layout_label + "'";
        *error = "--layout '" + opt_.layout + "': " +
                 (labels.empty() ? "this lesson has no other layouts"
                                 : "the lesson's layouts are " + labels);
        return false;
      }
      choose_layout(s, *to);
    }
    start_run(s, budget_, opt_.scripted());
    if (budget_.is_open()) return refused();
    if (!s.job.active()) {
      *error = s.banner.text.empty() ? "nothing to run" : s.banner.text;
      return false;
    }
    poll_job(s, true);
    // A lesson file whose run crashed its check: the picture shows where (the Source panel).
    if (!s.replay && s.lesson_file_failure) return true;
  }
  if (!s.replay) {
    *error = s.banner.text.empty() ? "no trace" : s.banner.text;
    return false;
  }
  if (auto e = check_options_against_trace(opt_, s.replay->trace())) {
    s.option_error = *e;
    *error = "error: " + *e;
    return false;
  }
  if (opt_.select_thread >= 0) s.selection.thread = opt_.select_thread;  // a new trace unfollows
  if (!apply_position_spec(s, opt_.position, error)) return false;
  if (opt_.compare) {  // the second run, placed at the aligned position
    request_compare(s, *opt_.compare);
    update_compare(s, true, true);
    if (!compare_active(s) || !s.compare->b.replay) {
      *error = "--compare: " + s.banner.text;
      return false;
    }
  }
  return true;
}

bool App::wait_for_reloads(int n, std::string* error) {
  AppState& s = state_;
  LessonFileWatch& w = s.lesson_watch;
  const int from = w.reloads;
  std::printf("watching %s for changes (waiting for %d)\n",
              w.path.empty() ? w.open_request.c_str() : w.path.c_str(), n);
  std::fflush(stdout);
  const double until = glfwGetTime() + 600;
  int printed = from;
  while (glfwGetTime() < until) {
    glfwPollEvents();
    frame();
    glfwSwapBuffers(window_);
    while (printed < w.reloads) {  // one line a reload, as it is handled
      ++printed;
      std::printf("reload %d: %s, %.2f s from the save to the replay updated\n", printed - from,
                  s.lesson_file_failure ? "failed (the Source panel shows why)" : "ran",
                  w.last_reload_seconds);
      std::fflush(stdout);
    }
    if (w.reloads - from >= n && !s.job.active() && !w.compiling() && !w.rerun_pending) break;
    if (!s.job.active() && !w.compiling())
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // idle: the file's next look
  }
  if (w.reloads - from < n) {
    *error = "--wait-reloads: only " + std::to_string(w.reloads - from) + " of " +
             std::to_string(n) + " saves of " + w.path + " were seen in 10 minutes";
    return false;
  }
  // As after the first run: the panels' background work, then the layout settles.
  const double settle_until = glfwGetTime() + 60;
  do {
    glfwPollEvents();
    frame();
    glfwSwapBuffers(window_);
  } while (s.busy && glfwGetTime() < settle_until);
  for (int i = 0; i < 4; ++i) {
    frame();
    if (i < 3) glfwSwapBuffers(window_);
  }
  return true;
}

void App::press_keys() {
  AppState& s = state_;
  if (!opt_.quiz_answer.empty()) {
    std::string err;
    if (!apply_quiz_answer(s, opt_.quiz_answer, &err)) s.option_error = err;  // main: exit 2
  }
  if (opt_.keys.empty() && opt_.quiz_answer.empty()) return;
  for (const std::string& name : opt_.keys) {
    const std::vector<std::pair<std::string, int>> quiz_keys = {
        {"q", GLFW_KEY_Q},         {"enter", GLFW_KEY_ENTER}, {"n", GLFW_KEY_N},
        {"space", GLFW_KEY_SPACE}, {"up", GLFW_KEY_UP},       {"down", GLFW_KEY_DOWN},
        {"left", GLFW_KEY_LEFT},   {"right", GLFW_KEY_RIGHT}, {"p", GLFW_KEY_P},
        {"plus", GLFW_KEY_EQUAL},  {"minus", GLFW_KEY_MINUS}, {"0", GLFW_KEY_0},
        {"c", GLFW_KEY_C},         {"m", GLFW_KEY_M},         {"b", GLFW_KEY_B}};
    int key = name == "pagedown" ? GLFW_KEY_PAGE_DOWN
              : name == "pageup" ? GLFW_KEY_PAGE_UP
                                 : GLFW_KEY_ESCAPE;
    for (const auto& [n, k] : quiz_keys)
      if (name == n) key = k;
    if (name.size() == 1 && name[0] >= '1' && name[0] <= '9') key = GLFW_KEY_1 + (name[0] - '1');
    // "shift+right": held Shift around the key (the quiz's Shift+arrows).
    const bool shift = name.rfind("shift+", 0) == 0;
    for (const auto& [n, k] : quiz_keys)
      if (shift && name.substr(6) == n) key = k;
    const int lshift = glfwGetKeyScancode(GLFW_KEY_LEFT_SHIFT);
    if (shift) ImGui_ImplGlfw_KeyCallback(window_, GLFW_KEY_LEFT_SHIFT, lshift, GLFW_PRESS, 0);
    const int scancode = glfwGetKeyScancode(key);
    for (int action : {GLFW_PRESS, GLFW_RELEASE}) {
      ImGui_ImplGlfw_KeyCallback(window_, key, scancode, action, shift ? GLFW_MOD_SHIFT : 0);
      frame();
      glfwSwapBuffers(window_);
    }
    if (shift) ImGui_ImplGlfw_KeyCallback(window_, GLFW_KEY_LEFT_SHIFT, lshift, GLFW_RELEASE, 0);
    const double until = glfwGetTime() + 60;
    while ((s.job.active() || s.quiz.start_request || s.lecture.step_request ||
            s.lecture.awaiting_run || s.busy) &&
           glfwGetTime() < until) {
      glfwPollEvents();
      frame();
      glfwSwapBuffers(window_);
    }
  }
  for (int i = 0; i < 4; ++i) {  // the layout settles; the last frame stays in the back buffer
    frame();
    if (i < 3) glfwSwapBuffers(window_);
  }
}

bool App::write_screenshot(const std::string& png, const std::string& json, std::string* error) {
  // Scripted: an existing file is replaced only with --force (main checked
  // first, with exit 2); never a file being read.
  OutputOptions o = window_output_options(state_, opt_.force);
  int fw = 0, fh = 0;
  if (!write_window_png(window_, png, o, &fw, &fh, error)) return false;
  if (json.empty()) return true;
  return write_output(json, o, cells_map(state_, fw, fh).dump(1) + "\n", error);
}

}  // namespace ts::app
