// A lesson file of the tests' own (engine/lesson_file.hpp): each block writes
// its elements back reversed, through shared memory, with one barrier; and the
// broken versions of it a student might write. The CLI's and the window's
// tests compile them through the programs, as a user would.
#pragma once

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ts::test {

inline const char* kReverseLesson = R"(// A lesson file written for the tests.
#pragma once

#include "lessons/access.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::test_reverse {

enum : ArraySlot { kIn = 1, kOut, kTile };

template <class Rec>
TS_DEVICE void reverse_block(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> in(rec, args, kIn);
  GlobalArray<float, Rec> out(rec, args, kOut);
  __shared__ float tile_mem[64];
  SharedArray<float, Rec> tile(rec, tile_mem, int(blockDim.x), kTile);
  const int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  tile[tid] = in[i];  // LOAD
  SYNCTHREADS(1);  // BARRIER
  out[i] = tile[blockDim.x - 1 - tid];  // STORE
}

TS_KERNEL_BODY(Body, reverse_block(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace lesson_kit;
    return {
        .title = "Reverse each block",
        .summary = "Each block stores its elements in shared memory, then writes them back "
                   "reversed.",
        .params = {length("the elements", 64), block("threads per block", "one element each", 32, 64)},
        .barriers = {{"every element in shared memory before any is read back", kGuardsRaw}},
        .arrays = [](const Params& p) {
          return ArrayTable{global_input("in", 1, p.length, 1), global_output("out", 1, p.length),
                            shared_array("tile", 1, p.block)};
        },
        .geometry = [](const Params& p) {
          LaunchGeometry g = one_thread_per_element(p);
          g.static_shared_bytes = 64 * sizeof(float);
          return g;
        },
        .check = [](const LessonInfo&, const Params& p,
                    const DeviceLimits&) -> std::optional<std::string> {
          if (p.length % p.block != 0) return std::string("length must be a multiple of block");
          return std::nullopt;
        },
        .shared_advice = smaller_tile,
        .counts = [](const Params& p) {
          const uint64_t n = uint64_t(p.length);
          ExpectedCounts c;
          c.global_loads = c.global_stores = c.shared_loads = c.shared_stores = n;
          c.barrier_arrivals = n;
          return c;
        },
        .reference = [](const Params& p, const LessonInputs& in) {
          std::vector<float> out(size_t(p.length));
          for (int i = 0; i < p.length; ++i)
            out[size_t(i)] = in[kIn][size_t(i / p.block * p.block + p.block - 1 - i % p.block)];
          return out;
        },
        .sum_length = one_term,
    };
  }
};

}  // namespace ts::lessons::test_reverse
)";

// The 1-based line of the lesson's text that ends with `// <marker>`.
inline int line_of(const std::string& text, const std::string& marker) {
  int line = 1;
  for (size_t at = 0; at < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (std::string_view(text).substr(at, end - at).ends_with("// " + marker)) return line;
    at = end + 1;
  }
  throw std::runtime_error("no line marked // " + marker);
}

// The lesson with the line marked `// <marker>` replaced by `replacement` (one or more lines).
inline std::string with_line(std::string text, const std::string& marker,
                             const std::string& replacement) {
  const size_t mark = text.find("// " + marker + "\n");
  if (mark == std::string::npos) throw std::runtime_error("no line marked // " + marker);
  const size_t start = text.rfind('\n', mark) + 1, end = text.find('\n', mark);
  return text.replace(start, end - start, replacement);
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace ts::test
