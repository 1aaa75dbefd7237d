// What a lesson is: its kernel (in the same header) and what is new about it.
// A lesson header lessons/<family>_<name>.hpp defines, in namespace
// ts::lessons::<family>_<name>:
//
//   enum : ArraySlot { kA = 1, ... };       // the arrays, in the order of arrays()
//   template <...> TS_DEVICE void kernel_name(Rec& rec, const KernelArgs& args);
//   TS_KERNEL_BODY(Body, kernel_name(rec, args));
//   struct Lesson {
//     static LessonSpec descriptor();       // below: what the app, CLI, tests need
//     // Only where Body has template parameters (a tile width): f(Body<T>{}).
//     template <class F> static bool visit(const Params& p, F&& f);
//   };
//
// and lessons/CMakeLists.txt lists the file name once. The registry
// (engine/catalogue.hpp) derives everything that follows from the file name
// and the text: the id ("<family>.<name>"), the family and its title
// (lessons/families.hpp), the source file, the kernel's function name, the
// narration (lessons/narration/<file>.json), the barrier lines; and from the
// declared parameters `uses`, `defaults` and `param_text`. Menus, the command
// line, backends, tests, benchmarks and the performance panel walk it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
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

// A parameter a lesson reads, declared once: its name (one of kParamFields),
// its text, its range and its default. The registry derives the lesson's
// `uses`, `defaults` and `param_text` from the list, and refuses a value
// outside [min, max] with `out_of_range`'s message before the lesson's own
// check runs. A range that depends on the device (threads per block, tile
// widths) has no `out_of_range`: the lesson's check tests it, the range only
// bounds the command line and the sweep.
struct ParamDecl {
  const char* name;
  const char* label;
  const char* hint;
  int min, max;
  int value;  // the default: small enough to follow by eye
  std::string (*out_of_range)(const char* name, int value) = nullptr;
  // What the performance sweep times with before it scales the sizes (0: the
  // default): a block of 64 threads is easy to follow and slow to time.
  int timed = 0;
  ParamDecl timed_at(int v) const {
    ParamDecl d = *this;
    d.timed = v;
    return d;
  }
};

// The hazard kinds a barrier keeps out (its removal lets them in) under the
// simulator's lockstep schedule, at the lesson's test sizes: across warps
// (racecheck's errors) or within one warp (warnings). The catalogue tests map
// them to analysis' HazardKind and severity.
enum HazardBits : uint8_t {
  kGuardsRaw = 1u << 0,  // read-after-write between warps
  kGuardsWar = 1u << 1,  // write-after-read between warps
  kGuardsWaw = 1u << 2,  // write-after-write between warps
  kGuardsRawInWarp = 1u << 3,
  kGuardsWarInWarp = 1u << 4,
  kGuardsWawInWarp = 1u << 5,
  kGuardsNothing = 0,  // a barrier whose removal no analysis sees (atomics only)
};
// The same kinds between and within warps.
inline constexpr uint8_t kGuardsRawAnywhere = kGuardsRaw | kGuardsRawInWarp;

// One barrier of a kernel, as the lesson states it: why it is there and what
// it keeps out. Its number (1-based, order in the source), line and scope are
// filled by the registry from the source, where SYNCTHREADS(id) stands.
struct BarrierInfo {
  const char* purpose;  // "tiles complete before anyone reads them"
  uint8_t guards;       // HazardBits: what its removal lets in
  int id = 0;
  int line = 0;
  // A SYNCWARP(id) (__syncwarp: one warp) rather than a SYNCTHREADS(id).
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

// A hook every lesson must give. No default constructor: leaving it out of a
// designated initialiser does not compile, and nullptr is refused, so that
// nothing calls a null function. Called like the function it holds.
template <class F>
class Required {
 public:
  template <class G>
  requires std::is_convertible_v<G, F> Required(G g)
      : fn_(g) {}  // NOLINT: implicit, from a function or a lambda
  Required(std::nullptr_t) = delete;
  operator F() const { return fn_; }  // NOLINT
  template <class... A>
  decltype(auto) operator()(A&&... a) const {
    return fn_(std::forward<A>(a)...);
  }

 private:
  F fn_;
};

struct LessonInfo;

// Where a racy or naive lesson is wrong by design, and the sizes the tests run.
struct TestFacts {
  // Hazard kinds (HazardBits) present with every barrier kept: the race is the
  // lesson (reduction.warp_volatile's unrolled warp without __syncwarp).
  uint8_t racy_by_design = 0;
  // True where the output may be wrong (or reach out of range) with every
  // barrier kept, for these parameters (matmul.tiled_exact off the tile).
  bool (*wrong_by_design)(const Params&) = nullptr;
  // Two or more warps per block and two or more tiles, so that every barrier
  // guards something, and no divergence: lockstep shows exactly the guarded
  // kinds (empty: the defaults).
  Params larger = {};
  // Sizes that are not multiples (threads diverge; empty: none).
  Params padded = {};
  // Barrier subsets (bit id - 1 set: kept) where the union of the removed
  // barriers' guards is not the whole story: their kinds, listed.
  struct Exception {
    uint32_t kept;
    uint8_t guards;
  };
  std::vector<Exception> exceptions = {};
  // Under warp skew the racing pairs keep their source lines (false where a
  // skewed warp meets a later step of a loop that reuses the same cells: the
  // reduction trees).
  bool same_pairs_under_skew = true;
  // With one warp per block and no barrier the output stays right on every
  // schedule: the warp's lanes run together (false where the race bites within
  // one warp too: lanes of one warp that reach the same cell in an order the
  // program does not fix).
  bool latent_in_one_warp = true;
};

// What a lesson's author writes (Lesson::descriptor()): the text, the
// parameters, the barriers and the behaviour. Fields in this order.
struct LessonSpec {
  const char* title;    // "Tiled, square, with bounds checks"
  const char* summary;  // one sentence for menus
  // The lesson the window opens with when none is named (exactly one has it).
  bool opens_the_window = false;

  std::vector<ParamDecl> params;      // in the order the window lists them
  std::vector<BarrierInfo> barriers;  // in SYNCTHREADS/SYNCWARP id order

  // Behaviour. Every function gets parameters the lesson has validated
  // (check) unless it says otherwise.
  // The arrays, global then shared, in slot order; shapes for these parameters.
  Required<ArrayTable (*)(const Params&)> arrays;
  Required<LaunchGeometry (*)(const Params&)> geometry;
  // The lesson's own limits beyond the declared ranges (tile widths, block
  // sizes, multiples), any parameters; shared memory and device memory are
  // checked by the registry after it.
  Required<std::optional<std::string> (*)(const LessonInfo&, const Params&, const DeviceLimits&)>
      check;
  // When the shared memory per block does not fit: what it holds and what to do.
  Required<SharedAdvice (*)(const Params&, const DeviceLimits&)> shared_advice;
  // Closed-form event counts of a traced run with every barrier kept.
  Required<ExpectedCounts (*)(const Params&)> counts;
  // The CPU reference (double accumulation, rounded to float) of the output.
  Required<std::vector<float> (*)(const Params&, const LessonInputs&)> reference;
  // Terms in the sum behind one output (the verdict's tolerance grows with it).
  Required<int (*)(const Params&)> sum_length;
  // Elements to allocate for a global array: its count, or more where the
  // kernel reaches past the end by design (nullptr: the count).
  uint64_t (*allocation)(const Params&, ArraySlot) = nullptr;
  // The same lesson with 1 or 2 warps per block, sizes at least the defaults'
  // where a second warp would idle (nullptr: no such knob).
  std::optional<Params> (*with_warps)(const Params&, const Params& defaults, int warps) = nullptr;

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

  // What the catalogue tests demand of the lesson beyond its barriers' guards.
  TestFacts tests = {};
};

// A lesson as the registry holds it: what its author wrote, and what follows
// from its file name, its text and its declarations (filled by the registry).
struct LessonInfo : LessonSpec {
  const char* id = nullptr;             // "matmul.tiled_square": the file name's first '_' a '.'
  const char* family = nullptr;         // "matmul": groups menus and the performance plots
  const char* family_title = nullptr;   // "Matrix multiply" (lessons/families.hpp)
  const char* source_file = nullptr;    // "lessons/matmul_tiled_square.hpp"
  const char* function = nullptr;       // the kernel's function name in that header
  const char* narration_key = nullptr;  // lessons/narration/<key>.json: the file name
  // From the declared parameters: which ones the lesson reads (ParamBits),
  // their defaults, and how the window labels each one.
  uint32_t uses = 0;
  Params defaults;
  Params timed;  // the performance sweep's parameters before it scales the sizes
  std::vector<ParamText> param_text;
};

// What the generator derives from a lesson's file name (lessons/all_lessons.hpp).
struct LessonNames {
  const char* id;      // "matmul.tiled_square"
  const char* family;  // "matmul"
  const char* file;    // "matmul_tiled_square": the header's and the narration's name
};

// The generated dispatch's default: a lesson whose Body has no template
// parameters needs no visit(); one whose Body is a template (a tile width)
// must say which instantiation its parameters select.
template <class L, class Body, class F>
bool visit_lesson_body(const Params& p, F& f) {
  if constexpr (requires { L::visit(p, f); }) {
    return L::visit(p, f);
  } else {
    f(Body{});
    return true;
  }
}
template <class L, template <int...> class Body, class F>
bool visit_lesson_body(const Params& p, F& f) {
  static_assert(
      requires { L::visit(p, f); },
      "a lesson whose Body has template parameters needs a Lesson::visit() that "
      "calls f(Body<...>{}) for its parameters");
  return L::visit(p, f);
}

// Lesson-writing kit: small helpers the lesson headers share.
namespace lesson_kit {

inline uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}
inline uint32_t at_least_1(int64_t x) {
  return uint32_t(x < 1 ? 1 : x);
}

// A 1D launch: one thread per element of `length`, blocks of `block` threads.
inline LaunchGeometry one_thread_per_element(const Params& p) {
  LaunchGeometry g;
  const int b = p.block < 1 ? 1 : p.block;
  g.block = {at_least_1(b), 1, 1};
  g.grid = {at_least_1(int64_t(ceil_div(uint64_t(p.length < 1 ? 1 : p.length), b))), 1, 1};
  return g;
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
std::vector<int> tile_values(const LessonInfo& v);
// tile is one of v.tile_choices: "tile 48: sgemm.blocktile_2d is compiled for block tiles 32 or
// 64".
std::optional<std::string> check_tile_choice(const LessonInfo& v, int tile);
// A block side s (s x s threads) that fits the device.
std::optional<std::string> check_block_side(int side, const DeviceLimits& lim);
// 1D: 1 <= length <= kMaxLength; 1 <= block <= the device's threads per block.
std::optional<std::string> check_length(int length);
std::optional<std::string> check_block_size(int block, const DeviceLimits& lim);

// Declared parameters the lessons share (ParamDecl): matrix sides, array
// lengths, tile widths and block sizes, with today's messages for a value
// out of range.
std::string side_out_of_range(const char* name, int value);
std::string length_out_of_range(const char* name, int value);
// A matrix side, 1 to kMaxMatrixSide.
inline ParamDecl side(const char* name, const char* label, const char* hint, int value) {
  return {name, label, hint, 1, kMaxMatrixSide, value, side_out_of_range};
}
// A 1D length, 1 to kMaxLength.
inline ParamDecl length(const char* hint, int value) {
  return {"length", "length", hint, 1, kMaxLength, value, length_out_of_range};
}
// A tile width (or a block tile): the lesson's check tests it against the
// compiled widths and the device.
inline ParamDecl tile(const char* label, const char* hint, int value, int min = 2, int max = 32) {
  return {"tile", label, hint, min, max, value};
}
// Threads per block (or a block side): the lesson's check tests it against the device.
inline ParamDecl block(const char* label, const char* hint, int value, int max = 1024) {
  return {"block", label, hint, 1, max, value};
}

// A check that does not need the lesson's identity, as a `check` hook.
template <std::optional<std::string> (*F)(const Params&, const DeviceLimits&)>
std::optional<std::string> check_params(const LessonInfo&, const Params& p,
                                        const DeviceLimits& lim) {
  return F(p, lim);
}
// When the tiles do not fit in shared memory: "use a smaller tile".
inline SharedAdvice smaller_tile(const Params&, const DeviceLimits&) {
  return {"", "use a smaller tile"};
}
// No limits beyond the declared ranges.
inline std::optional<std::string> no_check(const LessonInfo&, const Params&, const DeviceLimits&) {
  return std::nullopt;
}
// One term per output (copies, transposes).
inline int one_term(const Params&) {
  return 1;
}

// Calls f.template operator()<V>() for the V among Values that equals value;
// false when none does.
template <int... Values, class F>
bool visit_value(int value, F&& f) {
  return ((value == Values ? (f.template operator()<Values>(), true) : false) || ...);
}

// Calls f.template operator()<T>() for the compiled tile width T == tile;
// false when tile is not one of kTileWidths.
template <class F>
bool visit_tile(int tile, F&& f) {
  return visit_value<2, 4, 8, 16, 32>(tile, f);
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
