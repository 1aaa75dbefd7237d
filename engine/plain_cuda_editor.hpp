// The token editor under the plain CUDA rewrite (engine/plain_cuda.cpp): the
// file's tokens, the edits made to them and what the rewrite found; every
// edit stays on its line (apply). GroupRules, the rewrite of cooperative
// groups (engine/plain_cuda_groups.cpp), builds on it. Internal to the engine.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/plain_cuda_detail.hpp"

namespace ts::plain_cuda {

// A replacement of [begin, end) (an insertion where they are equal). `rank`
// orders insertions at one offset: the inner expression's closing first.
struct Edit {
  size_t begin, end;
  std::string text;
  int rank = 0;
};

class TokenEditor {
 protected:
  explicit TokenEditor(std::string_view text) : s_(text) {
    tokenize(text, t_, out_.comments);
    out_.barriers.resize(1);  // ids from 1, as barrier_statements gives them
  }

  std::string_view str(size_t i) const {
    return i < t_.size() ? s_.substr(t_[i].begin, t_[i].end - t_[i].begin) : std::string_view();
  }
  bool is(size_t i, std::string_view w) const { return i < t_.size() && str(i) == w; }
  bool ident(size_t i) const { return i < t_.size() && t_[i].kind == Tok::Ident; }
  std::string text(size_t first, size_t last) const {  // tokens first..last, one space apart
    std::string out;
    for (size_t i = first; i <= last && i < t_.size(); ++i)
      out += (out.empty() ? "" : " ") + std::string(str(i));
    return out;
  }
  // The same, spaced as written by hand: "const float4*".
  std::string compact(size_t first, size_t last) const {
    std::string out;
    for (size_t i = first; i <= last && i < t_.size(); ++i)
      out += (i > first && ident(i) && ident(i - 1) ? " " : "") + std::string(str(i));
    return out;
  }
  void fail(size_t i, const std::string& what) {
    if (!out_.error.empty()) return;
    out_.error = what;
    out_.error_line = i < t_.size() ? t_[i].line : 0;
  }
  // The token after the group opened at `i` ("(", "[", "{" or "<").
  size_t skip_group(size_t i) const {
    const std::string_view open = str(i);
    const std::string_view close = open == "(" ? ")" : open == "[" ? "]" : open == "{" ? "}" : ">";
    int depth = 0;
    for (; i < t_.size(); ++i) {
      if (str(i) == open) ++depth;
      if (str(i) == close && --depth == 0) return i + 1;
      if (open == "<" && str(i) == ">>" && (depth -= 2) <= 0) return i + 1;
    }
    return t_.size();
  }
  // The token that ends the initializer starting at `i`: the `;` or `,` at
  // its own depth, or the bracket that closes around it (t_.size(): none).
  size_t initializer_end(size_t i) const {
    int depth = 0;
    for (; i < t_.size(); ++i) {
      if (is(i, "(") || is(i, "[") || is(i, "{")) ++depth;
      if (is(i, ")") || is(i, "]") || is(i, "}")) --depth;
      if (depth < 0 || (depth == 0 && (is(i, ";") || is(i, ",")))) return i;
    }
    return t_.size();
  }
  void edit(size_t i, std::string text) {
    edits_.push_back({t_[i].begin, t_[i].end, std::move(text)});
  }
  void insert_before(size_t i, std::string text, int rank = 0) {
    edits_.push_back({t_[i].begin, t_[i].begin, std::move(text), rank});
  }
  void insert_after(size_t i, std::string text, int rank = 0) {
    edits_.push_back({t_[i].end, t_[i].end, std::move(text), rank});
  }

  // A new barrier at token i: its id, from 1 in source order.
  int barrier(size_t i, bool warp) {
    out_.barriers.push_back({t_[i].line, warp});
    return int(out_.barriers.size()) - 1;
  }

  // The text with every edit made, line for line.
  std::string apply();

  std::string_view s_;
  std::vector<Token> t_;
  std::vector<Edit> edits_;
  Analysis out_;
};

// Cooperative groups (lessons/plain_cuda_groups.hpp).
class GroupRules : protected TokenEditor {
 protected:
  using TokenEditor::TokenEditor;
  // `#include <cooperative_groups.h>`: true where the line was one of its headers.
  bool groups_include(size_t i);
  // A group's operation at token i in the function whose parameters open at
  // `lparen`: rewritten (i moved past it), or false.
  bool group_op(size_t lparen, const std::string& function,
                const std::set<std::string>& device_names, size_t& i);
  bool is_tile(size_t lparen, size_t obj) const;

  bool groups_ = false;  // the file includes <cooperative_groups.h>
};

}  // namespace ts::plain_cuda
