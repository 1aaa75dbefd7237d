// cuBLAS, opened when a sweep first needs it rather than linked: every other
// command (even `tilescope-cli --help`) would otherwise map its 200 MB.
#pragma once

#include <cublas_v2.h>

#include <string>

namespace ts::perf_detail {

struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasSgeam) sgeam = nullptr;  // the transpose family's library line
  std::string error;                       // why it cannot be used
};

// Loaded once; `error` says why it cannot be used (the sweep times without it).
const CublasApi& cublas_api();

}  // namespace ts::perf_detail
