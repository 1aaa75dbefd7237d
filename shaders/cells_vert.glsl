#version 330 core
// One quad per array, made from gl_VertexID (no vertex buffer): the array's
// rectangle in normalised device coordinates, uv running over its cells.
uniform vec4 u_rect;  // x0, y0, x1, y1 in NDC
out vec2 v_uv;
void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  v_uv = corner;
  gl_Position = vec4(mix(u_rect.xy, u_rect.zw, corner), 0.0, 1.0);
}
