// Runs the fuzz target over every file of the corpus with a plain main, so CI
// checks the corpus without clang. Files named valid-* must load, bad-* must
// be refused; anything else (files the fuzzer added) only must not crash.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/trace_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILES...: no files found\n", argv[0]);
    return 2;
  }
  int failures = 0, valid = 0, bad = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    std::string error;
    const bool loaded = ts::parse_trace(bytes, &error).has_value();
    const std::string name = f.filename().string();
    if (name.rfind("valid-", 0) == 0) {
      ++valid;
      if (!loaded) {
        std::fprintf(stderr, "FAIL %s should load: %s\n", name.c_str(), error.c_str());
        ++failures;
      }
    } else if (name.rfind("bad-", 0) == 0) {
      ++bad;
      if (loaded) {
        std::fprintf(stderr, "FAIL %s should be refused but loaded\n", name.c_str());
        ++failures;
      } else {
        std::printf("%-36s refused: %s\n", name.c_str(), error.c_str());
      }
    }
  }
  std::printf("%zu corpus files (%d valid, %d bad), %d failures\n", files.size(), valid, bad,
              failures);
  return failures ? 1 : 0;
}
