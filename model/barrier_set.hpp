// Which of a kernel's barriers a run keeps: barrier `id` (1-based, in the
// order of the source) is kept when bit id - 1 is set. One type for what was
// bit twiddling in many files.
//
//   BarrierSet keep = BarrierSet::all();   // every barrier
//   keep.remove(2);                        // without barrier 2
//   if (keep.keeps(1)) ...
//
// It converts implicitly from a raw mask (`req.barrier_mask = 0x2u`, as the
// tests and the .tstrace reader write it); mask() gives the bits back.
#pragma once

#include <cstdint>
#include <string>

namespace ts {

class BarrierSet {
 public:
  constexpr BarrierSet() = default;
  constexpr BarrierSet(uint32_t mask) : mask_(mask) {}  // NOLINT: implicit by design
  static constexpr BarrierSet all() { return BarrierSet(~0u); }
  static constexpr BarrierSet none() { return BarrierSet(0u); }
  // Barriers 1 .. count.
  static constexpr BarrierSet first(int count) {
    return BarrierSet(count >= 32 ? ~0u : (1u << count) - 1u);
  }

  constexpr bool keeps(int id) const { return id >= 1 && id <= 32 && ((mask_ >> (id - 1)) & 1u); }
  constexpr void keep(int id) {
    if (id >= 1 && id <= 32) mask_ |= 1u << (id - 1);
  }
  constexpr void remove(int id) {
    if (id >= 1 && id <= 32) mask_ &= ~(1u << (id - 1));
  }
  // Only the barriers 1 .. count (a kernel's own).
  constexpr BarrierSet within(int count) const { return BarrierSet(mask_ & first(count).mask_); }
  // Whether every one of barriers 1 .. count is kept.
  constexpr bool keeps_all_of(int count) const { return within(count) == first(count); }
  constexpr uint32_t mask() const { return mask_; }
  constexpr bool operator==(const BarrierSet&) const = default;

  // "1,2", "" when none of 1 .. count is kept.
  std::string list(int count) const {
    std::string s;
    for (int id = 1; id <= count; ++id)
      if (keeps(id)) s += (s.empty() ? "" : ",") + std::to_string(id);
    return s;
  }

 private:
  uint32_t mask_ = ~0u;
};

}  // namespace ts
