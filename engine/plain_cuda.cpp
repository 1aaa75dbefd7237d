// The rewrite of a plain CUDA file into lessons/plain_cuda.hpp's accessors,
// line for line (engine/plain_cuda.hpp): every edit stays on its line, so the
// compiler's messages and the trace's lines are the file's own.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "engine/plain_cuda.hpp"
#include "engine/plain_cuda_detail.hpp"
#include "engine/plain_cuda_editor.hpp"

namespace ts::plain_cuda {
namespace {

// The includes nvcc adds by itself and g++ does not have.
bool cuda_runtime_include(std::string_view line) {
  for (const char* h : {"cuda_runtime.h", "cuda.h", "device_launch_parameters.h",
                        "cuda_runtime_api.h", "cuda_fp16.h"})
    if (line.find("include") != std::string_view::npos && line.find(h) != std::string_view::npos)
      return true;
  return false;
}

class Rewriter : GroupRules {
 public:
  Rewriter(std::string_view text, std::string dir) : GroupRules(text), dir_(std::move(dir)) {}

  Analysis run() {
    find_functions();
    if (out_.error.empty()) rewrite();
    if (out_.error.empty()) out_.rewritten = apply();
    return std::move(out_);
  }

 private:
  // ---- Functions at namespace scope: __global__ and __device__ ones ----
  struct Found {
    Function f;
    size_t start, lparen, rparen, open = 0, close = 0;  // token indices
    bool host_device = false;
  };

  void find_functions() {
    std::vector<bool> open_is_namespace;  // the enclosing braces: namespace / extern "C" or not
    size_t decl = 0;                      // where the current declaration began
    for (size_t i = 0; i < t_.size(); ++i) {
      const bool at_scope =
          std::all_of(open_is_namespace.begin(), open_is_namespace.end(), [](bool b) { return b; });
      if (t_[i].kind == Tok::Preproc) {
        if (cuda_runtime_include(str(i)))
          edit(i, "");
        else if (!groups_include(i))
          relative_include(i);
        if (!out_.error.empty()) return;
        decl = i + 1;
        continue;
      }
      if (str(i) == "{") {
        bool ns = false;
        if (at_scope)
          for (size_t j = decl; j < i; ++j)
            ns = ns || is(j, "namespace") || (is(j, "extern") && t_[j + 1].kind == Tok::String);
        open_is_namespace.push_back(ns);
        decl = i + 1;
        continue;
      }
      if (str(i) == "}") {
        if (!open_is_namespace.empty()) open_is_namespace.pop_back();
        decl = i + 1;
        continue;
      }
      if (str(i) == ";") {
        decl = i + 1;
        continue;
      }
      if (!at_scope) continue;
      if (is(i, "(") && i >= 2 && i > decl && is(i - 1, "main") && ident(i - 2)) {
        blank_main(decl, i, open_is_namespace.size());
        continue;
      }
      if (is(i, "__shared__") || is(i, "__constant__")) {
        file_variable(i);
        continue;
      }
      if (!is(i, "__global__") && !is(i, "__device__")) continue;
      size_t next = 0;
      function_at(decl, i, next);
      if (!out_.error.empty()) return;
      if (next > i) i = next - 1, decl = next;
    }
  }

  // `__device__ float scratch[256];` at file scope: noted (a puzzle refuses
  // it). A `__constant__` array is traced where the launch block gives it
  // values (`array F in 5, 5`), unless it has values of its own.
  void file_variable(size_t qual) {
    size_t i = qual;
    while (i < t_.size() && !is(i, ";") && !is(i, "=") && !is(i, "[") && !is(i, "{") && !is(i, "("))
      ++i;
    if (i >= t_.size() || is(i, "(") || i <= qual + 1 || !ident(i - 1)) return;
    out_.file_variables.push_back({std::string(str(i - 1)), std::string(str(qual)), t_[qual].line});
    SharedDecl c{std::string(str(i - 1)), "", {}, false, false, t_[qual].line};
    bool constant = false;  // `__constant__ float F[5];`, `__device__ __constant__ int C;`
    for (size_t j = qual; j + 1 < i; ++j) {
      constant = constant || is(j, "__constant__");
      if (!is(j, "__constant__") && !is(j, "__device__") && !is(j, "static") && !is(j, "const"))
        c.type += (c.type.empty() ? "" : " ") + std::string(str(j));
    }
    if (!constant) return;
    for (; is(i, "["); i = skip_group(i))
      c.dims.push_back(text(i + 1, skip_group(i) - 2));
    c.initialized = is(i, "=") || is(i, "{");
    out_.constants.push_back(c);
  }
  // A use of a traced __constant__ array in a kernel or helper.
  bool constant_use(size_t i) {
    for (size_t k = 0; k < out_.constants.size(); ++k)
      if (!out_.constants[k].initialized && is(i, out_.constants[k].name)) {
        edit(i, "::ts::pc::constant(ts_rec, " + out_.constants[k].name + ", TS_PC_CONST_" +
                    std::to_string(k) + ")" + (out_.constants[k].dims.empty() ? "[0]" : ""));
        return true;
      }
    return false;
  }

  // `#include "helpers.cuh"`: the plug-in is compiled elsewhere, so the
  // file's folder is named (the header is compiled as written, not traced).
  void relative_include(size_t i) {
    const std::string_view line = str(i);
    const size_t q = line.find('"');
    if (dir_.empty() || line.find("include") == std::string_view::npos ||
        q == std::string_view::npos || q + 1 >= line.size() || line[q + 1] == '/')
      return;
    edits_.push_back({t_[i].begin + q + 1, t_[i].begin + q + 1, dir_ + "/"});
  }

  // `int main(...) { ... }`: host code with launches g++ cannot compile; the
  // launch block says what it did.
  void blank_main(size_t start, size_t lparen, size_t) {
    size_t i = skip_group(lparen);
    while (i < t_.size() && !is(i, "{") && !is(i, ";"))
      ++i;
    if (!is(i, "{")) return;
    const size_t close = skip_group(i) - 1;
    edits_.push_back({t_[start].begin, t_[close].end, ""});
  }

  void function_at(size_t start, size_t qual, size_t& next) {
    Found f;
    f.start = start;
    f.f.line = t_[qual].line;
    // The name: the identifier before the first "(" (past __launch_bounds__(...)).
    size_t i = qual;
    for (; i < t_.size(); ++i) {
      if (is(i, ";") || is(i, "=") || is(i, "{") || is(i, "[")) {  // a variable
        file_variable(qual);
        return;
      }
      if (is(i, "__host__")) f.host_device = true;
      if (is(i, "(")) {
        if (is(i - 1, "__launch_bounds__") || is(i - 1, "__align__") || is(i - 1, "alignas") ||
            is(i - 1, "__attribute__")) {
          i = skip_group(i) - 1;
          continue;
        }
        break;
      }
    }
    if (i >= t_.size() || !ident(i - 1)) return;
    for (size_t j = start; j < qual; ++j)
      f.host_device = f.host_device || is(j, "__host__");
    f.f.name = std::string(str(i - 1));
    f.f.kernel = std::any_of(t_.begin() + long(start), t_.begin() + long(i), [&](const Token& t) {
      return s_.substr(t.begin, t.end - t.begin) == "__global__";
    });
    f.lparen = i;
    f.rparen = skip_group(i) - 1;
    size_t j = f.rparen + 1;
    while (j < t_.size() && !is(j, "{") && !is(j, ";"))
      ++j;
    if (j >= t_.size()) return;
    if (is(j, "{")) {
      f.open = j;
      f.close = skip_group(j) - 1;
      f.f.defined = true;
      next = f.close + 1;
    } else {
      next = j + 1;
    }
    if (f.host_device) return;  // host code too: left as written
    parse_params(f);
    if (!out_.error.empty()) return;
    found_.push_back(f);
    device_names_.insert(f.f.name);
  }

  void parse_params(Found& f) {
    std::vector<std::pair<size_t, size_t>> ranges;
    size_t first = f.lparen + 1;
    int depth = 0;
    for (size_t i = f.lparen + 1; i < f.rparen; ++i) {
      if (is(i, "(") || is(i, "[") || is(i, "<")) ++depth;
      if (is(i, ")") || is(i, "]") || is(i, ">")) --depth;
      if (depth == 0 && is(i, ",")) ranges.push_back({first, i - 1}), first = i + 1;
    }
    if (first < f.rparen) ranges.push_back({first, f.rparen - 1});
    if (ranges.size() == 1 && ranges[0].first == ranges[0].second && is(ranges[0].first, "void"))
      ranges.clear();
    for (auto [a, b] : ranges) {
      for (size_t i = a; i <= b; ++i)
        if (is(i, "=")) b = i - 1;  // a default value
      Param p;
      size_t name = b;
      bool brackets = false;
      if (is(b, "]") && b >= 1 && is(b - 1, "[")) brackets = true, name = b - 2;
      if (!ident(name)) {
        fail(a, "a parameter without a name in " + f.f.name + "()");
        return;
      }
      p.name = std::string(str(name));
      int stars = 0;
      size_t first_star = name;
      for (size_t i = a; i < name; ++i)
        if (is(i, "*")) stars += 1, first_star = std::min(first_star, i);
      if (stars > 1) {
        fail(a, "parameter '" + p.name + "' of " + f.f.name +
                    "(): a pointer to a pointer is not traced; pass the array itself");
        return;
      }
      p.pointer = stars == 1 || brackets;
      std::string type;
      for (size_t i = a; i < (stars ? first_star : name); ++i)
        if (!is(i, "__restrict__") && !is(i, "__restrict") && !is(i, "restrict"))
          type += (type.empty() ? "" : " ") + std::string(str(i));
      p.type = type;
      f.f.params.push_back(p);
      if (p.pointer)
        edits_.push_back({t_[a].begin, t_[brackets ? b : name].end,
                          "::ts::pc::PtrArg<" + type + ", Rec> " + p.name});
    }
    // The recorder (and, for a kernel, the run's arguments) first.
    const std::string head =
        f.f.kernel
            ? "[[maybe_unused]] Rec& ts_rec, [[maybe_unused]] const ::ts::KernelArgs& ts_args"
            : "[[maybe_unused]] Rec& ts_rec";
    if (ranges.empty() && f.rparen == f.lparen + 2)
      edit(f.lparen + 1, head);  // (void)
    else
      insert_after(f.lparen, ranges.empty() ? head : head + ", ");
    // A template over the recorder: its own template clause gets one more parameter.
    size_t tmpl = f.start;
    while (tmpl < f.lparen && !is(tmpl, "template"))
      ++tmpl;
    if (tmpl < f.lparen) {
      const size_t close = skip_group(tmpl + 1) - 1;
      if (close == tmpl + 2) return fail(tmpl, "an explicit specialization is not supported");
      insert_before(close, ", class Rec");
    } else {
      insert_before(f.start, "template <class Rec> ");
    }
    for (size_t i = f.start; i < f.lparen; ++i) {
      if (is(i, "__global__")) edit(i, "__device__");
      if (is(i, "__launch_bounds__") && is(i + 1, "(")) {  // a kernel's only: it is a function now
        const size_t end = skip_group(i + 1) - 1;
        edits_.push_back({t_[i].begin, t_[end].end, ""});
        i = end;
      }
      if (is(i, "extern") && t_[i + 1].kind == Tok::String) edit(i, ""), edit(i + 1, "");
    }
  }

  // ---- Bodies ----
  void rewrite() {
    for (const Found& f : found_) {
      out_.functions.push_back(f.f);
      if (f.f.defined) body(f);
      if (!out_.error.empty()) return;
    }
  }

  void body(const Found& f) {
    std::map<std::string, bool> scalars;  // scalar __shared__ names, rewritten name[0]
    for (size_t i = f.open + 1; i < f.close; ++i) {
      const std::string_view w = str(i);
      const bool member = i > 0 && (is(i - 1, ".") || is(i - 1, "->") || is(i - 1, "::"));
      if (t_[i].kind != Tok::Preproc && escape(f, i)) return;  // std::memcpy too
      if (t_[i].kind == Tok::Preproc) continue;
      if (groups_ && group_op(f.lparen, f.f.name, device_names_, i)) {
        if (!out_.error.empty()) return;
        continue;
      }
      if (member) continue;
      if (w == "__shared__") {
        i = shared_decl(f, i, scalars);
        continue;
      }
      if (w == "__syncthreads" && is(i + 1, "(") && is(i + 2, ")")) {
        edits_.push_back(
            {t_[i].begin, t_[i + 2].end,
             "ts_rec.syncthreads(" + std::to_string(barrier(i, false)) + ", __LINE__)"});
        i += 2;
        continue;
      }
      if (w == "__syncwarp" && is(i + 1, "(")) {
        const int id = barrier(i, true);
        edits_.push_back({t_[i].begin, t_[i + 1].end,
                          "::ts::pc::syncwarp(ts_rec, " + std::to_string(id) + ", __LINE__" +
                              (is(i + 2, ")") ? "" : ", ")});
        ++i;
        continue;
      }
      if (w == "__threadfence" && is(i + 1, "(") && is(i + 2, ")")) {
        edits_.push_back({t_[i].begin, t_[i + 2].end, "ts_rec.threadfence(__LINE__)"});
        continue;
      }
      if (is(i + 1, "(") && intrinsic(i)) continue;
      if (device_names_.count(std::string(w)) && device_call(i)) continue;
      if (w == "auto") {
        auto_decl(i);
        continue;
      }
      if (t_[i].kind == Tok::Ident && statement_start(i) && pointer_decl(i)) continue;
      if (w == "*" && unary_context(i)) {
        deref(i);
        continue;
      }
      if (t_[i].kind == Tok::Ident && scalars.count(std::string(w))) insert_after(i, "[0]");
      if (t_[i].kind == Tok::Ident && !scalars.count(std::string(w))) constant_use(i);
    }
  }

  // What would reach memory around the traced arrays is refused, with what
  // to write instead: a cast to a pointer type (`(float*)cache`,
  // `reinterpret_cast<float4*>(&a[i])`) or a raw copy (`memcpy`). Over a
  // traced array none of them compiles; the message says why and what to write.
  bool escape(const Found& f, size_t i) {
    const std::string_view w = str(i);
    const std::string in = " in " + f.f.name + "()";
    if (w == "__activemask" && is(i + 1, "(")) {  // which lanes run here depends on the schedule
      fail(i, "__activemask()" + in +
                  " gives the lanes that happen to run together, which the simulator's "
                  "schedules do not reproduce: name the lanes you mean (0xffffffff, or "
                  "__ballot_sync(0xffffffff, condition) before the branch)");
      return true;
    }
    if ((w == "__syncthreads_count" || w == "__syncthreads_and" || w == "__syncthreads_or") &&
        is(i + 1, "(")) {  // a barrier with a block-wide vote: not traced yet
      fail(i, std::string(w) + "()" + in +
                  " is not traced yet: vote with a __shared__ counter, `if (p) atomicAdd(&count, "
                  "1);` between two __syncthreads(), and read it after the second");
      return true;
    }
    if (w == "memcpy" || w == "memset" || w == "memmove") {
      fail(i, std::string(w) + in +
                  " is not traced (TileScope sees memory only through the arrays as declared): "
                  "copy element by element, `dst[i] = src[i];`");
      return true;
    }
    bool cast = false;
    std::string type;
    if ((w == "reinterpret_cast" || w == "static_cast" || w == "const_cast") && is(i + 1, "<")) {
      const size_t close = skip_group(i + 1) - 1;
      type = compact(i + 2, close - 1);
      cast = w == "reinterpret_cast" || type.find('*') != std::string::npos;
      type = std::string(w) + "<" + type + ">";
    } else if (w == "(" && !(i > 0 && (is(i - 1, "sizeof") || is(i - 1, "alignof") ||
                                       is(i - 1, "decltype") || is(i - 1, "__alignof__")))) {
      size_t j = i + 1;  // `(` type words `*`... `)`: a C-style cast to a pointer
      while (ident(j) || is(j, "::"))
        ++j;
      const size_t star = j;
      while (is(j, "*") || is(j, "const"))
        ++j;
      cast = j > star && star > i + 1 && is(star, "*") && is(j, ")");
      if (cast) type = "(" + compact(i + 1, j - 1) + ")";
    }
    if (!cast) return false;
    fail(i, "a cast to a pointer type" + in + ", `" + type +
                "`, reaches memory around the trace: TileScope traces each access through the "
                "array as declared; index the array itself (`cache[i]`, `a[row * n + col]`) or "
                "take a pointer to an element of the same type (`const float* p = &a[i];`); for "
                "a float4, load its four elements one by one");
    return true;
  }

  bool intrinsic(size_t i) {
    static const std::set<std::string_view> with_rec = {
        "__shfl_down_sync", "__shfl_up_sync", "__shfl_sync", "__shfl_xor_sync",
        "__ballot_sync",    "__any_sync",     "__all_sync"};
    static const std::set<std::string_view> renamed = {
        "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicExch", "atomicAnd", "atomicOr",
        "atomicXor", "atomicCAS", "min",       "max",       "abs",        "__ldg"};
    const std::string_view w = str(i);
    if (with_rec.count(w)) {
      out_.shuffles = out_.shuffles || w.substr(0, 6) == "__shfl";
      edits_.push_back(
          {t_[i].begin, t_[i + 1].end, "::ts::pc::" + std::string(w.substr(2)) + "(ts_rec, "});
      return true;
    }
    if (renamed.count(w)) {
      out_.atomics = out_.atomics || w.substr(0, 6) == "atomic";
      insert_before(i, "::ts::pc::");
      return true;
    }
    return false;
  }

  // helper(args) -> helper(ts_rec, args); helper<4>(args) too.
  bool device_call(size_t i) {
    size_t paren = i + 1;
    if (is(paren, "<")) paren = skip_group(paren);
    if (!is(paren, "(")) return false;
    insert_after(paren, is(paren + 1, ")") ? "ts_rec" : "ts_rec, ");
    return true;
  }

  // `auto v = buf[i];` -> `auto v = ::ts::pc::val(buf[i]);`: a value, as in
  // CUDA (a traced element would write back); `auto& r` stays a reference.
  void auto_decl(size_t i) {
    size_t j = i + 1;
    if (is(j, "&")) return edit(j, "&&");  // binds the traced element itself
    if (is(j, "&&")) return;
    if (is(j, "*")) edit(j, ""), ++j;
    while (ident(j) && is(j + 1, "=") && j + 2 < t_.size() && !is(j + 2, "{")) {
      insert_before(j + 2, "::ts::pc::val(");
      const size_t k = initializer_end(j + 2);
      if (k >= t_.size()) return;
      insert_before(k, ")", 1);
      if (!is(k, ",")) return;
      j = k + 1;
      if (is(j, "&") || is(j, "*")) ++j;
    }
  }

  bool statement_start(size_t i) const {
    return i > 0 && (is(i - 1, ";") || is(i - 1, "{") || is(i - 1, "}") ||
                     (is(i - 1, "(") && i >= 2 && is(i - 2, "for")));
  }

  // `const float* p = in + i;` -> `auto p = ::ts::pc::as_ptr<const float>(in + i);`:
  // a local pointer keeps pointing into a traced array (or stays a plain
  // pointer where it points at a local).
  bool pointer_decl(size_t i) {
    static const std::set<std::string_view> not_types = {"return", "case",   "goto",  "else",
                                                         "do",     "delete", "throw", "co_return"};
    if (not_types.count(str(i))) return false;
    size_t j = i;
    while (ident(j) || (is(j, "::") && ident(j + 1)))
      ++j;
    if (!is(j, "*")) return false;
    const size_t star = j++;
    while (is(j, "const") || is(j, "__restrict__") || is(j, "__restrict"))
      ++j;
    if (ident(j) && (is(j + 1, ";") || is(j + 1, ","))) {  // given its value later: a raw pointer
      fail(i, "pointer '" + std::string(str(j)) +
                  "' is declared without its value, so it is a plain pointer the trace does not "
                  "see: declare it where you know what it points at, `" +
                  compact(i, star) + " " + std::string(str(j)) +
                  " = &cache[i];` (a traced pointer, which `" + std::string(str(j)) +
                  " = ...` may then move)");
      return true;
    }
    if (!ident(j) || !is(j + 1, "=") || j + 2 >= t_.size() || is(j + 2, "{")) return false;
    std::string type;
    for (size_t k = i; k < star; ++k)
      type += (type.empty() || is(k, "::") || is(k - 1, "::") ? "" : " ") + std::string(str(k));
    edits_.push_back({t_[i].begin, t_[j].begin, "auto "});
    insert_before(j + 2, "::ts::pc::as_ptr<" + type + ">(");
    const size_t k = initializer_end(j + 2);
    if (k >= t_.size()) return false;
    insert_before(k, ")", 1);
    return true;
  }

  bool unary_context(size_t i) const {
    if (i == 0) return true;
    static const std::set<std::string_view> before = {
        "(",   "[", ",", "=", "+=", "-=", "*=", "/=", "%=", "&=",     "|=",   "^=", "<<=",
        ">>=", ";", "{", "}", "?",  ":",  "!",  "~",  "&&", "||",     "==",   "!=", "<=",
        ">=",  "+", "-", "/", "%",  "|",  "^",  "<<", "<",  "return", "case", "&"};
    return before.count(str(i - 1)) > 0;
  }

  // `*p`, `*(p + i)`, `*p++` -> `(p)[0]`: an index keeps its line; a cast
  // (`*(float*)p`) is left as written.
  void deref(size_t i) {
    size_t j = i + 1;
    if (ident(j) && !is(j, "this") && !is(j, "sizeof")) {
      ++j;
      while (is(j, "::") && ident(j + 1))
        j += 2;
    } else if (is(j, "(")) {
      j = skip_group(j);
      if (ident(j) || is(j, "(") || (j < t_.size() && t_[j].kind == Tok::Number)) return;  // a cast
    } else {
      return;
    }
    for (;;) {
      if (is(j, "[") || is(j, "("))
        j = skip_group(j);
      else if ((is(j, ".") || is(j, "->")) && ident(j + 1))
        j += 2;
      else if (is(j, "++") || is(j, "--"))
        ++j;
      else
        break;
    }
    if (j >= t_.size()) return;
    edit(i, "(");
    insert_after(j - 1, ")[0]", 0);
  }

  // `__shared__ float t[16][16];` -> storage and a traced array on the same line.
  size_t shared_decl(const Found& f, size_t at, std::map<std::string, bool>& scalars) {
    size_t start = at;
    while (start > f.open + 1 && !is(start - 1, ";") && !is(start - 1, "{") && !is(start - 1, "}"))
      --start;
    size_t end = at;
    while (end < f.close && !is(end, ";"))
      ++end;
    SharedDecl d;
    d.line = t_[at].line;
    d.function = f.f.name;
    size_t name = 0;
    for (size_t i = start; i < end; ++i) {
      if (is(i, "extern")) d.is_extern = true;
      // `static __shared__` (as the reduction blogs write it): a __shared__
      // variable is static already, and on the host __shared__ says so itself.
      if (is(i, "static")) edit(i, "");
      if (is(i, "alignas") || is(i, "__align__")) {
        i = skip_group(i + 1) - 1;
        continue;
      }
      if (is(i, ",")) {
        fail(i, "one __shared__ array per declaration, please (" + text(start, end) + ")");
        return end;
      }
      if (is(i, "=")) {
        fail(i, "a __shared__ variable cannot have an initializer");
        return end;
      }
      if (ident(i) && (is(i + 1, "[") || i + 1 == end)) {
        name = i;
        break;
      }
      if (!is(i, "extern") && !is(i, "static") && !is(i, "__shared__"))
        d.type += (d.type.empty() ? "" : " ") + std::string(str(i));
    }
    if (!name) {
      fail(at, "a __shared__ declaration TileScope cannot read: " + text(start, end));
      return end;
    }
    d.name = std::string(str(name));
    for (size_t i = name + 1; i < end && is(i, "[");) {
      const size_t close = skip_group(i);
      d.dims.push_back(close > i + 2 ? text(i + 1, close - 2) : "");
      i = close;
    }
    const std::string slot = "TS_PC_SLOT_" + std::to_string(out_.shared.size());
    if (d.is_extern) {
      if (f.f.kernel == false) {
        fail(at, "extern __shared__ in a __device__ function: declare it in the kernel");
        return end;
      }
      std::string type = d.type;
      edits_.push_back({t_[start].begin, t_[end].end,
                        "TS_EXTERN_SHARED(" + type + ", ts_mem_" + d.name + "); auto " + d.name +
                            " = ::ts::pc::extern_shared(ts_rec, ts_mem_" + d.name + ", ts_args, " +
                            slot + ");"});
    } else {
      edit(name, "ts_mem_" + d.name + (d.dims.empty() ? "[1]" : ""));
      insert_after(end, " auto " + d.name + " = ::ts::pc::shared(ts_rec, ts_mem_" + d.name + ", " +
                            slot + ");");
      if (d.dims.empty()) scalars[d.name] = true;
    }
    out_.shared.push_back(d);
    return end;
  }

  std::string dir_;
  std::vector<Found> found_;
  std::set<std::string> device_names_;
};

}  // namespace

Analysis analyse(std::string_view text, const std::string& dir) {
  return Rewriter(text, dir).run();
}

std::string elem_type_of(const std::string& type) {
  std::string t;
  for (size_t at = 0; at < type.size();) {
    size_t end = type.find(' ', at);
    if (end == std::string::npos) end = type.size();
    const std::string w = type.substr(at, end - at);
    if (w != "const" && w != "volatile" && !w.empty()) t += (t.empty() ? "" : " ") + w;
    at = end + 1;
  }
  if (t == "float") return "F32";
  if (t == "int" || t == "int32_t" || t == "signed" || t == "signed int") return "I32";
  if (t == "unsigned" || t == "unsigned int" || t == "uint32_t" || t == "uint") return "U32";
  if (t == "unsigned char" || t == "uint8_t") return "U8";
  return "";
}

}  // namespace ts::plain_cuda
