// The bank and sector probe (issue 22): every pattern of the table
// (bench/bank_probe_patterns.hpp) as ONE warp instruction, so that Nsight
// Compute's counters for that launch are the hardware's answer for exactly
// those lanes. scripts/bank_probe.sh runs it under ncu and writes the JSON
// that io/bank_probe.hpp compares with the model.
//
//   bank_probe --patterns-only FILE   the table as JSON (no GPU needed)
//   bank_probe --list                 the table, one line per pattern
//   bank_probe --run [--first A] [--count N | --ids I,J,...] [--seed S]
//       launches patterns A..A+N-1 in id order (or the ids listed, in that
//       order), one kernel launch each, one warp of 32 threads, and prints
//       "launch <id> <kernel> <name>" per launch. No warm-up launch: ncu's
//       k-th profiled kernel is the k-th id.
//
// One kernel per (kind, width): probe_shared_ld_32/64/128, probe_shared_st_*,
// probe_shared_atom_32, probe_global_ld_*, probe_global_st_*,
// probe_global_red_32. The lanes' offsets and mask live in __constant__
// memory (read with LDC, which is no global load: a device array would add an
// LDG to every kernel's global counters); the memory instruction is inline
// PTX in `asm volatile`, so nvcc neither merges, splits nor removes it
// (cuobjdump -sass shows one LDS/LDS.64/LDS.128/STS.../ATOMS.ADD/LDG.E.../
// STG.E.../RED.E.ADD per kernel). Nothing else in a kernel touches memory.
// Exit status: 0 ok, 1 a CUDA error, 2 usage, 3 no GPU.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bank_probe_patterns.hpp"

namespace probe = ts::probe;

__constant__ unsigned c_offset[probe::kLanes];
__constant__ unsigned c_mask;
// Never set (0): the loaded values feed a trap behind it, so that ptxas cannot
// drop a load whose result is otherwise unused. No memory instruction runs.
__constant__ unsigned c_sink;
#define PROBE_SINK(v) \
  if (c_sink && (v) == lane) asm volatile("trap;");

// 16-byte aligned, and big enough for every shared offset of the table.
__shared__ __align__(16) unsigned char s_probe[probe::kProbeSharedBytes];

#define PROBE_PROLOGUE                                                   \
  const unsigned lane = threadIdx.x;                                     \
  if (!((c_mask >> lane) & 1u)) return;                                  \
  const unsigned off = c_offset[lane];                                   \
  const unsigned sa = unsigned(__cvta_generic_to_shared(s_probe)) + off; \
  unsigned char* const ga = g + off;                                     \
  (void)sa;                                                              \
  (void)ga;

// Shared loads: the loaded registers are unused; `volatile` keeps the load.
__global__ void probe_shared_ld_32(unsigned char* g) {
  PROBE_PROLOGUE
  unsigned a;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(a) : "r"(sa) : "memory");
  PROBE_SINK(a)
}
__global__ void probe_shared_ld_64(unsigned char* g) {
  PROBE_PROLOGUE
  unsigned a, b;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(sa) : "memory");
  PROBE_SINK(a ^ b)
}
__global__ void probe_shared_ld_128(unsigned char* g) {
  PROBE_PROLOGUE
  unsigned a, b, c, d;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "r"(sa)
               : "memory");
  PROBE_SINK(a ^ b ^ c ^ d)
}
__global__ void probe_shared_st_32(unsigned char* g) {
  PROBE_PROLOGUE
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(sa), "r"(lane) : "memory");
}
__global__ void probe_shared_st_64(unsigned char* g) {
  PROBE_PROLOGUE
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(sa), "r"(lane), "r"(off) : "memory");
}
__global__ void probe_shared_st_128(unsigned char* g) {
  PROBE_PROLOGUE
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(sa), "r"(lane), "r"(off),
               "r"(lane + 1), "r"(off + 1)
               : "memory");
}
// atomicAdd(int*) on shared memory; a lane-dependent value so that ptxas
// cannot aggregate the warp's lanes into one atomic.
__global__ void probe_shared_atom_32(unsigned char* g) {
  PROBE_PROLOGUE
  unsigned old;
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(sa), "r"(lane + 1) : "memory");
  PROBE_SINK(old)
}
__global__ void probe_global_ld_32(unsigned char* g) {
  PROBE_PROLOGUE
  unsigned a;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(a) : "l"(ga) : "memory");
  PROBE_SINK(a)
}
__global__ void probe_global_ld_64(unsigned char* g) {
  PROBE_PROLOGUE
  unsigned a, b;
  asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(ga) : "memory");
  PROBE_SINK(a ^ b)
}
__global__ void probe_global_ld_128(unsigned char* g) {
  PROBE_PROLOGUE
  unsigned a, b, c, d;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(ga)
               : "memory");
  PROBE_SINK(a ^ b ^ c ^ d)
}
__global__ void probe_global_st_32(unsigned char* g) {
  PROBE_PROLOGUE
  asm volatile("st.global.u32 [%0], %1;" ::"l"(ga), "r"(lane) : "memory");
}
__global__ void probe_global_st_64(unsigned char* g) {
  PROBE_PROLOGUE
  asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(ga), "r"(lane), "r"(off) : "memory");
}
__global__ void probe_global_st_128(unsigned char* g) {
  PROBE_PROLOGUE
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(ga), "r"(lane), "r"(off),
               "r"(lane + 1), "r"(off + 1)
               : "memory");
}
// atomicAdd(int*) whose result is unused: a reduction (RED), as nvcc emits it.
__global__ void probe_global_red_32(unsigned char* g) {
  PROBE_PROLOGUE
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(ga), "r"(lane + 1) : "memory");
}

namespace {

using Kernel = void (*)(unsigned char*);

Kernel kernel_of(const probe::Pattern& p) {
  const std::string k = p.kernel();
  struct Named {
    const char* name;
    Kernel fn;
  };
  static const Named all[] = {
      {"probe_shared_ld_32", probe_shared_ld_32},     {"probe_shared_ld_64", probe_shared_ld_64},
      {"probe_shared_ld_128", probe_shared_ld_128},   {"probe_shared_st_32", probe_shared_st_32},
      {"probe_shared_st_64", probe_shared_st_64},     {"probe_shared_st_128", probe_shared_st_128},
      {"probe_shared_atom_32", probe_shared_atom_32}, {"probe_global_ld_32", probe_global_ld_32},
      {"probe_global_ld_64", probe_global_ld_64},     {"probe_global_ld_128", probe_global_ld_128},
      {"probe_global_st_32", probe_global_st_32},     {"probe_global_st_64", probe_global_st_64},
      {"probe_global_st_128", probe_global_st_128},   {"probe_global_red_32", probe_global_red_32},
  };
  for (const Named& n : all)
    if (k == n.name) return n.fn;
  return nullptr;
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "bank_probe: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

int usage() {
  std::fprintf(stderr,
               "usage: bank_probe --patterns-only FILE | --list | --run [--first A] [--count N |"
               " --ids I,J,...] [--seed S]\n");
  return 2;
}

int run(const std::vector<probe::Pattern>& ps, const std::vector<size_t>& ids) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "bank_probe: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp prop{};
  if (!check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) return 1;
  std::printf("device: %s sm_%d%d\n", prop.name, prop.major, prop.minor);
  unsigned char* g = nullptr;  // cudaMalloc: 256-byte aligned, so offsets fix sectors and lines
  if (!check(cudaMalloc(&g, probe::kProbeGlobalBytes), "cudaMalloc")) return 1;
  if (!check(cudaMemset(g, 0, probe::kProbeGlobalBytes), "cudaMemset")) return 1;
  if (!check(cudaDeviceSynchronize(), "cudaDeviceSynchronize")) return 1;
  for (size_t i : ids) {
    if (i >= ps.size()) {
      std::fprintf(stderr, "bank_probe: no pattern %zu (the table has %zu)\n", i, ps.size());
      return 2;
    }
    const probe::Pattern& p = ps[i];
    Kernel k = kernel_of(p);
    if (!k) {
      std::fprintf(stderr, "bank_probe: pattern %d: no kernel %s\n", p.id, p.kernel().c_str());
      return 1;
    }
    if (!check(cudaMemcpyToSymbol(c_offset, p.offset.data(), sizeof c_offset), "offsets") ||
        !check(cudaMemcpyToSymbol(c_mask, &p.mask, sizeof c_mask), "mask"))
      return 1;
    k<<<1, probe::kLanes>>>(g);
    if (!check(cudaGetLastError(), "launch") || !check(cudaDeviceSynchronize(), p.name.c_str()))
      return 1;
    std::printf("launch %d %s %s\n", p.id, p.kernel().c_str(), p.name.c_str());
  }
  std::fflush(stdout);
  cudaFree(g);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = probe::kDefaultSeed;
  size_t first = 0, count = size_t(-1);
  const char* patterns_file = nullptr;
  const char* id_list = nullptr;
  bool list = false, do_run = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--patterns-only" && has_value)
      patterns_file = argv[++i];
    else if (a == "--list")
      list = true;
    else if (a == "--run")
      do_run = true;
    else if (a == "--first" && has_value)
      first = size_t(std::strtoull(argv[++i], nullptr, 10));
    else if (a == "--count" && has_value)
      count = size_t(std::strtoull(argv[++i], nullptr, 10));
    else if (a == "--ids" && has_value)
      id_list = argv[++i];
    else if (a == "--seed" && has_value)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else
      return usage();
  }
  const std::vector<probe::Pattern> ps = probe::probe_patterns(seed);
  if (patterns_file) {
    FILE* f = std::fopen(patterns_file, "w");
    if (!f) {
      std::perror(patterns_file);
      return 1;
    }
    const std::string s = probe::patterns_json(ps, seed);
    const bool ok = std::fwrite(s.data(), 1, s.size(), f) == s.size();
    if (std::fclose(f) != 0 || !ok) {
      std::perror(patterns_file);
      return 1;
    }
    std::printf("%zu patterns (seed %llu) -> %s\n", ps.size(), (unsigned long long)seed,
                patterns_file);
  }
  if (list)
    for (const probe::Pattern& p : ps)
      std::printf("%4d %-22s %-28s mask %08x\n", p.id, p.kernel().c_str(), p.name.c_str(), p.mask);
  if (do_run) {
    std::vector<size_t> ids;
    if (id_list) {
      for (const char* c = id_list; *c;) {
        char* end = nullptr;
        ids.push_back(size_t(std::strtoull(c, &end, 10)));
        if (end == c) return usage();
        c = *end == ',' ? end + 1 : end;
      }
    } else {
      for (size_t i = first; i < ps.size() && i - first < count; ++i)
        ids.push_back(i);
    }
    return run(ps, ids);
  }
  return patterns_file || list ? 0 : usage();
}
