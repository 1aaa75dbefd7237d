// Two traces of one kernel at one size (the GPU's and the simulator's)
// compared thread by thread: each thread's accesses, shuffles and barriers in
// its program order. Threads interleave differently on the two machines, so
// the whole trace's order is not compared, only each thread's own.
//
//   if (auto d = first_thread_difference(gpu.trace, sim.trace, "the GPU", "the simulator"))
//     std::cout << *d << "\n";  // "thread (3, 0, 0) of block (1, 0, 0): its 5th event ..."
#pragma once

#include <optional>
#include <string>

#include "model/trace.hpp"

namespace ts {

// nullopt when every thread has the same events in both (kind, array,
// element, line, barrier and value; an atomic's value is what the element
// held after it, which depends on the order of the other threads' atomics, so
// it is left out). Otherwise the first thread that differs and how, the
// traces named `a_name` and `b_name`.
std::optional<std::string> first_thread_difference(const Trace& a, const Trace& b,
                                                   const std::string& a_name,
                                                   const std::string& b_name);

}  // namespace ts
