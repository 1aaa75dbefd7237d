// The compiled level in words (app/views/compiled_note.hpp).
#include "app/views/compiled_note.hpp"

#include <cstdint>
#include <set>

namespace ts::app {
namespace {

std::string count(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "2 wavefronts" or "4 sectors": what the memory system does for one access.
std::string service(const WarpAccess& a) {
  if (a.constant) return count(uint64_t(a.constant_addresses), "address", "addresses");
  return shared_access(a.kind) ? count(uint64_t(a.bank.wavefronts), "wavefront", "wavefronts")
                               : count(uint64_t(a.sector.sectors), "sector", "sectors");
}

const char* noun(EventKind k, bool many) {
  if (is_load(k)) return many ? "loads" : "load";
  if (is_store(k)) return many ? "stores" : "store";
  return many ? "atomics" : "atomic";
}

}  // namespace

std::string compiled_note(const WarpIndex& w, const Trace& t, const WarpAccess& a) {
  if (!w.code) return "GPU: not shown, " + w.why_source + ".";
  const WarpAccess* c = compiled_of(w.compiled, w.accesses, t, a);
  if (!c) return "";
  // The instruction's name, else its width and kind ("16-byte load").
  const std::string op = c->opcode.empty() ? std::to_string(int(c->bytes)) + "-byte " +
                                                 noun(a.kind, false) + " (not in the table)"
                                           : std::string(c->opcode);
  std::string s = "GPU: ";
  if (c->merged > 1)
    s += "this line's " + std::to_string(int(c->merged)) + " " + noun(a.kind, true) +
         " per lane run as one " + op + " (" + service(*c) + " for the warp)";
  else if (c->merged_line)
    s += "one " + op + " serves this " + noun(a.kind, false) + " and line " +
         std::to_string(c->merged_line) + "'s, the two arms of the if (" + service(*c) + ")";
  else
    s += "one " + op + ", as the source asks (" + service(*c) + ")";
  // Issues of this line's instructions in this block and phase with no lane on.
  uint64_t idle = 0;
  std::set<uint16_t> warps;
  for (const WarpAccess& x : w.compiled.accesses)
    if (x.idle && x.block == c->block && x.phase == c->phase && x.line == c->line &&
        x.kind == c->kind && x.array == c->array) {
      ++idle;
      warps.insert(x.warp);
    }
  if (idle)
    s += "; " + count(warps.size(), "other warp", "other warps") +
         " of this block issue it too, every lane predicated off (" +
         count(idle, "issue", "issues") + " of this line's " + noun(a.kind, true) + ", no " +
         (shared_access(a.kind) ? "wavefront" : "request") + ")";
  return s + ". Nsight Compute counts the GPU's.";
}

std::vector<std::string> level_totals(const WarpIndex& w) {
  std::vector<std::string> out;
  for (EventKind k : {EventKind::SharedLoad, EventKind::SharedStore, EventKind::SharedAtomic,
                      EventKind::GlobalLoad, EventKind::GlobalStore, EventKind::GlobalAtomic}) {
    const AccessTotals& s = w.accesses.totals(k);
    const AccessTotals& c = w.compiled.totals(k);
    if (!s.requests && !c.instructions()) continue;
    const bool shared = shared_access(k);
    std::string line = std::string(to_string(k)) + "s: source " +
                       count(s.requests, "access", "accesses") + ", " +
                       (shared ? count(s.wavefronts, "wavefront", "wavefronts")
                               : count(s.sectors, "sector", "sectors"));
    line += "; GPU " + count(c.instructions(), "instruction", "instructions");
    if (c.idle) line += " (" + std::to_string(c.idle) + " with no lane on)";
    line += ", " + (shared ? count(c.wavefronts, "wavefront", "wavefronts")
                           : count(c.sectors, "sector", "sectors"));
    if (shared && (c.bank_conflicts() || s.bank_conflicts()))
      line += ", " + count(c.bank_conflicts(), "conflict", "conflicts") + " (source " +
              std::to_string(s.bank_conflicts()) + ")";
    out.push_back(line);
  }
  return out;
}

}  // namespace ts::app
