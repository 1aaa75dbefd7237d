#version 330 core
// placeholder, replaced by the grid shaders
void main() { gl_Position = vec4(0.0); }
