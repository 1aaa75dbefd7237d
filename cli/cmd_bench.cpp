// `tilescope-cli bench`: the performance panel's sweep, headless (the GPU
// machine has no display). Prints a table; writes JSON and CSV on request.
//
//   tilescope-cli bench --kernels matmul.naive_grid,matmul.tiled_square
//                       --sizes 1024,2048,4096 --tiles 16,32 --json perf.json --csv perf.csv
//   tilescope-cli bench --ladder --json ladder.json   (the SGEMM ladder against cuBLAS)
//   tilescope-cli bench --ladder reduction   (a family: its steps, the copy, its library)
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_options.hpp"
#include "io/ladder.hpp"
#include "io/output_file.hpp"
#include "io/perf_report.hpp"

namespace ts::cli {
namespace {

struct BenchOptions {
  std::vector<std::string> kernels;
  std::vector<int> sizes, lengths, tiles;
  int reps = 10, warmup = 2, radius = 0, block = 0;  // 0: each lesson's own
  double max_seconds = 2.0;
  std::string input = "small-integers";  // the bandwidth lessons' inputs (--input)
  bool no_flush = false, no_cublas = false, no_copy = false, no_library = false, quiet = false,
       force = false;
  // A ladder's steps and its table (io/ladder.hpp): the SGEMM ladder at n = 1024,
  // 2048, 4096, or a family at 2^24 and 2^26 elements. Empty: no ladder.
  std::string ladder;
  std::string json, csv, compare;
};

// Ctrl-C cancels the sweep; what was measured is still printed and written.
std::atomic<SweepControl*> g_control{nullptr};
extern "C" void on_sigint(int) {
  if (SweepControl* c = g_control.load()) c->cancel = true;
}

void print_comparison(const PerfReport& before, const PerfReport& now) {
  std::printf("\nCompared with %s (%s, %s):\n", before.created.c_str(),
              before.device.name.empty() ? "no GPU" : before.device.name.c_str(),
              before.host.c_str());
  std::printf("%-30s %4s %9s %12s %12s %9s\n", "kernel", "tile", "size", "ms before", "ms now",
              "speedup");
  for (const auto& c : compare_reports(before, now)) {
    auto ms = [](double v) {
      char b[32];
      if (v > 0)
        std::snprintf(b, sizeof b, "%.4f", v);
      else
        std::snprintf(b, sizeof b, "-");
      return std::string(b);
    };
    std::printf("%-30s %4s %9d %12s %12s %9s\n", c.kernel.c_str(),
                c.tile ? std::to_string(c.tile).c_str() : "-", c.size, ms(c.ms_before).c_str(),
                ms(c.ms_now).c_str(), c.speedup > 0 ? (ms(c.speedup) + "x").c_str() : "-");
  }
}

int run_bench(const BenchOptions& o) {
  PerfConfig c;
  c.kernels = o.kernels;
  c.matmul_sizes = o.sizes;
  c.stencil_lengths = o.lengths;
  if (!parse_library_input(o.input, c.bandwidth_input)) {
    std::cerr << "bench: --input " << o.input << ": use small-integers, uniform or one-hot\n";
    return 2;
  }
  std::vector<int> chart_sizes;  // the ladder table's columns
  if (!o.ladder.empty()) {
    if (!o.kernels.empty()) {
      std::cerr
          << "bench: --ladder picks the kernels itself (the ladder's steps); drop --kernels\n";
      return 2;
    }
    if (auto err = ladder_config(o.ladder, o.sizes, o.lengths, c, chart_sizes)) {
      std::cerr << "bench: --ladder: " << *err << "\n";
      return 2;
    }
  }
  c.tiles = o.tiles;
  c.reps = o.reps;
  c.warmup = o.warmup;
  c.stencil_radius = o.radius;
  c.stencil_block = o.block;
  c.max_seconds_per_point = o.max_seconds;
  c.flush_l2 = !o.no_flush;
  c.with_cublas = !o.no_cublas;
  c.with_copy = !o.no_copy;
  c.with_library = !o.no_library;
  // Only the kinds asked for: sizes without lengths means "no bandwidth lessons".
  if (c.kernels.empty() && o.sizes.empty() != o.lengths.empty()) {
    const PerfMetric want = o.sizes.empty() ? PerfMetric::Bytes : PerfMetric::Flops;
    for (const LessonInfo& v : all_lessons())
      if (v.metric == want) c.kernels.push_back(v.id);
  }
  if (auto err = validate_perf_config(c)) {
    std::cerr << "bench: " << *err << "\n";
    return 2;
  }
  // Never write a report over the one it is compared with (or JSON over CSV),
  // nor over an existing file without --force: checked before a sweep of
  // minutes, not after.
  OutputOptions dest;
  dest.force = o.force;
  if (!o.compare.empty()) dest.inputs.push_back(o.compare);
  for (const std::string* out : {&o.json, &o.csv})
    if (!out->empty())
      if (auto e = check_output(*out, dest)) {
        std::cerr << "bench: " << *e << "\n";
        return 2;
      }
  if (!o.json.empty() && !o.csv.empty() && same_file(o.json, o.csv)) {
    std::cerr << "bench: --json and --csv name the same file " << o.json << "\n";
    return 2;
  }
  std::optional<PerfReport> before;
  if (!o.compare.empty()) {
    std::string err;
    before = load_report(o.compare, &err);  // through the input layer: kind and size first
    if (!before) {
      std::cerr << "bench: --compare: " << err << "\n";
      return 2;
    }
  }

  auto control = std::make_unique<SweepControl>();
  control->on_result = [&](const PerfResult& x) {
    if (o.quiet) return;
    char line[256];
    if (x.ms_median > 0)
      std::snprintf(line, sizeof line, "[%d/%d] %s size %d: %s, median %.4f ms",
                    control->done.load(), control->total.load(), x.label().c_str(), x.size,
                    to_string(x.status), x.ms_median);
    else
      std::snprintf(line, sizeof line, "[%d/%d] %s size %d: %s", control->done.load(),
                    control->total.load(), x.label().c_str(), x.size, to_string(x.status));
    std::cerr << line << "\n";
  };
  g_control = control.get();
  auto old = std::signal(SIGINT, on_sigint);
  PerfReport r = run_perf_sweep(c, control.get());
  std::signal(SIGINT, old);
  g_control = nullptr;

  std::cout << format_table(r);
  if (!o.ladder.empty() && !r.results.empty())
    std::cout << "\n" << format_ladder_table(ladder_chart(r, o.ladder, chart_sizes));
  if (before) print_comparison(*before, r);
  if (!r.device.usable) {
    std::cerr << "bench: no timings: " << r.device.reason
              << ". Timings need an NVIDIA GPU; `tilescope-cli run` shows access counts from the "
                 "simulator.\n";
    // A report without a single timing would only replace one that has them.
    if (!o.json.empty() || !o.csv.empty())
      std::cerr << "bench: nothing written (a report without timings)\n";
    return 1;  // could not do it (the CLI's exit codes: cli/main.cpp)
  }
  int rc = 0;
  std::string err;
  if (!o.json.empty()) {
    if (write_output(o.json, dest, to_json(r) + "\n", &err))
      std::cerr << "wrote " << o.json << "\n";
    else {
      std::cerr << "bench: " << err << "\n";
      rc = 1;
    }
  }
  if (!o.csv.empty()) {
    if (write_output(o.csv, dest, to_csv(r), &err))
      std::cerr << "wrote " << o.csv << "\n";
    else {
      std::cerr << "bench: " << err << "\n";
      rc = 1;
    }
  }
  if (!r.error.empty()) {
    std::cerr << "bench: " << r.error << "\n";
    return 1;
  }
  return rc;
}

TS_CLI_COMMAND(
    bench_command, "bench",
    "Time the untraced kernels against cuBLAS, copy bandwidth and the FP32 peak (needs a GPU)",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<BenchOptions>();
      std::string fams;
      for (const char* f : families())
        fams += (fams.empty() ? "'" : ", '") + std::string(f) + "'";
      sub.add_option("--kernels", o->kernels,
                     "Kernels: lesson ids, families (" + fams +
                         "), a prefix ending in *, or 'all' (default: all)")
          ->delimiter(',');
      sub.add_option("--sizes", o->sizes,
                     "Multiplies (GFLOP/s): matrix sizes n (default 128,256,...,4096)")
          ->delimiter(',')
          ->check(whole_number(1, kMaxMatrixSide));
      sub.add_option("--lengths", o->lengths,
                     "Bandwidth lessons (GB/s): elements moved, a 1D lesson's length or a square "
                     "of that many (default 2^16, 2^18, ..., 2^26)")
          ->delimiter(',')
          ->check(whole_number(1, kMaxLength));
      sub.add_option("--tiles", o->tiles, "Tile widths (default 8,16,32)")
          ->delimiter(',')
          ->check(whole_number(1, kMaxBlockThreads));
      sub.add_option("--reps", o->reps, "Timed launches per point (median counts)")
          ->capture_default_str()
          ->check(whole_number(1, 100000));
      sub.add_option("--warmup", o->warmup, "Untimed launches first")
          ->capture_default_str()
          ->check(whole_number(0, 10000));
      sub.add_option("--radius", o->radius,
                     "Radius of every lesson that reads one (0: each lesson's own default)")
          ->capture_default_str()
          ->check(whole_number(0, kMaxStencilRadius));
      sub.add_option("--block", o->block,
                     "Threads per block of every bandwidth lesson that reads a block (stencils, "
                     "reductions, histograms; 0: each lesson's own default)")
          ->capture_default_str()
          ->check(whole_number(0, kMaxBlockThreads));
      sub.add_option("--max-seconds", o->max_seconds,
                     "Fewer reps (at least 3) where a point would take longer than this")
          ->capture_default_str()
          ->check(real_number(0.001, 3600));
      sub.add_flag("--no-flush", o->no_flush, "Do not flush the L2 before each timed launch");
      sub.add_flag("--no-cublas", o->no_cublas, "Do not time cuBLAS (it still checks big outputs)");
      sub.add_flag("--no-copy", o->no_copy, "Do not measure the copy bandwidth");
      sub.add_option("--input", o->input,
                     "The bandwidth lessons' inputs: small-integers (their own), uniform (every "
                     "histogram bin as likely) or one-hot (every element in one bin: skewed)")
          ->capture_default_str();
      sub.add_flag("--no-library", o->no_library,
                   "Do not time the library routines beside their families (cublasSgeam, CUB "
                   "DeviceReduce::Sum and DeviceHistogram::HistogramEven)");
      sub.add_flag("--quiet", o->quiet, "No progress lines on stderr");
      std::string names;
      for (const std::string& l : ladder_names())
        names += (names.empty() ? "" : ", ") + l;
      const std::vector<std::string> declared = ladders();
      sub.add_option("--ladder", o->ladder,
                     "A ladder, step by step (" + names + "); alone: " +
                         (declared.empty() ? std::string("none") : declared.front()) +
                         ". The SGEMM ladder: its steps and cuBLAS at n = 1024, 2048, 4096 (or "
                         "--sizes), GFLOP/s per n, % of cuBLAS, flop per global byte, shared bytes "
                         "per flop. A family: its lessons in catalogue order at 2^24 and 2^26 "
                         "elements (or --lengths), GB/s, % of the copy and of its library line")
          ->expected(0, 1)
          ->default_str(declared.empty() ? std::string() : declared.front());
      sub.add_option("--json", o->json, "Write the report as JSON (loadable by the app)");
      sub.add_option("--csv", o->csv, "Write the results as CSV");
      sub.add_option("--compare", o->compare, "An earlier report (JSON) to compare with");
      sub.add_flag("--force", o->force, "Overwrite the --json and --csv files if they exist");
      return [o] { return run_bench(*o); };
    });

}  // namespace
}  // namespace ts::cli
