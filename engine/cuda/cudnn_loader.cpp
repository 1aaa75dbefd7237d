// Opens cuDNN at run time (engine/cuda/cudnn_loader.hpp).
#include "engine/cuda/cudnn_loader.hpp"

#include <dlfcn.h>

#include <type_traits>

namespace ts::perf_detail {

const CudnnApi& cudnn_api() {
  static const CudnnApi api = [] {
    CudnnApi a;
    // cuDNN 9 splits the library (graph, ops, cnn) behind libcudnn.so.9, which
    // exports every call; cuDNN 8's libcudnn.so.8 too.
    const char* libs[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"};
    void* h = nullptr;
    std::string lib;
    for (const char* name : libs)
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
        lib = name;
        break;
      }
    if (!h) {
      a.error =
          "cuDNN cannot be loaded (no libcudnn.so.9 or .8 on the loader's path): install cuDNN or "
          "add its folder to LD_LIBRARY_PATH; the conv2d lessons are timed without it";
      return a;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && a.error.empty()) a.error = lib + " has no " + name;
    };
    sym(a.create, "cudnnCreate");
    sym(a.destroy, "cudnnDestroy");
    sym(a.create_tensor, "cudnnCreateTensorDescriptor");
    sym(a.destroy_tensor, "cudnnDestroyTensorDescriptor");
    sym(a.set_tensor_4d, "cudnnSetTensor4dDescriptor");
    sym(a.create_filter, "cudnnCreateFilterDescriptor");
    sym(a.destroy_filter, "cudnnDestroyFilterDescriptor");
    sym(a.set_filter_4d, "cudnnSetFilter4dDescriptor");
    sym(a.create_conv, "cudnnCreateConvolutionDescriptor");
    sym(a.destroy_conv, "cudnnDestroyConvolutionDescriptor");
    sym(a.set_conv_2d, "cudnnSetConvolution2dDescriptor");
    sym(a.set_conv_math, "cudnnSetConvolutionMathType");
    sym(a.find_forward, "cudnnFindConvolutionForwardAlgorithm");
    sym(a.forward_workspace, "cudnnGetConvolutionForwardWorkspaceSize");
    sym(a.forward, "cudnnConvolutionForward");
    sym(a.error_string, "cudnnGetErrorString");
    sym(a.version, "cudnnGetVersion");
    return a;
  }();
  return api;
}

}  // namespace ts::perf_detail
