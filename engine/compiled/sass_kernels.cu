// Not part of any target: scripts/sass_table.py compiles it to a cubin and
// reads its SASS. It instantiates the timed kernel, launch_body<Body, PlainRec>
// (engine/cuda/launch.cuh), for every Body that any lesson's visit() can pick
// (every tile width, radius and layout), exactly as engine/cuda/cuda_backend.cu
// and engine/cuda/perf_cuda.cu compile it.
#include "engine/cuda/launch.cuh"
#include "engine/cuda/recorders.cuh"
#include "engine/lesson_dispatch.hpp"

namespace ts {

// Taking the kernel's address instantiates it; visit_lesson instantiates the
// visitor for every Body of the lesson, whatever the parameters at run time.
struct InstantiateKernel {
  template <class Body>
  void operator()(Body) const {
    const void* volatile kernel = reinterpret_cast<const void*>(&launch_body<Body, PlainRec>);
    (void)kernel;
  }
};

void instantiate_lesson_kernels(size_t lesson_index, const Params& p) {
  visit_lesson(lesson_index, p, InstantiateKernel{});
}

}  // namespace ts
