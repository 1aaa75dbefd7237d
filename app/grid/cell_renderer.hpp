// Draws an array of cells with our own shaders (shaders/cells_*.glsl): each
// array is one quad and two small textures with one texel per cell, however
// many cells there are. The draw is queued into an ImGui draw list as a
// callback, so it sits between the panel's background and the text drawn over it.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "app/core/palette.hpp"

namespace ts::app {

struct CellImage {
  int cols = 0, rows = 0;
  int tile_w = 0, tile_h = 0;     // tile boundary every tile_w columns / tile_h rows (0: none)
  std::vector<uint32_t> fill;     // RGBA8 per cell (A: flags, bit 0 = hatched)
  std::vector<uint32_t> outline;  // RGBA8 per cell (A = 0: no outline)
  void resize(int c, int r) {
    cols = c;
    rows = r;
    fill.assign(size_t(c) * size_t(r), 0);
    outline.assign(size_t(c) * size_t(r), 0);
  }
  void set(int col, int row, Rgb rgb, bool hatched = false) {
    fill[size_t(row) * size_t(cols) + size_t(col)] = uint32_t(rgb.r) | (uint32_t(rgb.g) << 8) |
                                                     (uint32_t(rgb.b) << 16) |
                                                     (uint32_t(hatched ? 1 : 0) << 24);
  }
  void set_outline(int col, int row, Rgb rgb) {
    outline[size_t(row) * size_t(cols) + size_t(col)] = rgb.abgr(255);
  }
};

class CellRenderer {
 public:
  CellRenderer() = default;
  ~CellRenderer();
  CellRenderer(const CellRenderer&) = delete;
  CellRenderer& operator=(const CellRenderer&) = delete;

  // Compiles the shaders; false (with the compiler's message) if they do not build.
  bool init(std::string* error);
  bool ready() const { return program_ != 0; }
  // Forget last frame's queued draws (their textures are reused).
  void begin_frame();
  // Queue `img` to be drawn in [p0, p1) of `dl`'s clip rectangle.
  void draw(ImDrawList* dl, ImVec2 p0, ImVec2 p1, const CellImage& img, const Palette& pal);

 private:
  struct Item {
    CellRenderer* self;
    unsigned fill_tex, outline_tex;
    float x0, y0, x1, y1;
    float cols, rows, tile_w, tile_h;
    float grid[3], tile[3], hatch[3];
  };
  static void callback(const ImDrawList* dl, const ImDrawCmd* cmd);
  void render(const Item& it, const ImDrawCmd* cmd);
  unsigned texture(size_t slot);

  unsigned program_ = 0, vao_ = 0;
  int loc_rect_ = -1, loc_fill_ = -1, loc_outline_ = -1, loc_cells_ = -1, loc_tile_ = -1;
  int loc_grid_ = -1, loc_tile_colour_ = -1, loc_hatch_ = -1;
  std::vector<unsigned> textures_;
  size_t used_ = 0;
  std::deque<Item> items_;  // stable addresses for the draw list's callback data
};

}  // namespace ts::app
