// The trace file (.tstrace): save a Trace and load it back, exactly.
//
// Layout, version 2 (all integers little-endian; this build assumes a
// little-endian host, checked at compile time, as every CUDA host is):
//
//   header    "TSTRACE\0" (8 bytes), u32 format version, u64 file size in bytes
//   config    str lesson id; u32 count, per parameter: str name, i32 value;
//             u32 barrier mask; u32 grid x, y, z, block x, y, z,
//             dynamic shared bytes, static shared bytes; u8 backend;
//             str device name; u8 schedule kind, u32 skew warps,
//             i32 skew steps, u64 schedule seed; i32 skew ns, u32 skew warps;
//             u64 input seed                          (str = u32 length + bytes)
//   arrays    u32 count; per array (its slot is its position, from 1): str name,
//             u8 space (0 global, 1 shared), u8 role (0 input, 1 output,
//             2 scratch), u8 element type (0 f32, 1 i32, 2 u32, 3 u8), u8 element
//             bytes (4; 1 for u8), u32 rows, u32 cols, u32 input stream, u32
//             shared offset (bytes from the block's shared base, a multiple of
//             the element bytes; 0 for global arrays). Type 3 came later in
//             version 2: the files before it hold 0 to 2, and read as they did
//   recording u64 capacity, u64 events dropped
//   buffers   u32 count; per global array: u8 slot, u8 is_output, u32 rows,
//             u32 cols, rows * cols f32
//   events    u64 count; count raw 40-byte Event records (model/event.hpp)
//   checksum  u64 FNV-1a (64-bit) of every byte before it
//
// Version 1 (TileScope before the open catalogue) had the seven parameters
// in a fixed order, no array table, buffer ids from a fixed list (A, B, C,
// In, Out, TileA, TileB, StencilShared) in buffers and events, and the warp
// where version 2 has the event number. It still opens: the table comes from
// the lesson, ids map to its slots, event numbers are counted per thread.
//
// The loader checks sizes before it allocates and validates every field a
// consumer indexes with (enum values, block and thread ids, dimensions), then
// what the trace means (analysis/trace_validate.hpp: parameters, geometry,
// arrays, every event), so a damaged or hand-edited file gives a message,
// never a crash, a hang or a huge allocation.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/output_file.hpp"  // write_file_safely, same_file
#include "model/trace.hpp"

namespace ts {

inline constexpr char kTraceMagic[8] = {'T', 'S', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr uint32_t kTraceFormatVersion = 2;
inline constexpr const char* kTraceFileExtension = ".tstrace";

// The file's bytes. Never fails (the Trace is trusted).
std::vector<uint8_t> serialize_trace(const Trace& t);
// Parses bytes written by serialize_trace; on failure returns nullopt and,
// when `error` is given, a message that says what is wrong with the file.
std::optional<Trace> parse_trace(std::span<const uint8_t> bytes, std::string* error);

// Writes with write_file_safely.
bool save_trace(const Trace& t, const std::string& path, std::string* error);
// Through the input layer (io/input_file.hpp): refuses what is not a regular
// file (a directory, /dev/zero, a FIFO) without blocking, reads the 20-byte
// header before the rest (junk or a wrong size is refused without reading the
// file), then maps the file; beyond 64 MiB the sizes its sections declare
// must add up to the file's size before the checksum reads every page.
std::optional<Trace> load_trace(const std::string& path, std::string* error);
// What load_trace says before it reads past the header (not a regular file,
// not a trace, a wrong version or size), or nullopt: for a caller that sizes
// the file up first (the window's memory budget) and must not call junk events.
std::optional<std::string> check_trace_file_header(const std::string& path);

uint64_t fnv1a64(std::span<const uint8_t> bytes);

}  // namespace ts
