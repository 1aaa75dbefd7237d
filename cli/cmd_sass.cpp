// `tilescope-cli sass <lesson> [parameters] [--json]`: what nvcc made of the
// lesson's timed kernel. Per source line of the kernel, the memory
// instructions it compiled to (engine/compiled_code.hpp): four scalar loads
// of a line merged into one LDS.128, a store the warp issues under a
// predicate. For the parameters given, else the lesson's defaults.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/report.hpp"
#include "engine/catalogue.hpp"
#include "engine/compiled_code.hpp"
#include "engine/lesson_options.hpp"

namespace ts::cli {
namespace {

struct SassOptions {
  std::string lesson;
  std::vector<CLI::Option*> param_options;  // by kParamFields index
  Params given;
  bool json = false;
};

const char* space_name(Space s) {
  return s == Space::Shared ? "shared" : s == Space::Constant ? "constant" : "global";
}
const char* op_name(SassOp op) {
  switch (op) {
    case SassOp::Load:
      return "load";
    case SassOp::Store:
      return "store";
    case SassOp::Atomic:
      return "atomic";
    case SassOp::Reduce:
      return "reduce";
  }
  return "?";
}

// Line `line` (1-based) of a text, without its indentation ("" past the end).
std::string line_of(std::string_view text, int line) {
  size_t at = 0;
  for (int l = 1; l < line && at != std::string_view::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string_view::npos) ++at;
  }
  if (at == std::string_view::npos || at >= text.size()) return "";
  const std::string_view rest = text.substr(at, text.find('\n', at) - at);
  const size_t first = rest.find_first_not_of(" \t");
  return first == std::string_view::npos ? "" : std::string(rest.substr(first));
}

// The kernel's instructions by source line: the lesson's own header first,
// then the kits it calls, each in line order.
using Lines = std::map<std::pair<int, std::pair<std::string, int>>, std::vector<CompiledAccess>>;
Lines by_line(const CompiledKernel& k, const std::string& own_file) {
  Lines lines;
  for (const CompiledAccess& a : k.accesses) {
    const std::string file(a.file);
    lines[{file == own_file ? 0 : 1, {file, a.line}}].push_back(a);
  }
  return lines;
}

int sass_command(const SassOptions& o) {
  const char* cmd = "sass";
  const LessonInfo* v = find_lesson(o.lesson);
  if (!v) return usage_error(cmd, unknown_lesson(o.lesson), o.json);
  Params p = v->defaults;
  for (size_t i = 0; i < std::size(kParamFields); ++i) {
    if (o.param_options[i]->count() == 0) continue;
    if (!(v->uses & kParamFields[i].bit)) {  // as `run` says it
      std::cerr << "tilescope-cli sass: note: " << v->id << " does not use "
                << o.param_options[i]->get_name() << "; ignored\n";
      continue;
    }
    p.*kParamFields[i].field = o.given.*kParamFields[i].field;
  }
  if (auto err = check_lesson_limits(*v, p, DeviceLimits{})) return usage_error(cmd, *err, o.json);
  const size_t index = *lesson_index(v->id);
  const CompiledKernel* k = compiled_kernel(index, p);
  if (!k) return failure(cmd, describe(*v, p) + ": " + compiled_code_note(index, p), o.json);
  const std::string origin(compiled_code_origin(index));

  const std::string source = v->source_file;
  const std::string own_file = source.substr(source.rfind('/') + 1);
  const std::string_view own_text = lesson_source(source);
  const Lines lines = by_line(*k, own_file);
  if (o.json) {
    nlohmann::json out = {{"ok", true},      {"lesson", v->id}, {"params", describe(*v, p)},
                          {"body", k->body}, {"arch", k->arch}, {"origin", origin}};
    nlohmann::json jl = nlohmann::json::array();
    for (const auto& [key, list] : lines) {
      const auto& [file, line] = key.second;
      nlohmann::json ins = nlohmann::json::array();
      for (const CompiledAccess& a : list)
        ins.push_back({{"offset", a.offset},
                       {"opcode", a.opcode},
                       {"space", space_name(a.space)},
                       {"op", op_name(a.op)},
                       {"bytes", a.bytes},
                       {"predicated", a.predicated},
                       {"barriers", a.barriers}});
      jl.push_back({{"file", file},
                    {"line", line},
                    {"source", file == own_file ? line_of(own_text, line) : ""},
                    {"instructions", ins}});
    }
    out["lines"] = jl;
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << v->id << " " << describe(*v, p) << ": " << k->body << ", " << k->arch << "\n"
            << "table: " << origin << "\n";
  for (const auto& [key, list] : lines) {
    const auto& [file, line] = key.second;
    std::cout << "\n" << file << ":" << line;
    if (file == own_file) std::cout << "  " << line_of(own_text, line);
    std::cout << "\n";
    for (const CompiledAccess& a : list) {
      std::ostringstream s;
      s << "    " << std::hex << std::setw(5) << std::setfill('0') << a.offset << std::dec
        << std::setfill(' ') << "  " << std::left << std::setw(24) << a.opcode << std::setw(9)
        << space_name(a.space) << std::setw(7) << op_name(a.op) << std::right << std::setw(3)
        << int(a.bytes) << " B" << (a.predicated ? "  predicated" : "");
      std::cout << s.str() << "\n";
    }
  }
  std::cout << "\n"
            << k->accesses.size() << " memory instructions on " << lines.size()
            << " lines (predicated: issued by the warp even where every lane's guard is false)\n";
  return kExitOk;
}

TS_CLI_COMMAND(sass_cmd, "sass",
               "Show the memory instructions nvcc made of a lesson's kernel, per source line",
               [](CLI::App& sub) -> std::function<int()> {
                 auto o = std::make_shared<SassOptions>();
                 sub.add_option("lesson", o->lesson, "The lesson (tilescope-cli list)")->required();
                 for (const ParamField& f : kParamFields)
                   o->param_options.push_back(
                       sub.add_option(std::string("--") + f.name, o->given.*f.field,
                                      "The parameter, where it picks the kernel (a tile width)")
                           ->check(whole_number(0, 1 << 20)));
                 sub.add_flag("--json", o->json, "Print one JSON object instead of text");
                 return [o] { return sass_command(*o); };
               });

}  // namespace
}  // namespace ts::cli
