// The probe's measurements against the model (io/bank_probe.hpp).
#include "io/bank_probe.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/warp_access.hpp"

namespace ts {

using nlohmann::json;

namespace {

struct KindInfo {
  const char* name;
  bool shared;
  EventKind event;
  const char* op;  // Nsight Compute's op_ suffix
};
constexpr KindInfo kKinds[] = {
    {"shared_ld", true, EventKind::SharedLoad, "ld"},
    {"shared_st", true, EventKind::SharedStore, "st"},
    {"shared_atom", true, EventKind::SharedAtomic, "atom"},
    {"global_ld", false, EventKind::GlobalLoad, "ld"},
    {"global_st", false, EventKind::GlobalStore, "st"},
    {"global_red", false, EventKind::GlobalAtomic, "red"},
};

const KindInfo* kind_info(std::string_view k) {
  for (const KindInfo& i : kKinds)
    if (k == i.name) return &i;
  return nullptr;
}

// "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" -> "shared ld wavefronts".
std::string short_name(const std::string& m) {
  static const std::pair<const char*, const char*> parts[] = {
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_", "shared wavefronts "},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_", "shared conflicts "},
      {"smsp__inst_executed_op_shared_", "shared instructions "},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_", "global requests "},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_", "global sectors "},
      {"smsp__inst_executed_op_global_", "global instructions "},
  };
  for (const auto& [prefix, name] : parts)
    if (m.rfind(prefix, 0) == 0) {
      std::string op = m.substr(std::string_view(prefix).size());
      if (op.size() > 4 && op.ends_with(".sum")) op.resize(op.size() - 4);
      return name + op;
    }
  return m;
}

}  // namespace

std::vector<ProbeCounter> probe_model_counters(std::string_view kind, int bytes, uint32_t mask,
                                               const std::vector<uint64_t>& offsets) {
  const KindInfo* k = kind_info(kind);
  if (!k) return {};
  std::vector<LaneAccess> lanes;
  for (int l = 0; l < kWarpLanes && size_t(l) < offsets.size(); ++l)
    if (mask >> l & 1u) lanes.push_back({l, offsets[size_t(l)], bytes});
  const std::string op = std::string(k->op) + ".sum";
  std::vector<ProbeCounter> c;
  if (k->shared) {
    // The probe's ATOMS.ADD adds `lane + 1` (bench/bank_probe.cu): one value per lane.
    const BankService s = serve_shared(lanes, k->event, AtomicOperand::PerLane);
    c.push_back({"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op, s.wavefronts, 0});
    c.push_back({"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op, s.conflicts(), 0});
    c.push_back({"smsp__inst_executed_op_shared_" + op, 1, 0});
  } else {
    const SectorService s = serve_global(lanes, k->event);
    c.push_back({"l1tex__t_requests_pipe_lsu_mem_global_op_" + op, 1, 0});
    c.push_back({"l1tex__t_sectors_pipe_lsu_mem_global_op_" + op, s.sectors, 0});
    c.push_back({"smsp__inst_executed_op_global_" + op, 1, 0});
  }
  return c;
}

int ProbeFile::measured() const {
  int n = 0;
  for (const ProbeRow& r : rows)
    n += r.measured;
  return n;
}

int ProbeFile::agreeing() const {
  int n = 0;
  for (const ProbeRow& r : rows)
    n += r.measured && r.agrees();
  return n;
}

std::optional<ProbeFile> parse_bank_probe(std::string_view text, std::string* error) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "tilescope-bank-probe") {
    if (error) *error = "not a bank probe file (format tilescope-bank-probe)";
    return std::nullopt;
  }
  ProbeFile f;
  f.gpu = j.value("gpu", "");
  f.driver = j.value("driver", "");
  f.ncu = j.value("ncu", "");
  f.partial = j.value("partial", false);
  f.sass_checked = j.contains("sass_ok");
  f.sass_ok = j.value("sass_ok", false);
  try {
    for (const json& p : j.at("patterns")) {
      ProbeRow r;
      r.id = p.at("id").get<int>();
      r.name = p.at("name").get<std::string>();
      r.kind = p.at("kind").get<std::string>();
      r.kernel = p.value("kernel", "");
      r.bytes = p.at("bytes").get<int>();
      r.mask = p.at("mask").get<uint32_t>();
      const std::vector<uint64_t> offsets = p.at("offsets").get<std::vector<uint64_t>>();
      if (!kind_info(r.kind) || offsets.size() != size_t(kWarpLanes)) {
        if (error) *error = "pattern " + std::to_string(r.id) + ": unknown kind or not 32 offsets";
        return std::nullopt;
      }
      const std::vector<ProbeCounter> model =
          probe_model_counters(r.kind, r.bytes, r.mask, offsets);
      if (const auto m = p.find("measured"); m != p.end() && m->is_object()) {
        r.measured = true;
        // Every counter ncu gave; the model's value, or 0 for another kind's.
        for (const auto& [metric, value] : m->items()) {
          if (!value.is_number()) continue;
          ProbeCounter c{metric, 0, value.get<int64_t>()};
          for (const ProbeCounter& x : model)
            if (x.metric == metric) c.model = x.model;
          r.counters.push_back(c);
        }
      }
      f.rows.push_back(std::move(r));
    }
  } catch (const json::exception& e) {
    if (error) *error = std::string("bank probe file: ") + e.what();
    return std::nullopt;
  }
  return f;
}

std::optional<ProbeFile> read_bank_probe(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = "cannot read " + path;
    return std::nullopt;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_bank_probe(ss.str(), error);
}

std::string bank_probe_table(const ProbeFile& f, bool all) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%4s %-20s %-30s %-28s %7s %7s\n", "id", "kernel", "pattern",
                "counter", "model", "ncu");
  out += line;
  std::map<std::string, std::pair<int, int>> per_kernel;  // measured, agreeing
  for (const ProbeRow& r : f.rows) {
    if (!r.measured) continue;
    auto& [n, ok] = per_kernel[r.kernel];
    ++n;
    ok += r.agrees();
    for (const ProbeCounter& c : r.counters) {
      if (!all && c.model == c.measured) continue;
      std::snprintf(line, sizeof line, "%4d %-20s %-30s %-28s %7lld %7lld%s\n", r.id,
                    r.kernel.c_str(), r.name.c_str(), short_name(c.metric).c_str(),
                    (long long)c.model, (long long)c.measured,
                    c.model == c.measured ? "" : "  DIFF");
      out += line;
    }
  }
  out += "\n";
  for (const auto& [kernel, counts] : per_kernel) {
    std::snprintf(line, sizeof line, "%-22s %4d of %4d patterns exact\n", kernel.c_str(),
                  counts.second, counts.first);
    out += line;
  }
  std::snprintf(line, sizeof line, "%s (driver %s, %s): %d of %d measured patterns exact%s%s\n",
                f.gpu.c_str(), f.driver.c_str(), f.ncu.c_str(), f.agreeing(), f.measured(),
                f.partial ? " (a partial run)" : "",
                !f.sass_checked ? ""
                : f.sass_ok     ? ""
                                : "; the SASS check FAILED");
  return out + line;
}

}  // namespace ts
