// Runs one block of simulated CUDA threads as fibers of the calling OS thread.
//
// Every thread is a fiber with its own stack (switched by a few lines of
// assembly on x86-64 and aarch64, by ucontext elsewhere). A thread runs until
// it reaches a *step* -- a recorded access or a barrier -- and then yields to
// the scheduler, which decides which warp advances next. A warp step resumes
// every runnable lane of that warp once, in lane order, so the 32 lanes of a
// warp move in lockstep between accesses, as on the GPU.
//
// Barrier semantics are the hardware's: a thread at a barrier waits until
// every thread of its block that has not exited has arrived. A barrier that
// not every thread passes through (threads waiting at different
// `__syncthreads()` statements, or a thread that exited without this one) is
// CUDA's undefined behaviour ("likely to hang"): the barrier opens as it
// would on the hardware, and take_divergences() names the threads and lines,
// once per block. All barriers of a block are one barrier (like `bar.sync 0`,
// which every `__syncthreads()` compiles to), whatever their number in the
// source. A warp barrier
// (`__syncwarp()`, full mask) waits for the live lanes of its own warp only.
// A warp shuffle is a warp barrier that exchanges one value per lane: each
// lane publishes its value and arrives; once the warp is released every lane
// reads its source's value in the warp step that resumes them, before any of
// them can publish again, whatever the schedule. A match (__match_any_sync)
// is the same meeting: each lane then reads every live lane's value.
//
// Masks (a plain CUDA file's __shfl_*_sync, __ballot_sync, __syncwarp(mask);
// engine/sim/fiber_warp.cpp): the lanes of a mask meet apart from the rest of
// the warp, and the meeting opens once every lane of the mask that has not
// exited waits there with the same mask (CUDA's rule). A lane outside its own
// mask, or a shuffle that reads a lane outside the mask or one that has
// exited, is undefined in CUDA: the run ends with a KernelError naming the
// lanes and the line. Lanes of a mask that wait with another mask, or at a
// __syncthreads(), never meet: the run ends as a deadlock that says so.
//
// Reconvergence: a lane that takes no branch of an `if` reaches its next
// access sooner than the lanes that run it. On the GPU the compiler makes the
// warp reconverge after the branch (BSSY / BSYNC), so the idle lanes wait for
// the others; the simulator sees no branches, only barrier sites, which a
// kernel places where every thread of the block arrives: where the warp has
// reconverged. So at a barrier the run removes, a lane still waits until no
// lane of its warp can move without waiting (at that site or another removed
// one, at a kept barrier, or exited). Without it the idle lanes of
// scan.blelloch's up-sweep ran ahead into the down-sweep, an order racecheck
// never saw on the GPU (docs/measurements/racecheck_h200). It records nothing
// and orders nothing: the hazard analysis sees no barrier there.
//
// Schedules (model/trace.hpp `Schedule`):
//   Lockstep  every warp takes one step in turn: warp 0, warp 1, ..., again.
//   WarpSkew  as Lockstep, but the warps in `skew_warps` start `skew_steps`
//             steps late, and again after every barrier release: they stay
//             behind, like a warp that sleeps in every phase.
//   Random    a seeded splitmix64 picks which runnable warp steps next.
// Everything is deterministic: the same schedule gives the same order of
// steps on every run and every machine.
#pragma once

#include <pthread.h>
#include <ucontext.h>

#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/catalogue.hpp"
#include "lessons/cuda_compat.hpp"
#include "model/trace.hpp"

// x86-64 and aarch64 ELF systems: switch stacks with a hand-written routine
// that saves the callee-saved registers (no signal-mask system call, unlike
// swapcontext: about 4x faster per step). Define TS_SIM_UCONTEXT to use
// ucontext anyway (CI builds the simulator tests that way too).
#if (defined(__x86_64__) || defined(__aarch64__)) && defined(__ELF__) && !defined(TS_SIM_UCONTEXT)
#define TS_SIM_ASM_SWITCH 1
#else
#define TS_SIM_ASM_SWITCH 0
#endif

namespace ts::sim {

// What a simulated thread throws for a misuse CUDA leaves undefined (a lane
// outside its own shuffle mask): the run stops with the message as its error.
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class FiberBlock {
 public:
  // Runs one simulated thread: `entry(user, thread)` with the builtins of
  // `thread` already current. Returning from it exits the thread.
  using Entry = void (*)(void* user, int thread);

  enum class State : uint8_t { Runnable, AtBarrier, AtWarpBarrier, Converging, Exited };

  static constexpr int kWarpSize = 32;
  // Room for CUDA's largest local memory (512 KiB a thread) and the
  // simulator's own frames. Only the pages a thread touches are ever backed
  // (MAP_NORESERVE): a kernel without local arrays costs a few KiB a thread.
  // Below each stack a guard region turns an overflow into a named failure.
  static constexpr size_t kLocalMemoryBytes = 512 * 1024;
#if defined(__SANITIZE_ADDRESS__) || defined(TS_SANITIZED)
  static constexpr size_t kDefaultStackBytes =
      4 * kLocalMemoryBytes;  // sanitizer frames are larger
#else
  static constexpr size_t kDefaultStackBytes = kLocalMemoryBytes + 64 * 1024;
#endif
  static constexpr size_t kGuardBytes = 64 * 1024;

  explicit FiberBlock(size_t stack_bytes = kDefaultStackBytes);
  ~FiberBlock();
  FiberBlock(const FiberBlock&) = delete;
  FiberBlock& operator=(const FiberBlock&) = delete;

  // Runs every thread of block `block_idx` to completion under `schedule`.
  // Stacks are allocated on first use and reused by later blocks. Returns an
  // empty string, or what went wrong (a deadlock, stacks out of memory).
  std::string run_block(const Dim3& grid, const Dim3& block, const Dim3& block_idx,
                        void* dynamic_shared, const Schedule& schedule, Entry entry, void* user);

  // --- called from inside a running thread (through the recorder) ---
  // Ends this thread's step: back to the scheduler until its warp steps again.
  void step();
  // Arrives at the block's barrier (the arrival is this step) and returns
  // once every live thread of the block has arrived.
  void barrier_wait();
  // Arrives at this thread's warp barrier (the arrival is this step) and
  // returns once every live lane of its warp has arrived.
  void warp_barrier_wait();
  // A warp shuffle: publishes `bits`, waits for the warp, returns what lane
  // `src_lane` of this warp published (this thread's own bits when that lane
  // does not exist in the block).
  uint64_t warp_exchange(uint64_t bits, int src_lane);
  // A warp vote (__match_any_sync, full mask): publishes `bits`, waits for
  // the warp, returns the lanes of this warp that published the same bits
  // (this lane's bit always set; lanes that exited before it take no part).
  uint32_t warp_match_any(uint64_t bits);
  // The same meetings with a mask, for a plain CUDA file's intrinsic `op`
  // (the rules in the file comment; a misuse throws KernelError):
  // a shuffle that reads lane `src_lane` of this warp,
  uint64_t warp_shuffle(uint64_t bits, int src_lane, uint32_t mask, const char* op);
  // a vote: the mask's lanes that have not exited and whose predicate holds,
  uint32_t warp_ballot(bool pred, uint32_t mask, const char* op);
  // __syncwarp(mask).
  void warp_sync(uint32_t mask);
  // Throws KernelError: "thread (x, y, z) of block (x, y, z) " + what.
  [[noreturn]] void fail(const std::string& what) const;
  // A removed barrier: not a barrier, but the place where the lanes of a warp
  // have reconverged on the GPU (rule in the file comment): waits until no
  // lane of this warp can run without waiting, records nothing, orders nothing.
  void warp_converge();

  // The source line the running thread has reached (its last recorded access
  // or barrier), for the messages that name a stuck or diverged thread.
  void at_line(int line) {
    fibers_[current_].line = line;
  }

  int current_thread() const {
    return current_;
  }
  const ThreadBuiltins& builtins(int thread) const {
    return fibers_[thread].builtins;
  }
  // The last line `thread` reached (what a crash report names).
  int line(int thread) const {
    return fibers_[thread].line;
  }
  // The global step counter: one tick per warp step, across blocks and runs
  // of this FiberBlock. It is the simulator's clock.
  uint64_t clock() const {
    return clock_;
  }
  // Thread steps (resumptions) so far, and a limit beyond which a run is
  // stopped with an error instead of spinning for ever (0: no limit).
  uint64_t thread_steps() const {
    return thread_steps_;
  }
  void set_step_limit(uint64_t limit) {
    step_limit_ = limit;
  }

  // A thread that runs on without ever reaching a recorded access (a loop
  // that touches no array) never hands control back, so no step limit can
  // stop it. Another thread watches progress() and, where it stands still,
  // calls interrupt_if_stalled(): a signal to the simulating OS thread makes
  // the running fiber give up at once (it is never resumed), and the block
  // ends with a message naming the thread and its last line. Thread-safe.
  uint64_t progress() const {
    return progress_.load(std::memory_order_relaxed);
  }
  // Interrupts `os_thread` (the one running run_block) if progress() is still
  // `seen` when the signal arrives and a simulated thread is running.
  void interrupt_if_stalled(pthread_t os_thread, uint64_t seen, double seconds);

  // The barrier divergences found so far (the first of each block that had
  // one), handed over and cleared.
  std::vector<std::string> take_divergences() {
    return std::exchange(divergences_, {});
  }

  // The FiberBlock whose block is running on this OS thread (nullptr outside).
  static FiberBlock* active();

  // How this build switches fibers: "x86-64 assembly", "aarch64 assembly" or
  // "ucontext" (tests check the fallback build really uses the fallback).
  static const char* switch_kind();

 private:
  struct Fiber {
#if TS_SIM_ASM_SWITCH
    void* sp = nullptr;  // saved stack pointer while switched out
#else
    ucontext_t ctx;
#endif
    char* stack = nullptr;  // usable bytes: stack_bytes_, below a guard page
    State state = State::Exited;
    int line = 0;                   // the last line it reached (at_line)
    uint32_t warp_mask = ~0u;       // the mask of the warp meeting it waits at
    const char* warp_op = nullptr;  // its intrinsic (a plain CUDA file's), or none
    uint32_t arrivals = 0;          // block barriers it has arrived at
    uint64_t steps = 0;             // resumptions in this block: who spins when the limit is hit
    ThreadBuiltins builtins;
    void* asan_fake_stack = nullptr;
  };

  static void trampoline();
  static void on_stall_signal(int);
  static void on_fault_signal(int, siginfo_t* info, void* context);
  static void install_fault_handler();  // once per process, and an alternate stack per OS thread
  void note_overflow(int thread);       // the error for a fiber that overflowed its stack (cold)
  void note_stall(int thread);          // the error for a fiber the handler gave up (cold)
  std::string who(int thread) const;    // "thread (x, y, z) of block (x, y, z)"
  bool ensure_stacks(int threads);
  static size_t guard_bytes();  // kGuardBytes in whole pages
  void resume(int thread);
  void switch_to_scheduler(bool exiting);
  void step_warp(int warp);
  std::string step_limit_error() const;  // the message when thread_steps_ passes step_limit_
  void release_barrier();
  // The CUDA rule: a __syncthreads() is reached by every thread of the block
  // that has not exited, or by none. Empty, or the message that names two
  // threads that broke it and their lines.
  std::string barrier_divergence() const;
  // Arrives at a warp meeting of the lanes of `mask` (op: for messages).
  void wait_at_warp(uint32_t mask, const char* op);
  // Opens every meeting of `warp` whose mask's live lanes all wait with that mask.
  void release_warp_barrier(int warp);
  // "waits at the warp barrier on line N" (or the intrinsic and its mask).
  std::string warp_wait_text(int thread) const;
  // Why a warp meeting of `thread` cannot open: the lane of its mask it waits for.
  std::string warp_wait_reason(int thread) const;
  void release_converging(int warp);

  size_t stack_bytes_;
  size_t map_bytes_ = 0;
  std::vector<Fiber> fibers_;  // one per thread of the current block
  int stacks_ = 0;             // fibers_ with a stack
#if TS_SIM_ASM_SWITCH
  void* scheduler_sp_ = nullptr;
#else
  ucontext_t scheduler_ctx_;
#endif
  int current_ = -1;

  // State of the block being run.
  int threads_ = 0, warps_ = 0;
  int exited_ = 0, at_barrier_ = 0;
  std::vector<int> runnable_in_warp_;
  std::vector<int> at_warp_barrier_;  // lanes of each warp waiting at its warp barrier
  std::vector<int> converging_;       // lanes of each warp waiting at a removed barrier
  std::vector<uint64_t> exchange_;    // per thread: the value it published for a shuffle
  std::vector<int64_t> delay_;        // WarpSkew: steps a warp still waits
  Schedule schedule_;
  uint64_t clock_ = 0;
  uint64_t thread_steps_ = 0, step_limit_ = 0;
  // Blocks run to the end so far, and the most steps one of their threads
  // took: a block whose threads take no more is slow, not stuck.
  uint64_t blocks_done_ = 0, most_steps_done_ = 0;
  Entry entry_ = nullptr;
  void* user_ = nullptr;
  void* dynamic_shared_ = nullptr;
  std::string error_;  // set by a thread that failed; ends the block
  std::vector<std::string> divergences_;
  bool block_diverged_ = false;  // this block's divergence was said

  // The stall watch (interrupt_if_stalled): thread steps so far, published;
  // the progress the watcher saw, and how long it stood still; set by the
  // signal handler when it gave up a fiber.
  std::atomic<uint64_t> progress_{0};
  std::atomic<uint64_t> stall_seen_{~uint64_t(0)};
  std::atomic<double> stall_seconds_{0};
  volatile std::sig_atomic_t stalled_ = 0;
  volatile std::sig_atomic_t overflowed_ = 0;  // set by the fault handler

  // AddressSanitizer's view of the scheduler's stack (learned on the first switch).
  const void* sched_stack_bottom_ = nullptr;
  size_t sched_stack_size_ = 0;
};

}  // namespace ts::sim
