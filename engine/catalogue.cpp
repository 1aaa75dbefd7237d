// The registry: the lessons of lessons/CMakeLists.txt and the checks that
// apply to every one of them.
#include "engine/catalogue.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <utility>

#include "engine/plain_cuda.hpp"
#include "engine/runtime_lessons.hpp"
#include "lessons/all_lessons.hpp"
#include "lessons/families.hpp"

namespace ts {

extern const std::pair<std::string_view, std::string_view> kLessonSources[];
extern const int kLessonSourceCount;
extern const std::pair<std::string_view, std::string_view> kLessonNarrations[];

namespace {

// Names that must outlive the table: the kernel function names read from the text.
const char* keep(std::string s) {
  static std::deque<std::string> names;
  return names.emplace_back(std::move(s)).c_str();
}

// The kernel: the first `TS_DEVICE void <name>(Rec& rec, const KernelArgs& args)`
// of the header (helpers take other arguments; the Body comes after it).
std::string kernel_function(std::string_view text) {
  constexpr std::string_view kDecl = "TS_DEVICE void ",
                             kArgs = "(Rec& rec, const KernelArgs& args)";
  for (size_t at = text.find(kDecl); at != std::string_view::npos; at = text.find(kDecl, at + 1)) {
    size_t end = at + kDecl.size();
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    if (text.substr(end, kArgs.size()) == kArgs)
      return std::string(text.substr(at + kDecl.size(), end - at - kDecl.size()));
  }
  return {};
}

// A lesson file in plain CUDA (engine/plain_cuda.hpp) writes __syncthreads();
// the others SYNCTHREADS(id).
std::vector<BarrierStatement> statements_of(std::string_view source_file, std::string_view text) {
  return is_plain_cuda_path(source_file) ? plain_cuda_barriers(text) : barrier_statements(text);
}

// The lesson files' texts (engine/runtime_lessons.hpp), newest last: a file
// compiled again adds its new text and keeps the old one, which views may
// still hold.
std::deque<RuntimeLessonText>& runtime_texts() {
  static std::deque<RuntimeLessonText> texts;
  return texts;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

// What follows from the file name, the text and the declarations. `source_file`
// names the text (lesson_source finds it), `narration_key` the narration.
LessonInfo derive(LessonSpec spec, const LessonNames& names, std::string source_file,
                  const char* narration_key) {
  LessonInfo v{std::move(spec)};
  v.id = names.id;
  v.family = names.family;
  const FamilyInfo* family = find_family(names.family);
  v.family_title = family                                                ? family->title
                   : std::string_view(names.family) == kLessonFileFamily ? "Lesson files"
                                                                         : names.family;
  v.source_file = keep(std::move(source_file));
  v.narration_key = narration_key;
  const std::string_view text = lesson_source(v.source_file);
  v.function = keep(is_plain_cuda_path(v.source_file) ? plain_cuda_kernel_name(text)
                                                      : kernel_function(text));
  // The barrier numbers, lines and scopes come from the code, not from the descriptor.
  const std::vector<BarrierStatement> found = statements_of(v.source_file, text);
  for (size_t i = 0; i < v.barriers.size(); ++i) {
    BarrierInfo& b = v.barriers[i];
    b.id = int(i) + 1;
    const bool known = b.id < int(found.size());
    b.line = known ? found[b.id].line : 0;
    b.warp_scope = known && found[b.id].warp_scope;
  }
  for (const ParamDecl& d : v.params)
    for (const ParamField& f : kParamFields)
      if (std::string_view(f.name) == d.name) {
        v.uses |= f.bit;
        v.defaults.*f.field = d.value;
        v.timed.*f.field = d.timed ? d.timed : d.value;
        v.param_text.push_back({d.name, d.label, d.hint});
      }
  return v;
}

// What every lesson must have, checked once: a broken lesson stops the
// program at its first use of the registry with the reason, not later with a
// wrong menu or a null call; a lesson file gets them back as a message. One
// lesson's problems here (a lesson file's family, "file", is in no table).
void lesson_problems(const LessonInfo& v, bool built_in, std::vector<std::string>& out) {
  const std::string id = v.id;
  if (built_in && !find_family(v.family))
    out.push_back(id + ": the family '" + v.family + "' is not in lessons/families.hpp");
  if (!v.title || !*v.title || !v.summary || !*v.summary)
    out.push_back(id + ": a lesson needs a title and a summary");
  if (!*v.function)
    out.push_back(id + ": no kernel `TS_DEVICE void <name>(Rec& rec, const KernelArgs& args)` in " +
                  v.source_file);
  if (lesson_narration(v.narration_key).empty())
    out.push_back(id + ": no narration (lessons/narration/" + v.narration_key + ".json)");
  const std::vector<BarrierStatement> found =
      statements_of(v.source_file, lesson_source(v.source_file));
  if (found.size() != v.barriers.size() + 1)
    out.push_back(id + ": the source has " + std::to_string(found.size() - 1) +
                  " barrier statements, the descriptor states " +
                  std::to_string(v.barriers.size()));
  for (const BarrierInfo& b : v.barriers)
    if (!b.purpose || !*b.purpose || b.line == 0)
      out.push_back(id + ": barrier " + std::to_string(b.id) +
                    " needs a purpose and a SYNCTHREADS(id) or SYNCWARP(id) statement");
  for (const ParamDecl& d : v.params) {
    const bool known =
        std::any_of(std::begin(kParamFields), std::end(kParamFields),
                    [&](const ParamField& f) { return std::string_view(f.name) == d.name; });
    if (!known)
      out.push_back(id + ": the parameter '" + d.name +
                    "' is not one of kParamFields (model/params.hpp)");
    if (d.value < d.min || d.value > d.max)
      out.push_back(id + ": the default of '" + d.name + "' is outside its range");
    if (d.timed && (d.timed < d.min || d.timed > d.max))
      out.push_back(id + ": the timed value of '" + d.name + "' is outside its range");
  }
}

// Every lesson's problems, and the table's: unique ids, one lesson that opens the window.
std::vector<std::string> problems(const std::vector<LessonInfo>& all) {
  std::vector<std::string> out;
  int openers = 0;
  for (const LessonInfo& v : all) {
    openers += v.opens_the_window;
    if (std::count_if(all.begin(), all.end(),
                      [&](const LessonInfo& w) { return std::string_view(v.id) == w.id; }) > 1)
      out.push_back(std::string(v.id) + ": two lessons have this id");
    lesson_problems(v, true, out);
  }
  if (openers != 1)
    out.push_back(std::to_string(openers) +
                  " lessons open the window (opens_the_window); exactly one must");
  return out;
}

template <class... L>
constexpr size_t count_of(LessonList<L...>) {
  return sizeof...(L);
}

template <class... L>
std::vector<LessonInfo> collect(LessonList<L...>) {
  std::vector<LessonInfo> all;
  // Room for the lesson files too: the table never moves once handed out.
  all.reserve(sizeof...(L) + kMaxRuntimeLessons);
  (all.push_back(derive(L::descriptor(), L::names, std::string("lessons/") + L::names.file + ".hpp",
                        L::names.file)),
   ...);
  if (const std::vector<std::string> bad = problems(all); !bad.empty()) {
    for (const std::string& b : bad)
      std::fprintf(stderr, "lesson registry: %s\n", b.c_str());
    std::abort();
  }
  return all;
}

std::vector<LessonInfo>& table() {
  static std::vector<LessonInfo> lesson_list = collect(AllLessons{});
  return lesson_list;
}

// (id, place) sorted by id: a binary search instead of a scan of every id.
using IdIndex = std::vector<std::pair<std::string_view, size_t>>;
IdIndex make_id_index() {
  IdIndex index;
  for (size_t i = 0; i < table().size(); ++i)
    index.emplace_back(table()[i].id, i);
  std::sort(index.begin(), index.end());
  return index;
}
IdIndex& id_index() {
  static IdIndex index = make_id_index();
  return index;
}

std::string bytes_text(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(uint64_t(1) << 30));
  else if (b >= (uint64_t(1) << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
  return buf;
}

// CUDA's launch limits (every GPU since compute capability 3.0): a launch
// beyond them fails on the GPU, and the simulator must not try it either.
std::optional<std::string> check_launch_limits(const LessonInfo& v, const Params& p,
                                               const DeviceLimits& lim) {
  const LaunchGeometry g = geometry(v, p);
  const std::string launch = std::string(v.id) + " with " + describe(v, p) + " launches ";
  const struct {
    const char* what;
    uint32_t value;
    uint64_t most;
  } dims[] = {{"a grid x of", g.grid.x, 2147483647u}, {"a grid y of", g.grid.y, 65535},
              {"a grid z of", g.grid.z, 65535},       {"a block x of", g.block.x, 1024},
              {"a block y of", g.block.y, 1024},      {"a block z of", g.block.z, 64}};
  for (const auto& d : dims) {
    if (d.value == 0)
      return launch + d.what + " 0: every dimension of a grid and a block needs at least 1";
    if (d.value > d.most)
      return launch + d.what + " " + std::to_string(d.value) + ", over CUDA's limit of " +
             std::to_string(d.most) +
             " (grid x up to 2147483647, y and z up to 65535; block x and y up to 1024, z up "
             "to 64)";
  }
  if (g.block.count() > uint64_t(lim.max_threads_per_block))
    return launch + "blocks of " + std::to_string(g.block.count()) + " threads (" +
           std::to_string(g.block.x) + " x " + std::to_string(g.block.y) + " x " +
           std::to_string(g.block.z) + "), over the limit of " +
           std::to_string(lim.max_threads_per_block) + " threads per block";
  return std::nullopt;
}

std::optional<std::string> check_shared(const LessonInfo& v, const Params& p,
                                        const DeviceLimits& lim) {
  const LaunchGeometry g = geometry(v, p);
  const uint64_t bytes = uint64_t(g.dynamic_shared_bytes) + g.static_shared_bytes;
  if (bytes <= uint64_t(lim.max_shared_per_block)) return std::nullopt;
  const SharedAdvice advice = v.shared_advice(p, lim);
  return std::string(v.id) + " needs " + std::to_string(bytes) +
         " bytes of shared memory per block" + advice.detail + ", over the " +
         std::to_string(lim.max_shared_per_block) + " bytes per block this device allows; " +
         advice.fix;
}

}  // namespace

std::string_view lesson_source(const std::string& source_file) {
  for (int i = 0; i < kLessonSourceCount; ++i)
    if (kLessonSources[i].first == source_file) return kLessonSources[i].second;
  const auto& texts = runtime_texts();
  for (auto it = texts.rbegin(); it != texts.rend(); ++it)
    if (it->source_file == source_file) return it->source;
  return {};
}

std::string_view lesson_narration(std::string_view key) {
  for (int i = 0; i < kLessonSourceCount; ++i)
    if (kLessonNarrations[i].first == key) return kLessonNarrations[i].second;
  const auto& texts = runtime_texts();
  for (auto it = texts.rbegin(); it != texts.rend(); ++it)
    if (it->id == key) return it->narration;
  return {};
}

size_t built_in_lesson_count() {
  return count_of(AllLessons{});
}

std::optional<std::string> add_runtime_lesson(const LessonSpec& spec, const RuntimeLessonText& text,
                                              size_t* index) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<LessonInfo>& all = table();
  const std::optional<size_t> existing = lesson_index(text.id);
  if (existing && !is_runtime_lesson(*existing)) return text.id + ": a built-in lesson has this id";
  if (!existing && all.size() >= all.capacity())
    return "at most " + std::to_string(kMaxRuntimeLessons) +
           " lesson files can be open at once; restart TileScope";
  // The text first: derive() reads the barrier lines and the kernel's name from it.
  runtime_texts().push_back(text);
  const char* id = keep(text.id);
  LessonInfo v = derive(spec, {id, kLessonFileFamily, id}, text.source_file, id);
  v.opens_the_window = false;
  std::vector<std::string> bad;
  lesson_problems(v, false, bad);
  if (!bad.empty()) {
    runtime_texts().pop_back();
    std::string message;
    for (const std::string& b : bad)
      message += (message.empty() ? "" : "\n") + b;
    return message;
  }
  if (existing) {
    all[*existing] = std::move(v);
    *index = *existing;
  } else {
    all.push_back(std::move(v));
    *index = all.size() - 1;
    id_index() = make_id_index();
  }
  return std::nullopt;
}

std::vector<BarrierStatement> barrier_statements(std::string_view text) {
  std::vector<BarrierStatement> found(1);
  int line = 1;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view s = text.substr(at, end - at);
    s.remove_prefix(std::min(s.find_first_not_of(" \t"), s.size()));
    // A statement `SYNCTHREADS(<id>);` or `SYNCWARP(<id>);` (comments that
    // mention one do not count).
    for (const std::string_view call : {"SYNCTHREADS(", "SYNCWARP("}) {
      if (s.substr(0, call.size()) != call) continue;
      int id = 0;
      size_t i = call.size();
      while (i < s.size() && s[i] >= '0' && s[i] <= '9')
        id = id * 10 + (s[i++] - '0');
      if (i < s.size() && s[i] == ')' && id > 0 && id < 64) {
        if (int(found.size()) <= id) found.resize(id + 1);
        if (found[id].line == 0) found[id] = {line, call == "SYNCWARP("};
      }
    }
    at = end + 1;
    ++line;
  }
  return found;
}

std::span<const LessonInfo> all_lessons() {
  return table();
}

std::optional<size_t> lesson_index(std::string_view id) {
  const IdIndex& by_id = id_index();
  const auto it =
      std::lower_bound(by_id.begin(), by_id.end(), id,
                       [](const auto& entry, std::string_view x) { return entry.first < x; });
  if (it == by_id.end() || it->first != id) return std::nullopt;
  return it->second;
}

const LessonInfo* find_lesson(const std::string& id) {
  const std::optional<size_t> at = lesson_index(id);
  return at ? &table()[*at] : nullptr;
}

std::string unknown_lesson(std::string_view id) {
  return "unknown lesson '" + std::string(id) + "'; the lessons are: " + lesson_ids();
}

const LessonInfo& default_lesson() {
  for (const LessonInfo& v : table())
    if (v.opens_the_window) return v;
  return table().front();
}

std::string lesson_ids() {
  std::string s;
  for (const LessonInfo& v : table()) {
    if (!s.empty()) s += ", ";
    s += v.id;
  }
  return s;
}

std::vector<const char*> families() {
  std::vector<const char*> out;
  for (const FamilyInfo& f : kFamilies)
    if (std::any_of(table().begin(), table().end(),
                    [&](const LessonInfo& v) { return std::string_view(f.name) == v.family; }))
      out.push_back(f.name);
  return out;
}

std::optional<std::string> check_lesson_limits(const LessonInfo& v, const Params& p,
                                               const DeviceLimits& lim) {
  for (const ParamDecl& d : v.params) {
    if (!d.out_of_range) continue;
    for (const ParamField& f : kParamFields)
      if (std::string_view(f.name) == d.name && (p.*f.field < d.min || p.*f.field > d.max))
        return d.out_of_range(d.name, p.*f.field);
  }
  return v.check(v, p, lim);
}

std::optional<std::string> validate(const LessonInfo& v, const Params& p, const DeviceLimits& lim) {
  if (auto e = check_lesson_limits(v, p, lim)) return e;
  if (auto e = check_launch_limits(v, p, lim)) return e;
  if (auto e = check_shared(v, p, lim)) return e;
  uint64_t bytes = 0;
  const ArrayTable t = arrays(v, p);
  // What the backends allocate: 4 bytes an element, a byte array's too (its
  // bytes are packed at the front of a float buffer: engine/prepare.hpp).
  for (size_t i = 0; i < t.size(); ++i)
    if (!t[i].shared())
      bytes +=
          allocation_elements(v, p, t, ArraySlot(i + 1)) * uint64_t(std::max(t[i].elem_bytes, 4));
  if (bytes > lim.global_memory_bytes)
    return "the arrays need " + bytes_text(bytes) + " of memory, more than the " +
           bytes_text(lim.global_memory_bytes) + " available; use smaller sizes";
  return std::nullopt;
}

Params larger_size(const LessonInfo& v, std::string* from) {
  const auto work = [&](const Params& p) {
    uint64_t w = 1;
    for (const NamedParam& q : used_params(v.uses, p))
      if (std::string_view(q.name) != "tile" && std::string_view(q.name) != "radius" &&
          std::string_view(q.name) != "block")
        w *= uint64_t(std::max(q.value, 1));
    return w;
  };
  const auto say = [&](const char* text) {
    if (from) *from = text;
  };
  const DeviceLimits limits;
  if (!(v.tests.larger == Params{}) && work(v.tests.larger) > work(v.defaults) &&
      !validate(v, v.tests.larger, limits)) {
    say("tests.larger");
    return v.tests.larger;
  }
  Params doubled = v.defaults;
  for (int Params::*size : {&Params::m, &Params::k, &Params::n, &Params::length})
    doubled.*size *= 2;
  if (work(doubled) > work(v.defaults) && !validate(v, doubled, limits)) {
    say("the defaults, sizes doubled");
    return doubled;
  }
  say("the defaults");
  return v.defaults;
}

std::optional<std::string> validate_barrier_id(const LessonInfo& v, int id) {
  const int count = int(v.barriers.size());
  if (id >= 1 && id <= count) return std::nullopt;
  std::string have;
  for (int i = 1; i <= count; ++i)
    have += (i == 1 ? "" : i == count ? " and " : ", ") + std::to_string(i);
  return "barrier " + std::to_string(id) + ": " + v.id + " has " +
         (count == 0
              ? std::string("no barriers")
              : std::to_string(count) + (count == 1 ? " barrier (" : " barriers (") + have + ")");
}

std::optional<std::string> validate_barrier_mask(const LessonInfo& v, BarrierSet kept) {
  const uint32_t mask = kept.mask();
  const uint32_t all = all_barriers(v);
  const uint32_t extra = mask & ~all;
  // Bits beyond the lesson's barriers may be all set (a "keep everything"
  // mask such as ~0u with some barriers cleared) or all clear; a mixture names
  // a barrier the kernel does not have.
  if (extra == 0 || extra == ~all) return std::nullopt;
  // Mostly set: the first cleared bit is a barrier someone tried to remove;
  // mostly clear: the first set bit is one someone tried to keep.
  const bool mostly_set = __builtin_popcount(extra) > 16;
  const uint32_t odd = mostly_set ? (~mask & ~all) : extra;
  return validate_barrier_id(v, __builtin_ctz(odd) + 1);
}

LaunchGeometry geometry(const LessonInfo& v, const Params& p) {
  return v.geometry(p);
}

int warps_per_block(const LessonInfo& v, const Params& p) {
  return int((geometry(v, p).block.count() + 31) / 32);
}

std::optional<Params> params_with_warps(const LessonInfo& v, const Params& p, int warps) {
  if (v.barriers.empty() || !v.with_warps || warps < 1 || warps > 2) return std::nullopt;
  std::optional<Params> q = v.with_warps(p, v.defaults, warps);
  if (!q || validate(v, *q, DeviceLimits{})) return std::nullopt;
  return q;
}

ExpectedCounts expected_counts(const LessonInfo& v, const Params& p) {
  return v.counts(p);
}

ArrayTable arrays(const LessonInfo& v, const Params& p) {
  return v.arrays(p);
}

KernelArgs kernel_args(const LessonInfo& v, const Params& p) {
  KernelArgs a;
  a.m = p.m, a.k = p.k, a.n = p.n, a.tile = p.tile;
  a.length = p.length, a.radius = p.radius, a.block = p.block;
  const ArrayTable t = arrays(v, p);
  for (size_t i = 0; i < t.size() && i < size_t(kMaxArrays); ++i)
    if (!t[i].shared()) a.count[i + 1] = int(std::min<uint64_t>(t[i].count(), INT32_MAX));
  return a;
}

uint64_t allocation_elements(const LessonInfo& v, const Params& p, const ArrayTable& table,
                             ArraySlot slot) {
  if (v.allocation) return v.allocation(p, slot);
  const ArrayInfo* a = array_at(table, slot);
  return a ? a->count() : 0;
}

uint64_t allocation_elements(const LessonInfo& v, const Params& p, ArraySlot slot) {
  return allocation_elements(v, p, arrays(v, p), slot);
}

std::string describe(const LessonInfo& v, const Params& p) {
  return describe(v.uses, p);
}

}  // namespace ts
