#include "app/shell/fonts_themes.hpp"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "app/core/palette.hpp"

namespace ts::app {

namespace {

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

}  // namespace

void apply_theme(const Presentation& present, AppliedStyle& applied) {
  const float scale = present.content_scale;
  if (applied.theme == present.theme && applied.scale == scale) return;
  applied.theme = present.theme;
  applied.scale = scale;
  ImGuiStyle& st = ImGui::GetStyle();
  st = ImGuiStyle();
  const Palette& p = palette(present.theme);
  if (present.theme == Theme::Light) {
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

void rebuild_fonts(Presentation& present) {
  if (!present.font_rebuild) return;
  present.font_rebuild = false;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const float px = std::round(present.font_size * present.content_scale);
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
    present.font_note =
        "DejaVu Sans not found (install fonts-dejavu-core): using Dear ImGui's built-in font";
    present.have_symbols = false;
  } else {
    present.font_note = "DejaVu Sans";
    present.have_symbols = true;
  }
  ImFont* mono_font =
      mono.empty() ? nullptr : io.Fonts->AddFontFromFileTTF(mono.c_str(), px, nullptr, ranges);
  ImFont* big_font = bold.empty() ? nullptr
                                  : io.Fonts->AddFontFromFileTTF(
                                        bold.c_str(), std::round(px * 1.25f), nullptr, ranges);
  ImFont* mono_small = mono.empty() ? nullptr
                                    : io.Fonts->AddFontFromFileTTF(
                                          mono.c_str(), std::round(px * 0.88f), nullptr, ranges);
  present.mono_font = mono_font;
  present.mono_small_font = mono_small;
  // Three quarters of the text, for the narrow desk's code (1280 x 720 at a
  // projector's text: app/shell/layout.cpp): a third more characters a row,
  // and still 21 pixels or more. Only at a projector's text, where the desk
  // can be narrow: below it the atlas stays the size the memory budget counts.
  present.mono_desk_font =
      mono.empty() || !present.projector_text()
          ? nullptr
          : io.Fonts->AddFontFromFileTTF(mono.c_str(), std::round(px * 0.75f), nullptr, ranges);
  present.big_font = big_font;
  io.FontDefault = main_font;
  io.Fonts->Build();
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

}  // namespace ts::app
