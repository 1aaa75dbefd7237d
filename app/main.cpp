// TileScope window: placeholder main until the app lands.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>

#include "app/shaders_embedded.hpp"
#include "app/view.hpp"

int main() {
  if (!glfwInit()) {
    std::fprintf(stderr, "tilescope: cannot open a window (no display?)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* w = glfwCreateWindow(1280, 720, "TileScope", nullptr, nullptr);
  if (!w) return 1;
  glfwMakeContextCurrent(w);
  gladLoadGL(glfwGetProcAddress);
  ImGui::CreateContext();
  ImGui_ImplGlfw_InitForOpenGL(w, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  auto views = ts::app::make_views();
  ts::app::AppState state;
  while (!glfwWindowShouldClose(w)) {
    glfwWaitEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    for (auto& v : views)
      v->draw(state);
    ImGui::Render();
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(w);
  }
  return 0;
}
