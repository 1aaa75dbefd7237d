// Scripted: every step of a lecture in one process (--lecture F --all-steps),
// a PNG and a cells map per step, so that a test over every step of every
// shipped lecture does not start a window per step.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdio>
#include <string>

#include "app/lecture/lecture.hpp"
#include "app/shell/app.hpp"

namespace ts::app {

namespace {

// out.png, 3 -> out_step3.png
std::string step_name(const std::string& path, int k) {
  const size_t dot = path.find_last_of('.'), slash = path.find_last_of('/');
  const bool ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  const std::string tag = "_step" + std::to_string(k);
  return ext ? path.substr(0, dot) + tag + path.substr(dot) : path + tag;
}

}  // namespace

bool App::screenshot_lecture_steps(std::string* error) {
  AppState& s = state_;
  if (!s.lecture.active()) {
    *error = "--all-steps needs --lecture";
    return false;
  }
  const int n = int(s.lecture.lecture->steps.size());
  for (int k = 0; k < n; ++k) {
    if (k != s.lecture.step) {
      s.lecture.step_request = k;
      update_lecture(s, budget_, true, true);
    }
    // Frames until the panels' background work is in, then a few to settle the layout.
    const double until = glfwGetTime() + 60;
    do {
      glfwPollEvents();
      frame();
      glfwSwapBuffers(window_);
    } while ((s.busy || s.job.active()) && glfwGetTime() < until);
    for (int i = 0; i < 4; ++i) {
      frame();
      if (i < 3) glfwSwapBuffers(window_);
    }
    const std::string png = step_name(opt_.screenshot, k + 1);
    const std::string json = opt_.cells_json.empty() ? "" : step_name(opt_.cells_json, k + 1);
    if (!write_screenshot(png, json, error)) return false;
    std::printf("wrote %s\n", png.c_str());
    glfwSwapBuffers(window_);
  }
  return true;
}

}  // namespace ts::app
