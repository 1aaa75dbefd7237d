// Plain CUDA in (docs/plain_cuda.md): a student's .cu, as nvcc compiles it,
// with its launch described in a comment block
//
//   /* tilescope: kernel tiledMatrixMul; params n=37; grid (n+15)/16, (n+15)/16;
//      block 16, 16; array A in n, n; array B in n, n; array C out n, n; arg width = n;
//      reference matmul */
//
// is rewritten on the same lines into the accessors of lessons/plain_cuda.hpp
// (kernels and __device__ helpers become templates over the recorder,
// pointer parameters traced pointers, __shared__ arrays traced arrays,
// __syncthreads() numbered barriers, `auto v = a[i]` a value), and the launch
// block becomes the lesson's descriptor. engine/lesson_file.cpp then compiles
// the result as it compiles any lesson file, so every load, store, atomic,
// shuffle and barrier is traced at the line where the student wrote it.
//
// Hand-written tokenizer, no compiler front end: what it does not recognise
// it leaves as written, and the compiler says so at the file's line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/catalogue.hpp"

namespace ts {

// A lesson file in plain CUDA: the path ends in ".cu".
bool is_plain_cuda_path(std::string_view path);

struct PlainCudaPlugin {
  std::string error;        // "<path>:<line>: <what>", when the file cannot be translated
  std::string rewritten;    // the file on its own lines, in the accessors
  std::string host_source;  // the plug-in's host half: #line, rewritten file, descriptor, entry
  std::string cuda_source;  // its GPU half, for nvcc
};

// `path`: the file's absolute path (the compiler's messages name it and its lines).
PlainCudaPlugin translate_plain_cuda(const std::string& path, std::string_view text);

// What the registry reads from the text (engine/catalogue.cpp): the barriers,
// numbered in source order (index = id, index 0 unused, as barrier_statements
// gives them), and the kernel the launch block names (or the first __global__).
std::vector<BarrierStatement> plain_cuda_barriers(std::string_view text);
std::string plain_cuda_kernel_name(std::string_view text);
// The puzzle a file solves (its launch block's `puzzle ID`), or "".
std::string plain_cuda_puzzle_id(std::string_view text);

}  // namespace ts
