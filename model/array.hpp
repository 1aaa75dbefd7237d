// The array table of a run: what each array slot of the events is called (as
// in the kernel's source), where it lives, its element type and its shape.
// The lesson describes its arrays (lessons/lesson.hpp), the run copies the
// table into the trace, and everything that reads a trace (analysis, views,
// the file format) takes names and shapes from here, never from a lesson id.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/event.hpp"

namespace ts {

// Constant: a __constant__ array (read-only in the kernel, cached, broadcast
// when a warp reads one address), e.g. a convolution's mask.
enum class Space : uint8_t { Global = 0, Shared = 1, Constant = 2 };
enum class ArrayRole : uint8_t { Input = 0, Output = 1, Scratch = 2 };
// U8: an unsigned char / uint8_t array, 1-byte elements (the file format's
// type 3; older files hold 0 to 2 only).
enum class ElemType : uint8_t { F32 = 0, I32 = 1, U32 = 2, U8 = 3 };
// Bytes one element of `t` takes: 4, or 1 for U8.
constexpr int elem_size(ElemType t) {
  return t == ElemType::U8 ? 1 : 4;
}

// At most this many arrays per lesson (slots 1 .. kMaxArrays).
inline constexpr int kMaxArrays = 16;

struct ArrayInfo {
  std::string name;  // as the kernel's source names it: "A", "tileA", "cache"
  Space space = Space::Global;
  ArrayRole role = ArrayRole::Input;
  ElemType type = ElemType::F32;
  int elem_bytes = 4;
  int rows = 1, cols = 0;  // row-major; a 1D array is 1 x count
  // Inputs: the stream of the deterministic input generator (the same seed
  // gives the same values for the same stream, whatever the slot).
  uint32_t fill_stream = 0;
  // Shared arrays: where the array starts, in bytes from the block's shared
  // memory base (0 for the first or only one). Bank numbers depend on it:
  // bank = (shared_offset + element * elem_bytes) / 4 % 32. Global arrays: 0.
  uint32_t shared_offset = 0;

  uint64_t count() const { return uint64_t(rows > 0 ? rows : 0) * uint64_t(cols > 0 ? cols : 0); }
  bool shared() const { return space == Space::Shared; }
  bool output() const { return role == ArrayRole::Output; }
  bool operator==(const ArrayInfo&) const = default;
};

// The table: slot s is tables[s - 1].
using ArrayTable = std::vector<ArrayInfo>;

inline const ArrayInfo* array_at(const ArrayTable& t, ArraySlot slot) {
  return slot >= 1 && slot <= t.size() ? &t[slot - 1] : nullptr;
}
// The slot of the array called `name`, or kNoArray.
inline ArraySlot slot_named(const ArrayTable& t, const std::string& name) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == name) return ArraySlot(i + 1);
  return kNoArray;
}
// The name of a slot for messages: the array's name, "none" for kNoArray,
// "array 9" for a slot the table does not have.
std::string array_name(const ArrayTable& t, ArraySlot slot);
// One element under its source name: "tileB[3][7]" for a 2-D array,
// "cache[12]" or "A[5]" for a 1-D one or a global matrix (indexed row * n + col).
std::string element_name(const ArrayTable& t, ArraySlot slot, uint32_t element);

// Bytes one lane's access of `e` moves: its width flag (4, 8 or 16), except
// that a plain access (width code 0) of a byte array moves its one byte.
inline int lane_bytes(const Event& e, const ArrayInfo* a) {
  const int width = access_bytes(e.flags);
  return a && width == 4 && a->elem_bytes > 0 && a->elem_bytes < 4 ? a->elem_bytes : width;
}
// Bytes of `e`'s own element: 4 for each element of a 16-byte access, else lane_bytes.
inline int element_bytes(const Event& e, const ArrayInfo* a) {
  return is_vector_element(e) ? 4 : lane_bytes(e, a);
}

const char* to_string(Space s);
const char* to_string(ArrayRole r);
const char* to_string(ElemType t);

}  // namespace ts
