// What a lesson is: its kernel (in the same header) and this descriptor of it.
// A lesson header defines, in namespace ts::lessons::<file name>:
//
//   enum : ArraySlot { kA = 1, ... };       // the arrays, in the order of arrays()
//   template <...> TS_DEVICE void kernel_name(Rec& rec, const KernelArgs& args);
//   struct Lesson {
//     static const Variant& descriptor();   // below: what the app, CLI, tests need
//     template <class F> static bool visit(const Params& p, F&& f);  // f(Body{})
//   };
//
// and lessons/CMakeLists.txt lists the file name once. Everything else (menus,
// the command line, backends, tests, benchmarks, the performance panel) walks
// the registry (engine/catalogue.hpp). Barrier lines are not typed here: the
// registry reads them from the header's text, where SYNCTHREADS(id) stands.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/array.hpp"
#include "model/params.hpp"

namespace ts {

// What a parameter means in one lesson: {"n", "n (matrix size)", "the
// matrices are n x n"}. The window's lesson panel shows label and hint.
struct ParamText {
  const char* name;   // as in Params and on the command line: "m", "block"
  const char* label;  // next to the input box
  const char* hint;   // the tooltip
};

// One barrier of a kernel: its number (1-based, order in the source), its
// line (filled by the registry from the source) and why it is there.
struct BarrierInfo {
  int id;
  int line;
  const char* purpose;  // "tiles complete before anyone reads them"
  // A SYNCWARP(id) (__syncwarp: one warp) rather than a SYNCTHREADS(id);
  // filled by the registry from the source, like the line.
  bool warp_scope = false;
};
// "__syncwarp" or "__syncthreads": what the barrier is in CUDA.
inline const char* barrier_call(const BarrierInfo& b) {
  return b.warp_scope ? "__syncwarp" : "__syncthreads";
}

// A lesson's input values by slot, for its CPU reference: in[kA] is A's.
struct LessonInputs {
  std::vector<const std::vector<float>*> by_slot;  // index 0 unused; null where no input
  const std::vector<float>& operator[](ArraySlot slot) const { return *by_slot[slot]; }
};

// "needs 9000 bytes of shared memory per block<detail>, over the 8192 ...; <fix>".
struct SharedAdvice {
  std::string detail;  // " (8 rows of 300 floats)", or empty
  std::string fix;     // "use a smaller tile"
};

// What the performance panel times a lesson by: floating-point operations
// (multiplies: GFLOP/s against cuBLAS and the FP32 peak) or bytes moved
// (bandwidth lessons: GB/s against a plain copy).
enum class PerfMetric : uint8_t { Flops, Bytes };

struct Variant {
  // Identity and text.
  const char* id;             // stable name for the CLI and files: "matmul.tiled_square"
  const char* title;          // "Tiled, square, with bounds checks"
  const char* summary;        // one sentence for menus
  const char* family;         // "matmul": groups menus and the performance panel's plots
  const char* family_title;   // "Matrix multiply": the menu heading of the family
  const char* source_file;    // the lesson header, relative to the repository root
  const char* function;       // the kernel's function name in that header
  const char* narration_key;  // assets/narration/<key>.json
  // The lesson the window opens with when none is named (exactly one has it).
  bool opens_the_window = false;

  // Parameters: which ones the lesson reads (ParamBits), their defaults
  // (small enough to follow by eye), and per parameter a one-line help.
  uint32_t uses;
  Params defaults;
  // How the window labels each parameter the lesson reads, and its tooltip.
  std::vector<ParamText> param_text;

  std::vector<BarrierInfo> barriers;  // lines filled by the registry from the source

  // Behaviour. Every function gets parameters the lesson has validated
  // (check) unless it says otherwise.
  // The arrays, global then shared, in slot order; shapes for these parameters.
  ArrayTable (*arrays)(const Params&);
  LaunchGeometry (*geometry)(const Params&);
  // The lesson's own limits (sizes, tile widths, block sizes), any parameters;
  // shared memory and device memory are checked by the registry after it.
  std::optional<std::string> (*check)(const Params&, const DeviceLimits&);
  // When the shared memory per block does not fit: what it holds and what to do.
  SharedAdvice (*shared_advice)(const Params&, const DeviceLimits&);
  // Closed-form event counts of a traced run with every barrier kept.
  ExpectedCounts (*counts)(const Params&);
  // The CPU reference (double accumulation, rounded to float) of the output.
  std::vector<float> (*reference)(const Params&, const LessonInputs&);
  // Terms in the sum behind one output (the verdict's tolerance grows with it).
  int (*sum_length)(const Params&);
  // Elements to allocate for a global array: its count, or more where the
  // kernel reaches past the end by design (nullptr: the count).
  uint64_t (*allocation)(const Params&, ArraySlot) = nullptr;
  // The same lesson with 1 or 2 warps per block (nullptr: no such knob).
  std::optional<Params> (*with_warps)(const Params&, int warps) = nullptr;

  // The textbook's global loads per output element, with the formula and
  // its numbers ("2*ceil(N/T) = 2*ceil(10/4) = 6"); nullptr: the closed form.
  double (*loads_per_output)(const Params&, std::string* formula) = nullptr;

  // Performance: what the panel plots the lesson by, and the floating-point
  // operations of one run (its compulsory bytes come from the arrays).
  PerfMetric metric = PerfMetric::Flops;
  double (*flops)(const Params&) = nullptr;

  // Lessons with the same layout_group are one kernel with different
  // shared-memory layouts (plain, padded, swizzled); the window offers a
  // toggle between them, labelled layout_label, that re-runs at once.
  const char* layout_group = nullptr;  // "transpose.tile"
  const char* layout_label = nullptr;  // "padded [32][33]"

  // Lessons with the same ladder are the steps of one optimisation ladder
  // ("sgemm": naive to near cuBLAS), which the performance panel charts in
  // ladder_step order (1-based) and the lesson panel steps through.
  const char* ladder = nullptr;
  int ladder_step = 0;

  // The values `tile` may take when they are not kTileWidths (tile x tile
  // threads): the compiled configurations of a lesson whose block tile is not
  // its thread block (the SGEMM ladder: a block of 8 x 8 threads computes a
  // 64 x 64 tile of C). Smallest first; the last is the one tuned for speed,
  // which the performance sweep times when its tile list names none of them.
  std::vector<int> tile_choices = {};
};

// Lesson-writing kit: small helpers the lesson headers share.
namespace lesson_kit {

inline uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}
inline uint32_t at_least_1(int64_t x) {
  return uint32_t(x < 1 ? 1 : x);
}

// Tile widths the tiled kernels are instantiated for (shared arrays need a
// compile-time size). 32 x 32 = 1024 threads is the most a block may have.
inline constexpr int kTileWidths[] = {2, 4, 8, 16, 32};
// Matrix indices are 32-bit ints in the kernels: 32768^2 = 2^30 stays well inside.
inline constexpr int kMaxMatrixSide = 32768;
inline constexpr int kMaxLength = 1 << 28;

// "2, 4, 8, 16 or 32": the compiled tile widths whose blocks fit `max_threads`.
std::string tile_list(int max_threads = 1 << 30);
// nullopt when 1 <= value <= kMaxMatrixSide, else "n = 0: matrix sizes must be from 1 to 32768".
std::optional<std::string> check_side(const char* name, int value);
// A tile width the kernels are compiled for whose square block fits the device.
std::optional<std::string> check_tile(int tile, const DeviceLimits& lim);
// The values `tile` may take for v: its tile_choices, else kTileWidths.
std::vector<int> tile_values(const Variant& v);
// tile is one of v.tile_choices: "tile 48: sgemm.blocktile_2d is compiled for block tiles 32 or
// 64".
std::optional<std::string> check_tile_choice(const Variant& v, int tile);
// A block side s (s x s threads) that fits the device.
std::optional<std::string> check_block_side(int side, const DeviceLimits& lim);
// 1D: 1 <= length <= kMaxLength; 1 <= block <= the device's threads per block.
std::optional<std::string> check_length(int length);
std::optional<std::string> check_block_size(int block, const DeviceLimits& lim);

// Calls f.template operator()<T>() for the compiled tile width T == tile;
// false when tile is not one of kTileWidths.
template <class F>
bool visit_tile(int tile, F&& f) {
  switch (tile) {
    case 2:
      f.template operator()<2>();
      return true;
    case 4:
      f.template operator()<4>();
      return true;
    case 8:
      f.template operator()<8>();
      return true;
    case 16:
      f.template operator()<16>();
      return true;
    case 32:
      f.template operator()<32>();
      return true;
    default:
      return false;
  }
}

// Array descriptions, short to write in a lesson's arrays().
inline ArrayInfo global_input(const char* name, int rows, int cols, uint32_t stream) {
  ArrayInfo a;
  a.name = name, a.space = Space::Global, a.role = ArrayRole::Input;
  a.rows = rows, a.cols = cols, a.fill_stream = stream;
  return a;
}
inline ArrayInfo global_output(const char* name, int rows, int cols) {
  ArrayInfo a;
  a.name = name, a.space = Space::Global, a.role = ArrayRole::Output;
  a.rows = rows, a.cols = cols;
  return a;
}
// `offset_bytes`: where it starts in the block's shared memory (ArrayInfo::shared_offset).
inline ArrayInfo shared_array(const char* name, int rows, int cols, uint32_t offset_bytes = 0) {
  ArrayInfo a;
  a.name = name, a.space = Space::Shared, a.role = ArrayRole::Scratch;
  a.rows = rows, a.cols = cols, a.shared_offset = offset_bytes;
  return a;
}

}  // namespace lesson_kit

// A kernel body as a type: Name::run<Rec>(rec, args) runs one thread. The
// backends instantiate it (the CUDA backend inside a __global__ function).
#define TS_KERNEL_BODY(Name, call)                                \
  struct Name {                                                   \
    template <class Rec>                                          \
    static TS_DEVICE void run(Rec& rec, const KernelArgs& args) { \
      call;                                                       \
    }                                                             \
  }

}  // namespace ts
