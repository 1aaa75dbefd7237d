// The plug-in cache as a place nobody else can plant code: a folder of the
// user's own (made 0700, refused when another user owns it or others may
// write to it), and every plug-in's SHA-256 recorded when it is made and
// checked on the very bytes dlopen then maps.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/lesson_file_compile.hpp"

namespace ts::lesson_file_detail {
namespace fs = std::filesystem;
namespace {

// SHA-256 (FIPS 180-4), for the plug-ins' bytes: FNV is a cache key, not a seal.
struct Sha256 {
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<unsigned char, 64> block{};
  size_t used = 0;
  uint64_t bits = 0;

  static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
  void compress() {
    static constexpr uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 |
             uint32_t(block[4 * i + 2]) << 8 | uint32_t(block[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 =
          hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  void add(const unsigned char* p, size_t n) {
    bits += uint64_t(n) * 8;
    for (size_t i = 0; i < n; ++i) {
      block[used++] = p[i];
      if (used == 64) compress(), used = 0;
    }
  }
  std::string hex() {
    const uint64_t total = bits;
    const unsigned char one = 0x80, zero = 0;
    add(&one, 1);
    while (used != 56)
      add(&zero, 1);
    for (int i = 7; i >= 0; --i) {
      const unsigned char byte = static_cast<unsigned char>(total >> (8 * i));
      add(&byte, 1);
    }
    std::string out;
    char digits[9];
    for (const uint32_t v : h) {
      std::snprintf(digits, sizeof digits, "%08x", v);
      out += digits;
    }
    return out;
  }
};

// A folder that only this user can write to, or why not.
std::optional<std::string> check_private(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return "cannot use the plug-in cache " + dir.string() + ": " + std::strerror(errno);
  const std::string fix =
      ": TileScope loads only plug-ins from a folder no one else can write to; remove it, or "
      "set XDG_CACHE_HOME to a folder of your own";
  if (!S_ISDIR(st.st_mode)) return "the plug-in cache " + dir.string() + " is not a folder" + fix;
  if (st.st_uid != ::geteuid())
    return "the plug-in cache " + dir.string() + " belongs to user " + std::to_string(st.st_uid) +
           ", not to you (" + std::to_string(::geteuid()) + ")" + fix;
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    return "the plug-in cache " + dir.string() + " may be written by others (mode " + mode + ")" +
           fix + " (chmod 700 " + dir.string() + ")";
  }
  return std::nullopt;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  Sha256 s;
  s.add(reinterpret_cast<const unsigned char*>(data.data()), data.size());
  return s.hex();
}

std::optional<std::string> private_cache_dir(const fs::path& dir) {
  // The folder above ("tilescope") and the cache itself are TileScope's:
  // made 0700, and checked whoever made them. What lies above is the user's.
  std::error_code ec;
  fs::create_directories(dir.parent_path().parent_path(), ec);
  for (const fs::path& p : {dir.parent_path(), dir}) {
    if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot create the plug-in cache " + p.string() + ": " + std::strerror(errno);
    if (auto problem = check_private(p)) return problem;
  }
  return std::nullopt;
}

int open_verified(const fs::path& so, const std::string& recorded, std::string& why) {
  const int fd = ::open(so.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    why = so.string() + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st {};
  std::string bytes;
  char buf[1 << 16];
  ssize_t n = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      !(st.st_mode & (S_IWGRP | S_IWOTH))) {
    while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) bytes.append(buf, size_t(n));
  } else {
    n = -1;
  }
  if (n == 0 && !recorded.empty() && sha256_hex(bytes) == recorded) return fd;
  ::close(fd);
  why = "the cached plug-in " + so.string() +
        (recorded.empty() ? " has no SHA-256 recorded (an older TileScope made it)"
                          : " is not the one TileScope made (its SHA-256 or its owner differs)") +
        ": compiled again";
  return -1;
}

}  // namespace ts::lesson_file_detail
