// `tilescope-cli list`: the catalogue, one lesson per line.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "engine/catalogue.hpp"

namespace ts::cli {
namespace {

std::string params_of(const LessonInfo& v) {
  std::string s;
  for (const NamedParam& q : used_params(v.uses, v.defaults))
    s += (s.empty() ? "--" : " --") + std::string(q.name) + " " + std::to_string(q.value);
  return s;
}

std::string barriers_of(const LessonInfo& v) {
  if (v.barriers.empty()) return "none";
  std::string s;
  for (const auto& b : v.barriers)
    s += (s.empty() ? "" : ", ") + std::to_string(b.id) + " (line " + std::to_string(b.line) + ")" +
         (b.warp_scope ? " __syncwarp" : "");
  return s;
}

int list(bool json) {
  const auto cat = all_lessons();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const LessonInfo& v : cat) {
      nlohmann::json bars = nlohmann::json::array();
      for (const auto& b : v.barriers)
        bars.push_back(
            {{"id", b.id}, {"line", b.line}, {"call", barrier_call(b)}, {"purpose", b.purpose}});
      nlohmann::json params = nlohmann::json::object();
      for (const NamedParam& q : used_params(v.uses, v.defaults))
        params[q.name] = q.value;
      // One larger size, for measurements beside the defaults (engine/catalogue.hpp).
      std::string larger_from;
      const Params larger = larger_size(v, &larger_from);
      nlohmann::json larger_params = nlohmann::json::object();
      std::string larger_args;
      for (const NamedParam& q : used_params(v.uses, larger)) {
        larger_params[q.name] = q.value;
        larger_args += (larger_args.empty() ? "--" : " --") + std::string(q.name) + " " +
                       std::to_string(q.value);
      }
      out.push_back({{"id", v.id},
                     {"title", v.title},
                     {"summary", v.summary},
                     {"family", v.family},
                     {"source", v.source_file},
                     {"function", v.function},
                     {"defaults", params},
                     {"larger", larger_params},
                     {"larger_args", larger_args},
                     {"larger_from", larger_from},
                     {"barriers", bars}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  size_t wid = 2, wtitle = 5, wparams = 20;
  for (const LessonInfo& v : cat) {
    wid = std::max(wid, std::string(v.id).size());
    wtitle = std::max(wtitle, std::string(v.title).size());
    wparams = std::max(wparams, params_of(v).size());
  }
  auto pad = [](std::string s, size_t w) { return s.append(w > s.size() ? w - s.size() : 0, ' '); };
  std::cout << pad("ID", wid) << "  " << pad("TITLE", wtitle) << "  "
            << pad("PARAMETERS (defaults)", wparams) << "  BARRIERS\n";
  for (const LessonInfo& v : cat)
    std::cout << pad(v.id, wid) << "  " << pad(v.title, wtitle) << "  "
              << pad(params_of(v), wparams) << "  " << barriers_of(v) << "\n";
  std::cout << "\n"
            << cat.size()
            << " lessons. Run one: tilescope-cli run <ID> [parameters] [--no-barrier N]\n";
  return 0;
}

TS_CLI_COMMAND(list_command, "list", "List every lesson, its parameters and barriers",
               [](CLI::App& sub) -> std::function<int()> {
                 auto json = std::make_shared<bool>(false);
                 sub.add_flag("--json", *json, "Print the lessons as JSON");
                 return [json] { return list(*json); };
               });

}  // namespace
}  // namespace ts::cli
