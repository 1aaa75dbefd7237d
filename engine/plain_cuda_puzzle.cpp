// A plain CUDA puzzle solution (`/* tilescope: puzzle shared */`,
// docs/plain_cuda.md): the descriptor is puzzles::setup(ID, the file), so
// the arrays, the launch, the sizes and the reference are the puzzle's; the
// kernel's pointer parameters are bound to the puzzle's global arrays in
// order, its scalar parameters to the puzzle's parameters of the same name,
// its __shared__ arrays to the puzzle's shared arrays of the same name.
#include <string>

#include "engine/plain_cuda_detail.hpp"
#include "engine/puzzles.hpp"

namespace ts::plain_cuda {
namespace {

const char* type_name(ElemType t) {
  return t == ElemType::F32   ? "float"
         : t == ElemType::I32 ? "int"
         : t == ElemType::U8  ? "unsigned char"
                              : "unsigned";
}
const char* type_tag(ElemType t) {
  return t == ElemType::F32 ? "F32" : t == ElemType::I32 ? "I32" : t == ElemType::U8 ? "U8" : "U32";
}

// "64" -> 64; -1 when the size is not a literal (a macro: not checked here).
long long literal(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(s);
}

}  // namespace

PuzzleGen puzzle_lesson(const std::string& path, Analysis& a, const Function& k,
                        const std::string& targs, const std::string& id, int line) {
  PuzzleGen out;
  auto fail = [&](int at, const std::string& what) {
    out.error = what, out.error_line = at;
    return out;
  };
  const puzzles::PuzzleSetup* s = puzzles::find_setup(id);
  if (!s)
    return fail(line, "puzzle: no puzzle called '" + id + "' (`tilescope-cli puzzles` lists them)");
  // Memory at file scope is not the puzzle's, and the trace does not see it.
  if (!a.file_variables.empty()) {
    const FileVariable& v = a.file_variables.front();
    return fail(v.line, "`" + v.qualifier + " " + v.name + "` at file scope is memory TileScope " +
                            "does not trace (puzzle " + id + "'s memory is its arrays): " +
                            (v.qualifier == "__shared__"
                                 ? "declare the __shared__ array inside the kernel"
                                 : "keep a block's data in a __shared__ array declared in the "
                                   "kernel, a thread's in a local variable"));
  }
  const LessonSpec spec = s->spec();
  Params p;
  for (const ParamDecl& d : spec.params)
    for (const ParamField& f : kParamFields)
      if (std::string_view(f.name) == d.name) p.*f.field = d.value;
  const ArrayTable table = spec.arrays(p);
  // The signature the puzzle expects, for the messages.
  std::string sig, names;
  int globals = 0;
  for (const ArrayInfo& arr : table)
    if (!arr.shared())
      sig += std::string(sig.empty() ? "" : ", ") + (arr.output() ? "" : "const ") +
             type_name(arr.type) + "* " + arr.name,
          ++globals;
  for (const ParamDecl& d : spec.params)
    sig += ", int " + std::string(d.name),
        names += (names.empty() ? "" : ", ") + std::string(d.name);
  const std::string expected = "puzzle " + id + "'s kernel is `__global__ void " + k.name + "(" +
                               sig + ")` (the parameters may be left out, the arrays not)";
  // Pointers: the puzzle's global arrays, in order.
  std::string call = "::" + k.name + "<" + targs + "Rec>(rec, ts_args";
  int slot = 0;
  for (const Param& q : k.params) {
    if (q.pointer) {
      if (slot >= globals)
        return fail(k.line, k.name + "() has more pointer parameters than puzzle " + id +
                                " has arrays: " + expected);
      const ArrayInfo& arr = table[size_t(slot)];
      if (elem_type_of(q.type) != type_tag(arr.type))
        return fail(k.line, "parameter '" + q.name + "' is '" + q.type + "*'; the puzzle's array " +
                                arr.name + " holds " + type_name(arr.type) + ": " + expected);
      ++slot;
      call += ", ::ts::pc::GlobalArg<Rec>{rec, ts_args, " + std::to_string(slot) + "}";
      continue;
    }
    bool known = false;
    for (const ParamDecl& d : spec.params)
      known = known || q.name == d.name;
    if (!known)
      return fail(k.line, "kernel parameter '" + q.name + "' is not one of puzzle " + id +
                              "'s parameters (" + names + "): " + expected);
    call += ", (" + q.type + ")(ts_args." + q.name + ")";
  }
  if (slot < globals)
    return fail(k.line, k.name + "() has " + std::to_string(slot) + " pointer parameters, puzzle " +
                            id + " has " + std::to_string(globals) + " arrays: " + expected);
  call += ");";
  std::string quoted_path;
  for (const char c : path)
    quoted_path += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  std::string asserts;  // sizes the compiler checks (a macro's)
  // Shared arrays: the puzzle's of the same name (their slot and shape).
  for (size_t i = 0; i < a.shared.size(); ++i) {
    SharedDecl& d = a.shared[i];
    bool mine = d.function == k.name;
    for (const Function& f : a.functions)
      mine = mine || (!f.kernel && f.name == d.function);
    d.slot = 0;
    if (mine) {
      std::string theirs;
      for (size_t j = 0; j < table.size(); ++j) {
        const ArrayInfo& arr = table[j];
        if (!arr.shared()) continue;
        const std::string decl = "__shared__ " + std::string(type_name(arr.type)) + " " + arr.name +
                                 (arr.rows > 1 ? "[" + std::to_string(arr.rows) + "]" : "") + "[" +
                                 std::to_string(arr.cols) + "];";
        theirs += (theirs.empty() ? "" : " ") + decl;
        if (arr.name != d.name) continue;
        // No larger than the puzzle's room (a transpose's tile may leave out
        // its padding column): literal sizes here, macros by the compiler.
        const std::string why = "puzzle " + id + "'s shared array " + d.name + " is `" + decl + "`";
        long long count = 1;
        std::string dims;
        for (const std::string& dim : d.dims) {
          count = count < 0 || literal(dim) < 0 ? -1 : count * literal(dim);
          dims += "[" + dim + "]";
        }
        if (d.is_extern || elem_type_of(d.type) != type_tag(arr.type) ||
            (count >= 0 && count > (long long)arr.count()))
          return fail(d.line, why);
        if (count < 0)
          asserts += "#line " + std::to_string(d.line) + " \"" + quoted_path +
                     "\"\nstatic_assert(sizeof(" + type_name(arr.type) + dims +
                     ") <= " + std::to_string(arr.count()) + " * sizeof(" + type_name(arr.type) +
                     "), \"" + why + "\");\n";
        d.slot = int(j) + 1;
      }
      if (!d.slot)
        return fail(d.line, "__shared__ " + d.name + " is not puzzle " + id + "'s: its shared " +
                                (theirs.empty() ? "memory is none" : "arrays are " + theirs));
    }
    out.defines += "#define TS_PC_SLOT_" + std::to_string(i) + " " + std::to_string(d.slot) + "\n";
  }
  out.body = "namespace ts::lessons::plain_cuda_file {\nusing namespace ::ts::lesson_kit;\n" +
             asserts + "#line 1 \"<TileScope's setup of puzzle " + id +
             ">\"\n"
             "template <class Rec>\nTS_DEVICE void run_kernel(Rec& rec, const KernelArgs& args) {\n"
             "  KernelArgs ts_args = args;\n#line " +
             std::to_string(line) + " \"" + quoted_path + "\"\n  " + call +
             "\n#line 1 \"<TileScope's setup of puzzle " + id +
             ">\"\n}\nTS_KERNEL_BODY(Body, run_kernel(rec, args));\n"
             "struct Lesson {\n  static LessonSpec descriptor() { return ::ts::puzzles::setup(\"" +
             id + "\", \"" + quoted_path +
             "\"); }\n};\n}  // namespace ts::lessons::plain_cuda_file\n";
  return out;
}

}  // namespace ts::plain_cuda
