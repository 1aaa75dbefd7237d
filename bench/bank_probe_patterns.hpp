// The bank and sector probe's table of single-warp access patterns (issue 22):
// for each kind of memory instruction (shared loads, stores and atomics,
// global loads, stores and reds) and each width, a list of 32 lane byte
// offsets and an active-lane mask. bench/bank_probe.cu runs each pattern as ONE
// warp instruction under Nsight Compute; io/bank_probe.hpp replays the
// measured counters against the model (analysis/warp_access.hpp).
//
// Plain C++ and header-only, so that the CUDA probe, the CPU tool and the tests
// generate the same table from the same seed (ids are positions in the table).
// Every offset is a multiple of the access width (the hardware faults on a
// misaligned vector access); shared offsets stay below kProbeSharedBytes,
// global ones below kProbeGlobalBytes.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "model/splitmix64.hpp"

namespace ts::probe {

inline constexpr int kLanes = 32;
inline constexpr uint32_t kProbeSharedBytes = 32 * 1024;    // the kernel's static __shared__ array
inline constexpr uint32_t kProbeGlobalBytes = 1024 * 1024;  // the cudaMalloc'd buffer
inline constexpr uint64_t kDefaultSeed = 22;

enum class Op { SharedLoad, SharedStore, SharedAtomic, GlobalLoad, GlobalStore, GlobalRed };

// Names as in Nsight Compute's metric names (op_ld, op_st, op_atom, op_red).
inline const char* op_name(Op op) {
  switch (op) {
    case Op::SharedLoad:
      return "shared_ld";
    case Op::SharedStore:
      return "shared_st";
    case Op::SharedAtomic:
      return "shared_atom";
    case Op::GlobalLoad:
      return "global_ld";
    case Op::GlobalStore:
      return "global_st";
    case Op::GlobalRed:
      return "global_red";
  }
  return "?";
}
inline bool op_shared(Op op) {
  return op == Op::SharedLoad || op == Op::SharedStore || op == Op::SharedAtomic;
}

struct Pattern {
  int id = 0;
  std::string name;  // "stride_3", "quarters_one_elem", "random_4", ...
  Op op = Op::SharedLoad;
  int bytes = 4;  // per lane: 4, 8 or 16 (atomics and reds: 4)
  uint32_t mask = 0xffffffffu;
  std::array<uint32_t, kLanes> offset{};  // byte offset of each lane (inactive lanes: ignored)
  // The probe's kernel that runs it: "probe_shared_ld_128", ...
  std::string kernel() const {
    return std::string("probe_") + op_name(op) + "_" + std::to_string(bytes * 8);
  }
};

// The (op, width) kinds, in table order: one kernel each.
struct Kind {
  Op op;
  int bytes;
};
inline std::vector<Kind> probe_kinds() {
  return {{Op::SharedLoad, 4},   {Op::SharedLoad, 8},   {Op::SharedLoad, 16},  {Op::SharedStore, 4},
          {Op::SharedStore, 8},  {Op::SharedStore, 16}, {Op::SharedAtomic, 4}, {Op::GlobalLoad, 4},
          {Op::GlobalLoad, 8},   {Op::GlobalLoad, 16},  {Op::GlobalStore, 4},  {Op::GlobalStore, 8},
          {Op::GlobalStore, 16}, {Op::GlobalRed, 4}};
}

// A fixed generator (model/splitmix64.hpp): the same table on every platform.
struct Rng {
  uint64_t s;
  uint64_t next() { return ts::splitmix64(s); }
  uint32_t below(uint32_t n) { return uint32_t(next() % n); }
};

namespace detail {

struct Builder {
  std::vector<Pattern>* out;
  Kind k;
  uint32_t limit;  // bytes addressable
  // Element index of each lane -> byte offsets (element = one access width).
  template <class F>
  void add(std::string name, F elem_of_lane, uint32_t mask = 0xffffffffu) {
    Pattern p;
    p.name = std::move(name);
    p.op = k.op;
    p.bytes = k.bytes;
    p.mask = mask;
    for (int l = 0; l < kLanes; ++l)
      p.offset[size_t(l)] = (uint32_t(elem_of_lane(l)) * uint32_t(k.bytes)) % limit;
    out->push_back(std::move(p));
  }
};

inline std::vector<int> permutation(Rng& r) {
  std::vector<int> p(kLanes);
  for (int i = 0; i < kLanes; ++i)
    p[size_t(i)] = i;
  for (int i = kLanes - 1; i > 0; --i)
    std::swap(p[size_t(i)], p[size_t(r.below(uint32_t(i + 1)))]);
  return p;
}

inline void shared_patterns(Builder& b, Rng& r) {
  const int w = b.k.bytes;
  const int row = 128 / w;  // elements in one 128-byte row of the 32 banks
  const int group = row;    // lanes of a half-warp (8 bytes) or quarter-warp (16 bytes)
  b.add("unit", [](int l) { return l; });
  for (int s = 2; s <= 33; ++s)
    b.add("stride_" + std::to_string(s), [s](int l) { return l * s; });
  // Broadcasts.
  b.add("bcast_all", [](int) { return 5; });
  b.add("bcast_all_zero", [](int) { return 0; });
  b.add("bcast_half_lanes", [](int l) { return l < 16 ? 7 : l; });
  b.add("bcast_odd_lanes", [](int l) { return l % 2 ? 3 : l; });
  b.add("pairs", [](int l) { return l / 2; });
  b.add("quads", [](int l) { return l / 4; });
  b.add("two_words", [](int l) { return l % 2; });
  b.add("four_words", [](int l) { return l % 4; });
  b.add("four_words_same_bank", [row](int l) { return (l % 4) * row; });
  b.add("eight_words_by_8", [](int l) { return l / 4 * 8; });
  b.add("two_words_same_bank", [row](int l) { return (l / 16) * row; });
  // Partial warps.
  b.add(
      "mask_first_half", [](int l) { return l; }, 0x0000ffffu);
  b.add(
      "mask_second_half", [](int l) { return l; }, 0xffff0000u);
  b.add(
      "mask_one_lane", [](int l) { return l; }, 0x00000001u);
  b.add(
      "mask_lane_31", [](int l) { return l; }, 0x80000000u);
  b.add(
      "mask_odd", [](int l) { return l; }, 0xaaaaaaaau);
  b.add(
      "mask_first_quarter", [](int l) { return l; }, 0x000000ffu);
  b.add(
      "mask_quarters_0_2", [](int l) { return l; }, 0x00ff00ffu);
  b.add(
      "mask_every_4th_stride_32", [row](int l) { return l * row; }, 0x11111111u);
  b.add(
      "mask_half_stride_2", [](int l) { return 2 * l; }, 0x0000ffffu);
  b.add(
      "mask_random", [](int l) { return l; }, uint32_t(r.next()) | 1u);
  b.add(
      "mask_random_stride_8", [](int l) { return 8 * l; }, uint32_t(r.next()) | 1u);
  // Permutations.
  b.add("reverse", [](int l) { return 31 - l; });
  for (int i = 0; i < 2; ++i) {
    const std::vector<int> p = permutation(r);
    b.add("perm_" + std::to_string(i), [p](int l) { return p[size_t(l)]; });
  }
  b.add("rotate_5", [](int l) { return (l + 5) % 32; });
  // Swizzles: a column of a row-major tile whose column index is XORed with
  // the row (the classic conflict-free transpose), and plain XOR masks.
  b.add("column", [row](int l) { return l * row; });
  b.add("column_xor_swizzle", [row](int l) { return l * row + (l % row); });
  b.add("column_xor_swizzle_c3", [row](int l) { return l * row + ((3 ^ l) % row); });
  b.add("xor_1", [](int l) { return l ^ 1; });
  b.add("xor_16", [](int l) { return l ^ 16; });
  b.add("xor_block_8", [row](int l) { return (l / 8) * row + ((l % 8) ^ (l / 8)); });
  // Padded rows: a column of a [32][33]-word tile, and of an 8-byte [16][17] one.
  b.add("column_padded_33w", [w](int l) { return l * 33 * 4 / w; });
  b.add("column_padded_row_plus_1", [row](int l) { return l * (row + 1); });
  b.add("offset_by_1", [](int l) { return l + 1; });
  b.add("offset_by_row", [row](int l) { return l + row; });
  // Half- and quarter-warp groups (the phases of 8- and 16-byte accesses):
  // the groups on the same 128 bytes, on different rows of the same banks, one
  // element each side by side (a register-tile column), one element each on
  // one bank, half the banks each, and the same element per group pair.
  b.add("groups_same_row", [group](int l) { return l % group; });
  b.add("groups_next_rows", [group, row](int l) { return l % group + (l / group) * row; });
  b.add("groups_one_elem_side_by_side", [group](int l) { return l / group; });
  b.add("groups_one_elem_same_bank", [group, row](int l) { return (l / group) * row; });
  b.add("groups_half_banks", [group, row](int l) {
    const int g = l / group;
    return (l % (group / 2)) + (g % 2) * (row / 2) + (g / 2) * row;
  });
  b.add("groups_half_banks_overlap",
        [group, row](int l) { return (l % (group / 2)) + (l / group) * row; });
  b.add("groups_pairs_same_row",
        [group, row](int l) { return l % group + (l / (2 * group)) * row; });
  b.add("groups_reversed",
        [group](int l) { return (group - 1 - l % group) + (l / group) * group; });
  b.add("groups_one_elem_two_banks",
        [group, row](int l) { return (l / group) % 2 + (l / group) * row; });
  // Random: anywhere in the array, from few words, and with random masks.
  const uint32_t elems = kProbeSharedBytes / uint32_t(w);
  for (int i = 0; i < 6; ++i) {
    std::array<uint32_t, kLanes> e{};
    for (uint32_t& x : e)
      x = r.below(elems);
    b.add("random_" + std::to_string(i), [e](int l) { return e[size_t(l)]; });
  }
  for (int i = 0; i < 4; ++i) {
    std::array<uint32_t, kLanes> e{};
    const uint32_t span = uint32_t(row * (2 + i));  // few rows: many shared words and banks
    for (uint32_t& x : e)
      x = r.below(span);
    b.add("random_few_rows_" + std::to_string(i), [e](int l) { return e[size_t(l)]; });
  }
  for (int i = 0; i < 3; ++i) {
    std::array<uint32_t, kLanes> e{};
    for (uint32_t& x : e)
      x = r.below(4) * uint32_t(row) * 3 + r.below(2);
    b.add("random_few_words_" + std::to_string(i), [e](int l) { return e[size_t(l)]; });
  }
  for (int i = 0; i < 3; ++i) {
    std::array<uint32_t, kLanes> e{};
    for (uint32_t& x : e)
      x = r.below(elems);
    b.add(
        "random_masked_" + std::to_string(i), [e](int l) { return e[size_t(l)]; },
        uint32_t(r.next()) | 1u);
  }
}

inline void global_patterns(Builder& b, Rng& r) {
  const int w = b.k.bytes;
  b.add("unit", [](int l) { return l; });
  // Misaligned: shifted by one element, by a sector, by half a line.
  b.add("unit_plus_1", [](int l) { return l + 1; });
  b.add("unit_plus_sector", [w](int l) { return l + 32 / w; });
  b.add("unit_plus_half_line", [w](int l) { return l + 64 / w; });
  b.add("unit_plus_3", [](int l) { return l + 3; });
  for (int s : {2, 3, 4, 8, 16, 32, 33})
    b.add("stride_" + std::to_string(s), [s](int l) { return l * s; });
  b.add("stride_line", [w](int l) { return l * (128 / w); });
  b.add("stride_4k", [w](int l) { return l * (4096 / w); });
  b.add("bcast_all", [](int) { return 9; });
  b.add("two_elems", [](int l) { return l % 2; });
  b.add("pairs", [](int l) { return l / 2; });
  b.add("two_elems_far", [w](int l) { return (l % 2) * (8192 / w); });
  b.add(
      "mask_first_half", [](int l) { return l; }, 0x0000ffffu);
  b.add(
      "mask_one_lane", [](int l) { return l + 1; }, 0x00000001u);
  b.add(
      "mask_odd_stride_2", [](int l) { return 2 * l; }, 0xaaaaaaaau);
  b.add("reverse", [](int l) { return 31 - l; });
  const std::vector<int> p = permutation(r);
  b.add("perm", [p](int l) { return p[size_t(l)]; });
  const uint32_t elems = kProbeGlobalBytes / uint32_t(w);
  for (int i = 0; i < 3; ++i) {
    std::array<uint32_t, kLanes> e{};
    for (uint32_t& x : e)
      x = r.below(elems);
    b.add("random_" + std::to_string(i), [e](int l) { return e[size_t(l)]; });
  }
  for (int i = 0; i < 2; ++i) {
    std::array<uint32_t, kLanes> e{};
    for (uint32_t& x : e)
      x = r.below(uint32_t(512 / w));  // within 4 lines: shared sectors
    b.add("random_near_" + std::to_string(i), [e](int l) { return e[size_t(l)]; });
  }
  std::array<uint32_t, kLanes> e{};
  for (uint32_t& x : e)
    x = r.below(elems);
  b.add(
      "random_masked", [e](int l) { return e[size_t(l)]; }, uint32_t(r.next()) | 1u);
}

}  // namespace detail

// The whole table, ids 0..n-1, in kind order (probe_kinds()).
inline std::vector<Pattern> probe_patterns(uint64_t seed = kDefaultSeed) {
  std::vector<Pattern> out;
  for (const Kind& k : probe_kinds()) {
    // Each kind its own stream, so adding a kind leaves the others' patterns as they were.
    Rng r{seed * 1000003ull + uint64_t(k.op) * 97ull + uint64_t(k.bytes)};
    detail::Builder b{&out, k, op_shared(k.op) ? kProbeSharedBytes : kProbeGlobalBytes};
    if (op_shared(k.op))
      detail::shared_patterns(b, r);
    else
      detail::global_patterns(b, r);
  }
  for (size_t i = 0; i < out.size(); ++i)
    out[i].id = int(i);
  return out;
}

// The table as JSON (no library: the CUDA probe includes this too).
inline std::string patterns_json(const std::vector<Pattern>& ps, uint64_t seed) {
  std::string s = "{\n  \"format\": \"tilescope-bank-probe\",\n  \"version\": 1,\n  \"seed\": " +
                  std::to_string(seed) + ",\n  \"patterns\": [\n";
  for (size_t i = 0; i < ps.size(); ++i) {
    const Pattern& p = ps[i];
    s += "    {\"id\": " + std::to_string(p.id) + ", \"name\": \"" + p.name + "\", \"kind\": \"" +
         op_name(p.op) + "\", \"bytes\": " + std::to_string(p.bytes) + ", \"kernel\": \"" +
         p.kernel() + "\", \"mask\": " + std::to_string(p.mask) + ", \"offsets\": [";
    for (int l = 0; l < kLanes; ++l)
      s += (l ? "," : "") + std::to_string(p.offset[size_t(l)]);
    s += "]}";
    s += i + 1 < ps.size() ? ",\n" : "\n";
  }
  return s + "  ]\n}\n";
}

}  // namespace ts::probe
