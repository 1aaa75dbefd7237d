// A run's result through the lesson child's pipe (engine/run_wire.hpp): every
// field comes back as it went, and bytes from a hostile child (cut short,
// lengths past the end, junk) are refused with a reason, never trusted.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/run_wire.hpp"

namespace ts {
namespace {

RunResult every_field_set() {
  RunResult r;
  r.ok = true;
  r.error = "an error";
  r.backend_note = "CPU simulator";
  r.kernel_ms = 1.5;
  r.faults = {"out-of-range global load of a[99]", "another"};
  r.verdict.checked = true;
  r.verdict.correct = false;
  r.verdict.max_abs_error = 2, r.verdict.max_rel_error = 0.5, r.verdict.tolerance = 1e-5;
  r.verdict.cells = 12;
  r.verdict.wrong_cells = {3, 7};
  r.verdict.wrong_expected = {1.5f, -2};
  r.verdict.problem = "not compared: the lesson's reference returned 10 values";
  RunConfig& c = r.trace.config;
  c.lesson_id = "file.mine";
  c.params.length = 37, c.params.block = 64, c.params.n = 5;
  c.barrier_mask = BarrierSet(5u);
  c.geometry.grid = {2, 3, 1};
  c.geometry.block = {64, 1, 1};
  c.geometry.dynamic_shared_bytes = 12, c.geometry.static_shared_bytes = 256;
  c.backend = BackendKind::Cuda;
  c.device_name = "NVIDIA H200";
  c.schedule = {ScheduleKind::Random, 0x5u, 9, 77};
  c.skew_ns = 1000, c.skew_warps = 0xAu, c.input_seed = 42;
  ArrayInfo a;
  a.name = "cache", a.space = Space::Shared, a.role = ArrayRole::Scratch, a.type = ElemType::U32;
  a.rows = 2, a.cols = 32, a.fill_stream = 3, a.shared_offset = 128;
  c.arrays = {ArrayInfo{}, a};
  c.arrays[0].name = "a";
  c.arrays[0].cols = 37;
  r.trace.capacity = 1000, r.trace.events_dropped = 4;
  Event e{};
  e.kind = EventKind::SharedAtomic, e.array = 2, e.element = 9, e.line = 17, e.thread = 5;
  r.trace.events = {e, e};
  r.trace.buffers = {{1, 1, 37, false, std::vector<float>(37, 2.0f)}};
  r.untraced_shared = {{"raw", "k<ts::sim::SimRec>()", 4096, true}};
  return r;
}

TEST(RunWire, EveryFieldComesBackAsItWent) {
  const RunResult r = every_field_set();
  std::string why;
  const std::optional<RunResult> back = decode_run_result(encode_run_result(r), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->ok, r.ok);
  EXPECT_EQ(back->error, r.error);
  EXPECT_EQ(back->backend_note, r.backend_note);
  EXPECT_EQ(back->kernel_ms, r.kernel_ms);
  EXPECT_EQ(back->faults, r.faults);
  EXPECT_EQ(back->verdict.checked, r.verdict.checked);
  EXPECT_EQ(back->verdict.correct, r.verdict.correct);
  EXPECT_EQ(back->verdict.max_abs_error, r.verdict.max_abs_error);
  EXPECT_EQ(back->verdict.tolerance, r.verdict.tolerance);
  EXPECT_EQ(back->verdict.cells, r.verdict.cells);
  EXPECT_EQ(back->verdict.wrong_cells, r.verdict.wrong_cells);
  EXPECT_EQ(back->verdict.wrong_expected, r.verdict.wrong_expected);
  EXPECT_EQ(back->verdict.summary(), r.verdict.summary());
  const RunConfig &c = back->trace.config, &want = r.trace.config;
  EXPECT_EQ(c.lesson_id, want.lesson_id);
  EXPECT_EQ(c.params, want.params);
  EXPECT_EQ(c.barrier_mask.mask(), want.barrier_mask.mask());
  EXPECT_EQ(c.geometry.grid, want.geometry.grid);
  EXPECT_EQ(c.geometry.block, want.geometry.block);
  EXPECT_EQ(c.geometry.dynamic_shared_bytes, want.geometry.dynamic_shared_bytes);
  EXPECT_EQ(c.geometry.static_shared_bytes, want.geometry.static_shared_bytes);
  EXPECT_EQ(c.backend, want.backend);
  EXPECT_EQ(c.device_name, want.device_name);
  EXPECT_EQ(c.schedule, want.schedule);
  EXPECT_EQ(c.skew_ns, want.skew_ns);
  EXPECT_EQ(c.skew_warps, want.skew_warps);
  EXPECT_EQ(c.input_seed, want.input_seed);
  EXPECT_EQ(c.arrays, want.arrays);
  EXPECT_EQ(back->trace.capacity, r.trace.capacity);
  EXPECT_EQ(back->trace.events_dropped, r.trace.events_dropped);
  ASSERT_EQ(back->trace.events.size(), 2u);
  EXPECT_EQ(back->trace.events[1].line, 17);
  EXPECT_EQ(back->trace.events[1].kind, EventKind::SharedAtomic);
  ASSERT_EQ(back->trace.buffers.size(), 1u);
  EXPECT_EQ(back->trace.buffers[0].values, r.trace.buffers[0].values);
  EXPECT_EQ(back->trace.buffers[0].cols, 37);
  ASSERT_EQ(back->untraced_shared.size(), 1u);
  EXPECT_EQ(back->untraced_shared[0].name, "raw");
  EXPECT_EQ(back->untraced_shared[0].function, r.untraced_shared[0].function);
  EXPECT_EQ(back->untraced_shared[0].bytes, 4096u);
  EXPECT_TRUE(back->untraced_shared[0].written);
}

TEST(RunWire, BytesFromAHostileChildAreRefused) {
  const std::string good = encode_run_result(every_field_set());
  std::string why;
  for (size_t cut : {size_t(0), size_t(3), size_t(8), good.size() / 2, good.size() - 1}) {
    EXPECT_FALSE(decode_run_result(std::string_view(good).substr(0, cut), &why)) << cut;
    EXPECT_FALSE(why.empty());
  }
  EXPECT_FALSE(decode_run_result(good + "x", &why));
  EXPECT_NE(why.find("after its end"), std::string::npos) << why;
  std::string huge = good;  // the error text's length made 2^40
  const uint64_t n = uint64_t(1) << 40;
  std::memcpy(huge.data() + 9, &n, sizeof n);
  EXPECT_FALSE(decode_run_result(huge, &why));
  EXPECT_FALSE(decode_run_result(std::string(100, '\xff'), &why));
  EXPECT_NE(why.find("not a run result"), std::string::npos) << why;
}

}  // namespace
}  // namespace ts
