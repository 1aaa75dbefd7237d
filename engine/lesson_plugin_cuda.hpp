// The GPU half of a lesson-file plug-in (engine/lesson_plugin.hpp): where nvcc
// compiled the lesson file too (engine/lesson_file.cpp), the plug-in exports a
// second entry point that launches the lesson's body with one of the CUDA
// backend's recorders, through the same launch path as the built-in lessons
// (engine/cuda/launch.cuh: launch_lesson<Body, Rec>). Plain C++: the host side
// includes it without CUDA; engine/cuda/lesson_plugin.cuh fills it in the plug-in.
#pragma once

#include <cstddef>

#include "lessons/kernel_args.hpp"
#include "model/params.hpp"

// `extern "C" void tilescope_lesson_cuda_v1(ts::LessonCudaPlugin*)`
#define TS_LESSON_CUDA_ENTRY tilescope_lesson_cuda_v1
#define TS_LESSON_CUDA_ENTRY_NAME "tilescope_lesson_cuda_v1"

namespace ts {

// Raised whenever LessonCudaPlugin, the recorders or their numbering change shape.
inline constexpr int kLessonCudaPluginAbi = 1;

// The recorders of engine/cuda/recorders.cuh, numbered for the plug-in.
enum class PluginRecorder : int { Trace = 0, Plain = 1, Mask = 2, Skew = 3 };

// Launches the body the parameters select with the recorder `rec` points at
// (of the kind `recorder`); returns the launch's cudaError_t as an int
// (cudaErrorInvalidDeviceFunction, 98, where the parameters select no body).
using CudaLaunchFn = int (*)(int recorder, const void* rec, const Params& p,
                             const LaunchGeometry& g, const KernelArgs& args);

struct LessonCudaPlugin {
  int abi = 0;
  CudaLaunchFn launch = nullptr;
};

// TileScope's side (engine/lesson_file.cpp): the GPU launchers of the lessons
// plug-ins added, by catalogue index (nullptr: none, the plug-in was compiled
// without nvcc, and the lesson runs on the simulator only).
void set_runtime_cuda_launch(size_t lesson_index, CudaLaunchFn launch);
CudaLaunchFn runtime_cuda_launch(size_t lesson_index);

}  // namespace ts
