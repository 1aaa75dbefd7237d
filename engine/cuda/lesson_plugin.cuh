// The GPU half of a lesson-file plug-in, compiled by nvcc into the plug-in
// (engine/lesson_file.cpp generates a .cu that includes this and the lesson
// file): the recorder numbering of engine/lesson_plugin_cuda.hpp, and the
// launcher that visits the lesson's body and calls launch_lesson<Body, Rec>,
// the launch path of every built-in lesson (engine/cuda/launch.cuh).
#pragma once

#include <cuda_runtime.h>

#include "engine/cuda/launch.cuh"
#include "engine/cuda/recorders.cuh"
#include "engine/lesson_plugin_cuda.hpp"
#include "lessons/lesson.hpp"

namespace ts {

// The number the CUDA backend passes for its recorder Rec (cuda_backend.cu).
template <class Rec>
constexpr PluginRecorder plugin_recorder() {
  if constexpr (std::is_same_v<Rec, DeviceTraceRec>)
    return PluginRecorder::Trace;
  else if constexpr (std::is_same_v<Rec, SkewRec>)
    return PluginRecorder::Skew;
  else if constexpr (std::is_same_v<Rec, MaskRec>)
    return PluginRecorder::Mask;
  else
    return PluginRecorder::Plain;
}

namespace {

template <class L, class Body, class Rec>
int plugin_launch_as(const void* rec, const Params& p, const LaunchGeometry& g,
                     const KernelArgs& args) {
  cudaError_t err = cudaErrorInvalidDeviceFunction;
  auto f = [&](auto body) {
    err = launch_lesson<decltype(body), Rec>(g, *static_cast<const Rec*>(rec), args);
  };
  visit_lesson_body<L, Body>(p, f);
  return int(err);
}
template <class L, template <int...> class Body, class Rec>
int plugin_launch_as(const void* rec, const Params& p, const LaunchGeometry& g,
                     const KernelArgs& args) {
  cudaError_t err = cudaErrorInvalidDeviceFunction;
  auto f = [&](auto body) {
    err = launch_lesson<decltype(body), Rec>(g, *static_cast<const Rec*>(rec), args);
  };
  visit_lesson_body<L, Body>(p, f);
  return int(err);
}

}  // namespace

}  // namespace ts

// The launcher of lesson namespace NS (its Lesson and Body), for the plug-in's entry point.
#define TS_LESSON_CUDA_LAUNCHER(NS)                                                           \
  [](int recorder, const void* rec, const ::ts::Params& p, const ::ts::LaunchGeometry& g,     \
     const ::ts::KernelArgs& args) -> int {                                                   \
    switch (::ts::PluginRecorder(recorder)) {                                                 \
      case ::ts::PluginRecorder::Trace:                                                       \
        return ::ts::plugin_launch_as<NS::Lesson, NS::Body, ::ts::DeviceTraceRec>(rec, p, g,  \
                                                                                  args);      \
      case ::ts::PluginRecorder::Plain:                                                       \
        return ::ts::plugin_launch_as<NS::Lesson, NS::Body, ::ts::PlainRec>(rec, p, g, args); \
      case ::ts::PluginRecorder::Mask:                                                        \
        return ::ts::plugin_launch_as<NS::Lesson, NS::Body, ::ts::MaskRec>(rec, p, g, args);  \
      case ::ts::PluginRecorder::Skew:                                                        \
        return ::ts::plugin_launch_as<NS::Lesson, NS::Body, ::ts::SkewRec>(rec, p, g, args);  \
    }                                                                                         \
    return int(cudaErrorInvalidValue);                                                        \
  }
