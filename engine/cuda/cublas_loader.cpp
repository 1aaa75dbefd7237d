// Opens libcublas.so.<major> at run time (engine/cuda/cublas_loader.hpp).
#include "engine/cuda/cublas_loader.hpp"

#include <dlfcn.h>

#include <type_traits>

namespace ts::perf_detail {

const CublasApi& cublas_api() {
  static const CublasApi api = [] {
    CublasApi a;
    const std::string lib = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* why = h ? nullptr : dlerror();
    const std::string first_why = why ? why : "not found";
#ifdef TS_CUDA_LIBRARY_DIR
    // The toolkit this was built with, where the loader's search path does not reach.
    if (!h)
      h = dlopen((std::string(TS_CUDA_LIBRARY_DIR) + "/" + lib).c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
    if (!h) {
      a.error = lib + " cannot be loaded (" + first_why + "): install cuBLAS " +
                std::to_string(CUBLAS_VER_MAJOR) +
                " or add its folder to LD_LIBRARY_PATH; the kernels are timed without it";
      return a;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && a.error.empty()) a.error = lib + " has no " + name;
    };
    sym(a.create, "cublasCreate_v2");
    sym(a.destroy, "cublasDestroy_v2");
    sym(a.set_math_mode, "cublasSetMathMode");
    sym(a.sgemm, "cublasSgemm_v2");
    sym(a.sgeam, "cublasSgeam");
    return a;
  }();
  return api;
}

}  // namespace ts::perf_detail
