// One lesson's GPU side (engine/lesson_plugin_cuda.hpp: LessonCudaOps), made
// from its Lesson and Body. Every built-in lesson is compiled through it in a
// translation unit of its own (engine/CMakeLists.txt generates
// build/.../engine/cuda_lessons/<lesson>.cu), and so is the GPU half of a
// lesson-file plug-in (engine/lesson_file.cpp): one launch path for both, the
// launch of engine/cuda/launch.cuh.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "engine/cuda/launch.cuh"
#include "engine/cuda/recorders.cuh"
#include "engine/cuda/trace_recorder.cuh"
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

// A lesson's visit as one type, whether its Body is a class or a template of
// ints (lessons/lesson.hpp: visit_lesson_body); lesson_visitor<L, Body>()
// picks the right one by overloading.
template <class L, class Body>
struct PlainBodyVisitor {
  template <class F>
  static bool visit(const Params& p, F& f) {
    return visit_lesson_body<L, Body>(p, f);
  }
};
template <class L, template <int...> class Body>
struct TemplateBodyVisitor {
  template <class F>
  static bool visit(const Params& p, F& f) {
    return visit_lesson_body<L, Body>(p, f);
  }
};
template <class L, class Body>
constexpr PlainBodyVisitor<L, Body> lesson_visitor() {
  return {};
}
template <class L, template <int...> class Body>
constexpr TemplateBodyVisitor<L, Body> lesson_visitor() {
  return {};
}

template <class V, class Rec>
int launch_as(const void* rec, const Params& p, const LaunchGeometry& g, const KernelArgs& args) {
  cudaError_t err = cudaErrorInvalidDeviceFunction;
  auto f = [&](auto body) {
    err = launch_lesson<decltype(body), Rec>(g, *static_cast<const Rec*>(rec), args);
  };
  V::visit(p, f);
  return int(err);
}

template <class V>
int launch_with(int recorder, const void* rec, const Params& p, const LaunchGeometry& g,
                const KernelArgs& args) {
  switch (PluginRecorder(recorder)) {
    case PluginRecorder::Trace:
      return launch_as<V, DeviceTraceRec>(rec, p, g, args);
    case PluginRecorder::Plain:
      return launch_as<V, PlainRec>(rec, p, g, args);
    case PluginRecorder::Mask:
      return launch_as<V, MaskRec>(rec, p, g, args);
    case PluginRecorder::Skew:
      return launch_as<V, SkewRec>(rec, p, g, args);
  }
  return int(cudaErrorInvalidValue);
}

template <class V>
const void* timed_kernel_of(const Params& p) {
  const void* kernel = nullptr;
  auto f = [&](auto body) {
    kernel = reinterpret_cast<const void*>(body_kernel<decltype(body), PlainRec>());
  };
  V::visit(p, f);
  return kernel;
}

template <class V>
int prepare_timed_of(const Params& p, const LaunchGeometry& g, const KernelArgs& args) {
  cudaError_t err = cudaErrorInvalidDeviceFunction;
  auto f = [&](auto body) {
    using Body = decltype(body);
    err = prepare_launch<Body, PlainRec>(g);
    if (err == cudaSuccess) err = upload_constants<Body>(args);
  };
  V::visit(p, f);
  return int(err);
}

template <class V>
int launch_timed_of(const Params& p, const LaunchGeometry& g, const KernelArgs& args) {
  cudaError_t err = cudaErrorInvalidDeviceFunction;
  auto f = [&](auto body) { err = launch_prepared<decltype(body), PlainRec>(g, PlainRec{}, args); };
  V::visit(p, f);
  return int(err);
}

template <class V>
constexpr LessonCudaOps lesson_cuda_ops_of() {
  return {&launch_with<V>, &timed_kernel_of<V>, &prepare_timed_of<V>, &launch_timed_of<V>};
}

}  // namespace

}  // namespace ts

// The GPU side of lesson namespace NS (its Lesson and Body).
#define TS_LESSON_CUDA_OPS(NS) \
  ::ts::lesson_cuda_ops_of<decltype(::ts::lesson_visitor<NS::Lesson, NS::Body>())>()
