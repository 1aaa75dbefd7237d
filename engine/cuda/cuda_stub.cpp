// Without the CUDA toolkit at build time: the GPU backend says why it is absent.
#include "engine/backend.hpp"
#include "engine/lesson_plugin_cuda.hpp"
#include "engine/prepare.hpp"

#if !TS_HAVE_CUDA

namespace ts {

const CudaStatus& cuda_status() {
  static const CudaStatus status = [] {
    CudaStatus s;
    s.reason = "built without CUDA (install the CUDA toolkit and configure with -DTS_WITH_CUDA=ON)";
    return s;
  }();
  return status;
}

const LessonCudaOps* lesson_cuda_ops(size_t lesson_index) {
  return runtime_cuda_ops(lesson_index);
}

RunResult run_prepared_on_gpu(PreparedRun&) {
  RunResult r;
  r.error =
      "the GPU cannot be used: " + cuda_status().reason + "; run on the CPU simulator instead";
  return r;
}

}  // namespace ts

#endif
