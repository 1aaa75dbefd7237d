// Finds a lesson kernel's entry in the compiled-code table by its Body's
// type name: the generator names each kernel by its demangled symbol
// (launch_body<Body, PlainRec>), the host by typeid(Body), demangled alike.
#include "engine/compiled_code.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>

#include "engine/compiled/compiled_table.hpp"
#include "engine/lesson_dispatch.hpp"

namespace ts {
namespace {

std::string demangled(const char* mangled) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangled);
}

const CompiledKernel* find_body(std::string_view body) {
  const auto& k = compiled::kKernels;
  const auto it =
      std::lower_bound(k.begin(), k.end(), body,
                       [](const CompiledKernel& c, std::string_view b) { return c.body < b; });
  return it != k.end() && it->body == body ? &*it : nullptr;
}

// One look-up per Body type, the first time it is asked for.
template <class Body>
const CompiledKernel* kernel_of() {
  static const CompiledKernel* const kernel = find_body(demangled(typeid(Body).name()));
  return kernel;
}

}  // namespace

const CompiledKernel* compiled_kernel(size_t lesson_index, const Params& p) {
  const CompiledKernel* found = nullptr;
  visit_lesson(lesson_index, p, [&](auto body) { found = kernel_of<decltype(body)>(); });
  return found;
}

std::string_view compiled_code_origin() {
  return compiled::kOrigin;
}

}  // namespace ts
