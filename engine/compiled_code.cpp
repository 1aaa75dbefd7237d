// The compiled-code table at run time: each lesson's embedded file read and
// checked once (engine/compiled/read_table.cpp), then a lesson kernel's entry
// found by its Body's type name: the generator names each kernel by its
// demangled symbol (launch_body<Body, PlainRec>), the host by typeid(Body),
// demangled alike.
#include "engine/compiled_code.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "engine/catalogue.hpp"
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

// "lessons/scan_blelloch.hpp" -> "scan_blelloch": the name of the lesson's file.
std::string_view file_name(std::string_view source_file) {
  const size_t slash = source_file.rfind('/');
  const std::string_view base =
      slash == std::string_view::npos ? source_file : source_file.substr(slash + 1);
  return base.substr(0, base.rfind('.'));
}

// Every built-in lesson's table, in all_lessons() order, read the first time
// one is asked for. Immutable afterwards: its kernels point into the embedded text.
const std::vector<compiled::LessonTable>& tables() {
  static const std::vector<compiled::LessonTable> all = [] {
    std::vector<compiled::LessonTable> out;
    const auto lessons = all_lessons();
    for (size_t i = 0; i < kLessonCount && i < lessons.size(); ++i) {
      const std::string_view name = file_name(lessons[i].source_file);
      const std::string path = std::string(compiled::kDataDir) + "/" + std::string(name) + ".tsv";
      out.push_back(compiled::read_lesson_table(lessons[i].id, name,
                                                compiled::find_file(compiled::kFiles, name), path,
                                                compiled::kSourceHashes));
    }
    return out;
  }();
  return all;
}

// The demangled name of each Body type, the first time it is asked for.
template <class Body>
const std::string& body_name() {
  static const std::string name = demangled(typeid(Body).name());
  return name;
}

}  // namespace

const CompiledStatus& compiled_code_status(size_t lesson_index) {
  static const CompiledStatus lesson_file{
      CompiledState::LessonFile, "",
      "a lesson file has no compiled-code table (its SASS is not read): the counts follow the "
      "source"};
  const auto& all = tables();
  return lesson_index < all.size() ? all[lesson_index].status : lesson_file;
}

const CompiledKernel* compiled_kernel(size_t lesson_index, const Params& p) {
  const auto& all = tables();
  if (lesson_index >= all.size() || !all[lesson_index].status.current()) return nullptr;
  const std::vector<CompiledKernel>& k = all[lesson_index].kernels;
  const CompiledKernel* found = nullptr;
  visit_lesson(lesson_index, p, [&](auto body) {
    const std::string& name = body_name<decltype(body)>();
    const auto it =
        std::lower_bound(k.begin(), k.end(), name,
                         [](const CompiledKernel& c, std::string_view b) { return c.body < b; });
    if (it != k.end() && it->body == name) found = &*it;
  });
  return found;
}

std::string compiled_code_note(size_t lesson_index, const Params& p) {
  if (compiled_kernel(lesson_index, p)) return "";
  const CompiledStatus& s = compiled_code_status(lesson_index);
  if (!s.current()) return s.message;
  const auto lessons = all_lessons();
  std::string body;
  visit_lesson(lesson_index, p, [&](auto b) { body = body_name<decltype(b)>(); });
  return "the compiled-code table for " + std::string(lessons[lesson_index].id) + " has no " +
         (body.empty() ? std::string("kernel for these parameters") : "kernel " + body) + " (" +
         s.origin +
         "): the counts follow the source; run scripts/sass_table.sh (needs nvcc and nvdisasm)";
}

std::string_view compiled_code_origin(size_t lesson_index) {
  return compiled_code_status(lesson_index).origin;
}

}  // namespace ts
