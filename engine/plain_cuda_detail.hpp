// The parts of the plain CUDA translator (engine/plain_cuda.hpp): the
// rewrite of the kernels (plain_cuda.cpp) and the launch block and the
// descriptor generated from it (plain_cuda_launch.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/catalogue.hpp"

namespace ts::plain_cuda {

enum class Tok { Ident, Number, String, Punct, Preproc };
struct Token {
  Tok kind;
  size_t begin, end;  // offsets in the text
  int line;
};
struct Comment {
  size_t begin, end;  // the whole comment, delimiters included
  int line;
};

// A pointer or scalar parameter of a kernel.
struct Param {
  std::string name;
  std::string type;  // scalars: as written; pointers: the element type ("const float")
  bool pointer = false;
};

// A __shared__ declaration the rewrite turned into a traced array.
struct SharedDecl {
  std::string name, type;         // "tileA", "float"
  std::vector<std::string> dims;  // "TILE_WIDTH", "TILE_WIDTH"; empty: a scalar
  bool is_extern = false;         // extern __shared__ T name[]
  bool initialized = false;       // a __constant__ with values of its own: read untraced
  int line = 0;
  int slot = 0;          // ArraySlot, filled when the table is laid out
  std::string function;  // where it is declared
};

// A variable at file scope in memory the trace does not see:
// `__device__ float scratch[256];`, `__shared__ float raw[64];`, `__constant__ ...`.
struct FileVariable {
  std::string name, qualifier;  // "scratch", "__device__"
  int line = 0;
};

struct Function {
  std::string name;
  bool kernel = false;  // __global__ (else __device__)
  bool defined = false;
  int line = 0;
  std::vector<Param> params;
};

// What the rewrite found and made.
struct Analysis {
  std::string error;  // what is wrong, at error_line
  int error_line = 0;
  std::string rewritten;
  std::vector<Function> functions;    // rewritten ones, in source order
  std::vector<SharedDecl> shared;     // in source order
  std::vector<SharedDecl> constants;  // __constant__ arrays at file scope, in source order
  std::vector<FileVariable> file_variables;
  std::vector<BarrierStatement> barriers;  // index = id, [0] unused
  std::vector<Comment> comments;
  bool atomics = false, shuffles = false;
};

// A puzzle solution's generated lesson (engine/plain_cuda_puzzle.cpp): the
// shared arrays' slot defines and the body, whose descriptor is
// puzzles::setup(id, path). `targs`: the kernel's template arguments, "" or "16, ".
struct PuzzleGen {
  std::string error;  // what is wrong, at error_line
  int error_line = 0;
  std::string defines, body;
};
PuzzleGen puzzle_lesson(const std::string& path, Analysis& a, const Function& k,
                        const std::string& targs, const std::string& id, int line);

// Tokens (comments apart) and comments of `text`.
void tokenize(std::string_view text, std::vector<Token>& tokens, std::vector<Comment>& comments);
// The rewrite of the whole file (engine/plain_cuda.cpp); `dir`: the file's
// folder, for its own #include "..." lines.
Analysis analyse(std::string_view text, const std::string& dir = "");
// "const float" -> "F32", "int" -> "I32", "unsigned" -> "U32", "unsigned char" or
// "uint8_t" -> "U8"; empty when none fits.
std::string elem_type_of(const std::string& type);

}  // namespace ts::plain_cuda
