// Names of the model's enums and arrays, for messages, the CLI and exports.
#include "model/array.hpp"
#include "model/event.hpp"
#include "model/params.hpp"
#include "model/trace.hpp"

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
    case EventKind::SharedAtomic:
      return "shared atomic";
    case EventKind::WarpShuffle:
      return "warp shuffle";
    case EventKind::GlobalAtomic:
      return "global atomic";
    case EventKind::Empty:
      return "empty";
  }
  return "unknown event kind";
}

const char* to_string(Space s) {
  switch (s) {
    case Space::Global:
      return "global";
    case Space::Shared:
      return "shared";
    case Space::Constant:
      return "constant";
  }
  return "unknown space";
}

const char* to_string(ArrayRole r) {
  switch (r) {
    case ArrayRole::Input:
      return "input";
    case ArrayRole::Output:
      return "output";
    case ArrayRole::Scratch:
      return "scratch";
  }
  return "unknown role";
}

const char* to_string(ElemType t) {
  switch (t) {
    case ElemType::F32:
      return "f32";
    case ElemType::I32:
      return "i32";
    case ElemType::U32:
      return "u32";
    case ElemType::U8:
      return "u8";
  }
  return "unknown type";
}

std::string array_name(const ArrayTable& t, ArraySlot slot) {
  if (slot == kNoArray) return "none";
  if (const ArrayInfo* a = array_at(t, slot)) return a->name;
  return "array " + std::to_string(int(slot));
}

std::string element_name(const ArrayTable& t, ArraySlot slot, uint32_t element) {
  const std::string name = array_name(t, slot);
  const ArrayInfo* a = array_at(t, slot);
  // Shared tiles read as the source declares them, tile[row][col]; global
  // matrices are indexed row * n + col in the source, so one number.
  if (a && a->shared() && a->rows > 1 && a->cols > 0)
    return name + "[" + std::to_string(element / uint32_t(a->cols)) + "][" +
           std::to_string(element % uint32_t(a->cols)) + "]";
  return name + "[" + std::to_string(element) + "]";
}

std::vector<NamedParam> used_params(uint32_t uses, const Params& p) {
  std::vector<NamedParam> out;
  for (const ParamField& f : kParamFields)
    if (uses & f.bit) out.push_back({f.name, p.*f.field});
  return out;
}

std::string describe(uint32_t uses, const Params& p) {
  std::string s;
  for (const NamedParam& q : used_params(uses, p))
    s += (s.empty() ? "" : " ") + std::string(q.name) + "=" + std::to_string(q.value);
  return s;
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
