// The performance report as plain data: save/load (JSON), CSV export, a terminal table, comparison
// of two runs. Nothing here needs CUDA.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "io/perf_report.hpp"

#include "io/input_file.hpp"
#include "io/output_file.hpp"

namespace ts {

using nlohmann::json;

namespace {
constexpr const char* kFormat = "tilescope-perf";
constexpr int kVersion = 1;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
}  // namespace

namespace {
// The lesson's family, or what a reference is measured against.
std::string family_of(const PerfResult& x) {
  if (const LessonInfo* v = find_lesson(x.kernel)) return v->family;
  if (const LibraryAnchor* a = find_library_anchor(x.kernel))
    return std::string("library: ") + a->family;
  return x.kernel == kCublasId ? "reference: cuBLAS" : "reference: copy";
}

// Every parameter by its name (kParamFields), read and written alike.
json params_json(const Params& p) {
  json j = json::object();
  for (const ParamField& f : kParamFields)
    j[f.name] = p.*f.field;
  return j;
}
Params params_from(const json& j) {
  Params p;
  for (const ParamField& f : kParamFields)
    p.*f.field = j.value(f.name, 0);
  return p;
}
PerfStatus status_from(const std::string& s) {
  if (s == "ok") return PerfStatus::Ok;
  if (s == "wrong") return PerfStatus::Wrong;
  if (s == "skipped") return PerfStatus::Skipped;
  if (s == "error") return PerfStatus::Error;
  throw std::runtime_error("unknown status '" + s + "'");
}
}  // namespace

std::string to_json(const PerfReport& r, int indent) {
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["created"] = r.created;
  j["host"] = r.host;
  j["cancelled"] = r.cancelled;
  j["error"] = r.error;
  j["notes"] = r.notes;
  const PerfDevice& d = r.device;
  j["device"] = {{"usable", d.usable},
                 {"reason", d.reason},
                 {"name", d.name},
                 {"cc_major", d.cc_major},
                 {"cc_minor", d.cc_minor},
                 {"sm_count", d.sm_count},
                 {"clock_khz", d.clock_khz},
                 {"fp32_cores_per_sm", d.fp32_cores_per_sm},
                 {"fp32_peak_gflops", d.fp32_peak_gflops},
                 {"l2_bytes", d.l2_bytes},
                 {"global_memory_bytes", d.global_memory_bytes},
                 {"max_threads_per_sm", d.max_threads_per_sm},
                 {"copy_gbps", d.copy_gbps},
                 {"copy_bytes", d.copy_bytes},
                 {"cublas_math", d.cublas_math},
                 {"driver", d.driver},
                 {"runtime", d.runtime}};
  const PerfConfig& c = r.config;
  j["config"] = {{"kernels", c.kernels},
                 {"matmul_sizes", c.matmul_sizes},
                 {"stencil_lengths", c.stencil_lengths},
                 {"tiles", c.tiles},
                 {"stencil_radius", c.stencil_radius},
                 {"stencil_block", c.stencil_block},
                 {"warmup", c.warmup},
                 {"reps", c.reps},
                 {"max_seconds_per_point", c.max_seconds_per_point},
                 {"flush_l2", c.flush_l2},
                 {"with_cublas", c.with_cublas},
                 {"with_copy", c.with_copy},
                 {"with_library", c.with_library},
                 {"bandwidth_input", to_string(c.bandwidth_input)},
                 {"cpu_reference_max_n", c.cpu_reference_max_n},
                 {"input_seed", c.input_seed},
                 {"max_gpu_bytes", c.max_gpu_bytes}};
  json rows = json::array();
  for (const auto& x : r.results) {
    const KernelAttributes& a = x.attrs;
    rows.push_back({{"kernel", x.kernel},
                    {"family", family_of(x)},
                    {"metric", x.metric == PerfMetric::Flops ? "flops" : "bytes"},
                    {"tile", x.tile},
                    {"size", x.size},
                    {"params", params_json(x.params)},
                    {"status", to_string(x.status)},
                    {"message", x.message},
                    {"checked_against", x.checked_against},
                    {"max_abs_error", x.max_abs_error},
                    {"reps", x.reps},
                    {"ms_median", x.ms_median},
                    {"ms_min", x.ms_min},
                    {"ms_max", x.ms_max},
                    {"flops", x.flops},
                    {"compulsory_bytes", x.compulsory_bytes},
                    {"gflops", x.gflops},
                    {"gbps", x.gbps},
                    {"intensity", x.intensity},
                    {"pct_cublas", x.pct_cublas},
                    {"pct_copy", x.pct_copy},
                    {"pct_peak", x.pct_peak},
                    {"attributes",
                     {{"known", a.known},
                      {"registers", a.registers},
                      {"static_shared_bytes", a.static_shared_bytes},
                      {"dynamic_shared_bytes", a.dynamic_shared_bytes},
                      {"local_bytes", a.local_bytes},
                      {"threads_per_block", a.threads_per_block},
                      {"max_blocks_per_sm", a.max_blocks_per_sm},
                      {"occupancy", a.occupancy}}}});
  }
  j["results"] = rows;
  return j.dump(indent);
}

std::optional<PerfReport> report_from_json(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& m) -> std::optional<PerfReport> {
    if (error) *error = m;
    return std::nullopt;
  };
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return fail("not a TileScope performance report: the file is not valid JSON");
  // A field of the wrong type ("format": 5, "version": "1") is a malformed
  // report, not an exception out of here: the window opens any file it is given.
  try {
    if (!j.contains("format") || !j.at("format").is_string() ||
        j.at("format").get<std::string>() != kFormat)
      return fail("not a TileScope performance report: \"format\" is not \"tilescope-perf\"");
    const int version = j.value("version", 0);
    if (version > kVersion)
      return fail("performance report version " + std::to_string(version) +
                  " is newer than this TileScope reads (up to " + std::to_string(kVersion) +
                  "): update TileScope");
    if (version < 1) return fail("performance report has no valid version");
    PerfReport r;
    r.created = j.value("created", std::string());
    r.host = j.value("host", std::string());
    r.cancelled = j.value("cancelled", false);
    r.error = j.value("error", std::string());
    r.notes = j.value("notes", std::vector<std::string>{});
    if (j.contains("device")) {
      const json& d = j.at("device");
      PerfDevice& o = r.device;
      o.usable = d.value("usable", false);
      o.reason = d.value("reason", std::string());
      o.name = d.value("name", std::string());
      o.cc_major = d.value("cc_major", 0);
      o.cc_minor = d.value("cc_minor", 0);
      o.sm_count = d.value("sm_count", 0);
      o.clock_khz = d.value("clock_khz", 0);
      o.fp32_cores_per_sm = d.value("fp32_cores_per_sm", 0);
      o.fp32_peak_gflops = d.value("fp32_peak_gflops", 0.0);
      o.l2_bytes = d.value("l2_bytes", 0);
      o.global_memory_bytes = d.value("global_memory_bytes", uint64_t(0));
      o.max_threads_per_sm = d.value("max_threads_per_sm", 0);
      o.copy_gbps = d.value("copy_gbps", 0.0);
      o.copy_bytes = d.value("copy_bytes", uint64_t(0));
      o.cublas_math = d.value("cublas_math", std::string());
      o.driver = d.value("driver", std::string());
      o.runtime = d.value("runtime", std::string());
    }
    if (j.contains("config")) {
      const json& c = j.at("config");
      PerfConfig& o = r.config;
      o.kernels = c.value("kernels", std::vector<std::string>{});
      o.matmul_sizes = c.value("matmul_sizes", std::vector<int>{});
      o.stencil_lengths = c.value("stencil_lengths", std::vector<int>{});
      o.tiles = c.value("tiles", std::vector<int>{});
      o.stencil_radius = c.value("stencil_radius", o.stencil_radius);
      o.stencil_block = c.value("stencil_block", o.stencil_block);
      o.warmup = c.value("warmup", o.warmup);
      o.reps = c.value("reps", o.reps);
      o.max_seconds_per_point = c.value("max_seconds_per_point", o.max_seconds_per_point);
      o.flush_l2 = c.value("flush_l2", o.flush_l2);
      o.with_cublas = c.value("with_cublas", o.with_cublas);
      o.with_copy = c.value("with_copy", o.with_copy);
      o.with_library = c.value("with_library", o.with_library);
      // An unknown name (a newer file) leaves the lessons' own inputs.
      parse_library_input(c.value("bandwidth_input", std::string()), o.bandwidth_input);
      o.cpu_reference_max_n = c.value("cpu_reference_max_n", o.cpu_reference_max_n);
      o.input_seed = c.value("input_seed", o.input_seed);
      o.max_gpu_bytes = c.value("max_gpu_bytes", o.max_gpu_bytes);
    }
    for (const json& x : j.value("results", json::array())) {
      PerfResult o;
      o.kernel = x.at("kernel").get<std::string>();
      // Reports before the open catalogue had only "family": matmul or stencil.
      o.metric = x.contains("metric")
                     ? (x.value("metric", std::string()) == "bytes" ? PerfMetric::Bytes
                                                                    : PerfMetric::Flops)
                     : (x.value("family", std::string("matmul")) == "stencil" ? PerfMetric::Bytes
                                                                              : PerfMetric::Flops);
      o.tile = x.value("tile", 0);
      o.size = x.value("size", 0);
      if (x.contains("params")) o.params = params_from(x.at("params"));
      o.status = status_from(x.value("status", std::string("ok")));
      o.message = x.value("message", std::string());
      o.checked_against = x.value("checked_against", std::string());
      o.max_abs_error = x.value("max_abs_error", 0.0);
      o.reps = x.value("reps", 0);
      o.ms_median = x.value("ms_median", 0.0);
      o.ms_min = x.value("ms_min", 0.0);
      o.ms_max = x.value("ms_max", 0.0);
      o.flops = x.value("flops", 0.0);
      o.compulsory_bytes = x.value("compulsory_bytes", 0.0);
      o.gflops = x.value("gflops", 0.0);
      o.gbps = x.value("gbps", 0.0);
      o.intensity = x.value("intensity", 0.0);
      o.pct_cublas = x.value("pct_cublas", 0.0);
      o.pct_copy = x.value("pct_copy", 0.0);
      o.pct_peak = x.value("pct_peak", 0.0);
      o.issued_intensity = issued_intensity_of(o);  // derived, never stored
      if (x.contains("attributes")) {
        const json& a = x.at("attributes");
        o.attrs.known = a.value("known", false);
        o.attrs.registers = a.value("registers", 0);
        o.attrs.static_shared_bytes = a.value("static_shared_bytes", 0);
        o.attrs.dynamic_shared_bytes = a.value("dynamic_shared_bytes", 0);
        o.attrs.local_bytes = a.value("local_bytes", 0);
        o.attrs.threads_per_block = a.value("threads_per_block", 0);
        o.attrs.max_blocks_per_sm = a.value("max_blocks_per_sm", 0);
        o.attrs.occupancy = a.value("occupancy", 0.0);
      }
      r.results.push_back(std::move(o));
    }
    return r;
  } catch (const std::exception& e) {
    return fail(std::string("performance report is malformed: ") + e.what());
  }
}

bool write_text_file(const std::string& path, const std::string& text, std::string* error) {
  // The window's Save (the user chose the path): replaced, but only by a
  // complete file.
  OutputOptions o;
  o.force = true;
  return write_output(path, o, text, error);
}

bool save_report(const PerfReport& r, const std::string& path, std::string* error) {
  return write_text_file(path, to_json(r) + "\n", error);
}

std::optional<PerfReport> load_report(const std::string& path, std::string* error) {
  // Kind and size before a byte is read: /dev/zero, a FIFO or a folder is
  // refused at once, and the text is mapped, not copied.
  auto in = map_input(path, {"performance report", kMaxPerfReportBytes}, error);
  if (!in) return std::nullopt;
  std::string err;
  auto r = report_from_json(in->text(), &err);
  if (!r && error) *error = path + ": " + err;
  return r;
}

// ---------------------------------------------------------------- CSV and table

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

std::string to_csv(const PerfReport& r) {
  std::ostringstream o;
  o << "device,kernel,tile,size,status,counted,reps,ms_median,ms_min,ms_max,gflops,gbps,"
       "intensity_flop_per_byte,pct_cublas,pct_copy_bw,pct_fp32_peak,registers,"
       "static_shared_bytes,dynamic_shared_bytes,threads_per_block,occupancy,checked_against,"
       "max_abs_error,message\n";
  for (const auto& x : r.results) {
    const auto& a = x.attrs;
    o << csv_field(r.device.name) << ',' << csv_field(x.kernel) << ',' << x.tile << ',' << x.size
      << ',' << to_string(x.status) << ',' << (x.counted() ? 1 : 0) << ',' << x.reps << ','
      << num(x.ms_median) << ',' << num(x.ms_min) << ',' << num(x.ms_max) << ',' << num(x.gflops)
      << ',' << num(x.gbps) << ',' << num(x.intensity) << ',' << num(x.pct_cublas) << ','
      << num(x.pct_copy) << ',' << num(x.pct_peak) << ',' << a.registers << ','
      << a.static_shared_bytes << ',' << a.dynamic_shared_bytes << ',' << a.threads_per_block << ','
      << num(a.occupancy) << ',' << csv_field(x.checked_against) << ',' << num(x.max_abs_error)
      << ',' << csv_field(x.message) << '\n';
  }
  return o.str();
}

std::string format_table(const PerfReport& r) {
  std::ostringstream o;
  const PerfDevice& d = r.device;
  if (!d.usable) {
    o << "No GPU timings: " << (d.reason.empty() ? r.error : d.reason) << "\n";
  } else {
    o << "Device: " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", " << d.sm_count
      << " SMs, " << fmt("%.0f", d.clock_khz / 1e3) << " MHz)\n";
    o << "FP32 peak " << fmt("%.1f", d.fp32_peak_gflops / 1e3) << " TFLOP/s (" << d.sm_count
      << " SMs x " << d.fp32_cores_per_sm << " FP32 cores x 2 x clock); copy bandwidth "
      << fmt("%.0f", d.copy_gbps) << " GB/s (device-to-device, read + write, "
      << fmt("%.0f", d.copy_bytes / 1048576.0) << " MiB); cuBLAS " << d.cublas_math << "\n";
  }
  if (r.cancelled) o << "Sweep CANCELLED: results below are those measured before the cancel.\n";
  if (!r.error.empty() && d.usable) o << "Error: " << r.error << "\n";
  if (r.results.empty()) return o.str();
  char line[512];
  std::snprintf(line, sizeof line,
                "%-30s %4s %9s %-7s %10s %10s %10s %9s %8s %6s %6s %6s %6s %4s %6s %5s %5s\n",
                "kernel", "tile", "size", "status", "ms median", "ms min", "ms max", "GFLOP/s",
                "GB/s", "%cuBL", "%copy", "%peak", "AI", "reg", "smem", "thr", "occ");
  o << line;
  for (const auto& x : r.results) {
    const auto& a = x.attrs;
    const bool counted = x.counted();
    std::string ms = x.ms_median > 0 ? fmt("%.4f", x.ms_median) : "-";
    // A wrong kernel's time is shown, marked, and never counted.
    if (x.status == PerfStatus::Wrong && x.ms_median > 0) ms = "~" + ms + "~";
    std::snprintf(
        line, sizeof line,
        "%-30s %4s %9d %-7s %10s %10s %10s %9s %8s %6s %6s %6s %6s %4s %6s %5s %5s\n",
        x.kernel.c_str(), x.tile ? std::to_string(x.tile).c_str() : "-", x.size,
        to_string(x.status), ms.c_str(), x.ms_min > 0 ? fmt("%.4f", x.ms_min).c_str() : "-",
        x.ms_max > 0 ? fmt("%.4f", x.ms_max).c_str() : "-",
        counted && x.flops > 0 ? fmt("%.1f", x.gflops).c_str() : "-",
        counted ? fmt("%.1f", x.gbps).c_str() : "-",
        x.pct_cublas > 0 ? fmt("%.1f", x.pct_cublas).c_str() : "-",
        x.pct_copy > 0 ? fmt("%.1f", x.pct_copy).c_str() : "-",
        x.pct_peak > 0 ? fmt("%.1f", x.pct_peak).c_str() : "-",
        x.intensity > 0 ? fmt("%.2f", x.intensity).c_str() : "-",
        a.known ? std::to_string(a.registers).c_str() : "-",
        a.known ? std::to_string(a.static_shared_bytes + a.dynamic_shared_bytes).c_str() : "-",
        a.known ? std::to_string(a.threads_per_block).c_str() : "-",
        a.known ? fmt("%.2f", a.occupancy).c_str() : "-");
    o << line;
    if (x.status != PerfStatus::Ok && !x.message.empty()) o << "    " << x.message << "\n";
  }
  for (const auto& n : r.notes)
    o << "note: " << n << "\n";
  return o.str();
}

std::vector<PerfComparison> compare_reports(const PerfReport& before, const PerfReport& now) {
  using Key = std::tuple<std::string, int, int>;
  std::map<Key, const PerfResult*> b, n;
  std::vector<Key> order;
  for (const auto& x : now.results) {
    Key k{x.kernel, x.tile, x.size};
    if (!n.count(k)) order.push_back(k);
    n[k] = &x;
  }
  for (const auto& x : before.results) {
    Key k{x.kernel, x.tile, x.size};
    if (!n.count(k) && !b.count(k)) order.push_back(k);
    b[k] = &x;
  }
  std::vector<PerfComparison> out;
  for (const Key& k : order) {
    PerfComparison c;
    std::tie(c.kernel, c.tile, c.size) = k;
    if (auto it = b.find(k); it != b.end() && it->second->counted()) {
      c.ms_before = it->second->ms_median;
      c.gflops_before = it->second->gflops;
    }
    if (auto it = n.find(k); it != n.end() && it->second->counted()) {
      c.ms_now = it->second->ms_median;
      c.gflops_now = it->second->gflops;
    }
    if (c.ms_before > 0 && c.ms_now > 0) c.speedup = c.ms_before / c.ms_now;
    out.push_back(c);
  }
  return out;
}

// ---------------------------------------------------------------- plots

namespace {
bool plottable(double v) {
  return std::isfinite(v) && v > 0;
}
}  // namespace

namespace {
// The series of the results `take` selects among those of metric f, with the
// reference of that metric (cuBLAS among the results, the copy drawn flat).
template <class Take>
std::vector<PlotSeries> series_of(const PerfReport& r, PerfMetric f, Take take) {
  std::vector<PlotSeries> out;
  auto series = [&](const std::string& label, bool ref) -> PlotSeries& {
    for (auto& s : out)
      if (s.label == label) return s;
    out.push_back(PlotSeries{label, ref, {}});
    return out.back();
  };
  const PerfResult* copy = nullptr;
  for (const auto& x : r.results) {
    if (!x.counted()) continue;
    if (x.kernel == kCopyId) {
      copy = &x;
      continue;
    }
    if (x.metric != f || !(x.kernel == kCublasId || take(x))) continue;
    const double y = f == PerfMetric::Flops ? x.gflops : x.gbps;
    if (!plottable(double(x.size)) || !plottable(y)) continue;  // a log axis: positive, finite
    const bool ref = x.kernel == kCublasId || find_library_anchor(x.kernel);
    series(x.label(), ref).points.emplace_back(double(x.size), y);
  }
  if (f == PerfMetric::Bytes && copy && !out.empty() && plottable(copy->gbps)) {
    // The copy's bandwidth, drawn flat across the sizes.
    double lo = 1e300, hi = 0;
    for (const auto& s : out)
      for (const auto& p : s.points) {
        lo = std::min(lo, p.first);
        hi = std::max(hi, p.first);
      }
    PlotSeries& c = series("copy bandwidth", true);
    c.points = {{lo, copy->gbps}, {hi, copy->gbps}};
  }
  for (auto& s : out)
    std::sort(s.points.begin(), s.points.end());
  return out;
}

}  // namespace

namespace {
bool family_uses_flops(const std::string& family) {
  for (const LessonInfo& v : all_lessons())
    if (family == v.family) return v.metric == PerfMetric::Flops;
  return false;
}
}  // namespace

std::vector<PlotSeries> throughput_series(const PerfReport& r, PerfMetric f) {
  return series_of(r, f, [](const PerfResult&) { return true; });
}

std::vector<PlotSeries> throughput_series(const PerfReport& r, const std::string& family) {
  const LessonInfo* first = nullptr;
  for (const LessonInfo& v : all_lessons())
    if (family == v.family) {
      first = &v;
      break;
    }
  if (!first) return {};
  return series_of(r, first->metric, [&](const PerfResult& x) {
    if (const LibraryAnchor* a = find_library_anchor(x.kernel)) return family == a->family;
    const LessonInfo* v = find_lesson(x.kernel);
    return v && family == v->family;
  });
}

std::vector<RooflinePoint> roofline_points(const PerfReport& r) {
  std::vector<RooflinePoint> out;
  for (const auto& x : r.results) {
    if (!x.counted() || x.kernel == kCopyId || x.flops <= 0) continue;
    if (!plottable(x.intensity) || !plottable(x.gflops)) continue;
    const std::string label = x.label();
    const RooflinePoint p{label,       x.size,
                          x.intensity, plottable(x.issued_intensity) ? x.issued_intensity : 0.0,
                          x.gflops,    x.kernel == kCublasId};
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& q) { return q.label == label; });
    if (it == out.end())
      out.push_back(p);
    else if (x.size > it->size)
      *it = p;
  }
  return out;
}

std::vector<RooflinePoint> roofline_points(const PerfReport& r, const std::string& family) {
  std::vector<RooflinePoint> out;
  for (RooflinePoint& p : roofline_points(r)) {
    const std::string kernel = p.label.substr(0, p.label.find(' '));  // without " T16"
    const LessonInfo* v = find_lesson(kernel);
    if (p.reference ? family_uses_flops(family) : v && family == v->family)
      out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> report_families(const PerfReport& r) {
  std::vector<std::string> out;
  for (const char* f : families())
    for (const PerfResult& x : r.results) {
      const LessonInfo* v = find_lesson(x.kernel);
      if (x.counted() && v && f == std::string(v->family)) {
        out.push_back(f);
        break;
      }
    }
  return out;
}

double roofline_ceiling(const PerfDevice& d, double intensity) {
  double c = d.fp32_peak_gflops > 0 ? d.fp32_peak_gflops : 1e300;
  if (d.copy_gbps > 0) c = std::min(c, d.copy_gbps * intensity);
  return c >= 1e300 ? 0 : c;
}

bool is_perf_report_path(const std::string& path) {
  const std::string ext = kPerfReportExtension;
  if (path.size() < ext.size()) return false;
  std::string tail = path.substr(path.size() - ext.size());
  for (char& c : tail)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return tail == ext;
}

}  // namespace ts
