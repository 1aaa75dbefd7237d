// --position's syntax (event index, start, end, phase:N, barrier:N, access:N,
// stale) applied to the replay: shared by --position, --record's --from and
// --to, and a lecture step's position (app/shell/scripted.cpp).
#pragma once

#include <string>

#include "app/core/app_state.hpp"

namespace ts::app {

// False and *error when `spec` is not a position of this replay; `flag`
// names the option in the error.
bool apply_position_spec(AppState& s, const std::string& spec, std::string* error,
                         const char* flag = "--position");

}  // namespace ts::app
