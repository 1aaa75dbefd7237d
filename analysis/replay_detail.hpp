// What analysis/replay.cpp and replay_navigation.cpp share, not part of the
// replay's interface.
#pragma once

#include "model/event.hpp"

namespace ts::replay_detail {

// A warp instruction: consecutive events of one warp with the same kind and line.
inline bool same_instruction(const Event& a, const Event& b) {
  return a.block == b.block && warp_of(a) == warp_of(b) && a.kind == b.kind && a.line == b.line;
}

}  // namespace ts::replay_detail
