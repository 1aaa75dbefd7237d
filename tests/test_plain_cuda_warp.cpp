// Warp masks and shuffle widths in plain CUDA (docs/plain_cuda.md, issue 32),
// on the simulator, as the CUDA programming guide defines them: a width cuts
// the warp into segments (a lane whose source is outside its own reads its own
// value), a vote counts its mask's lanes only, and what CUDA leaves undefined
// (a lane outside its own mask, a read of a lane outside the mask or one that
// has exited, a width that is not a power of two) stops the run with a
// message that names the lanes and the line.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "tests/cli_process.hpp"
#include "tests/lesson_file_fixture.hpp"
#include "tests/plain_cuda_suite.hpp"
#include "tests/temp_files.hpp"

namespace ts {
namespace {

// The kernels the GPU runs too (tests/gpu_lesson_files.cpp): one file each.
const std::string kWarpDir = std::string(TS_SOURCE_DIR) + "/tests/plain_cuda/warp/";

struct PlainCudaWarp : test::PlainCudaSuite {
  // A run at n (the file's `n` selects what the kernel does).
  static RunResult run_at(const std::string& id, int n = 1) {
    Params p = find_lesson(id) ? find_lesson(id)->defaults : Params{};
    p.n = n;
    return run_on_sim(id, &p);
  }
  static std::vector<float> output(const RunResult& r) {
    for (const BufferData& b : r.trace.buffers)
      if (b.is_output) return b.values;
    return {};
  }
};

// Each lane shuffles its own number. Rows of `out` (32 lanes each): width 16
// down 4, up 4, from lane 17, xor 20; then a full-warp xor reduction and a
// width-16 down reduction of lane + 1.
const std::string kWidths = test::read_all(kWarpDir + "widths.cu");

TEST_F(PlainCudaWarp, WidthSixteenShufflesStayInTheirHalfWarp) {
  const RunResult r = run_at(load_text("widths.cu", kWidths));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.faults.empty()) << r.faults.front();
  const std::vector<float> out = output(r);
  ASSERT_EQ(out.size(), 6u * 32u);
  auto row = [&](int k) {
    return std::vector<float>(out.begin() + k * 32, out.begin() + k * 32 + 32);
  };
  // By hand: down 4 in segments 0-15 and 16-31; lanes 12-15 and 28-31 keep their own.
  EXPECT_EQ(row(0),
            (std::vector<float>{4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 12, 13, 14, 15,
                                20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 28, 29, 30, 31}));
  // Up 4: lanes 0-3 and 16-19 keep their own.
  EXPECT_EQ(row(1),
            (std::vector<float>{0,  1,  2,  3,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                16, 17, 18, 19, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27}));
  // Lane 17 modulo 16: the second lane of each segment.
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(row(2)[l], l < 16 ? 1.0f : 17.0f) << "lane " << l;
  // Xor 20 reaches the next segment from the first half (its own value
  // then), the earlier one from the second: lane 16 reads lane 4.
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(row(3)[l], l < 16 ? float(l) : float(l ^ 20)) << "lane " << l;
  // 1 + 2 + ... + 32 in every lane; the half sums 1 + ... + 16 and 17 + ... + 32 in lanes 0 and 16.
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(row(4)[l], 528.0f) << "lane " << l;
  EXPECT_EQ(row(5)[0], 136.0f);
  EXPECT_EQ(row(5)[16], 392.0f);
  // The trace names the lane each value came from: lane 12 its own.
  int own = 0;
  for (const Event& e : r.trace.events)
    own += e.kind == EventKind::WarpShuffle && e.thread == 12 && e.element == 12;
  EXPECT_GE(own, 1);
}

// One misuse per n (one compile for all): each stops the run.
const char* kMisuse = R"(/* tilescope:
   kernel misuse
   params n=1
   grid 1
   block 32
   array out out 32
   arg which = n
*/
__global__ void misuse(float* out, int which) {
  const int lane = threadIdx.x;
  float v = float(lane);
  if (which == 1) v = __shfl_down_sync(0x0000ffff, v, 16);  // @OUTSIDE
  if (which == 2 && lane < 20) v = __shfl_sync(0x0000ffff, v, 0);  // @OWN
  if (which == 3) {
    if (lane >= 8) return;
    v = __shfl_down_sync(0xffffffff, v, 4);  // @EXITED
  }
  if (which == 4) v = __shfl_xor_sync(0xffffffff, v, 1, 12);  // @WIDTH
  if (which == 5) __syncwarp(0x1);  // @SYNCWARP
  if (which == 6) {
    if (lane < 16) __syncwarp(0xffffffff);  // @HALF
    __syncthreads();  // @BLOCK
  }
  out[lane] = v;
}
)";

TEST_F(PlainCudaWarp, PartialMaskMisuseIsNamedWithLanesAndLine) {
  const std::string id = load_text("misuse.cu", kMisuse);
  auto stops = [&](int which, const std::string& want) {
    SCOPED_TRACE("n=" + std::to_string(which));
    const RunResult r = run_at(id, which);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find(want), std::string::npos) << "want \"" << want << "\" in\n" << r.error;
  };
  const auto at = [](const char* marker) {
    return " at line " + std::to_string(test::line_of(kMisuse, std::string("@") + marker));
  };
  stops(1, "thread (0, 0, 0) of block (0, 0, 0) called __shfl_down_sync" + at("OUTSIDE") +
               ": lane 0 reads lane 16, which is not in the mask 0x0000ffff: its value is "
               "undefined in CUDA");
  stops(2, "thread (16, 0, 0) of block (0, 0, 0) called __shfl_sync with mask 0x0000ffff" +
               at("OWN") + ", which leaves its own lane 16 out: undefined in CUDA");
  stops(3, "called __shfl_down_sync" + at("EXITED") +
               ": lane 4 reads lane 8, which has exited: its value is undefined in CUDA");
  stops(4, "called __shfl_xor_sync with width 12" + at("WIDTH") +
               ": CUDA's width is a power of two from 1 to 32");
  stops(5, "thread (1, 0, 0) of block (0, 0, 0) called __syncwarp with mask 0x00000001" +
               at("SYNCWARP") + ", which leaves its own lane 1 out");
  stops(6, "thread (0, 0, 0) of block (0, 0, 0) waits at the __syncwarp on line " +
               std::to_string(test::line_of(kMisuse, "@HALF")) +
               " with mask 0xffffffff for lane 16, which waits at the __syncthreads() on line " +
               std::to_string(test::line_of(kMisuse, "@BLOCK")));
  // The same code with every mask right runs to the end.
  const RunResult fine = run_at(id, 0);
  EXPECT_TRUE(fine.ok) << fine.error;
}

// The lanes of a mask meet apart: the first half shuffles within itself
// (width 16) while the second half already waits at the full-warp shuffle.
// Votes count their mask's lanes only.
const std::string kHalves = test::read_all(kWarpDir + "halves.cu");

TEST_F(PlainCudaWarp, MasksMeetApartAndVotesCountTheirLanes) {
  const RunResult r = run_at(load_text("halves.cu", kHalves));
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<float> out = output(r);
  ASSERT_EQ(out.size(), 4u * 48u);
  // Lane 0: 0 + 8, then + lane 16's 16. Lane 8: 8 + its own 8 (past its
  // segment), then + 24. Lane 20: 20 + its own (past the warp).
  EXPECT_EQ(out[0], 24.0f);
  EXPECT_EQ(out[8], 40.0f);
  EXPECT_EQ(out[20], 40.0f);
  // Lanes 0, 3, ..., 15 of the first half; 18, 21, ..., 30 of the second.
  EXPECT_EQ(out[48 + 0], float(0x9249u));
  EXPECT_EQ(out[48 + 20], float(0x49240000u));
  // The second warp has lanes 0-15 only: its second half votes with nobody.
  EXPECT_EQ(out[48 + 32], float(0x9249u));
  EXPECT_EQ(out[96 + 0], 1.0f);
  EXPECT_EQ(out[96 + 20], 0.0f);
  EXPECT_EQ(out[144 + 0], 1.0f);
  EXPECT_EQ(out[144 + 20], 0.0f);
}

#ifdef TS_CLI_PATH
TEST_F(PlainCudaWarp, CommandLineRunFailsWithTheMessage) {
  const std::string path = *dir / "misuse_cli.cu";
  test::write_text(path, kMisuse);
  const testing::CliRun r =
      testing::run_cli("run --lesson-file " + path + " --backend sim --n 1", true);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("lane 0 reads lane 16, which is not in the mask 0x0000ffff"),
            std::string::npos)
      << r.out;
}
#endif

}  // namespace
}  // namespace ts
