// The launch block of a plain CUDA file and the lesson generated from it
// (engine/plain_cuda.hpp, docs/plain_cuda.md): kernel, params, grid, block,
// shared, array, arg, reference, events, terms. Its expressions are C++ over
// the parameters (and the file's macros), compiled where the file's line
// directives put them: a mistake in one is reported at its line of the block.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "engine/plain_cuda.hpp"
#include "engine/plain_cuda_detail.hpp"
#include "model/params.hpp"

namespace ts {
namespace {

using namespace plain_cuda;

struct Expr {
  std::string text;
  int line = 0;
};
struct ArrayLine {
  std::string name, role;
  Expr rows, cols;  // rows "1" for a 1D array
};
struct Launch {
  bool found = false;
  int line = 0;
  std::string error;
  int error_line = 0;
  Expr kernel;  // "matmul" or "matmul<16>"
  std::vector<std::pair<std::string, int>> params;
  std::vector<Expr> grid, block;
  Expr shared, events, terms, reference;
  Expr puzzle;  // `puzzle ID`: the descriptor is puzzles::setup(ID)
  std::vector<ArrayLine> arrays;
  std::map<std::string, Expr> args;
};

std::string trim(std::string s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

// "a, (b, c), d" -> "a", "(b, c)", "d".
std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (const char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur)), cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

// The directives of the block, each with the line it starts on.
std::vector<Expr> directives(std::string_view text, const Comment& c, bool line_comments,
                             const std::vector<Comment>& all, size_t& index) {
  std::string body;
  int line = c.line;
  std::vector<Expr> out;
  auto add = [&](std::string_view s, int l) {
    std::string cur;
    int cur_line = l;
    for (const char ch : s) {
      if (ch == ';' || ch == '\n') {
        if (!trim(cur).empty()) out.push_back({trim(cur), cur_line});
        cur.clear();
        if (ch == '\n') ++l;
        cur_line = l;
        continue;
      }
      if (trim(cur).empty() && std::isspace(static_cast<unsigned char>(ch))) continue;
      cur += ch;
    }
    if (!trim(cur).empty()) out.push_back({trim(cur), cur_line});
  };
  if (!line_comments) {
    std::string s(text.substr(c.begin + 2, c.end - c.begin - 4));
    // " * kernel x" lines of a boxed comment
    std::string cleaned;
    bool start = true;
    for (const char ch : s) {
      if (start && (ch == ' ' || ch == '\t')) {
        cleaned += ch;
        continue;
      }
      if (start && ch == '*') {
        cleaned += ' ';
        start = false;
        continue;
      }
      start = ch == '\n';
      cleaned += ch;
    }
    add(cleaned, line);
  } else {
    for (;
         index < all.size() && all[index].line == line && text.substr(all[index].begin, 2) == "//";
         ++index, ++line)
      add(text.substr(all[index].begin + 2, all[index].end - all[index].begin - 2), line);
    --index;
  }
  // The first directive holds "tilescope:".
  if (!out.empty())
    out.front().text = trim(out.front().text.substr(out.front().text.find(':') + 1));
  if (!out.empty() && out.front().text.empty()) out.erase(out.begin());
  return out;
}

void launch_fail(Launch& l, int line, const std::string& what) {
  if (l.error.empty()) l.error = what, l.error_line = line;
}

Launch parse_launch(std::string_view text, const std::vector<Comment>& comments) {
  Launch l;
  for (size_t i = 0; i < comments.size(); ++i) {
    const Comment& c = comments[i];
    std::string head(text.substr(c.begin + 2, std::min<size_t>(c.end - c.begin - 2, 64)));
    head = trim(head);
    if (head.rfind("tilescope:", 0) != 0) continue;
    l.found = true;
    l.line = c.line;
    const bool line_comments = text.substr(c.begin, 2) == "//";
    for (const Expr& d : directives(text, c, line_comments, comments, i)) {
      const size_t sp = d.text.find_first_of(" \t");
      const std::string key = d.text.substr(0, sp);
      const std::string rest = sp == std::string::npos ? "" : trim(d.text.substr(sp));
      if (key == "kernel") {
        l.kernel = {rest, d.line};
      } else if (key == "params") {
        std::string r = rest;
        std::replace(r.begin(), r.end(), ',', ' ');
        std::string word;
        for (size_t at = 0; at <= r.size(); ++at) {
          if (at < r.size() && r[at] != ' ') {
            word += r[at];
            continue;
          }
          if (word.empty()) continue;
          const size_t eq = word.find('=');
          const std::string name = word.substr(0, eq);
          bool known = false;
          for (const ParamField& f : kParamFields)
            known = known || name == f.name;
          if (eq == std::string::npos || !known)
            return launch_fail(l, d.line,
                               "params: '" + word +
                                   "' must be name=value, the name one of m, k, n, tile, length, "
                                   "radius, block (bind a kernel parameter of another name with "
                                   "`arg <name> = <expression>`)"),
                   l;
          try {
            l.params.push_back({name, std::stoi(word.substr(eq + 1))});
          } catch (...) {
            return launch_fail(l, d.line, "params: '" + word + "' needs a whole number"), l;
          }
          word.clear();
        }
      } else if (key == "grid" || key == "block") {
        std::vector<Expr>& dims = key == "grid" ? l.grid : l.block;
        for (const std::string& e : split_commas(rest))
          dims.push_back({e, d.line});
        if (dims.empty() || dims.size() > 3)
          launch_fail(l, d.line, key + " needs 1 to 3 sizes: " + key + " x[, y[, z]]");
      } else if (key == "puzzle") {
        l.puzzle = {rest, d.line};
      } else if (key == "shared" || key == "events" || key == "terms" || key == "reference") {
        Expr& e = key == "shared"   ? l.shared
                  : key == "events" ? l.events
                  : key == "terms"  ? l.terms
                                    : l.reference;
        e = {rest, d.line};
      } else if (key == "array") {
        std::istringstream in(rest);
        ArrayLine a;
        std::string shape;
        in >> a.name >> a.role;
        std::getline(in, shape);
        const std::vector<std::string> dims = split_commas(trim(shape));
        if (a.role != "in" && a.role != "out")
          return launch_fail(l, d.line,
                             "array " + a.name +
                                 ": say `in` or `out`: array NAME in|out COUNT (or ROWS, COLS)"),
                 l;
        if (dims.empty() || dims.size() > 2 || dims[0].empty())
          return launch_fail(l, d.line, "array " + a.name + ": give its size: COUNT or ROWS, COLS"),
                 l;
        a.rows = {dims.size() == 2 ? dims[0] : "1", d.line};
        a.cols = {dims.back(), d.line};
        l.arrays.push_back(a);
      } else if (key == "arg") {
        const size_t eq = rest.find('=');
        if (eq == std::string::npos)
          return launch_fail(l, d.line, "arg: write `arg <kernel parameter> = <expression>`"), l;
        l.args[trim(rest.substr(0, eq))] = {trim(rest.substr(eq + 1)), d.line};
      } else {
        return launch_fail(l, d.line,
                           "unknown launch directive '" + key +
                               "' (kernel, puzzle, params, grid, block, shared, array, arg, "
                               "reference, events, terms: docs/plain_cuda.md)"),
               l;
      }
    }
    break;
  }
  return l;
}

std::string kernel_base(const std::string& k) {
  return trim(k.substr(0, k.find('<')));
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s)
    out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

// The generated lines between two launch-block lines: named as TileScope's.
struct Gen {
  const std::string& path;
  std::string out;
  std::string reset() const {
    return "#line 1 \"<TileScope's lesson for " + std::filesystem::path(path).filename().string() +
           ">\"\n";
  }
  void at(int line, const std::string& stmt) {
    out += "#line " + std::to_string(line) + " " + quoted(path) + "\n" + stmt + "\n" + reset();
  }
};

const char* kVals =
    "struct Vals {\n  int m, k, n, tile, length, radius, block;\n  template <class P>\n"
    "  TS_HD explicit Vals(const P& p) : m(p.m), k(p.k), n(p.n), tile(p.tile), "
    "length(p.length), radius(p.radius), block(p.block) {}\n};\n"
    "#define TS_PC_VALS(p) const Vals ts_v(p); [[maybe_unused]] const int m = ts_v.m, k = "
    "ts_v.k, n = ts_v.n, tile = ts_v.tile, length = ts_v.length, radius = ts_v.radius, block = "
    "ts_v.block\n";

int param_max(const std::string& name) {
  if (name == "m" || name == "k" || name == "n") return 32768;
  if (name == "length") return 1 << 28;
  return 1024;
}

// The plug-in's two halves around the rewritten file and the generated lesson.
PlainCudaPlugin& assemble(PlainCudaPlugin& out, const std::string& path,
                          const std::string& rewritten, const std::string& defines,
                          const std::string& body, const std::string& include) {
  const std::string file = std::filesystem::path(path).filename().string();
  const std::string head =
      "// Generated by TileScope (engine/plain_cuda_launch.cpp) for " + path + "\n";
  // What g++ says of CUDA as courses write it and nvcc does not (threadIdx.x < n).
  const std::string quiet =
      "#if !defined(__CUDACC__)\n#pragma GCC diagnostic ignored \"-Wsign-compare\"\n"
      "#pragma GCC diagnostic ignored \"-Wunused-parameter\"\n#else\n"
      // A host reference reads the file's __constant__ arrays: the simulator's
      // half fills them; the GPU's half never calls it.
      "#pragma nv_diag_suppress 20091\n#endif\n"
      // The file's assert() checks, as nvcc compiles a course's kernel (without
      // NDEBUG, which TileScope's own code is built with).
      "#undef NDEBUG\n#include <cassert>\n";
  const std::string file_lines = quiet + defines + "#line 1 " + quoted(path) + "\n" + rewritten +
                                 (rewritten.ends_with("\n") ? "" : "\n") +
                                 "#line 1 \"<TileScope's lesson for " + file + ">\"\n" + body;
  out.host_source =
      head + "#include \"engine/lesson_plugin.hpp\"\n#include \"lessons/plain_cuda.hpp\"\n" +
      include + file_lines +
      "namespace {\nstruct Entry {\n  static ts::LessonSpec descriptor() { return "
      "ts::lessons::plain_cuda_file::Lesson::descriptor(); }\n  template <class F>\n"
      "  static bool visit(const ts::Params& p, F&& f) {\n    return ts::visit_lesson_body<"
      "ts::lessons::plain_cuda_file::Lesson, ts::lessons::plain_cuda_file::Body>(p, f);\n  "
      "}\n};\n}  // namespace\n"
      "extern \"C\" __attribute__((visibility(\"default\"))) void "
      "TS_LESSON_PLUGIN_ENTRY(ts::LessonPlugin* out) {\n"
      "  *out = ts::make_lesson_plugin<Entry>();\n}\n";
  out.cuda_source =
      head + "#include \"engine/cuda/lesson_plugin.cuh\"\n#include \"lessons/plain_cuda.hpp\"\n" +
      include + file_lines +
      "extern \"C\" __attribute__((visibility(\"default\"))) void "
      "TS_LESSON_CUDA_ENTRY(ts::LessonCudaPlugin* out) {\n"
      "  out->abi = ts::kLessonCudaPluginAbi;\n  out->ops = "
      "TS_LESSON_CUDA_OPS(ts::lessons::plain_cuda_file);\n}\n";
  return out;
}

}  // namespace

bool is_plain_cuda_path(std::string_view path) {
  return path.ends_with(".cu");  // a .cuh is a lesson header, as a .hpp
}

std::vector<BarrierStatement> plain_cuda_barriers(std::string_view text) {
  return analyse(text).barriers;
}

std::string plain_cuda_kernel_name(std::string_view text) {
  const Analysis a = analyse(text);
  const Launch l = parse_launch(text, a.comments);
  if (!l.kernel.text.empty()) return kernel_base(l.kernel.text);
  for (const Function& f : a.functions)
    if (f.kernel && f.defined) return f.name;
  return "";
}

std::string plain_cuda_puzzle_id(std::string_view text) {
  std::vector<Token> tokens;
  std::vector<Comment> comments;
  tokenize(text, tokens, comments);
  return parse_launch(text, comments).puzzle.text;
}

PlainCudaPlugin translate_plain_cuda(const std::string& path, std::string_view text) {
  PlainCudaPlugin out;
  const std::string dir = std::filesystem::path(path).parent_path().string();
  Analysis a = analyse(text, dir);
  auto fail = [&](int line, const std::string& what) {
    out.error = path + ":" + std::to_string(line) + ": " + what;
    return out;
  };
  if (!a.error.empty()) return fail(a.error_line, a.error);
  out.rewritten = a.rewritten;
  const Launch l = parse_launch(text, a.comments);
  if (!l.error.empty()) return fail(l.error_line, l.error);
  const std::string form =
      "/* tilescope: kernel NAME; params n=64; grid EXPR[, EXPR]; block EXPR[, EXPR]; array A in "
      "COUNT; array C out COUNT; reference copy */ (docs/plain_cuda.md)";
  if (!l.found) return fail(1, "no launch block: describe the launch in a comment " + form);
  // The kernel.
  const Function* k = nullptr;
  for (const Function& f : a.functions)
    if (f.kernel && f.defined && (l.kernel.text.empty() || f.name == kernel_base(l.kernel.text))) {
      if (k && l.kernel.text.empty())
        return fail(l.line,
                    "more than one __global__ kernel: name the one to run with `kernel NAME`");
      k = k ? k : &f;
    }
  if (!k)
    return fail(l.kernel.line ? l.kernel.line : l.line,
                l.kernel.text.empty()
                    ? "no __global__ kernel in the file"
                    : "no __global__ kernel '" + kernel_base(l.kernel.text) + "'");
  const std::string targs =
      l.kernel.text.find('<') != std::string::npos
          ? l.kernel.text.substr(l.kernel.text.find('<') + 1,
                                 l.kernel.text.rfind('>') - l.kernel.text.find('<') - 1) +
                ", "
          : "";
  if (!l.puzzle.text.empty()) {
    // The puzzle's arrays, launch and sizes: nothing else to describe.
    const char* extra = !l.grid.empty()             ? "grid"
                        : !l.block.empty()          ? "block"
                        : !l.arrays.empty()         ? "array"
                        : !l.params.empty()         ? "params"
                        : !l.args.empty()           ? "arg"
                        : !l.shared.text.empty()    ? "shared"
                        : !l.reference.text.empty() ? "reference"
                        : !l.events.text.empty()    ? "events"
                        : !l.terms.text.empty()     ? "terms"
                                                    : nullptr;
    if (extra)
      return fail(l.puzzle.line, std::string("with `puzzle`, the arrays, the launch and the sizes "
                                             "are the puzzle's: leave out `") +
                                     extra + "`");
    PuzzleGen pg = puzzle_lesson(path, a, *k, targs, l.puzzle.text, l.puzzle.line);
    if (!pg.error.empty()) return fail(pg.error_line, pg.error);
    return assemble(out, path, a.rewritten, pg.defines, pg.body,
                    "#include \"engine/puzzles.hpp\"\n");
  }
  if (l.grid.empty() || l.block.empty())
    return fail(l.line, "the launch block needs `grid` and `block`");
  const char* kTracedTypes =
      "'; TileScope traces arrays of float, int, unsigned and unsigned char (uint8_t)";
  // Global arrays: slots in the order of the block's array lines.
  std::map<std::string, int> slot_of;
  std::map<std::string, std::string> type_of;
  for (const Param& p : k->params)
    if (p.pointer) type_of[p.name] = p.type;
  std::map<std::string, const SharedDecl*> constant_of;  // traced __constant__ arrays
  for (const SharedDecl& c : a.constants)
    if (!c.initialized && !type_of.count(c.name))
      type_of[c.name] = c.type, constant_of[c.name] = &c;
  for (const ArrayLine& arr : l.arrays) {
    if (!type_of.count(arr.name))
      return fail(arr.rows.line, "array " + arr.name + " is not a pointer parameter of " + k->name +
                                     "() or a __constant__ array of the file");
    if (constant_of.count(arr.name) && arr.role != "in")
      return fail(arr.rows.line, "array " + arr.name +
                                     ": a __constant__ array is read-only in a kernel: `array " +
                                     arr.name + " in SIZE`");
    if (elem_type_of(type_of[arr.name]).empty())
      return fail(arr.rows.line,
                  "array " + arr.name + ": its elements are '" + type_of[arr.name] + kTracedTypes);
    const int slot = int(slot_of.size()) + 1;
    slot_of[arr.name] = slot;
  }
  for (const Param& p : k->params) {
    if (p.pointer && !slot_of.count(p.name))
      return fail(l.line, "pointer parameter '" + p.name + "' of " + k->name + "() has no `array " +
                              p.name + " in|out SIZE` line");
    bool named = l.args.count(p.name) > 0;
    for (const auto& [name, v] : l.params)
      named = named || name == p.name;
    if (!p.pointer && !named)
      return fail(l.line, "kernel parameter '" + p.name + "' has no value: add `arg " + p.name +
                              " = <expression>` (or a param of that name)");
  }
  // Constant arrays: the block gives their values, as main's cudaMemcpyToSymbol did.
  std::string defines, symbols, host_copies;
  for (size_t i = 0; i < a.constants.size(); ++i) {
    const SharedDecl& c = a.constants[i];
    if (c.initialized) continue;
    if (!slot_of.count(c.name))
      return fail(c.line, "__constant__ " + c.name + " has no values: add `array " + c.name +
                              " in SIZE` to the launch block (what main copied into it)");
    const std::string slot = std::to_string(slot_of[c.name]);
    defines += "#define TS_PC_CONST_" + std::to_string(i) + " " + slot + "\n";
    symbols += "{" + slot + ", &::" + c.name + ", sizeof(::" + c.name + ")}, ";
    host_copies += "  for (size_t i = 0; i < sizeof(::" + c.name + ") / sizeof(" + c.type +
                   ") && i < in[" + slot + "].size(); ++i)\n    reinterpret_cast<" + c.type +
                   "*>(&::" + c.name + ")[i] = (" + c.type + ")(in[" + slot + "][i]);\n";
  }
  // Shared arrays of the kernel and of the helpers it may call.
  std::vector<const SharedDecl*> shared;
  int next_slot = int(slot_of.size()) + 1;
  for (size_t i = 0; i < a.shared.size(); ++i) {
    SharedDecl& d = a.shared[i];
    bool mine = d.function == k->name;
    for (const Function& f : a.functions)
      mine = mine || (!f.kernel && f.name == d.function);
    if (mine && elem_type_of(d.type).empty())
      return fail(d.line, "__shared__ " + d.name + ": its elements are '" + d.type + kTracedTypes);
    d.slot = mine ? next_slot++ : 0;
    if (mine) shared.push_back(&d);
    defines += "#define TS_PC_SLOT_" + std::to_string(i) + " " + std::to_string(d.slot) + "\n";
  }
  if (next_slot - 1 > kMaxArrays)
    return fail(l.line, "more than " + std::to_string(kMaxArrays) + " arrays (global and shared)");

  Gen g{path, ""};
  const std::string file = std::filesystem::path(path).filename().string();
  g.out += "namespace ts::lessons::plain_cuda_file {\nusing namespace ::ts::lesson_kit;\n";
  g.out += kVals;
  // Dynamic shared bytes, as the launch block gives them.
  g.out += "TS_HD unsigned long long dynamic_bytes(const Vals& ts_p) {\n  TS_PC_VALS(ts_p);\n";
  g.at(l.shared.line ? l.shared.line : l.line,
       "  return (unsigned long long)(" + (l.shared.text.empty() ? "0" : l.shared.text) + ");");
  g.out += "}\n";
  // Geometry.
  g.out +=
      "inline bool dims(const Params& ts_p, long long* ts_grid, long long* ts_block) {\n  "
      "TS_PC_VALS(ts_p);\n";
  for (int d = 0; d < 3; ++d) {
    for (const auto* list : {&l.grid, &l.block}) {
      const std::string arr = list == &l.grid ? "ts_grid" : "ts_block";
      const bool given = d < int(list->size());
      g.at(given ? (*list)[size_t(d)].line : l.line,
           "  " + arr + "[" + std::to_string(d) + "] = (long long)(" +
               (given ? (*list)[size_t(d)].text : "1") + ");");
    }
  }
  g.out +=
      "  return ts_grid[0] > 0 && ts_grid[1] > 0 && ts_grid[2] > 0 && ts_block[0] > 0 && "
      "ts_block[1] > 0 && ts_block[2] > 0;\n}\n";
  std::string statics = "0ull";
  for (const SharedDecl* d : shared)
    if (!d->is_extern) {
      std::string t = d->type;
      for (const std::string& dim : d->dims)
        t += "[" + dim + "]";
      statics += " + sizeof(" + t + ")";
    }
  g.out +=
      "inline LaunchGeometry geometry(const Params& p) {\n  long long gr[3], bl[3];\n"
      "  dims(p, gr, bl);\n  LaunchGeometry g;\n"
      "  g.grid = {uint32_t(std::max(gr[0], 1ll)), uint32_t(std::max(gr[1], 1ll)), "
      "uint32_t(std::max(gr[2], 1ll))};\n"
      "  g.block = {uint32_t(std::max(bl[0], 1ll)), uint32_t(std::max(bl[1], 1ll)), "
      "uint32_t(std::max(bl[2], 1ll))};\n"
      "  g.dynamic_shared_bytes = uint32_t(dynamic_bytes(Vals(p)));\n";
  g.at(shared.empty() ? l.line : shared.front()->line,
       "  g.static_shared_bytes = uint32_t(" + statics + ");");
  g.out += "  return g;\n}\n";
  // Arrays.
  g.out +=
      "inline ArrayTable arrays(const Params& ts_p) {\n  TS_PC_VALS(ts_p);\n  ArrayTable ts_t;\n"
      "  [[maybe_unused]] unsigned long long ts_offset = 0;\n";
  for (const ArrayLine& arr : l.arrays) {
    g.out += "  {\n    ArrayInfo ts_a;\n    ts_a.name = " + quoted(arr.name) +
             ";\n    ts_a.role = ArrayRole::" + (arr.role == "in" ? "Input" : "Output") +
             (constant_of.count(arr.name) ? ";\n    ts_a.space = Space::Constant" : "") +
             ";\n    ts_a.type = ElemType::" + elem_type_of(type_of[arr.name]) +
             ";\n    ts_a.elem_bytes = elem_size(ts_a.type);\n    ts_a.fill_stream = " +
             std::to_string(slot_of[arr.name]) + ";\n";
    g.at(arr.rows.line,
         "    ts_a.rows = int(" + arr.rows.text + "); ts_a.cols = int(" + arr.cols.text + ");");
    g.out += "    ts_t.push_back(ts_a);\n  }\n";
  }
  for (const SharedDecl* d : shared) {
    std::string rows = "1", cols = "1", type = d->type;
    if (d->is_extern) {
      cols = "dynamic_bytes(ts_v) / sizeof(" + type + ")";
    } else if (d->dims.size() == 1) {
      cols = d->dims[0];
    } else if (d->dims.size() >= 2) {
      rows = d->dims[0], cols = "1";
      for (size_t j = 1; j < d->dims.size(); ++j)
        cols += " * (" + d->dims[j] + ")";
    }
    g.out += "  {\n    ArrayInfo ts_a;\n    ts_a.name = " + quoted(d->name) +
             ";\n    ts_a.space = Space::Shared;\n    ts_a.role = ArrayRole::Scratch;\n    "
             "ts_a.type = ElemType::" +
             elem_type_of(type) + ";\n    ts_a.elem_bytes = elem_size(ts_a.type);\n";
    g.at(d->line, "    ts_a.rows = int(" + rows + "); ts_a.cols = int(" + cols + ");");
    // Each array at its type's alignment (a byte array may end off a 4-byte boundary).
    const std::string align = "alignof(" + type + ")";
    g.out += "    ts_offset = (ts_offset + " + align + " - 1) / " + align + " * " + align +
             ";\n    ts_a.shared_offset = uint32_t(ts_offset);\n"
             "    ts_offset += ts_a.count() * sizeof(" +
             type + ");\n    ts_t.push_back(ts_a);\n  }\n";
  }
  g.out += "  return ts_t;\n}\n";
  // The kernel's arguments: its arrays by slot, its scalars from the block.
  auto scalar = [&](const Param& p) {
    const auto it = l.args.find(p.name);
    return "(" + (it != l.args.end() ? it->second.text : p.name) + ")";
  };
  std::string call = "::" + k->name + "<" + targs + "Rec>(rec, ts_args";
  for (const Param& p : k->params)
    call += ", " + (p.pointer ? "::ts::pc::GlobalArg<Rec>{rec, ts_args, " +
                                    std::to_string(slot_of[p.name]) + "}"
                              : scalar(p));
  call += ");";
  g.out +=
      "template <class Rec>\nTS_DEVICE void run_kernel(Rec& rec, const KernelArgs& args) {\n"
      "  KernelArgs ts_args = args;\n  TS_PC_VALS(args);\n"
      "#if !defined(__CUDACC__)\n  ::ts::pc::constant_args = &args;\n#endif\n";
  for (const SharedDecl* d : shared)
    if (d->is_extern)
      g.out += "  ts_args.count[" + std::to_string(d->slot) +
               "] = int(dynamic_bytes(ts_v) / sizeof(" + d->type + "));\n";
  g.at(l.args.empty() ? l.line : l.args.begin()->second.line, "  " + call);
  g.out += "}\nTS_KERNEL_BODY(Body, run_kernel(rec, args));\n";
  if (!symbols.empty())  // what the GPU backend copies into the symbols before a launch
    g.out += "static inline std::vector<ConstantSymbol> constant_symbols(Body) {\n  return {" +
             symbols + "};\n}\n";
  // What the registry checks before a run: a launch of at least one thread.
  g.out +=
      "inline std::optional<std::string> check(const LessonInfo&, const Params& p, const "
      "DeviceLimits&) {\n"
      "  long long gr[3], bl[3];\n  if (!dims(p, gr, bl))\n    return \"the launch block gives "
      "grid \" + "
      "std::to_string(gr[0]) + \", \" + std::to_string(gr[1]) + \", \" + std::to_string(gr[2]) + "
      "\" and block \" + "
      "std::to_string(bl[0]) + \", \" + std::to_string(bl[1]) + \", \" + std::to_string(bl[2]) + "
      "\" for these "
      "parameters: every size must be at least 1\";\n"
      "  const ArrayTable ts_t = arrays(p);\n"
      "  for (const ArrayInfo& a : ts_t)\n    if (a.rows < 1 || a.cols < 1)\n"
      "      return \"the launch block gives array \" + a.name + \" \" + std::to_string(a.rows) + "
      "\" x \" + "
      "std::to_string(a.cols) + \" elements for these parameters\";\n";
  for (const auto& [name, c] : constant_of) {  // the table's entry against the declaration
    const std::string given = "ts_t[" + std::to_string(slot_of[name] - 1) + "].count()";
    const std::string held = "sizeof(::" + name + ") / sizeof(" + c->type + ")";
    g.out += "  if (" + given + " != " + held + ")\n    return \"the launch block gives array " +
             name + " \" + std::to_string(" + given +
             ") + \" elements, but its __constant__ declaration (line " + std::to_string(c->line) +
             ") holds \" + std::to_string(" + held + ");\n";
  }
  g.out += "  return std::nullopt;\n}\n";
  // Counts: no closed form for a student's kernel; a bound per thread (the
  // simulator's buffer and its step limit), and which kinds of event occur.
  g.out +=
      "inline ExpectedCounts counts(const Params& ts_p) {\n  TS_PC_VALS(ts_p);\n"
      "  const LaunchGeometry g = geometry(ts_p);\n  ExpectedCounts c;\n";
  g.at(l.events.line ? l.events.line : l.line,
       "  c.global_loads = g.grid.count() * g.block.count() * (unsigned long long)(" +
           (l.events.text.empty() ? "4096" : l.events.text) + ");");
  g.out += std::string("  c.shared_atomics = c.global_atomics = ") + (a.atomics ? "1" : "0") +
           ";\n  c.warp_shuffles = " + (a.shuffles ? "1" : "0") + ";\n  return c;\n}\n";
  // The reference.
  int out_slot = 0;
  std::vector<int> in_slots;
  for (const ArrayLine& arr : l.arrays) {
    if (arr.role == "in")
      in_slots.push_back(slot_of[arr.name]);
    else if (!out_slot)
      out_slot = slot_of[arr.name];
  }
  const std::string ref = trim(l.reference.text);
  std::string ref_body, terms = "1";
  bool has_radius = false;
  for (const auto& [name, v] : l.params)
    has_radius = has_radius || name == "radius";
  const std::string out_count = "ts_t[" + std::to_string(out_slot - 1) + "].count()";
  auto input = [&](size_t i) { return "in[" + std::to_string(in_slots[i]) + "]"; };
  if (ref.empty()) {
    ref_body = "  return {};\n";
  } else if (!out_slot) {
    return fail(l.reference.line, "reference: the launch block has no `out` array to check");
  } else if (ref == "matmul" || ref == "stencil" || ref == "copy" || ref == "sum") {
    if (in_slots.size() < (ref == "matmul" ? 2u : 1u))
      return fail(l.reference.line, "reference " + ref + " needs " +
                                        (ref == "matmul" ? "two" : "an") + " `in` array" +
                                        (ref == "matmul" ? "s" : ""));
    const bool ints = elem_type_of(type_of[l.arrays[size_t(out_slot - 1)].name]) != "F32";
    ref_body = "  std::vector<float> out(" + out_count +
               ", 0.0f);\n  const std::vector<float>& x = " + input(0) + ";\n";
    if (ref == "matmul") {
      ref_body +=
          "  const std::vector<float>& y = " + input(1) +
          ";\n"
          "  const long long M = m ? m : n, K = k ? k : n, N = n;\n"
          "  for (long long i = 0; i < M; ++i)\n    for (long long j = 0; j < N; ++j) {\n"
          "      double s = 0;\n      for (long long q = 0; q < K; ++q)\n"
          "        if (size_t(i * K + q) < x.size() && size_t(q * N + j) < y.size()) s += "
          "double(x[size_t(i * K + q)]) * y[size_t(q * N + j)];\n"
          "      if (size_t(i * N + j) < out.size()) out[size_t(i * N + j)] = float(s);\n    }\n";
      terms = "k ? k : n";
    } else if (ref == "stencil") {
      const std::string r = has_radius ? "radius" : "1";
      ref_body += "  const long long r = " + r +
                  ", len = (long long)x.size();\n"
                  "  for (long long i = 0; i < (long long)out.size(); ++i) {\n    double s = 0;\n"
                  "    for (long long j = i - r; j <= i + r; ++j) s += "
                  "x[size_t(std::min(std::max(j, 0ll), len - 1))];\n" +
                  std::string(ints ? "    out[size_t(i)] = float((long long)s / (2 * r + 1));\n"
                                   : "    out[size_t(i)] = float(s / double(2 * r + 1));\n") +
                  "  }\n";
      terms = "2 * " + r + " + 1";
    } else if (ref == "copy") {
      ref_body += "  for (size_t i = 0; i < out.size() && i < x.size(); ++i) out[i] = x[i];\n";
    } else {
      ref_body +=
          "  double s = 0;\n  for (float v : x) s += v;\n  if (!out.empty()) out[0] = float(s);\n";
      terms = "int(ts_t[" + std::to_string(in_slots[0] - 1) + "].count())";
    }
    ref_body += "  return out;\n";
  } else {
    // A host function of the file, called with the kernel's arguments.
    ref_body = "";
    std::string args;
    for (const Param& p : k->params) {
      if (!p.pointer) {
        args += std::string(args.empty() ? "" : ", ") + scalar(p);
        continue;
      }
      std::string plain;
      std::istringstream words(p.type);
      for (std::string w; words >> w;)
        if (w != "const" && w != "volatile") plain += (plain.empty() ? "" : " ") + w;
      const int s = slot_of[p.name];
      const std::string v = "ts_a" + std::to_string(s);
      ref_body +=
          "  std::vector<" + plain + "> " + v + "(ts_t[" + std::to_string(s - 1) + "].count());\n";
      if (l.arrays[size_t(s - 1)].role == "in")
        ref_body += "  for (size_t i = 0; i < " + v + ".size() && i < in[" + std::to_string(s) +
                    "].size(); ++i) " + v + "[i] = (" + plain + ")(in[" + std::to_string(s) +
                    "][i]);\n";
      args += std::string(args.empty() ? "" : ", ") + v + ".data()";
    }
    ref_body += host_copies;  // the host function reads the __constant__ arrays as main filled them
    ref_body += "#line " + std::to_string(l.reference.line) + " " + quoted(path) + "\n  ::" + ref +
                "(" + args + ");\n" + g.reset() + "  return std::vector<float>(ts_a" +
                std::to_string(out_slot) + ".begin(), ts_a" + std::to_string(out_slot) +
                ".end());\n";
    terms = "";
    for (int s : in_slots)
      terms += (terms.empty() ? "" : " + ") + std::string("int(ts_t[") + std::to_string(s - 1) +
               "].count())";
    if (terms.empty()) terms = "1";
  }
  if (!l.terms.text.empty()) terms = l.terms.text;
  g.out +=
      "inline std::vector<float> reference(const Params& ts_p, [[maybe_unused]] const "
      "LessonInputs& in) {\n"
      "  TS_PC_VALS(ts_p);\n  [[maybe_unused]] const ArrayTable ts_t = arrays(ts_p);\n" +
      ref_body + "}\n";
  g.out +=
      "inline int terms(const Params& ts_p) {\n  TS_PC_VALS(ts_p);\n"
      "  [[maybe_unused]] const ArrayTable ts_t = arrays(ts_p);\n";
  g.at(l.terms.line ? l.terms.line : l.line, "  return std::max(1, int(" + terms + "));");
  g.out += "}\n";
  // The descriptor.
  std::string params, barriers;
  for (const auto& [name, v] : l.params)
    params += "{" + quoted(name) + ", " + quoted(name) + ", \"from the launch block of " + file +
              "\", " + (name == "radius" ? "0" : "1") + ", " +
              std::to_string(std::max(param_max(name), v)) + ", " + std::to_string(v) + "}, ";
  for (size_t b = 1; b < a.barriers.size(); ++b)
    barriers += "{\"" + std::string(a.barriers[b].warp_scope ? "__syncwarp" : "__syncthreads") +
                "() at line " + std::to_string(a.barriers[b].line) + "\", kGuardsNothing}, ";
  g.out +=
      "struct Lesson {\n  static LessonSpec descriptor() {\n    return {\n      .title = " +
      quoted(k->name + " (" + file + ")") +
      ",\n      .summary = " + quoted("Plain CUDA from " + file + ", traced as written.") +
      ",\n      .params = {" + params + "},\n      .barriers = {" + barriers +
      "},\n      .arrays = arrays,\n      .geometry = geometry,\n      .check = check,\n"
      "      .shared_advice = smaller_tile,\n      .counts = counts,\n      .reference = "
      "reference,\n"
      "      .sum_length = terms,\n    };\n  }\n};\n}  // namespace ts::lessons::plain_cuda_file\n";

  return assemble(out, path, a.rewritten, defines, g.out, "");
}

}  // namespace ts
