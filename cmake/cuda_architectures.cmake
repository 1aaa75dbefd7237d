# The CUDA architectures the kernels are built for, chosen once at configure
# time unless given (-DTS_CUDA_ARCHITECTURES=..., a preset):
#  - this machine's GPUs, as nvidia-smi reports their compute capability
#    (machine code and PTX for each: "86", "90"); one newer than this nvcc
#    knows gets the newest it knows, whose PTX the driver compiles for it;
#  - no GPU (a CI machine, a laptop without NVIDIA): 75, Turing's machine code
#    plus its PTX, which the driver compiles for any newer GPU (Ampere,
#    Hopper, ...) on first use: one architecture, so the build stays quick.
# The scripts' one build (scripts/test.sh, scripts/tilescope.sh) is this.
if(DEFINED CACHE{TS_CUDA_ARCHITECTURES})
  return()
endif()

set(_ts_archs "")
set(_ts_why "no NVIDIA GPU found")
find_program(TS_NVIDIA_SMI nvidia-smi)
mark_as_advanced(TS_NVIDIA_SMI)
if(TS_NVIDIA_SMI)
  execute_process(COMMAND "${TS_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                  RESULT_VARIABLE _ts_rc OUTPUT_VARIABLE _ts_caps ERROR_QUIET TIMEOUT 30)
  # The architectures this nvcc compiles for (compute_75 ...), newest last.
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch
                  OUTPUT_VARIABLE _ts_known ERROR_QUIET TIMEOUT 30)
  string(REGEX MATCHALL "compute_[0-9]+" _ts_known "${_ts_known}")
  list(TRANSFORM _ts_known REPLACE "compute_" "")
  set(_ts_newest "")
  foreach(_k IN LISTS _ts_known)
    if(_ts_newest STREQUAL "" OR _k GREATER _ts_newest)
      set(_ts_newest ${_k})
    endif()
  endforeach()
  if(_ts_rc EQUAL 0)
    string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _ts_caps "${_ts_caps}")
    foreach(_cap IN LISTS _ts_caps)
      string(REPLACE "." "" _a "${_cap}")
      if(_ts_known AND NOT _a IN_LIST _ts_known AND _ts_newest AND _a GREATER _ts_newest)
        set(_a ${_ts_newest})  # newer than this nvcc: its newest PTX, compiled by the driver
      endif()
      if(NOT _ts_known OR _a IN_LIST _ts_known)
        list(APPEND _ts_archs ${_a})
      endif()
    endforeach()
    list(REMOVE_DUPLICATES _ts_archs)
    if(_ts_archs)
      set(_ts_why "this machine's GPU (nvidia-smi)")
    elseif(_ts_caps)
      set(_ts_why "this machine's GPU (${_ts_caps}) is older than this nvcc builds for")
    endif()
  endif()
endif()
if(NOT _ts_archs)
  set(_ts_archs 75)
endif()
set(TS_CUDA_ARCHITECTURES "${_ts_archs}" CACHE STRING
    "CUDA architectures to build the kernels for (chosen at the first configure: ${_ts_why})")
message(STATUS "CUDA architectures: ${TS_CUDA_ARCHITECTURES} (${_ts_why}; "
               "-DTS_CUDA_ARCHITECTURES=... to choose)")
