// The tokens of a plain CUDA file (engine/plain_cuda_detail.hpp): what the
// rewrite walks. Comments are kept apart, with their lines (the launch block
// is one); a preprocessor line is one token. And the edits made, applied
// line for line (engine/plain_cuda_editor.hpp).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "engine/plain_cuda_detail.hpp"
#include "engine/plain_cuda_editor.hpp"

namespace ts::plain_cuda {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

void tokenize(std::string_view s, std::vector<Token>& tokens, std::vector<Comment>& comments) {
  static const char* kPunct3[] = {"<<=", ">>=", "...", "->*"};
  static const char* kPunct2[] = {"::", "->", "++", "--", "<=", ">=", "==", "!=", "&&", "||",
                                  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>"};
  int line = 1;
  bool line_start = true;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line, ++i, line_start = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '*')) {
      const bool block = s[i + 1] == '*';
      size_t end = block ? s.find("*/", i + 2) : s.find('\n', i);
      end = end == std::string_view::npos ? s.size() : end + (block ? 2 : 0);
      comments.push_back({i, end, line});
      line += int(std::count(s.begin() + long(i), s.begin() + long(end), '\n'));
      i = end;
      continue;
    }
    const size_t b = i;
    const int l = line;
    Tok kind = Tok::Punct;
    if (c == '#' && line_start) {
      kind = Tok::Preproc;
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') ++line, ++i;
        ++i;
      }
    } else if (ident_start(c)) {
      kind = Tok::Ident;
      while (i < s.size() && ident_char(s[i]))
        ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      kind = Tok::Number;
      while (i < s.size() && (ident_char(s[i]) || s[i] == '.' ||
                              ((s[i] == '+' || s[i] == '-') && std::strchr("eEpP", s[i - 1]))))
        ++i;
    } else if (c == '"' || c == '\'') {
      kind = Tok::String;
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
    } else {
      size_t n = 1;
      for (const char* p : kPunct3)
        if (s.substr(i, 3) == p) n = 3;
      if (n == 1)
        for (const char* p : kPunct2)
          if (s.substr(i, 2) == p) n = 2;
      i += n;
    }
    line_start = false;
    tokens.push_back({kind, b, std::min(i, s.size()), l});
  }
}

std::string TokenEditor::apply() {
  // At one offset: insertions before a replacement that starts there.
  std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if ((a.begin == a.end) != (b.begin == b.end)) return a.begin == a.end;
    return a.rank < b.rank;
  });
  std::string out;
  size_t at = 0;
  for (const Edit& e : edits_) {
    if (e.begin < at) continue;  // inside a range already replaced (main)
    out.append(s_.substr(at, e.begin - at));
    out += e.text;
    // The lines stay where they were: a replaced range's line breaks are kept.
    out.append(size_t(std::count(s_.begin() + long(e.begin), s_.begin() + long(e.end), '\n')),
               '\n');
    at = e.end;
  }
  out.append(s_.substr(at));
  return out;
}

}  // namespace ts::plain_cuda
