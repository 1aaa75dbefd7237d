// The library lines of the bandwidth families (engine/perf.hpp: kLibraryAnchors)
// without a GPU: which sweep runs them, the inputs they are timed on (the
// histogram's uniform and one-hot-bin inputs), and the CPU count their output
// is checked against.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include "engine/perf.hpp"
#include "io/perf_report.hpp"
#include "lessons/histogram_kit.hpp"

namespace ts {
namespace {

// The lessons of a family, as ids.
std::vector<std::string> lessons_of(const std::string& family) {
  std::vector<std::string> out;
  for (const LessonInfo& v : all_lessons())
    if (family == v.family) out.push_back(v.id);
  return out;
}

// A family that has a library anchor with this input, and that anchor.
const LibraryAnchor& anchor_with(LibraryInput input) {
  for (const LibraryAnchor& a : kLibraryAnchors)
    if (a.input == input) return a;
  throw std::runtime_error("no library anchor with that input");
}

TEST(LibraryAnchors, EachStandsBesideABandwidthFamilyOfTheCatalogue) {
  std::set<std::string> ids;
  for (const LibraryAnchor& a : kLibraryAnchors) {
    SCOPED_TRACE(a.id);
    EXPECT_TRUE(ids.insert(a.id).second) << "ids are unique";
    EXPECT_EQ(find_library_anchor(a.id), &a);
    EXPECT_EQ(find_lesson(a.id), nullptr) << "an anchor id is no lesson id";
    const std::vector<std::string> family = lessons_of(a.family);
    ASSERT_FALSE(family.empty()) << "the family " << a.family << " has lessons";
    for (const std::string& id : family)
      EXPECT_EQ(find_lesson(id)->metric, PerfMetric::Bytes) << id;
    const auto of = library_anchors_of(a.family);
    EXPECT_NE(std::find(of.begin(), of.end(), &a), of.end());
    EXPECT_FALSE(std::string(a.title).empty());
    EXPECT_FALSE(std::string(a.note).empty());
  }
  EXPECT_EQ(find_library_anchor("no.such_anchor"), nullptr);
  EXPECT_TRUE(library_anchors_of("no_such_family").empty());
}

TEST(LibraryAnchors, ASweepRunsTheAnchorsOfItsFamiliesOrThoseItNames) {
  for (const LibraryAnchor& a : kLibraryAnchors) {
    SCOPED_TRACE(a.id);
    PerfConfig c;
    c.kernels = {lessons_of(a.family).back()};  // the family's last step alone
    EXPECT_FALSE(validate_perf_config(c).has_value());
    const auto picked = selected_anchors(c);
    EXPECT_NE(std::find(picked.begin(), picked.end(), &a), picked.end());
    for (const LibraryAnchor* p : picked)
      EXPECT_EQ(std::string(p->family), a.family) << "only the family's own anchors";
    c.with_library = false;
    EXPECT_TRUE(selected_anchors(c).empty());
    // Named, an anchor runs even without its family (and validates as a kernel name).
    c.kernels = {a.id};
    EXPECT_FALSE(validate_perf_config(c).has_value()) << *validate_perf_config(c);
    ASSERT_EQ(selected_anchors(c).size(), 1u);
    EXPECT_EQ(selected_anchors(c).front(), &a);
  }
  // A multiply sweep has no library line but cuBLAS's.
  PerfConfig mm;
  for (const LessonInfo& v : all_lessons())
    if (v.metric == PerfMetric::Flops) mm.kernels.push_back(v.id);
  EXPECT_TRUE(selected_anchors(mm).empty());
}

TEST(LibraryAnchors, SkewedInputPutsEveryElementInOneBinTheLessonsAgreeOn) {
  const LibraryAnchor& skewed = anchor_with(LibraryInput::OneHotBin);
  const size_t n = 100000;
  const std::vector<float> x = library_input(skewed.input, n, 7);
  ASSERT_EQ(x.size(), n);
  const std::vector<uint32_t> count =
      histogram_even_counts(x, kAnchorBins, kAnchorLow, kAnchorHigh);
  ASSERT_EQ(count.size(), size_t(kAnchorBins));
  const auto hot = std::max_element(count.begin(), count.end());
  EXPECT_EQ(*hot, n) << "one hot bin holds every element";
  const int bin = int(hot - count.begin());
  EXPECT_EQ(bin, kAnchorBins * 5 / 8);
  // The histogram lessons count it into the same bin.
  EXPECT_EQ(lessons::histogram_kit::bin_of(x.front()), bin);
}

TEST(LibraryAnchors, UniformInputFillsEveryBinEvenly) {
  const LibraryAnchor& uniform = anchor_with(LibraryInput::UniformBins);
  const size_t n = 640000;  // 10,000 a bin
  const std::vector<float> x = library_input(uniform.input, n, 3);
  const std::vector<uint32_t> count =
      histogram_even_counts(x, kAnchorBins, kAnchorLow, kAnchorHigh);
  uint64_t total = 0;
  const double mean = double(n) / kAnchorBins, sigma = std::sqrt(mean);
  for (int b = 0; b < kAnchorBins; ++b) {
    EXPECT_NEAR(double(count[size_t(b)]), mean, 6 * sigma) << "bin " << b;
    total += count[size_t(b)];
  }
  EXPECT_EQ(total, n) << "every value inside [low, high)";
  // Bin centres: the lessons' bin_of counts each value where the library does.
  std::vector<uint32_t> lesson(kAnchorBins, 0);
  for (float v : x)
    ++lesson[size_t(lessons::histogram_kit::bin_of(v))];
  EXPECT_EQ(lesson, count);
  // The same seed gives the same input, another seed another one.
  EXPECT_EQ(library_input(uniform.input, 1000, 3), library_input(uniform.input, 1000, 3));
  EXPECT_NE(library_input(uniform.input, 1000, 3), library_input(uniform.input, 1000, 4));
}

TEST(LibraryAnchors, SmallIntegerInputIsExactInFloatSums) {
  const std::vector<float> x = library_input(LibraryInput::SmallIntegers, 50000, 1);
  std::set<float> seen(x.begin(), x.end());
  EXPECT_EQ(seen, (std::set<float>{-4, -3, -2, -1, 0, 1, 2, 3, 4}));
}

TEST(LibraryAnchors, HistogramEvenCountsLikeCub) {
  // Equal bins over [lower, upper): the lower edge in, the upper edge and
  // anything outside (or NaN) out; a value on an inner edge in the upper bin.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {-4.0f, -3.9f, -3.875f, 3.99f, 4.0f, 5.0f, -4.01f, nan, 0.0f};
  const std::vector<uint32_t> c = histogram_even_counts(x, 64, -4.0f, 4.0f);
  std::vector<uint32_t> want(64, 0);
  want[0] = 2;   // -4 and -3.9
  want[1] = 1;   // -3.875: the edge between bins 0 and 1
  want[63] = 1;  // 3.99
  want[32] = 1;  // 0
  EXPECT_EQ(c, want);
  EXPECT_EQ(histogram_even_counts(x, 0, -4, 4).size(), 0u);
  EXPECT_EQ(histogram_even_counts(x, 4, 1, 1), std::vector<uint32_t>(4, 0u));
}

TEST(LibraryAnchors, InputNamesAndTheReportKeepThem) {
  for (LibraryInput in :
       {LibraryInput::SmallIntegers, LibraryInput::UniformBins, LibraryInput::OneHotBin}) {
    LibraryInput back = LibraryInput::SmallIntegers;
    ASSERT_TRUE(parse_library_input(to_string(in), back)) << to_string(in);
    EXPECT_EQ(back, in);
  }
  LibraryInput unchanged = LibraryInput::OneHotBin;
  EXPECT_FALSE(parse_library_input("skew", unchanged));
  EXPECT_EQ(unchanged, LibraryInput::OneHotBin);
  // A report says what its bandwidth lessons ran on, and whether the library lines ran;
  // an anchor's row is the library's line of its family, drawn as a reference.
  PerfReport r;
  r.config.bandwidth_input = LibraryInput::OneHotBin;
  r.config.with_library = false;
  PerfResult x;
  x.kernel = kLibraryAnchors[0].id;
  x.metric = PerfMetric::Bytes;
  x.size = 1 << 20;
  x.compulsory_bytes = 8.0 * x.size;
  x.ms_median = x.ms_min = x.ms_max = 0.01;
  x.reps = 3;
  r.results.push_back(x);
  derive_metrics(r);
  std::string err;
  const auto back = report_from_json(to_json(r), &err);
  ASSERT_TRUE(back.has_value()) << err;
  EXPECT_EQ(back->config.bandwidth_input, LibraryInput::OneHotBin);
  EXPECT_FALSE(back->config.with_library);
  ASSERT_EQ(back->results.size(), 1u);
  EXPECT_EQ(back->results[0].kernel, kLibraryAnchors[0].id);
  const auto series = throughput_series(*back, kLibraryAnchors[0].family);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_TRUE(series[0].reference);
  EXPECT_EQ(series[0].label, kLibraryAnchors[0].id);
}

}  // namespace
}  // namespace ts
