// The compiler's messages read line by line with plain scanning: its output
// holds whatever a student's file made it print (a 200,000-character
// identifier, megabytes of one line), and std::regex recurses per character
// matched, so it overflowed the stack on such lines.
#include <algorithm>
#include <cctype>
#include <climits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/lesson_file.hpp"

namespace ts {
namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// The digits from `at` as an int (saturated, a line number of 30 digits is
// INT_MAX), and `at` moved past them; false when there is none.
bool read_number(std::string_view s, size_t& at, int& value) {
  const size_t start = at;
  long long v = 0;
  for (; at < s.size() && digit(s[at]); ++at)
    v = std::min<long long>(v * 10 + (s[at] - '0'), INT_MAX);
  value = int(v);
  return at > start;
}

bool starts(std::string_view s, size_t at, std::string_view word) {
  return s.substr(at, word.size()) == word;
}

// nvcc's front end (EDG): "file(line): error: message", "file(line): error #20-D: message";
// the file the shortest prefix that makes the rest match.
bool parse_edg(std::string_view line, CompilerDiagnostic& d) {
  static constexpr std::pair<std::string_view, std::string_view> kSeverities[] = {
      {"catastrophic error", "fatal error"},
      {"error", "error"},
      {"warning", "warning"},
      {"remark", "note"}};
  for (size_t open = line.find('(', 1); open != std::string_view::npos;
       open = line.find('(', open + 1)) {
    size_t at = open + 1;
    int number = 0;
    if (!read_number(line, at, number) || !starts(line, at, "): ")) continue;
    at += 3;
    for (const auto& [word, severity] : kSeverities) {
      if (!starts(line, at, word)) continue;
      size_t end = at + word.size();
      if (starts(line, end, " #")) {  // the message's number
        size_t code = end + 2;
        while (code < line.size() &&
               (std::isalnum(static_cast<unsigned char>(line[code])) || line[code] == '-'))
          ++code;
        if (code > end + 2 && starts(line, code, ": ")) end = code;
      }
      if (!starts(line, end, ": ")) continue;
      d = {std::string(line.substr(0, open)), number, 0, std::string(severity),
           std::string(line.substr(end + 2))};
      return true;
    }
  }
  return false;
}

// GCC and Clang: "file:line:column: severity: message", "file:line: severity:
// message", and the context "file:line:column:   required from here".
bool parse_gcc(std::string_view line, CompilerDiagnostic& d) {
  for (size_t colon = line.find(':', 1); colon != std::string_view::npos;
       colon = line.find(':', colon + 1)) {
    size_t at = colon + 1;
    int number = 0, column = 0;
    if (!read_number(line, at, number) || !starts(line, at, ":")) continue;
    ++at;
    size_t after_column = at;
    if (read_number(line, after_column, column) && starts(line, after_column, ": "))
      at = after_column + 1;
    else
      column = 0;
    if (!starts(line, at, " ")) continue;
    while (at < line.size() && line[at] == ' ')
      ++at;
    const std::string_view rest = line.substr(at);
    d = {std::string(line.substr(0, colon)), number, column, "note", std::string(rest)};
    for (const std::string_view severity : {"fatal error", "error", "warning", "note"})
      if (starts(rest, 0, severity) && starts(rest, severity.size(), ": ")) {
        d.severity = std::string(severity);
        d.message = std::string(rest.substr(severity.size() + 2));
        break;
      }
    return true;  // without a severity: context, "required from here", "in expansion of macro"
  }
  return false;
}

}  // namespace

std::vector<CompilerDiagnostic> parse_compiler_output(const std::string& text) {
  std::vector<CompilerDiagnostic> out;
  const std::string_view all(text);
  for (size_t at = 0; at < all.size();) {
    const size_t end = std::min(all.find('\n', at), all.size());
    const std::string_view line = all.substr(at, end - at);
    at = end + 1;
    CompilerDiagnostic d;
    if (parse_edg(line, d) || parse_gcc(line, d)) out.push_back(std::move(d));
  }
  return out;
}

std::string shortened(const std::string& s, size_t most) {
  if (s.size() <= most) return s;
  // Head and tail: "'aaa ... aaa' was not declared in this scope" keeps its point.
  const size_t tail = most / 3, head = most - tail;
  return s.substr(0, head) + " ... (" + std::to_string(s.size() - most) +
         " characters left out) ... " + s.substr(s.size() - tail);
}

}  // namespace ts
