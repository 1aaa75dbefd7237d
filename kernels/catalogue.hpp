// The catalogue: ONE table of every lesson variant. Menus, the command line,
// the tests and the benchmarks are all generated from `catalogue()`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/kernel_args.hpp"
#include "trace/event.hpp"

namespace ts {

enum class Family : uint8_t { Matmul, Stencil };

// The parameters a user sets. Which of them a variant reads is in
// Variant::uses; the others are ignored.
struct Params {
  int m = 0, k = 0, n = 0;  // matmul: C (m x n) = A (m x k) x B (k x n); square kernels use n
  int tile = 0;             // tile width (matmul) -- a compile-time size, one of kTileWidths
  int length = 0;           // stencil: number of elements
  int radius = 0;           // stencil: neighbours on each side
  int block = 0;            // threads per block (naive matmul: block side; stencil: block size)
  bool operator==(const Params&) const = default;
};

enum ParamBits : uint32_t {
  kUsesM = 1u << 0,
  kUsesK = 1u << 1,
  kUsesN = 1u << 2,
  kUsesTile = 1u << 3,
  kUsesLength = 1u << 4,
  kUsesRadius = 1u << 5,
  kUsesBlock = 1u << 6,
};

// Tile widths the kernels are instantiated for (shared arrays need a
// compile-time size). 32 x 32 = 1024 threads is the most a block may have.
inline constexpr int kTileWidths[] = {2, 4, 8, 16, 32};
inline constexpr int kMaxBlockThreads = 1024;

// The widest ranges any lesson allows (validate() checks each lesson's own).
// Matrix indices are 32-bit ints in the kernels: 32768^2 = 2^30 stays well inside.
inline constexpr int kMaxMatrixSide = 32768;
inline constexpr int kMaxLength = 1 << 28;
inline constexpr int kMaxStencilRadius = 1024;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3&) const = default;
};

struct LaunchGeometry {
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;  // extern __shared__
  uint32_t static_shared_bytes = 0;   // __shared__ arrays of fixed size
};

// What the hardware (or the simulator's model) allows; checked before launch.
struct DeviceLimits {
  int max_threads_per_block = 1024;
  int max_shared_per_block = 48 * 1024;  // without opt-in
  uint64_t global_memory_bytes = 8ull << 30;
};

// Closed-form event counts of one traced run with all barriers on.
struct ExpectedCounts {
  uint64_t global_loads = 0, global_stores = 0;
  uint64_t shared_loads = 0, shared_stores = 0;
  uint64_t barrier_arrivals = 0;  // BarrierArrive events over all barriers (as many BarrierLeave)
  // Every event of the run: loads, stores, arrivals and departures.
  uint64_t total() const {
    return global_loads + global_stores + shared_loads + shared_stores + 2 * barrier_arrivals;
  }
};

// One barrier of a kernel: its number (1-based, order in the source) and line.
struct BarrierInfo {
  int id;
  int line;
  const char* purpose;  // "tiles complete before anyone reads them"
};

// One named array of a lesson (input or output), with its shape for display.
struct BufferShape {
  Buffer id;
  int rows, cols;  // a 1D array is 1 x count
  bool is_output;
};

// A shared array of a kernel and its variable name in the source.
struct SharedArrayName {
  Buffer id;
  const char* name;  // "tileA", "rowsA", "cache"
};

struct Variant {
  const char* id;       // stable name for the CLI and files: "matmul.tiled_square"
  const char* title;    // "Tiled, square, with bounds checks"
  const char* summary;  // one sentence for menus
  Family family;
  const char* source_file;  // path of the kernel header relative to the repository root
  const char* function;     // the kernel's function name in that header
  uint32_t uses;            // ParamBits
  Params defaults;          // small enough to follow by eye
  std::vector<BarrierInfo> barriers;
  const char* narration_key;                   // assets/narration/<key>.json
  std::vector<SharedArrayName> shared_arrays;  // as the source names them
};

// Every variant, in menu order.
std::span<const Variant> catalogue();
// nullptr when the id is unknown.
const Variant* find_variant(const std::string& id);
// All ids, comma-separated, for usage messages.
std::string variant_ids();

// Empty when the parameters can run; otherwise a message that names the limit
// that was hit and what is allowed ("tile 64: a block of 64 x 64 = 4096 threads
// exceeds the 1024 threads per block this device allows; use 2, 4, 8, 16 or 32").
std::optional<std::string> validate(const Variant& v, const Params& p, const DeviceLimits& lim);
// Only the barrier numbers the variant has: bit (id - 1) of `mask`. Bits
// beyond the variant's barriers may be all set (~0u = keep all) or all clear.
std::optional<std::string> validate_barrier_mask(const Variant& v, uint32_t mask);
// A barrier number the user named (to remove or keep): 1 .. barriers.size().
std::optional<std::string> validate_barrier_id(const Variant& v, int id);
inline uint32_t all_barriers(const Variant& v) {
  return (1u << v.barriers.size()) - 1u;
}

LaunchGeometry geometry(const Variant& v, const Params& p);
// Warps in one block: threads per block / 32, rounded up.
int warps_per_block(const Variant& v, const Params& p);
// The same lesson with `warps` (1 or 2) warps per block: tile 4 or 8, a
// stencil block of 32 or 64 threads; sizes grow to the defaults' where they
// would leave the second warp idle. nullopt for a lesson without barriers or
// without such a knob. Within one warp a removed barrier stays latent (the
// warp's threads run together); across two it makes loads stale.
std::optional<Params> params_with_warps(const Variant& v, const Params& p, int warps);
ExpectedCounts expected_counts(const Variant& v, const Params& p);
// The arrays of the lesson and their shapes (A, B, C or In, Out).
std::vector<BufferShape> buffer_shapes(const Variant& v, const Params& p);
// What a student reads in the kernel's source for buffer b: "rowsA" for the
// row lesson's Buffer::TileA, "cache" for the stencil's shared array; the
// buffer's own name (to_string) for global arrays and unknown variants.
const char* source_name(const Variant& v, Buffer b);
const char* source_name(const std::string& variant_id, Buffer b);
// One element under that name: "tileB[3][7]" for a 2-D shared array,
// "cache[12]" or "A[5]" otherwise (what the race reports print).
std::string element_name(const Variant& v, const Params& p, Buffer b, uint32_t element);
// Shared arrays per block (tileA/tileB or the stencil's array), for the grid view.
std::vector<BufferShape> shared_shapes(const Variant& v, const Params& p);

// The kernel's sizes and array extents for these parameters (pointers left
// null): what both backends pass to the kernel body.
KernelArgs kernel_args(const Variant& v, const Params& p);
// Elements to allocate for one of the lesson's arrays: rows * cols, or more
// where a kernel reads and writes past the end by design (matmul.tiled_exact
// on a size that is not a multiple of the tile), so that those accesses stay
// inside the allocation. Both backends allocate this much.
uint64_t allocation_elements(const Variant& v, const Params& p, Buffer b);
// A traced run's events would not fit into `capacity` events: the message
// (how many are needed, in events and bytes, and what to do). Callers that
// prefer a truncated trace may ignore it.
std::optional<std::string> validate_trace(const Variant& v, const Params& p, uint64_t capacity);
// One parameter by its option name ("tile") and value.
struct NamedParam {
  const char* name;
  int value;
};
// The parameters selected by `uses` (kUsesM | ...), in the order m, k, n,
// tile, length, radius, block: what every listing of parameters walks.
std::vector<NamedParam> used_params(uint32_t uses, const Params& p);
// "n=10 tile=4", only the parameters in `uses`.
std::string describe(uint32_t uses, const Params& p);
// "n=10 tile=4", only the parameters the variant uses.
std::string describe(const Variant& v, const Params& p);

}  // namespace ts
