// The compiled level in `run` and `inspect`: what the GPU executes beside what
// the source asks for (analysis/compiled_access.hpp), in words and as JSON.
#include <algorithm>
#include <ostream>
#include <string>

#include "analysis/compiled_access.hpp"
#include "cli/report.hpp"

namespace ts::cli {
namespace {

// What the compiled level did to one site: its instruction, how many source
// accesses per lane one instruction serves, the other line it serves, idle issues.
struct SiteNote {
  std::string_view opcode;
  int merged = 1;
  uint16_t also_line = 0;
};

SiteNote note_of(const WarpAccesses& compiled, const SiteTotals& s) {
  SiteNote n;
  for (const WarpAccess& a : compiled.accesses) {
    if (a.line != s.line || a.kind != s.kind || a.array != s.array) continue;
    if (n.opcode.empty()) n.opcode = a.opcode;
    n.merged = std::max<int>(n.merged, a.merged);
    if (a.merged_line) n.also_line = a.merged_line;
  }
  return n;
}

const char* kind_words(EventKind k) {
  switch (k) {
    case EventKind::SharedLoad:
      return "shared loads";
    case EventKind::SharedStore:
      return "shared stores";
    case EventKind::SharedAtomic:
      return "shared atomics";
    case EventKind::GlobalLoad:
      return "global loads";
    case EventKind::GlobalStore:
      return "global stores";
    case EventKind::GlobalAtomic:
      return "global atomics";
    default:
      return "accesses";
  }
}

}  // namespace

std::string compiled_level_name(const AccessLevels& l) {
  if (!l.code) return "the source: " + l.why_source;
  return std::string(l.code->arch) + " SASS of " + std::string(l.code->body) + ", " +
         std::string(l.origin);
}

void print_compiled_level(std::ostream& out, const Trace& t, const AccessLevels& l) {
  if (!l.code) {  // the message says why, and how to get the compiled view back
    out << "as the GPU executes it: not shown, " << l.why_source << "\n";
    return;
  }
  out << "as the GPU executes it (" << compiled_level_name(l)
      << "): the instructions Nsight Compute counts\n";
  bool any = false;
  for (EventKind k : {EventKind::SharedLoad, EventKind::SharedStore, EventKind::SharedAtomic,
                      EventKind::GlobalLoad, EventKind::GlobalStore, EventKind::GlobalAtomic}) {
    const AccessTotals& c = l.compiled.totals(k);
    const AccessTotals& s = l.source.totals(k);
    if (!c.instructions()) continue;
    const bool shared = shared_access(k);
    out << "  " << kind_words(k) << ": " << c.instructions() << " instructions";
    if (c.idle) out << " (" << c.idle << " with every lane predicated off)";
    if (shared)
      out << ", " << c.wavefronts << " wavefronts, " << c.bank_conflicts() << " bank conflicts";
    else
      out << ", " << c.sectors << " sectors";
    out << "; the source asks for " << s.requests << " warp accesses";
    if (shared) out << ", " << s.wavefronts << " wavefronts";
    out << "\n";
    for (const SiteTotals& site : l.compiled.per_site) {
      if (site.kind != k) continue;
      const SiteNote n = note_of(l.compiled, site);
      const std::string where =
          "    line " + std::to_string(site.line) + " " + access_text(t, site.line, site.array);
      if (n.merged > 1) {
        out << where << ": " << n.merged << " source accesses per lane run as one " << n.opcode
            << " (" << site.totals.requests << " instructions)\n";
        any = true;
      }
      if (site.totals.idle) {
        out << where << ": " << n.opcode << " issued " << site.totals.idle
            << " times by warps with every lane predicated off\n";
        any = true;
      }
      if (n.also_line) {
        out << where << ": one " << n.opcode << " also serves line " << n.also_line
            << "'s stores (the two arms of an if)\n";
        any = true;
      }
    }
  }
  if (!any) out << "  every access runs as the source writes it\n";
}

nlohmann::json compiled_level_json(const Trace& t, const AccessLevels& l) {
  using nlohmann::json;
  json j = {{"origin", std::string(l.origin)},
            {"arch", std::string(kCompiledArch)},
            {"found", l.code != nullptr}};
  j["kernel"] = l.code ? json(std::string(l.code->body)) : json(nullptr);
  if (!l.code) j["message"] = l.why_source;
  json sites = json::array();
  if (l.code)
    for (const SiteTotals& s : l.compiled.per_site) {
      const SiteNote n = note_of(l.compiled, s);
      json x = {{"line", s.line},
                {"kind", to_string(s.kind)},
                {"array", array_name(t.config.arrays, s.array)},
                {"source", access_text(t, s.line, s.array)},
                {"opcode", std::string(n.opcode)},
                {"instructions", s.totals.instructions()},
                {"idle_issues", s.totals.idle},
                {"merged_per_lane", n.merged}};
      if (n.also_line) x["also_serves_line"] = n.also_line;
      if (shared_access(s.kind)) {
        x["wavefronts"] = s.totals.wavefronts;
        x["bank_conflicts"] = s.totals.bank_conflicts();
      } else {
        x["requests"] = s.totals.requests;
        x["sectors"] = s.totals.sectors;
      }
      sites.push_back(x);
    }
  j["sites"] = sites;
  return j;
}

}  // namespace ts::cli
