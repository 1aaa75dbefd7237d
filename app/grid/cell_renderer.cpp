#include "app/grid/cell_renderer.hpp"

#include <glad/gl.h>

#include "app/shaders_embedded.hpp"

namespace ts::app {

namespace {

unsigned compile(unsigned kind, const char* src, std::string* error) {
  const unsigned s = glCreateShader(kind);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  int ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    if (error)
      *error = std::string(kind == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader: " + log;
    glDeleteShader(s);
    return 0;
  }
  return s;
}

}  // namespace

CellRenderer::~CellRenderer() {
  if (!textures_.empty()) glDeleteTextures(GLsizei(textures_.size()), textures_.data());
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

bool CellRenderer::init(std::string* error) {
  const unsigned vs = compile(GL_VERTEX_SHADER, shaders::k_cells_vert, error);
  const unsigned fs = vs ? compile(GL_FRAGMENT_SHADER, shaders::k_cells_frag, error) : 0;
  if (!vs || !fs) {
    if (vs) glDeleteShader(vs);
    return false;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  int ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    if (error) *error = std::string("shader link: ") + log;
    glDeleteProgram(program_);
    program_ = 0;
    return false;
  }
  loc_rect_ = glGetUniformLocation(program_, "u_rect");
  loc_fill_ = glGetUniformLocation(program_, "u_fill");
  loc_outline_ = glGetUniformLocation(program_, "u_outline");
  loc_cells_ = glGetUniformLocation(program_, "u_cells");
  loc_tile_ = glGetUniformLocation(program_, "u_tile");
  loc_grid_ = glGetUniformLocation(program_, "u_grid_colour");
  loc_tile_colour_ = glGetUniformLocation(program_, "u_tile_colour");
  loc_hatch_ = glGetUniformLocation(program_, "u_hatch_colour");
  glGenVertexArrays(1, &vao_);
  return true;
}

void CellRenderer::begin_frame() {
  used_ = 0;
  items_.clear();
}

unsigned CellRenderer::texture(size_t slot) {
  while (textures_.size() <= slot) {
    unsigned t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    textures_.push_back(t);
  }
  return textures_[slot];
}

void CellRenderer::draw(ImDrawList* dl, ImVec2 p0, ImVec2 p1, const CellImage& img,
                        const Palette& pal) {
  if (!ready() || img.cols <= 0 || img.rows <= 0 || p1.x <= p0.x || p1.y <= p0.y) return;
  Item it{};
  it.self = this;
  it.fill_tex = texture(used_++);
  it.outline_tex = texture(used_++);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glBindTexture(GL_TEXTURE_2D, it.fill_tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, img.cols, img.rows, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               img.fill.data());
  glBindTexture(GL_TEXTURE_2D, it.outline_tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, img.cols, img.rows, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               img.outline.data());
  it.x0 = p0.x;
  it.y0 = p0.y;
  it.x1 = p1.x;
  it.y1 = p1.y;
  it.cols = float(img.cols);
  it.rows = float(img.rows);
  it.tile_w = float(img.tile_w);
  it.tile_h = float(img.tile_h);
  auto set3 = [](float* d, Rgb c) {
    d[0] = to_f(c.r);
    d[1] = to_f(c.g);
    d[2] = to_f(c.b);
  };
  set3(it.grid, pal.grid_line);
  set3(it.tile, pal.tile_line);
  set3(it.hatch, pal.hatch);
  items_.push_back(it);
  dl->AddCallback(&CellRenderer::callback, &items_.back());
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void CellRenderer::callback(const ImDrawList*, const ImDrawCmd* cmd) {
  const Item* it = static_cast<const Item*>(cmd->UserCallbackData);
  it->self->render(*it, cmd);
}

void CellRenderer::render(const Item& it, const ImDrawCmd* cmd) {
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd || dd->DisplaySize.x <= 0 || dd->DisplaySize.y <= 0) return;
  const ImVec2 pos = dd->DisplayPos, size = dd->DisplaySize, scale = dd->FramebufferScale;
  const float fb_h = size.y * scale.y;
  // Clip to the panel, as ImGui's own draws are.
  const ImVec4 c = cmd->ClipRect;
  const float cx0 = (c.x - pos.x) * scale.x, cy0 = (c.y - pos.y) * scale.y;
  const float cx1 = (c.z - pos.x) * scale.x, cy1 = (c.w - pos.y) * scale.y;
  if (cx1 <= cx0 || cy1 <= cy0) return;
  glEnable(GL_SCISSOR_TEST);
  glScissor(int(cx0), int(fb_h - cy1), int(cx1 - cx0), int(cy1 - cy0));
  glDisable(GL_BLEND);
  glUseProgram(program_);
  auto ndc_x = [&](float x) { return (x - pos.x) / size.x * 2.0f - 1.0f; };
  auto ndc_y = [&](float y) { return 1.0f - (y - pos.y) / size.y * 2.0f; };
  // Texture row 0 is the array's first row: uv (0, 0) is the top left corner.
  glUniform4f(loc_rect_, ndc_x(it.x0), ndc_y(it.y0), ndc_x(it.x1), ndc_y(it.y1));
  glUniform2f(loc_cells_, it.cols, it.rows);
  glUniform2f(loc_tile_, it.tile_w, it.tile_h);
  glUniform3fv(loc_grid_, 1, it.grid);
  glUniform3fv(loc_tile_colour_, 1, it.tile);
  glUniform3fv(loc_hatch_, 1, it.hatch);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, it.fill_tex);
  glUniform1i(loc_fill_, 0);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, it.outline_tex);
  glUniform1i(loc_outline_, 1);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
}

}  // namespace ts::app
