// The performance report without a GPU: derived metrics on known numbers,
// save/load round trip, CSV and JSON contents, comparison of two runs, and
// what the sweep says on a machine where it cannot time anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/perf_counts.hpp"
#include "engine/backend.hpp"
#include "io/perf_report.hpp"
#include "tests/lesson_picks.hpp"

namespace ts {
namespace {

// The default lesson (square tiles, two barriers).
std::string default_id() {
  return picks::default_lesson().id;
}
// The ladder's naive step before tiling.
std::string naive_grid_id() {
  return picks::ladder_step(2).id;
}

PerfResult matmul_row(const std::string& kernel, int tile, int n, double ms) {
  PerfResult x;
  x.kernel = kernel;
  x.metric = PerfMetric::Flops;
  x.tile = tile;
  x.size = n;
  x.params.m = x.params.k = x.params.n = n;
  x.params.tile = tile;
  x.flops = flop_count(PerfMetric::Flops, x.params);
  x.compulsory_bytes = compulsory_bytes(PerfMetric::Flops, x.params);
  x.ms_median = x.ms_min = x.ms_max = ms;
  x.reps = 10;
  return x;
}

// An H100 SXM-like device with round numbers.
PerfReport known_report() {
  PerfReport r;
  r.created = "2026-01-01T00:00:00";
  r.host = "gpu-box";
  r.device.usable = true;
  r.device.name = "Test GPU";
  r.device.cc_major = 9;
  r.device.sm_count = 100;
  r.device.clock_khz = 2000000;  // 2 GHz
  r.device.fp32_cores_per_sm = 128;
  r.device.fp32_peak_gflops = fp32_peak_gflops(100, 128, 2000000);  // 51200 GFLOP/s
  r.device.copy_gbps = 2000;
  r.device.cublas_math = "CUBLAS_DEFAULT_MATH (FP32, no TF32)";
  // n = 1000: 2e9 flops. cuBLAS 0.1 ms -> 20000 GFLOP/s; tiled 1 ms -> 2000 GFLOP/s.
  r.results.push_back(matmul_row(kCublasId, 0, 1000, 0.1));
  r.results.push_back(matmul_row(default_id(), 16, 1000, 1.0));
  PerfResult wrong = matmul_row(picks::overreaching_lesson().id, 16, 1000, 0.5);
  wrong.status = PerfStatus::Wrong;
  wrong.message = "17 of 1000000 cells wrong, \"max\" error 3";
  r.results.push_back(wrong);
  PerfResult st;
  st.kernel = picks::halo_lesson(picks::Halo::Global).id;
  st.metric = PerfMetric::Bytes;
  st.size = 1 << 20;
  st.params.length = 1 << 20;
  st.params.radius = 3;
  st.flops = flop_count(PerfMetric::Bytes, st.params);
  st.compulsory_bytes = compulsory_bytes(PerfMetric::Bytes, st.params);
  st.ms_median = st.ms_min = st.ms_max = 0.008388608;  // 8 MiB in 8.39 us -> 1000 GB/s
  st.reps = 10;
  st.attrs.known = true;
  st.attrs.registers = 20;
  st.attrs.threads_per_block = 256;
  st.attrs.occupancy = 1.0;
  r.results.push_back(st);
  derive_metrics(r);
  return r;
}

TEST(PerfMetrics, WorkAndBytesOfAMultiplyAndAStencil) {
  Params p;
  p.m = 2;
  p.k = 3;
  p.n = 4;
  EXPECT_DOUBLE_EQ(flop_count(PerfMetric::Flops, p), 2.0 * 2 * 3 * 4);
  // A (2x3) + B (3x4) + C (2x4) = 6 + 12 + 8 floats.
  EXPECT_DOUBLE_EQ(compulsory_bytes(PerfMetric::Flops, p), 4.0 * 26);
  Params s;
  s.length = 1000;
  s.radius = 3;
  EXPECT_DOUBLE_EQ(flop_count(PerfMetric::Bytes, s), 7000.0);
  EXPECT_DOUBLE_EQ(compulsory_bytes(PerfMetric::Bytes, s), 8000.0);
}

TEST(PerfMetrics, Fp32PeakFromProperties) {
  EXPECT_EQ(fp32_cores_per_sm(9, 0), 128);   // H100
  EXPECT_EQ(fp32_cores_per_sm(8, 0), 64);    // A100
  EXPECT_EQ(fp32_cores_per_sm(8, 6), 128);   // RTX 30
  EXPECT_EQ(fp32_cores_per_sm(8, 9), 128);   // RTX 40
  EXPECT_EQ(fp32_cores_per_sm(7, 5), 64);    // Turing
  EXPECT_EQ(fp32_cores_per_sm(12, 0), 128);  // newer
  // H100 SXM: 132 SMs x 128 x 2 x 1.98 GHz = 66.9 TFLOP/s.
  EXPECT_NEAR(fp32_peak_gflops(132, 128, 1980000), 66908.16, 0.01);
}

TEST(PerfMetrics, DerivedFromKnownNumbers) {
  const PerfReport r = known_report();
  const PerfResult& cublas = r.results[0];
  const PerfResult& tiled = r.results[1];
  const PerfResult& wrong = r.results[2];
  const PerfResult& st = r.results[3];
  EXPECT_NEAR(cublas.gflops, 20000.0, 1e-6);
  EXPECT_NEAR(cublas.pct_cublas, 100.0, 1e-9);
  EXPECT_NEAR(tiled.gflops, 2000.0, 1e-6);
  EXPECT_NEAR(tiled.pct_cublas, 10.0, 1e-9);
  EXPECT_NEAR(tiled.pct_peak, 100.0 * 2000.0 / 51200.0, 1e-9);
  // 3 n^2 floats = 12e6 bytes in 1 ms = 12 GB/s, 0.6 % of the 2000 GB/s copy.
  EXPECT_NEAR(tiled.gbps, 12.0, 1e-9);
  EXPECT_NEAR(tiled.pct_copy, 0.6, 1e-9);
  // Arithmetic intensity 2n^3 / 12n^2 = n / 6.
  EXPECT_NEAR(tiled.intensity, 1000.0 / 6.0, 1e-9);
  // A wrong kernel keeps its time but gets no derived numbers: it does not count.
  EXPECT_FALSE(wrong.counted());
  EXPECT_EQ(wrong.gflops, 0.0);
  EXPECT_EQ(wrong.pct_cublas, 0.0);
  EXPECT_GT(wrong.ms_median, 0.0);
  EXPECT_NEAR(st.gbps, 1000.0, 1e-6);
  EXPECT_NEAR(st.pct_copy, 50.0, 1e-6);
  EXPECT_NEAR(st.intensity, 7.0 / 8.0, 1e-12);
  EXPECT_EQ(st.pct_cublas, 0.0);  // a stencil has no cuBLAS to be compared with
}

TEST(PerfReportFile, SaveLoadRoundTrip) {
  const PerfReport r = known_report();
  const auto path = std::filesystem::temp_directory_path() / "ts_perf_roundtrip.json";
  std::string err;
  ASSERT_TRUE(save_report(r, path.string(), &err)) << err;
  auto back = load_report(path.string(), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->device.name, "Test GPU");
  EXPECT_EQ(back->device.sm_count, 100);
  EXPECT_DOUBLE_EQ(back->device.copy_gbps, 2000.0);
  EXPECT_EQ(back->host, "gpu-box");
  ASSERT_EQ(back->results.size(), r.results.size());
  for (size_t i = 0; i < r.results.size(); ++i) {
    const auto& a = r.results[i];
    const auto& b = back->results[i];
    EXPECT_EQ(a.kernel, b.kernel);
    EXPECT_EQ(a.tile, b.tile);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.metric, b.metric);
    EXPECT_EQ(a.params, b.params);
    EXPECT_EQ(a.message, b.message);
    EXPECT_DOUBLE_EQ(a.ms_median, b.ms_median);
    EXPECT_DOUBLE_EQ(a.gflops, b.gflops);
    EXPECT_DOUBLE_EQ(a.pct_cublas, b.pct_cublas);
    EXPECT_EQ(a.attrs.registers, b.attrs.registers);
    EXPECT_DOUBLE_EQ(a.attrs.occupancy, b.attrs.occupancy);
  }
  std::filesystem::remove(path);
}

TEST(PerfReportFile, RefusesWhatItCannotRead) {
  std::string err;
  EXPECT_FALSE(report_from_json("", &err));
  EXPECT_NE(err.find("not valid JSON"), std::string::npos) << err;
  EXPECT_FALSE(report_from_json("{\"format\": \"something-else\", \"version\": 1}", &err));
  EXPECT_NE(err.find("format"), std::string::npos) << err;
  EXPECT_FALSE(report_from_json("{\"format\": \"tilescope-perf\", \"version\": 99}", &err));
  EXPECT_NE(err.find("newer"), std::string::npos) << err;
  EXPECT_FALSE(report_from_json(
      "{\"format\": \"tilescope-perf\", \"version\": 1, \"results\": [{\"size\": 3}]}", &err));
  EXPECT_NE(err.find("malformed"), std::string::npos) << err;
  EXPECT_FALSE(load_report("/nonexistent/dir/perf.json", &err));
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
}

// Any JSON at all is refused with a message, never an exception: the window
// opens whatever file is dropped on it.
TEST(PerfReportFile, WrongTypesAreMalformedNotExceptions) {
  for (const char* text : {
           "{\"format\": 5}",
           "{\"format\": \"tilescope-perf\", \"version\": \"1\"}",
           "{\"format\": \"tilescope-perf\", \"version\": 1, \"results\": 7}",
           "{\"format\": \"tilescope-perf\", \"version\": 1, \"device\": [1]}",
           "{\"format\": \"tilescope-perf\", \"version\": 1, \"results\": [{\"kernel\": 1}]}",
           "[1, 2, 3]",
           "{\"format\": null}",
       }) {
    SCOPED_TRACE(text);
    std::string err;
    std::optional<PerfReport> r;
    EXPECT_NO_THROW(r = report_from_json(text, &err));
    EXPECT_FALSE(r);
    EXPECT_FALSE(err.empty());
  }
}

TEST(PerfReportFile, JsonContents) {
  const PerfReport r = known_report();
  const auto j = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(j["format"], "tilescope-perf");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["device"]["name"], "Test GPU");
  EXPECT_EQ(j["device"]["cublas_math"], "CUBLAS_DEFAULT_MATH (FP32, no TF32)");
  ASSERT_EQ(j["results"].size(), 4u);
  EXPECT_EQ(j["results"][1]["kernel"], default_id());
  EXPECT_EQ(j["results"][1]["tile"], 16);
  EXPECT_NEAR(j["results"][1]["gflops"].get<double>(), 2000.0, 1e-6);
  EXPECT_EQ(j["results"][2]["status"], "wrong");
  EXPECT_EQ(j["results"][3]["family"], "stencil");
}

TEST(PerfReportFile, CsvContents) {
  const PerfReport r = known_report();
  const std::string csv = to_csv(r);
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i; (i = csv.find('\n', start)) != std::string::npos; start = i + 1)
    lines.push_back(csv.substr(start, i - start));
  ASSERT_EQ(lines.size(), 5u);  // header + 4 results
  EXPECT_EQ(lines[0].rfind("device,kernel,tile,size,status,counted,reps,ms_median", 0), 0u);
  EXPECT_EQ(lines[2].rfind("Test GPU," + default_id() + ",16,1000,ok,1,10,1,1,1,2000,12,", 0), 0u)
      << lines[2];
  // The wrong kernel: counted 0, and its message (with a comma and quotes) quoted.
  EXPECT_NE(lines[3].find(",wrong,0,"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("\"17 of 1000000 cells wrong, \"\"max\"\" error 3\""), std::string::npos)
      << lines[3];
}

TEST(PerfReportFile, TableMarksWrongTimes) {
  const std::string t = format_table(known_report());
  EXPECT_NE(t.find("Test GPU"), std::string::npos);
  EXPECT_NE(t.find("~0.5000~"), std::string::npos) << t;  // struck out, not counted
  EXPECT_NE(t.find(default_id()), std::string::npos);
}

TEST(PerfCompare, MatchesByKernelTileAndSize) {
  const PerfReport before = known_report();
  PerfReport now = known_report();
  now.results[1].ms_median = 0.5;  // tiled twice as fast now
  now.results.push_back(matmul_row(naive_grid_id(), 16, 1000, 4.0));
  derive_metrics(now);
  const auto c = compare_reports(before, now);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[1].kernel, default_id());
  EXPECT_DOUBLE_EQ(c[1].ms_before, 1.0);
  EXPECT_DOUBLE_EQ(c[1].ms_now, 0.5);
  EXPECT_DOUBLE_EQ(c[1].speedup, 2.0);
  EXPECT_EQ(c[2].speedup, 0.0);  // wrong in both: nothing to compare
  EXPECT_EQ(c[4].kernel, naive_grid_id());
  EXPECT_EQ(c[4].ms_before, 0.0);  // new in this run
}

TEST(PerfConfigCheck, BadInputGetsAClearMessage) {
  PerfConfig c;
  c.kernels = {"matmul.no_such_kernel"};
  auto e = validate_perf_config(c);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("unknown lesson 'matmul.no_such_kernel'"), std::string::npos) << *e;
  c = PerfConfig{};
  c.matmul_sizes = {0};
  e = validate_perf_config(c);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("allowed 1 .. 32768"), std::string::npos) << *e;
  c = PerfConfig{};
  c.tiles = {48};  // neither a tile width nor any ladder step's block tile (32, 64, 128)
  e = validate_perf_config(c);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("tile 48"), std::string::npos) << *e;
  c = PerfConfig{};
  c.reps = 0;
  EXPECT_TRUE(validate_perf_config(c));
  EXPECT_FALSE(validate_perf_config(PerfConfig{}));
}

TEST(PerfConfigCheck, SelectsFromTheCatalogue) {
  PerfConfig c;
  c.kernels = {"matmul"};
  auto vs = selected_lessons(c);
  ASSERT_FALSE(vs.empty());
  for (const LessonInfo* v : vs)
    EXPECT_EQ(v->metric, PerfMetric::Flops);
  c.kernels = {default_id()};
  vs = selected_lessons(c);
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0]->id, default_id());
  c.kernels = {"matmul.tiled*"};
  for (const LessonInfo* v : selected_lessons(c))
    EXPECT_EQ(std::string(v->id).rfind("matmul.tiled", 0), 0u);
  const PerfConfig d = default_perf_config();
  EXPECT_EQ(d.matmul_sizes.front(), 128);
  EXPECT_EQ(d.matmul_sizes.back(), 4096);
  EXPECT_EQ(d.stencil_lengths.front(), 1 << 16);
  EXPECT_EQ(d.stencil_lengths.back(), 1 << 26);
}

TEST(PerfPlots, SeriesAndRooflinePoints) {
  PerfReport r = known_report();
  // 2.5e8 flops: 1000 GFLOP/s.
  r.results.push_back(matmul_row(default_id(), 16, 500, 0.25));
  PerfResult copy;
  copy.kernel = kCopyId;
  copy.metric = PerfMetric::Bytes;
  copy.size = 1 << 26;
  copy.compulsory_bytes = 2.0 * 4 * (1 << 26);
  copy.ms_median = 0.5;
  r.results.push_back(copy);
  derive_metrics(r);
  const auto mm = throughput_series(r, PerfMetric::Flops);
  ASSERT_EQ(mm.size(), 2u);  // cuBLAS and tiled T16; the wrong kernel is left out
  EXPECT_EQ(mm[0].label, "cublas.sgemm");
  EXPECT_TRUE(mm[0].reference);
  EXPECT_EQ(mm[1].label, default_id() + " T16");
  ASSERT_EQ(mm[1].points.size(), 2u);
  EXPECT_EQ(mm[1].points[0].first, 500.0);  // sorted by size
  EXPECT_NEAR(mm[1].points[0].second, 1000.0, 1e-6);
  const auto st = throughput_series(r, PerfMetric::Bytes);
  ASSERT_EQ(st.size(), 2u);  // stencil.naive and the copy's flat line
  EXPECT_EQ(st[1].label, "copy bandwidth");
  EXPECT_NEAR(st[1].points[0].second, copy.compulsory_bytes / 0.5e-3 / 1e9, 1e-6);
  const auto pts = roofline_points(r);
  // cuBLAS, tiled (its largest size, 1000), the stencil; not the copy, not the wrong one.
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[1].label, default_id() + " T16");
  EXPECT_EQ(pts[1].size, 1000);
  EXPECT_NEAR(pts[1].intensity, 1000.0 / 6.0, 1e-9);
  // Ceilings: 2000 GB/s x 1 flop/B = 2000 GFLOP/s; far right, the 51200 GFLOP/s peak.
  EXPECT_NEAR(roofline_ceiling(r.device, 1.0), 2000.0, 1e-9);
  EXPECT_NEAR(roofline_ceiling(r.device, 1000.0), 51200.0, 1e-9);
}

// The roofline's second mark: each kernel at the intensity its own global
// traffic gives it. The naive multiply loads 2 floats per multiply-add (0.25
// flop per byte), the tiled one T times fewer; cuBLAS has no count.
TEST(PerfPlots, RooflineIntensityAsTheKernelIssuesIt) {
  PerfReport r = known_report();
  PerfResult naive = matmul_row(naive_grid_id(), 16, 1024, 10.0);
  naive.params.tile = 0;
  naive.params.block = 16;
  r.results.push_back(naive);
  r.results.push_back(matmul_row(default_id(), 32, 1024, 1.0));
  derive_metrics(r);
  std::map<std::string, RooflinePoint> by;
  for (const auto& p : roofline_points(r))
    by[p.label] = p;
  ASSERT_EQ(by.count(naive_grid_id() + " T16"), 1u);
  const double n = 1024;
  // 2 n^3 flops over 4 (2 n^3 loads + n^2 stores) bytes.
  EXPECT_NEAR(by[naive_grid_id() + " T16"].issued_intensity,
              2 * n * n * n / (4 * (2 * n * n * n + n * n)), 1e-12);
  EXPECT_NEAR(by[naive_grid_id() + " T16"].issued_intensity, 0.25, 1e-3);
  // Tiled: 2 n^3 / T loads; T16 at n = 1000 (not a multiple: 63 tiles of 16).
  EXPECT_NEAR(by[default_id() + " T16"].issued_intensity,
              2e9 / (4 * (2.0 * 63 * 1000 * 1000 + 1000 * 1000)), 1e-9);
  // 32 times the naive one's 0.25, less the stores: 8 / (1 + T / 2n).
  EXPECT_NEAR(by[default_id() + " T32"].issued_intensity, 8 / (1 + 32 / (2 * n)), 1e-12);
  // The dots move right as the tile grows; the compulsory intensity does not move.
  EXPECT_GT(by[default_id() + " T32"].issued_intensity,
            1.9 * by[default_id() + " T16"].issued_intensity);
  EXPECT_DOUBLE_EQ(by[default_id() + " T32"].intensity, by[naive_grid_id() + " T16"].intensity);
  EXPECT_EQ(by["cublas.sgemm"].issued_intensity, 0.0);  // unknown: only its compulsory mark
  // The stencil: 7 flops an element, 8 loads and a store of 4 bytes.
  EXPECT_NEAR(by[picks::halo_lesson(picks::Halo::Global).id].issued_intensity, 7.0 / 32, 1e-12);
}

// The closed form the roofline uses is what a traced run counts: a simulator
// run at the same parameters moves exactly issued_bytes(), sizes the tile does
// not divide included.
TEST(PerfPlots, IssuedBytesEqualATracedRun) {
  for (const char* id :
       {picks::ladder_step(2).id, picks::default_lesson().id, picks::dynamic_staging_lesson(1).id,
        picks::dynamic_staging_lesson(2).id, picks::rectangular_tiled_lesson().id})
    for (int n : {16, 20}) {
      SCOPED_TRACE(std::string(id) + " n=" + std::to_string(n));
      Params p;
      p.m = p.k = p.n = n;  // as the sweep records them
      p.k = std::string(id) == picks::rectangular_tiled_lesson().id ? n + 4 : n;
      p.tile = 8;
      p.block = 8;
      RunRequest req;
      req.lesson_id = id;
      req.params = p;
      req.backend = BackendChoice::Sim;
      const RunResult run = run_simulator(req);
      ASSERT_TRUE(run.ok) << run.error;
      const AccessCounts c = perf_access_counts(run.trace);
      const LessonInfo& v = *find_lesson(id);
      EXPECT_DOUBLE_EQ(issued_bytes(v, p), double(c.bytes_moved));
      EXPECT_DOUBLE_EQ(flop_count(v, p), c.flops);
    }
}

// A report from elsewhere may carry anything: nothing non-finite or
// non-positive reaches a log axis, no tile of 0 reaches a division.
TEST(PerfPlots, GarbageInAReportIsNotPlotted) {
  PerfReport r = known_report();
  PerfResult zero_tile = matmul_row(default_id(), 0, 512, 1.0);
  r.results.push_back(zero_tile);
  PerfResult negative = matmul_row(naive_grid_id(), 16, 256, 1.0);
  negative.flops = -5;
  r.results.push_back(negative);
  PerfResult inf = matmul_row(default_id(), 8, 128, 1e-300);
  inf.flops = 1e308;
  r.results.push_back(inf);
  derive_metrics(r);
  for (const auto& p : roofline_points(r)) {
    EXPECT_TRUE(std::isfinite(p.intensity) && p.intensity > 0) << p.label;
    EXPECT_TRUE(std::isfinite(p.gflops) && p.gflops > 0) << p.label;
    EXPECT_TRUE(std::isfinite(p.issued_intensity) && p.issued_intensity >= 0) << p.label;
  }
  for (PerfMetric f : {PerfMetric::Flops, PerfMetric::Bytes})
    for (const auto& s : throughput_series(r, f))
      for (const auto& [x, y] : s.points)
        EXPECT_TRUE(std::isfinite(x) && x > 0 && std::isfinite(y) && y > 0) << s.label;
  EXPECT_EQ(issued_bytes(picks::default_lesson(), zero_tile.params), 0.0);
}

TEST(PerfReportFile, ReportPathsAreJson) {
  EXPECT_TRUE(is_perf_report_path("docs/perf_h100_panel.json"));
  EXPECT_TRUE(is_perf_report_path("/tmp/RUN.JSON"));
  EXPECT_FALSE(is_perf_report_path("matmul.tiled_square_n10_tile4.tstrace"));
  EXPECT_FALSE(is_perf_report_path("json"));
}

// Without a usable GPU the sweep does not pretend: it says why and times nothing.
TEST(PerfSweep, WithoutAGpuSaysWhy) {
  if (cuda_status().usable)
    GTEST_SKIP() << "a CUDA device is present: tests/gpu_perf.cpp covers it";
  PerfConfig c;
  c.kernels = {default_id()};
  c.matmul_sizes = {64};
  c.tiles = {16};
  c.with_copy = false;
  SweepControl ctl;
  const PerfReport r = run_perf_sweep(c, &ctl);
  EXPECT_FALSE(r.device.usable);
  EXPECT_FALSE(r.device.reason.empty());
  EXPECT_NE(r.error.find("no CUDA device"), std::string::npos) << r.error;
  EXPECT_TRUE(r.results.empty());
  EXPECT_NE(format_table(r).find("No GPU timings"), std::string::npos);
}

TEST(PerfSweep, BackgroundSweepFinishesAndCanBeTaken) {
  if (cuda_status().usable)
    GTEST_SKIP() << "a CUDA device is present: tests/gpu_perf.cpp covers it";
  BackgroundSweep bg;
  PerfConfig c;
  c.kernels = {default_id()};
  c.matmul_sizes = {64};
  ASSERT_TRUE(bg.start(c));
  std::optional<PerfReport> r;
  for (int i = 0; i < 2000 && !r; ++i) {
    r = bg.take();
    if (!r) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->device.usable);
  EXPECT_FALSE(bg.running());
  EXPECT_FALSE(bg.take());  // taken once
}

// The reports measured on the GPU machine and shipped in docs/ (README: open
// them in the Performance panel without a GPU) still load, and say what the
// README and docs/measurements.md quote from them.
TEST(ShippedReports, H100AndH200ReportsLoadAndCompare) {
  std::optional<PerfReport> r[2];
  const char* files[2] = {"docs/perf_h100_panel.json", "docs/perf_h200_panel.json"};
  const char* gpus[2] = {"H100", "H200"};
  for (int i = 0; i < 2; ++i) {
    std::string err;
    r[i] = load_report(std::string(TS_SOURCE_DIR) + "/" + files[i], &err);
    ASSERT_TRUE(r[i]) << files[i] << ": " << err;
    EXPECT_NE(r[i]->device.name.find(gpus[i]), std::string::npos) << r[i]->device.name;
    const PerfResult* tiled = nullptr;
    for (const PerfResult& x : r[i]->results)
      if (x.kernel == default_id() && x.tile == 32 && x.size == 4096) tiled = &x;
    ASSERT_NE(tiled, nullptr) << files[i];
    ASSERT_TRUE(tiled->counted());
    // "The textbook tiled multiply reaches 16-18 % of cuBLAS."
    EXPECT_GT(tiled->pct_cublas, 15.0) << files[i];
    EXPECT_LT(tiled->pct_cublas, 19.0) << files[i];
    // On the roofline: 32 times the naive kernel's intensity (a little less for the stores).
    EXPECT_NEAR(tiled->issued_intensity, 8.0, 0.05) << files[i];
    for (const PerfResult& x : r[i]->results)
      if (x.kernel == naive_grid_id()) {
        EXPECT_NEAR(x.issued_intensity, 0.25, 1e-3);
      }
  }
  // Same kernels, two machines: matched point by point.
  const auto cmp = compare_reports(*r[0], *r[1]);
  int matched = 0;
  for (const auto& c : cmp)
    matched += c.speedup > 0;
  EXPECT_GE(matched, 15);
}

// The reports of the runs since (docs/measurements.md: the H200 ladder and
// the bandwidth families of 2026-11-26, the H100 ladder of 2026-11-24) load
// and hold what the panel shows of them; the family choice keeps sgemm apart
// from matmul on the roofline as on the throughput plot.
TEST(ShippedReports, LadderAndFamilyReportsLoad) {
  struct Want {
    const char* file;
    const char* gpu;
    const char* date;
    std::vector<std::string> families;
  };
  const Want wants[] = {
      {"docs/perf_h100_ladder.json", "NVIDIA H100", "2026-11-24", {"matmul", "sgemm"}},
      {"docs/perf_h200_ladder.json", "NVIDIA H200", "2026-11-26", {"matmul", "sgemm"}},
      {"docs/perf_h200_families.json",
       "NVIDIA H200",
       "2026-11-26",
       {"transpose", "reduction", "histogram", "conv2d", "stencil"}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.file);
    std::string err;
    auto r = load_report(std::string(TS_SOURCE_DIR) + "/" + w.file, &err);
    ASSERT_TRUE(r) << err;
    EXPECT_EQ(r->device.name.rfind(w.gpu, 0), 0u) << r->device.name;
    EXPECT_EQ(r->created.substr(0, 10), w.date);
    auto fams = report_families(*r);
    std::sort(fams.begin(), fams.end());
    std::vector<std::string> want = w.families;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(fams, want);
    int counted = 0;
    for (const PerfResult& x : r->results)
      counted += x.counted();
    EXPECT_GE(counted, 20);
    for (const std::string& f : w.families)
      EXPECT_FALSE(throughput_series(*r, f).empty()) << f;
    if (w.families[0] != "matmul") continue;
    // matmul is matmul.* (and cuBLAS), sgemm is sgemm.*: on both plots.
    for (const char* f : {"matmul", "sgemm"}) {
      SCOPED_TRACE(f);
      const auto pts = roofline_points(*r, f);
      EXPECT_GE(pts.size(), 3u);
      for (const RooflinePoint& p : pts)
        EXPECT_TRUE(p.reference || p.label.rfind(std::string(f) + ".", 0) == 0) << p.label;
      for (const PlotSeries& s : throughput_series(*r, std::string(f)))
        EXPECT_TRUE(s.reference || s.label.rfind(std::string(f) + ".", 0) == 0) << s.label;
    }
  }
}

}  // namespace
}  // namespace ts
