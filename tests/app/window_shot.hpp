// One scripted run of the window on the private Xvfb (private_x_server.hpp):
// its exit code, its log, the PNG's pixels and the --cells-json map, which
// the window tests check pixels and rectangles with.
//
//   const Shot s = take_shot("name", "--lesson transpose.shared --size 1280x720");
//   ASSERT_EQ(s.rc, 0) << s.log;
//   EXPECT_LT(distance(s.at(x, y), rgb(s.cells["colours"]["halo"])), 24);
#pragma once

#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "tests/app/private_x_server.hpp"

namespace ts::app_test {

using Rgb = std::array<int, 3>;

struct Shot {
  int rc = -1;
  int w = 0, h = 0;
  std::vector<unsigned char> px;  // RGB, row by row
  nlohmann::json cells;           // --cells-json (only when the window exited 0)
  std::string log;                // what it printed
  Rgb at(int x, int y) const {
    // A window that wrote no image (it failed) has no pixels to compare.
    if (x < 0 || y < 0 || x >= w || y >= h || px.size() < size_t(w) * size_t(h) * 3) {
      ADD_FAILURE() << "pixel (" << x << ", " << y << ") outside a " << w << "x" << h << " image";
      return {-1, -1, -1};
    }
    const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3;
    return {px[i], px[i + 1], px[i + 2]};
  }
};

// Runs the window with `args` (a size, a theme, a backend: the caller's)
// and --screenshot / --cells-json into out_dir()/name.*, then --exit.
inline Shot take_shot(const std::string& name, const std::string& args) {
  Shot s;
  const std::string& display = x_display();
  if (display.empty()) {
    ADD_FAILURE() << "Xvfb (" << TS_XVFB << ") did not start";
    return s;
  }
  const std::filesystem::path d = out_dir();
  const std::filesystem::path png = d / (name + ".png"), json = d / (name + ".json"),
                              log = d / (name + ".log");
  const std::string cmd = "DISPLAY=" + display + " " + TS_TILESCOPE_EXE + " " + args +
                          " --screenshot " + png.string() + " --cells-json " + json.string() +
                          " --exit > " + log.string() + " 2>&1";
  const int st = std::system(cmd.c_str());
  s.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  std::ifstream lf(log);
  s.log.assign(std::istreambuf_iterator<char>(lf), {});
  if (s.rc != 0) return s;
  int n = 0;
  unsigned char* data = stbi_load(png.string().c_str(), &s.w, &s.h, &n, 3);
  if (data) {
    s.px.assign(data, data + size_t(s.w) * size_t(s.h) * 3);
    stbi_image_free(data);
  }
  std::ifstream f(json);
  s.cells = nlohmann::json::parse(f);
  return s;
}

inline Rgb rgb(const nlohmann::json& j) {
  return {j[0].get<int>(), j[1].get<int>(), j[2].get<int>()};
}

// The largest difference of one channel.
inline int distance(Rgb a, Rgb b) {
  int d = 0;
  for (int c = 0; c < 3; ++c)
    d = std::max(d, std::abs(a[c] - b[c]));
  return d;
}

}  // namespace ts::app_test
