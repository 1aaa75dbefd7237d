#version 330 core
// Draws every cell of one array from two small textures (one texel per cell):
//   u_fill:    rgb = the cell's colour, a = flags (bit 0: hatched padding)
//   u_outline: rgba = an outline colour (a = 0: none), for marks and the cells
//              the last warp instruction touched
// plus thin grid lines between cells and thick lines at tile boundaries.
uniform sampler2D u_fill;
uniform sampler2D u_outline;
uniform vec2 u_cells;        // cols, rows
uniform vec2 u_tile;         // tile width, height in cells (0: none)
uniform vec3 u_grid_colour;
uniform vec3 u_tile_colour;
uniform vec3 u_hatch_colour;
in vec2 v_uv;
out vec4 frag;

void main() {
  vec2 cell = v_uv * u_cells;           // position in cells
  vec2 px = fwidth(cell);               // cells per pixel
  ivec2 ic = ivec2(min(floor(cell), u_cells - 1.0));
  vec4 fill = texelFetch(u_fill, ic, 0);
  vec4 outline = texelFetch(u_outline, ic, 0);
  vec3 colour = fill.rgb;
  int flags = int(fill.a * 255.0 + 0.5);

  // Padding: diagonal hatching, a fixed pitch in pixels so it reads at any zoom.
  if ((flags & 1) != 0) {
    float d = (gl_FragCoord.x + gl_FragCoord.y) / 7.0;
    if (fract(d) < 0.35) colour = mix(colour, u_hatch_colour, 0.85);
  }

  vec2 f = fract(cell);
  vec2 dist = min(f, 1.0 - f) / px;  // distance to the nearest cell edge, in pixels
  // Outline: 2-3 px inside the cell edge.
  float cell_px = min(1.0 / px.x, 1.0 / px.y);
  float ow = clamp(cell_px * 0.12, 1.5, 4.0);
  if (outline.a > 0.0 && min(dist.x, dist.y) < ow) colour = outline.rgb;

  // Grid lines only when cells are big enough to leave room for them.
  if (cell_px >= 5.0 && min(dist.x, dist.y) < 0.75) colour = mix(colour, u_grid_colour, 0.9);

  // Tile boundaries: 2 px lines on multiples of the tile.
  if (u_tile.x > 0.0) {
    vec2 t = cell / u_tile;
    vec2 tf = fract(t);
    vec2 tdist = min(tf, 1.0 - tf) * u_tile / px;
    if (min(tdist.x, tdist.y) < 1.25) colour = u_tile_colour;
  }
  // The array's own border.
  vec2 edge = min(v_uv, 1.0 - v_uv) * u_cells / px;
  if (min(edge.x, edge.y) < 1.5) colour = u_tile_colour;
  frag = vec4(colour, 1.0);
}
