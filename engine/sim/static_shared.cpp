#include "engine/sim/static_shared.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace ts::sim {
namespace {

std::string demangled(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string s = d;
  std::free(d);
  return s;
}

// "f<T>(A&)::tile" -> {"f<T>(A&)", "tile"}: the function a static local
// belongs to (the last "::" outside brackets and parentheses).
std::pair<std::string, std::string> split_owner(const std::string& s) {
  int depth = 0;
  size_t cut = std::string::npos;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (depth == 0 && c == ':' && s[i + 1] == ':') cut = i;
  }
  if (cut == std::string::npos) return {"", s};
  return {s.substr(0, cut), s.substr(cut + 2)};
}

// Thread-local storage of the CUDA runtime linked into a plug-in's GPU half
// (libcudart_static's own 4 KiB, found on an H200): not the lesson's
// __shared__ arrays, which are the file's own symbols.
bool toolkit_symbol(const std::string& full) {
  for (const char* prefix :
       {"libcudart_static", "libcudadevrt", "cudart::", "__cudart", "__cuda", "__nv"})
    if (full.rfind(prefix, 0) == 0) return true;
  return false;
}

template <class T>
bool read_at(const std::vector<char>& f, uint64_t at, T* out) {
  if (at > f.size() || f.size() - at < sizeof(T)) return false;
  std::memcpy(out, f.data() + at, sizeof(T));
  return true;
}

// From the ELF file's .symtab (or .dynsym): every STT_TLS object.
bool from_symbols(const char* path, StaticShared& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::vector<char> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (!read_at(f, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
    return false;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i)
    if (!read_at(f, eh.e_shoff + i * sizeof(Elf64_Shdr), &sections[i])) return false;
  const Elf64_Shdr* table = nullptr;
  for (const uint32_t kind : {uint32_t(SHT_SYMTAB), uint32_t(SHT_DYNSYM)}) {
    for (const Elf64_Shdr& s : sections)
      if (s.sh_type == kind && s.sh_link < sections.size()) table = &s;
    if (table) break;
  }
  if (!table || table->sh_entsize != sizeof(Elf64_Sym)) return false;
  const Elf64_Shdr& names = sections[table->sh_link];
  std::map<std::string, uint64_t> by_function;
  bool any = false;
  for (uint64_t at = table->sh_offset; at + sizeof(Elf64_Sym) <= table->sh_offset + table->sh_size;
       at += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    if (!read_at(f, at, &sym)) return false;
    if (ELF64_ST_TYPE(sym.st_info) != STT_TLS || sym.st_shndx == SHN_UNDEF || sym.st_size == 0 ||
        sym.st_name >= names.sh_size || names.sh_offset + sym.st_name >= f.size())
      continue;
    const char* raw = f.data() + names.sh_offset + sym.st_name;
    if (!std::memchr(raw, 0, f.size() - (names.sh_offset + sym.st_name))) continue;
    const std::string full = demangled(raw);
    if (toolkit_symbol(full)) continue;
    const auto [function, name] = split_owner(full);
    any = true;
    if (full.rfind("guard variable for ", 0) != 0 && name.rfind("__tls", 0) != 0)
      out.arrays.push_back({name, function, sym.st_value, sym.st_size});
    const uint64_t sum = by_function[function] += sym.st_size;
    if (sum > out.bytes) out.bytes = sum, out.function = function;
    if (sym.st_size > out.largest_bytes) out.largest_bytes = sym.st_size, out.largest = name;
  }
  return any;
}

// Without symbols: the module's whole TLS segment, as one.
bool from_segment(const void* base, StaticShared& out) {
  struct Find {
    uintptr_t base;
    uint64_t tls = 0;
    bool found = false;
  } find{reinterpret_cast<uintptr_t>(base)};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* f = static_cast<Find*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && ph.p_offset == 0 && info->dlpi_addr + ph.p_vaddr == f->base)
            f->found = true;
        }
        if (!f->found) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_TLS) f->tls = info->dlpi_phdr[i].p_memsz;
        return 1;
      },
      &find);
  if (!find.found) return false;
  out.bytes = out.largest_bytes = find.tls;
  out.largest = "the module's thread-local data";
  return true;
}

}  // namespace

StaticShared static_shared_of(const void* code) {
  Dl_info info{};
  if (!code || !dladdr(code, &info) || !info.dli_fname) return {};
  static std::mutex mutex;
  static std::map<std::tuple<std::string, const void*, uint64_t, int64_t, int64_t>, StaticShared>
      cache;
  const std::lock_guard<std::mutex> lock(mutex);
  // The file's identity too: a lesson file compiled again may load at the same address.
  struct stat st {};
  stat(info.dli_fname, &st);
  const auto key = std::make_tuple(std::string(info.dli_fname), info.dli_fbase, uint64_t(st.st_ino),
                                   int64_t(st.st_mtim.tv_sec), int64_t(st.st_mtim.tv_nsec));
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  StaticShared s;
  s.known = from_symbols(info.dli_fname, s);
  if (!s.known) {
    s = StaticShared{};
    s.known = from_segment(info.dli_fbase, s);
  }
  cache[key] = s;
  return s;
}

namespace {

bool overlaps(const SharedRanges& seen, const char* at, uint64_t bytes) {
  for (const auto& [base, n] : seen) {
    const char* b = static_cast<const char*>(base);
    if (b < at + bytes && at < b + std::max<size_t>(n, 1)) return true;
  }
  return false;
}

bool any_set(const char* p, uint64_t bytes) {
  for (uint64_t i = 0; i < bytes; ++i)
    if (p[i]) return true;
  return false;
}

// This thread's TLS block of the module holding `code` (nullptr: the thread
// never touched the module's thread-local data). The program itself too,
// which dlopen cannot name.
const char* tls_block(const void* code) {
  Dl_info info{};
  if (!dladdr(code, &info)) return nullptr;
  struct Find {
    const void* base;
    const char* block = nullptr;
  } find{info.dli_fbase};
  dl_iterate_phdr(
      [](dl_phdr_info* i, size_t, void* data) {
        auto* f = static_cast<Find*>(data);
        for (int k = 0; k < i->dlpi_phnum; ++k) {
          const ElfW(Phdr)& ph = i->dlpi_phdr[k];
          if (ph.p_type == PT_LOAD && ph.p_offset == 0 &&
              reinterpret_cast<const void*>(i->dlpi_addr + ph.p_vaddr) == f->base) {
            f->block = static_cast<const char*>(i->dlpi_tls_data);
            return 1;
          }
        }
        return 0;
      },
      &find);
  return find.block;
}

}  // namespace

// Matched by address, not by name or size: the storage's name is not the
// traced array's (`tile_mem` behind `tile`), and two arrays may have one
// size; the recorder sees the base each traced access goes through, and
// the symbol table gives each array's offset in the thread's TLS block.
std::vector<UntracedShared> untraced_shared(const void* code, const SharedRanges& seen,
                                            const void* dynamic, uint64_t dynamic_bytes) {
  std::vector<UntracedShared> out;
  const StaticShared s = static_shared_of(code);
  const char* block = tls_block(code);
  for (const SharedSymbol& a : s.arrays) {
    const char* at = block ? block + a.offset : nullptr;
    if (at && overlaps(seen, at, a.bytes)) continue;
    const bool written = at && any_set(at, a.bytes);
    // An array nobody wrote is reported only where it is surely the file's
    // own: declared in a kernel or helper the simulator ran (its owner names
    // SimRec), in a lesson's namespace, or plain CUDA's storage. Thread-local
    // storage of a library the plug-in links is neither (the CUDA runtime's
    // differs between toolkits: besides libcudart_static's 4 KiB, a 16-byte
    // `global` in the plug-ins built on the H200).
    const bool own = a.function.find("ts::sim::SimRec") != std::string::npos ||
                     a.function.rfind("ts::lessons::", 0) == 0 || a.name.rfind("ts_mem_", 0) == 0 ||
                     a.function.empty();
    if (!written && !own) continue;
    std::string name = a.name;
    if (name.rfind("ts_mem_", 0) == 0) name = name.substr(7);  // plain CUDA's storage
    out.push_back({name, a.function, a.bytes, written});
  }
  const char* d = static_cast<const char*>(dynamic);
  if (d && dynamic_bytes && !overlaps(seen, d, dynamic_bytes))
    out.push_back({"dynamic shared memory", "", dynamic_bytes, any_set(d, dynamic_bytes)});
  return out;
}

}  // namespace ts::sim
