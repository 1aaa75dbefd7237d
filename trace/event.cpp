// Names of the trace's enums, for messages, the CLI and exports.
#include "trace/event.hpp"
#include "trace/trace.hpp"

namespace ts {

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::GlobalLoad:
      return "global load";
    case EventKind::GlobalStore:
      return "global store";
    case EventKind::SharedStore:
      return "shared store";
    case EventKind::SharedLoad:
      return "shared load";
    case EventKind::BarrierArrive:
      return "barrier arrive";
    case EventKind::BarrierLeave:
      return "barrier leave";
    case EventKind::Empty:
      return "empty";
  }
  return "unknown event kind";
}

const char* to_string(Buffer b) {
  switch (b) {
    case Buffer::None:
      return "none";
    case Buffer::A:
      return "A";
    case Buffer::B:
      return "B";
    case Buffer::C:
      return "C";
    case Buffer::In:
      return "in";
    case Buffer::Out:
      return "out";
    case Buffer::TileA:
      return "tileA";
    case Buffer::TileB:
      return "tileB";
    case Buffer::StencilShared:
      return "shared";
  }
  return "unknown buffer";
}

const char* to_string(BackendKind b) {
  switch (b) {
    case BackendKind::Cuda:
      return "cuda";
    case BackendKind::Simulator:
      return "sim";
  }
  return "unknown backend";
}

const char* to_string(ScheduleKind k) {
  switch (k) {
    case ScheduleKind::Lockstep:
      return "lockstep";
    case ScheduleKind::WarpSkew:
      return "skew";
    case ScheduleKind::Random:
      return "random";
  }
  return "unknown schedule";
}

}  // namespace ts
