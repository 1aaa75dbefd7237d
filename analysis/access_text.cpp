// The source text of a warp access: the array expression its line writes
// (analysis/warp_access.hpp, access_text).
#include <string>
#include <string_view>
#include <vector>

#include "analysis/warp_access.hpp"
#include "engine/catalogue.hpp"

namespace ts {

namespace {

// Line `line` (1-based) of `text`, or "".
std::string_view line_of(std::string_view text, int line) {
  size_t start = 0;
  for (int i = 1; i < line; ++i) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  const size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

namespace {

// One `name[...]..[...]` on a source line: its text, where it is, and
// whether it is read, written or both (a compound assignment's target).
struct Occurrence {
  std::string text;
  size_t at = 0;
  bool load = false, store = false;
};

// Every access of `name` on the line, and where its assignment operator is
// (npos: none): `=` or `op=`, not `==`, `<=`, `>=`, `!=`.
std::vector<Occurrence> occurrences(std::string_view src, const std::string& name, size_t* assign) {
  *assign = std::string_view::npos;
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] != '=') continue;
    if (i + 1 < src.size() && src[i + 1] == '=') {
      ++i;
      continue;
    }
    if (i > 0 && (src[i - 1] == '=' || src[i - 1] == '<' || src[i - 1] == '>' || src[i - 1] == '!'))
      continue;
    *assign = i;
    break;
  }
  std::vector<Occurrence> out;
  for (size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + 1)) {
    const size_t after = at + name.size();
    if ((at > 0 && ident_char(src[at - 1])) || after >= src.size() || src[after] != '[') continue;
    size_t end = after;
    bool closed = true;
    while (end < src.size() && src[end] == '[') {
      int depth = 0;
      for (; end < src.size(); ++end) {
        depth += src[end] == '[' ? 1 : src[end] == ']' ? -1 : 0;
        if (depth == 0) break;
      }
      if (end >= src.size()) {
        closed = false;
        break;
      }
      ++end;
    }
    if (!closed) break;
    Occurrence o;
    o.text = std::string(src.substr(at, end - at));
    o.at = at;
    // What follows: `=` a store, `op=` a load and a store, else a load.
    size_t k = end;
    while (k < src.size() && src[k] == ' ')
      ++k;
    const bool target = *assign != std::string_view::npos && k <= *assign && *assign <= k + 2 &&
                        src.find_first_not_of("+-*/%&|^<> ", k) == *assign;
    o.store = target;
    o.load = !target || *assign > k;  // `x op= y` reads x too
    out.push_back(std::move(o));
    at = end - 1;
  }
  return out;
}

}  // namespace

std::string access_text(const Trace& t, const WarpAccesses& w, const WarpAccess& a) {
  const std::span<const uint32_t> lanes = w.lanes_of(a);
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (lanes.empty() || !v) return access_text(t, a.line, a.array);
  const std::string name = array_name(t.config.arrays, a.array);
  size_t assign = 0;
  std::vector<Occurrence> all =
      occurrences(line_of(lesson_source(v->source_file), a.line), name, &assign);
  const bool writing = !is_load(a.kind);
  const Event& e0 = t.events[lanes.front()];
  // A compound assignment's target is loaded before or after its right-hand
  // side, as the compiler chose (lessons/access.hpp records `a[i] += b[j]`'s
  // target first): a load is the target's when its thread's next store of
  // this array on the line stores the element it loaded.
  const auto stored_next = [&](size_t from) -> int64_t {
    int64_t budget = int64_t(1) << 22;  // events looked at, at most
    for (size_t i = from + 1; i < t.events.size() && budget-- > 0; ++i) {
      const Event& e = t.events[i];
      if (e.block != e0.block || e.thread != e0.thread) continue;
      if (e.line != a.line || is_barrier(e.kind)) break;
      if (e.array == a.array && e.kind == EventKind::SharedStore) return e.element;
      if (e.array == a.array && e.kind == EventKind::GlobalStore) return e.element;
    }
    return -1;
  };
  const auto is_target_load = [&](size_t i) {
    return stored_next(i) == int64_t(t.events[i].element);
  };
  const Occurrence* target = nullptr;
  for (const Occurrence& o : all)
    if (o.load && o.store) target = &o;
  if (!writing && target && is_target_load(lanes.front())) return target->text;
  // Otherwise the right-hand side's loads in source order; stores in source order.
  std::vector<const Occurrence*> cands;
  for (const Occurrence& o : all) {
    if (writing ? !o.store : !o.load || &o == target) continue;
    cands.push_back(&o);
  }
  if (cands.empty()) return access_text(t, a.line, a.array);
  if (cands.size() == 1 || is_atomic(a.kind)) return cands.front()->text;
  // The instruction's place among its thread's accesses of this array on this
  // line, of its kind, counted back over the thread's run of events on the line.
  size_t k = 0;
  int64_t budget = int64_t(1) << 22;  // events looked at, at most
  for (size_t i = lanes.front(); i-- > 0 && budget-- > 0;) {
    const Event& e = t.events[i];
    if (e.block != e0.block || e.thread != e0.thread) continue;
    if (e.line != a.line || is_barrier(e.kind)) break;
    if (e.array == a.array && is_load(e.kind) == !writing && leads_access(e) &&
        (writing || !target || !is_target_load(i)))
      ++k;
  }
  return cands[k % cands.size()]->text;
}

std::string access_text(const Trace& t, uint16_t line, ArraySlot array) {
  const std::string name = array_name(t.config.arrays, array);
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (!v) return name;
  std::string_view src = line_of(lesson_source(v->source_file), line);
  // The first `name[...]...[...]` on the line: its name and every subscript that follows.
  for (size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + 1)) {
    const size_t after = at + name.size();
    if ((at > 0 && ident_char(src[at - 1])) || after >= src.size() || src[after] != '[') continue;
    size_t end = after;
    while (end < src.size() && src[end] == '[') {
      int depth = 0;
      for (; end < src.size(); ++end) {
        depth += src[end] == '[' ? 1 : src[end] == ']' ? -1 : 0;
        if (depth == 0) break;
      }
      if (end >= src.size()) return name;
      ++end;
    }
    return std::string(src.substr(at, end - at));
  }
  return name;
}

}  // namespace ts
