// The harness of the family twins (bench/family_twins.cu): options, inputs,
// device buffers, one row per kernel and input, the check then the timing,
// and the CSV. Each family's twins and their runs are in bench/twins/<family>_twins.cuh.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/event_timer.cuh"

namespace {

struct Options {
  std::vector<int> lengths{1 << 24, 1 << 26};
  int reps = 15, warmup = 2;
  int block = 256, radius = 3, conv_tile = 8, conv_radius = 2;
  std::vector<std::string> only;
  std::map<std::string, std::string> as;  // twin -> the lesson it stands for
  std::string csv;
};

std::vector<std::string> split(const char* s) {
  std::vector<std::string> v;
  std::string cur;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!cur.empty()) v.push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  return v;
}

// Integers in [-4, 4] from a xorshift stream: exact in float sums.
std::vector<float> small_integers(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  uint64_t s = 0x9e3779b97f4a7c15ull ^ seed;
  for (float& x : v) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = float(int(s % 9) - 4);
  }
  return v;
}

// SplitMix64's output for state x (a stateless hash): the uniform histogram
// input is the sweep's, value for value.
uint64_t splitmix64_hash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Device buffers that free themselves.
struct Dev {
  void* p = nullptr;
  explicit Dev(size_t bytes) { CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 4))); }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  float* f() const { return static_cast<float*>(p); }
  unsigned* u() const { return static_cast<unsigned*>(p); }
};

struct Row {
  std::string twin, label;
  int size = 0;
  std::string params;
  Times t;
  double bytes = 0;  // compulsory: inputs read once, outputs written once
  bool correct = false;
};

class Harness {
 public:
  explicit Harness(const Options& options) : o(options) {}
  const Options& o;
  std::vector<Row> rows;

  bool wanted(const std::string& twin) const {
    return o.only.empty() || std::find(o.only.begin(), o.only.end(), twin) != o.only.end();
  }

  // Checks `launch`'s output with `correct`, then times it.
  void run(const std::string& twin, const std::string& label, int size, const std::string& params,
           double bytes, const std::function<void()>& launch,
           const std::function<bool()>& correct) {
    launch();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    Row r{twin, label, size, params, {}, bytes, correct()};
    r.t = timer_.time(launch, o.warmup, o.reps);
    const double gbps = r.bytes / (r.t.median * 1e-3) / 1e9;
    std::printf("%-22s %-10s %10d %-22s %9.4f %9.4f %9.4f %9.1f %s\n", twin.c_str(), label.c_str(),
                size, params.c_str(), r.t.median, r.t.min, r.t.max, gbps,
                r.correct ? "ok" : "WRONG");
    rows.push_back(r);
  }

  void write_csv() const {
    if (o.csv.empty()) return;
    FILE* f = std::fopen(o.csv.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", o.csv.c_str());
      std::exit(1);
    }
    // `ours`: the lesson this twin stands for (--as), else the twin's own name.
    std::fprintf(f, "ours,twin,input,size,params,ms_median,ms_min,ms_max,gbps,correct\n");
    for (const Row& r : rows) {
      const auto it = o.as.find(r.twin);
      std::fprintf(f, "%s,%s,%s,%d,%s,%.6g,%.6g,%.6g,%.6g,%d\n",
                   it == o.as.end() ? r.twin.c_str() : it->second.c_str(), r.twin.c_str(),
                   r.label.c_str(), r.size, r.params.c_str(), r.t.median, r.t.min, r.t.max,
                   r.bytes / (r.t.median * 1e-3) / 1e9, r.correct ? 1 : 0);
    }
    std::fclose(f);
  }

 private:
  EventTimer timer_;
};

}  // namespace
