// The bank and sector probe (issue 22): its pattern table, and the committed
// GPU measurements (docs/measurements/bank_probe_h200.json, written by
// scripts/bank_probe.sh under Nsight Compute) replayed against the model.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "analysis/warp_access.hpp"
#include "bench/bank_probe_patterns.hpp"
#include "io/bank_probe.hpp"

namespace ts {
namespace {

TEST(BankProbe, TableCoversEveryKindAlignedAndInBounds) {
  const std::vector<probe::Pattern> ps = probe::probe_patterns();
  EXPECT_GE(ps.size(), 300u);
  std::set<std::string> kernels;
  for (const probe::Pattern& p : ps) {
    kernels.insert(p.kernel());
    EXPECT_NE(p.mask, 0u) << p.id;
    const uint32_t limit =
        probe::op_shared(p.op) ? probe::kProbeSharedBytes : probe::kProbeGlobalBytes;
    for (uint32_t off : p.offset) {
      EXPECT_EQ(off % uint32_t(p.bytes), 0u)
          << p.id << " " << p.name;  // vector accesses fault otherwise
      EXPECT_LE(off + uint32_t(p.bytes), limit) << p.id << " " << p.name;
    }
  }
  EXPECT_EQ(kernels.size(), probe::probe_kinds().size());
}

TEST(BankProbe, TableIsDeterministicPerSeed) {
  const auto a = probe::patterns_json(probe::probe_patterns(22), 22);
  EXPECT_EQ(a, probe::patterns_json(probe::probe_patterns(22), 22));
  EXPECT_NE(a, probe::patterns_json(probe::probe_patterns(23), 23));  // the random patterns move
}

TEST(BankProbe, TableJsonReadsBackWithTheModelsCounters) {
  const auto ps = probe::probe_patterns();
  std::string err;
  const auto f = parse_bank_probe(probe::patterns_json(ps, 22), &err);
  ASSERT_TRUE(f) << err;
  ASSERT_EQ(f->rows.size(), ps.size());
  EXPECT_EQ(f->measured(), 0);  // the bare table: nothing measured yet
  EXPECT_EQ(f->rows[5].name, ps[5].name);
}

// A measured row: counters equal to a hand count agree; one off is a DIFF.
TEST(BankProbe, ComparesEveryCounterExactly) {
  // 4-byte shared loads at stride 2 words: banks 0, 2, ... twice each: 2 wavefronts, 1 conflict.
  std::string offsets;
  for (int l = 0; l < 32; ++l)
    offsets += (l ? "," : "") + std::to_string(8 * l);
  const auto file = [&](int wavefronts, int global_requests) {
    return R"({"format": "tilescope-bank-probe", "gpu": "test", "patterns": [{"id": 0,
      "name": "stride_2", "kind": "shared_ld", "bytes": 4, "kernel": "probe_shared_ld_32",
      "mask": 4294967295, "offsets": [)" +
           offsets + R"(], "measured": {
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": )" +
           std::to_string(wavefronts) + R"(,
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 1,
      "smsp__inst_executed_op_shared_ld.sum": 1,
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": )" +
           std::to_string(global_requests) + "}}]}";
  };
  std::string err;
  const auto good = parse_bank_probe(file(2, 0), &err);
  ASSERT_TRUE(good) << err;
  EXPECT_EQ(good->agreeing(), 1);
  const auto wrong = parse_bank_probe(file(3, 0), &err);
  ASSERT_TRUE(wrong) << err;
  EXPECT_EQ(wrong->agreeing(), 0);
  EXPECT_NE(bank_probe_table(*wrong, false).find("DIFF"), std::string::npos);
  // A stray global load in a shared-load kernel: the model says 0.
  EXPECT_EQ(parse_bank_probe(file(2, 1), &err)->agreeing(), 0);
}

// The committed measurements: every pattern exact, or a table of what differs.
TEST(BankProbe, CommittedMeasurementsEqualTheModel) {
  const std::string path = std::string(TS_SOURCE_DIR) + "/docs/measurements/bank_probe_h200.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "skipped: no committed probe measurements";
  std::string err;
  const auto f = read_bank_probe(path, &err);
  ASSERT_TRUE(f) << err;
  EXPECT_GE(f->measured(), 300);
  EXPECT_FALSE(f->partial) << "the committed run was cut short";
  if (f->sass_checked) EXPECT_TRUE(f->sass_ok) << "a probe kernel was not one instruction";
  // 861 of 861 since the rules of analysis/warp_access.hpp were derived from
  // this file (804 before: ATOMS, LDS.64/128, STS.128 and RED differed).
  EXPECT_EQ(f->agreeing(), f->measured()) << bank_probe_table(*f, false);
}

}  // namespace
}  // namespace ts
