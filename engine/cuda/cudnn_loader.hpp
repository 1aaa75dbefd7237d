// cuDNN, opened when the sweep first times the conv2d family's library line,
// as cuBLAS is (engine/cuda/cublas_loader.hpp). No cudnn.h is needed to build:
// the few calls of cuDNN's legacy convolution API (stable from cuDNN 7 to 9)
// are declared here with opaque handles, and the library is found at run time
// (libcudnn.so.9, then .8); without it the conv2d ladder says why its library
// line is missing.
#pragma once

#include <cstddef>
#include <string>

namespace ts::perf_detail {

struct CudnnApi {
  using Status = int;  // cudnnStatus_t: 0 is CUDNN_STATUS_SUCCESS
  using Handle = void*;
  using Desc = void*;  // tensor, filter and convolution descriptors
  // cudnnConvolutionFwdAlgoPerf_t
  struct AlgoPerf {
    int algo;
    Status status;
    float time;
    size_t memory;
    int determinism;
    int math_type;
    int reserved[3];
  };
  // The values of cuDNN's enums these calls take.
  static constexpr int kNchw = 0, kFloat = 0, kCrossCorrelation = 1, kFmaMath = 3;

  Status (*create)(Handle*) = nullptr;
  Status (*destroy)(Handle) = nullptr;
  Status (*create_tensor)(Desc*) = nullptr;
  Status (*destroy_tensor)(Desc) = nullptr;
  Status (*set_tensor_4d)(Desc, int format, int type, int n, int c, int h, int w) = nullptr;
  Status (*create_filter)(Desc*) = nullptr;
  Status (*destroy_filter)(Desc) = nullptr;
  Status (*set_filter_4d)(Desc, int type, int format, int k, int c, int h, int w) = nullptr;
  Status (*create_conv)(Desc*) = nullptr;
  Status (*destroy_conv)(Desc) = nullptr;
  Status (*set_conv_2d)(Desc, int pad_h, int pad_w, int u, int v, int dilation_h, int dilation_w,
                        int mode, int compute_type) = nullptr;
  Status (*set_conv_math)(Desc, int math) = nullptr;
  Status (*find_forward)(Handle, Desc x, Desc w, Desc conv, Desc y, int requested, int* returned,
                         AlgoPerf* results) = nullptr;
  Status (*forward_workspace)(Handle, Desc x, Desc w, Desc conv, Desc y, int algo,
                              size_t* bytes) = nullptr;
  Status (*forward)(Handle, const void* alpha, Desc x_desc, const void* x, Desc w_desc,
                    const void* w, Desc conv, int algo, void* workspace, size_t workspace_bytes,
                    const void* beta, Desc y_desc, void* y) = nullptr;
  const char* (*error_string)(Status) = nullptr;
  size_t (*version)() = nullptr;
  std::string error;  // why it cannot be used
};

// Loaded once; `error` says why it cannot be used (the conv2d line is skipped).
const CudnnApi& cudnn_api();

}  // namespace ts::perf_detail
