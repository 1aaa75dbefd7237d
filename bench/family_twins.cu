// Plain twins of the last step of every bandwidth family: the same kernels as
// the lessons, written as a textbook writes them (no TileScope accessors, no
// TileScope code at all), each checked against a CPU reference and timed with
// CUDA events. scripts/twins_check.sh runs it next to `tilescope-cli bench`
// and prints, per kernel and size, the lesson's median time over its twin's:
// the accessors are free when the ratio is 1.
//
//   family_twins [--lengths 16777216,67108864] [--reps 15] [--csv out.csv]
//                [--block 256] [--radius 3] [--conv-tile 8] [--conv-radius 2]
//                [--only transpose_padded,...] [--as twin=lesson ...]
//
// Sizes are elements, as the sweep's --lengths: a 1D kernel's length, a 2D
// kernel's square of side floor(sqrt(length)). --as names the lesson a twin
// stands for in the CSV's `ours` column (the script passes them; this harness
// knows no lesson). Inputs are integers in [-4, 4] (every sum exact in float),
// as the sweep's. The histogram also runs on a uniform input (every bin as
// likely: the sweep's --input uniform, value for value) and a skewed one
// (every element in one bin), rows of their own.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/twins/conv2d_twins.cuh"
#include "bench/twins/histogram_twins.cuh"
#include "bench/twins/reduction_twins.cuh"
#include "bench/twins/scan_twins.cuh"
#include "bench/twins/stencil_twins.cuh"
#include "bench/twins/transpose_twins.cuh"

namespace {

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--lengths 16777216,67108864] [--reps 15] [--csv out.csv] [--block 256]"
               " [--radius 3] [--conv-tile 8] [--conv-radius 2] [--only twin,...]"
               " [--as twin=lesson ...]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--lengths" && has) {
      o.lengths.clear();
      for (const std::string& s : split(argv[++i]))
        o.lengths.push_back(std::atoi(s.c_str()));
    } else if (a == "--reps" && has) {
      o.reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--csv" && has) {
      o.csv = argv[++i];
    } else if (a == "--block" && has) {
      o.block = std::atoi(argv[++i]);
    } else if (a == "--radius" && has) {
      o.radius = std::atoi(argv[++i]);
    } else if (a == "--conv-tile" && has) {
      o.conv_tile = std::atoi(argv[++i]);
    } else if (a == "--conv-radius" && has) {
      o.conv_radius = std::atoi(argv[++i]);
    } else if (a == "--only" && has) {
      o.only = split(argv[++i]);
    } else if (a == "--as" && has) {
      const std::string m = argv[++i];
      const size_t eq = m.find('=');
      if (eq == std::string::npos) return usage(argv[0]);
      o.as[m.substr(0, eq)] = m.substr(eq + 1);
    } else {
      return usage(argv[0]);
    }
  }
  for (int len : o.lengths)
    if (len < 1 || len > (1 << 30)) {
      std::fprintf(stderr, "length %d out of range: allowed 1 .. 2^30\n", len);
      return 2;
    }
  if (o.block < 64 || o.block > 1024 || (o.block & (o.block - 1)) != 0 || o.radius < 0 ||
      o.radius > std::min(o.block, kMaxRadius)) {
    std::fprintf(stderr,
                 "block must be a power of two in 64 .. 1024, radius 0 .. min(block, 64)\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("family_twins: skipped: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "family_twins on %s (sm_%d%d): plain twins of each family's last step, median of %d"
      " launches, L2 flushed before each\n",
      prop.name, prop.major, prop.minor, o.reps);
  std::printf("%-22s %-10s %10s %-22s %9s %9s %9s %9s %s\n", "twin", "input", "size", "params",
              "ms median", "ms min", "ms max", "GB/s", "check");
  Harness h(o);
  for (int len : o.lengths) {
    transposes(h, len);
    reduction(h, len);
    stencil(h, len);
    stencil_vec(h, len);
    conv2d(h, len);
    conv2d_db(h, len);
    histogram(h, len);
    scan(h, len);
    transpose_last(h, len);  // the last steps (issue 23)
    reduction_last(h, len);
  }
  h.write_csv();
  bool ok = true;
  for (const Row& r : h.rows)
    ok = ok && r.correct;
  return ok ? 0 : 1;
}
