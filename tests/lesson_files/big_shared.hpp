// A lesson file for the GPU checks (scripts/gpu_lesson_files.sh): more than
// 48 KiB of dynamic shared memory, which needs the per-kernel opt-in
// (engine/cuda/launch.cuh: prepare_launch). The simulator models a device
// without the opt-in (48 KiB a block) and refuses it at 1024 threads; at
// 512 threads (32 KiB) both backends run it. Each thread stores its element
// in 16 cells of a block-wide table, then reads back its mirror's last copy.
#pragma once

#include "lessons/access.hpp"
#include "lessons/lesson.hpp"

namespace ts::lessons::big_shared {

enum : ArraySlot { kIn = 1, kOut, kTable };
constexpr int kCopies = 16;

template <class Rec>
TS_DEVICE void mirror_through_table(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> in(rec, args, kIn);
  GlobalArray<float, Rec> out(rec, args, kOut);
  TS_EXTERN_SHARED(float, table_mem);  // blockDim.x * 16 floats: 64 KiB at 1024 threads
  SharedArray<float, Rec> table(rec, table_mem, int(blockDim.x) * kCopies, kTable);
  const int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  const float v = in[i];
  for (int c = 0; c < kCopies; ++c)
    table[tid * kCopies + c] = v;
  SYNCTHREADS(1);
  out[i] = table[(int(blockDim.x) - 1 - tid) * kCopies + kCopies - 1];
}

TS_KERNEL_BODY(Body, mirror_through_table(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace lesson_kit;
    return {
        .title = "Mirror each block through 64 KiB of shared memory",
        .summary = "Dynamic shared memory above the 48 KiB default: the launch opts in.",
        .params = {length("the elements", 2048),
                   block("threads per block", "one element each", 1024, 1024)},
        .barriers = {{"every copy stored before the mirror's is read", kGuardsRaw}},
        .arrays =
            [](const Params& p) {
              return ArrayTable{global_input("in", 1, p.length, 1),
                                global_output("out", 1, p.length),
                                shared_array("table", 1, p.block * kCopies)};
            },
        .geometry =
            [](const Params& p) {
              LaunchGeometry g = one_thread_per_element(p);
              g.dynamic_shared_bytes = uint32_t(p.block) * kCopies * sizeof(float);
              return g;
            },
        .check = [](const LessonInfo&, const Params& p,
                    const DeviceLimits&) -> std::optional<std::string> {
          if (p.length % p.block != 0) return std::string("length must be a multiple of block");
          return std::nullopt;
        },
        .shared_advice = smaller_tile,
        .counts =
            [](const Params& p) {
              const uint64_t n = uint64_t(p.length);
              ExpectedCounts c;
              c.global_loads = c.global_stores = c.shared_loads = n;
              c.shared_stores = n * kCopies;
              c.barrier_arrivals = n;
              return c;
            },
        .reference =
            [](const Params& p, const LessonInputs& in) {
              std::vector<float> out(size_t(p.length));
              for (int i = 0; i < p.length; ++i)
                out[size_t(i)] = in[kIn][size_t(i / p.block * p.block + p.block - 1 - i % p.block)];
              return out;
            },
        .sum_length = one_term,
    };
  }
};

}  // namespace ts::lessons::big_shared
