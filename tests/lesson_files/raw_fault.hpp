// A lesson file for the GPU checks (scripts/gpu_lesson_files.sh): a kernel
// that writes through a raw pointer far outside its array, as a student's bug
// does. On the GPU: an illegal address, reported, the context reset, and the
// next run works. (On the simulator the same store would fault the process.)
#pragma once

#include "lessons/access.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::raw_fault {

enum : ArraySlot { kIn = 1, kOut };

template <class Rec>
TS_DEVICE void copy_then_stray(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> in(rec, args, kIn);
  GlobalArray<float, Rec> out(rec, args, kOut);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
  float* raw = static_cast<float*>(args.data[kOut]);
  if (i == 0) raw[size_t(1) << 40] = 1.0f;  // far past any allocation
}

TS_KERNEL_BODY(Body, copy_then_stray(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace lesson_kit;
    return {
        .title = "Copy, then a stray store",
        .summary = "A raw pointer written far outside its array.",
        .params = {length("the elements", 64),
                   block("threads per block", "one element each", 32, 64)},
        .arrays =
            [](const Params& p) {
              return ArrayTable{global_input("in", 1, p.length, 1),
                                global_output("out", 1, p.length)};
            },
        .geometry = [](const Params& p) { return one_thread_per_element(p); },
        .check = [](const LessonInfo&, const Params& p,
                    const DeviceLimits&) -> std::optional<std::string> {
          if (p.length % p.block != 0) return std::string("length must be a multiple of block");
          return std::nullopt;
        },
        .shared_advice = smaller_tile,
        .counts =
            [](const Params& p) {
              ExpectedCounts c;
              c.global_loads = c.global_stores = uint64_t(p.length);
              return c;
            },
        .reference =
            [](const Params& p, const LessonInputs& in) {
              std::vector<float> out(size_t(p.length));
              for (int i = 0; i < p.length; ++i)
                out[size_t(i)] = in[kIn][size_t(i)];
              return out;
            },
        .sum_length = one_term,
    };
  }
};

}  // namespace ts::lessons::raw_fault
