#include "engine/sim/fiber_block.hpp"

#include "model/splitmix64.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TS_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TS_FIBER_ASAN)
#define TS_FIBER_ASAN 1
#endif
#if defined(TS_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if TS_SIM_ASM_SWITCH && defined(__x86_64__)
// void ts_sim_switch(void** save_sp, void* load_sp): saves the callee-saved
// registers, the x87 control word and MXCSR on the current stack, stores the
// stack pointer in *save_sp, loads load_sp and restores the same from there.
// A new stack is laid out by run_block so that the first switch "returns"
// into FiberBlock::trampoline.
extern "C" void ts_sim_switch(void** save_sp, void* load_sp);
asm(R"(
  .text
  .globl ts_sim_switch
  .type ts_sim_switch, @function
ts_sim_switch:
  endbr64
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $16, %rsp
  stmxcsr 8(%rsp)
  fnstcw (%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  fldcw (%rsp)
  ldmxcsr 8(%rsp)
  addq $16, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ts_sim_switch, .-ts_sim_switch
)");
#elif TS_SIM_ASM_SWITCH && defined(__aarch64__)
// The same for AAPCS64: x19-x28, the frame pointer x29, the link register x30,
// d8-d15 (the low halves of v8-v15) and FPCR (rounding, flush-to-zero), 176
// bytes below the stack pointer. `ret` goes wherever the loaded x30 points: a
// new stack's x30 is ts_sim_fiber_start, which calls the trampoline (in x19)
// as the outermost frame, so unwinders and debuggers stop there.
extern "C" void ts_sim_switch(void** save_sp, void* load_sp);
extern "C" void ts_sim_fiber_start();
asm(R"(
  .text
  .p2align 2
  .globl ts_sim_switch
  .type ts_sim_switch, %function
ts_sim_switch:
  hint #34
  sub sp, sp, #176
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mrs x9, fpcr
  str x9, [sp, #160]
  mov x10, sp
  str x10, [x0]
  mov sp, x1
  ldr x10, [sp, #160]
  cmp x9, x10
  b.eq 1f
  msr fpcr, x10
1:
  ldp d14, d15, [sp, #144]
  ldp d12, d13, [sp, #128]
  ldp d10, d11, [sp, #112]
  ldp d8, d9, [sp, #96]
  ldp x29, x30, [sp, #80]
  ldp x27, x28, [sp, #64]
  ldp x25, x26, [sp, #48]
  ldp x23, x24, [sp, #32]
  ldp x21, x22, [sp, #16]
  ldp x19, x20, [sp, #0]
  add sp, sp, #176
  ret
  .size ts_sim_switch, .-ts_sim_switch

  .p2align 2
  .globl ts_sim_fiber_start
  .hidden ts_sim_fiber_start
  .type ts_sim_fiber_start, %function
ts_sim_fiber_start:
  .cfi_startproc
  .cfi_undefined x30
  hint #34
  blr x19
  brk #0
  .cfi_endproc
  .size ts_sim_fiber_start, .-ts_sim_fiber_start
)");
#endif

namespace ts::sim {

// Declared in lessons/cuda_compat.hpp: what `threadIdx`, `blockIdx`, ... and
// `extern __shared__` name while a simulated thread runs.
thread_local const ThreadBuiltins* current_builtins = nullptr;
thread_local void* current_dynamic_shared = nullptr;

namespace {

thread_local FiberBlock* tl_active = nullptr;

std::string dim_string(const Uint3& d) {
  std::string s = "(";
  s += std::to_string(d.x);
  s += ", ";
  s += std::to_string(d.y);
  s += ", ";
  s += std::to_string(d.z);
  s += ")";
  return s;
}

}  // namespace

FiberBlock* FiberBlock::active() {
  return tl_active;
}

const char* FiberBlock::switch_kind() {
#if TS_SIM_ASM_SWITCH && defined(__x86_64__)
  return "x86-64 assembly";
#elif TS_SIM_ASM_SWITCH
  return "aarch64 assembly";
#else
  return "ucontext";
#endif
}

FiberBlock::FiberBlock(size_t stack_bytes) : stack_bytes_(stack_bytes) {
#if !TS_SIM_ASM_SWITCH
  std::memset(&scheduler_ctx_, 0, sizeof scheduler_ctx_);  // no stack of its own (see run_block)
#endif
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  stack_bytes_ = (stack_bytes_ + page - 1) / page * page;
  map_bytes_ = stack_bytes_ + guard_bytes();  // plus a guard region below each stack
}

size_t FiberBlock::guard_bytes() {
  // Computed once (by the first FiberBlock), so the fault handler only reads it.
  static const size_t bytes = [] {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    return (kGuardBytes + page - 1) / page * page;
  }();
  return bytes;
}

FiberBlock::~FiberBlock() {
  for (int i = 0; i < stacks_; ++i) {
#if defined(TS_FIBER_ASAN)
    // An exited or abandoned fiber never unwinds its last frames, so their
    // redzones stay poisoned, and munmap does not clear ASan's shadow: the
    // next mapping at this address (a report file read by map_input) would
    // read as a stack-buffer-underflow.
    ASAN_UNPOISON_MEMORY_REGION(fibers_[i].stack, stack_bytes_);
#endif
    munmap(fibers_[i].stack - guard_bytes(), map_bytes_);
  }
}

bool FiberBlock::ensure_stacks(int threads) {
  if (int(fibers_.size()) < threads) fibers_.resize(threads);
  for (; stacks_ < threads; ++stacks_) {
    // Reserved, not committed: a page is backed when a thread first touches it.
    void* base = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return false;
    // An overflow faults in the guard (named by on_fault_signal) instead of
    // writing into the next stack.
    mprotect(base, guard_bytes(), PROT_NONE);
    fibers_[stacks_].stack = static_cast<char*>(base) + guard_bytes();
  }
  return true;
}

void FiberBlock::trampoline() {
  FiberBlock* self = tl_active;
#if defined(TS_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &self->sched_stack_bottom_, &self->sched_stack_size_);
#endif
  const int t = self->current_;
  try {
    self->entry_(self->user_, t);
  } catch (const KernelError& e) {
    if (self->error_.empty()) self->error_ = e.what();
  } catch (const std::exception& e) {
    if (self->error_.empty()) self->error_ = std::string("simulated thread failed: ") + e.what();
  } catch (...) {
    if (self->error_.empty()) self->error_ = "simulated thread failed with an unknown exception";
  }
  Fiber& f = self->fibers_[t];
  f.state = State::Exited;
  ++self->exited_;
  --self->runnable_in_warp_[t / kWarpSize];
  self->switch_to_scheduler(true);
  std::abort();  // an exited fiber is never resumed
}

void FiberBlock::resume(int thread) {
  Fiber& f = fibers_[thread];
  ++f.steps;
  ++thread_steps_;
  progress_.store(thread_steps_, std::memory_order_relaxed);
  current_ = thread;
  current_builtins = &f.builtins;
  current_dynamic_shared = dynamic_shared_;
#if defined(TS_FIBER_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, f.stack, stack_bytes_);
#endif
#if TS_SIM_ASM_SWITCH
  ts_sim_switch(&scheduler_sp_, f.sp);
#else
  swapcontext(&scheduler_ctx_, &f.ctx);
#endif
#if defined(TS_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  current_ = -1;
  if (stalled_) [[unlikely]]
    note_stall(thread);
  if (overflowed_) [[unlikely]]
    note_overflow(thread);
}

void FiberBlock::note_overflow(int thread) {
  overflowed_ = 0;  // its fiber gave up inside the fault handler: never resumed again
  const int line = fibers_[size_t(thread)].line;
  if (error_.empty())
    error_ = who(thread) + " overflowed its stack of " + std::to_string(stack_bytes_ / 1024) +
             " KiB" +
             (line > 0 ? " after line " + std::to_string(line)
                       : std::string(" before its first recorded access")) +
             ": local arrays (or a recursion) larger than the " +
             std::to_string(kLocalMemoryBytes / 1024) +
             " KiB of local memory CUDA gives a thread. The run was stopped there";
}

void FiberBlock::note_stall(int thread) {
  stalled_ = 0;  // its fiber gave up inside the signal handler: never resumed again
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.0f", stall_seconds_.load());
  // Line 0: it has reached no access yet, so no line is known; say so.
  const int line = fibers_[size_t(thread)].line;
  if (error_.empty())
    error_ = who(thread) + " ran for " + secs +
             " s without reaching a recorded access or barrier, " +
             (line > 0 ? "last at line " + std::to_string(line)
                       : std::string("and has reached none since it started (so no line is "
                                     "known: the loop is before its first access)")) +
             ": an endless loop that touches no array? (a loop condition that never changes, a "
             "counter that never reaches its bound). The run was stopped there";
}

void FiberBlock::switch_to_scheduler(bool exiting) {
  Fiber& f = fibers_[current_];
#if defined(TS_FIBER_ASAN)
  __sanitizer_start_switch_fiber(exiting ? nullptr : &f.asan_fake_stack, sched_stack_bottom_,
                                 sched_stack_size_);
#else
  (void)exiting;
#endif
#if TS_SIM_ASM_SWITCH
  ts_sim_switch(&f.sp, scheduler_sp_);
#else
  swapcontext(&f.ctx, &scheduler_ctx_);
#endif
#if defined(TS_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(f.asan_fake_stack, &sched_stack_bottom_, &sched_stack_size_);
#endif
}

// On the simulating OS thread, in whatever it was doing: only on a fiber's
// stack (not the scheduler's), and only where that fiber has made no step
// since the watcher looked (a loop of arithmetic: a yield takes nanoseconds),
// does it switch to the scheduler for good. Nothing here allocates.
void FiberBlock::on_stall_signal(int) {
  FiberBlock* self = tl_active;
  if (!self || self->current_ < 0 ||
      self->progress_.load(std::memory_order_relaxed) != self->stall_seen_.load())
    return;
  const char here = 0;
  const char* stack = self->fibers_[size_t(self->current_)].stack;
  if (&here < stack || &here >= stack + self->stack_bytes_) return;
  self->stalled_ = 1;
  self->switch_to_scheduler(true);
}

namespace {
struct sigaction previous_fault_action;  // restored for a fault that is not an overflow

// The alternate stack the fault handler runs on (the fiber's own is spent),
// one per OS thread that simulates; given back when the thread ends.
struct AltStack {
  std::vector<char> memory;
  bool ours = false;  // a thread with an alternate stack of its own keeps it
  AltStack() {
    stack_t old{};
    if (sigaltstack(nullptr, &old) != 0 || !(old.ss_flags & SS_DISABLE)) return;
    memory.resize(std::max<size_t>(64 * 1024, size_t(SIGSTKSZ)));
    stack_t ss{};
    ss.ss_sp = memory.data();
    ss.ss_size = memory.size();
    ours = sigaltstack(&ss, nullptr) == 0;
  }
  ~AltStack() {
    if (!ours) return;
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
  }
};
}  // namespace

// A fault in the guard below the running fiber's stack: that thread
// overflowed. It gives up for good (as a stalled one does) and the block ends
// with a message; any other fault is handed to whoever handled it before.
void FiberBlock::on_fault_signal(int sig, siginfo_t* info, void* context) {
  FiberBlock* self = tl_active;
  if (self && self->current_ >= 0 && info) {
    const char* stack = self->fibers_[size_t(self->current_)].stack;
    const auto* at = static_cast<const char*>(info->si_addr);
    if (at < stack && at >= stack - guard_bytes()) {
      self->overflowed_ = 1;
      self->switch_to_scheduler(true);
    }
  }
  if (previous_fault_action.sa_flags & SA_SIGINFO) {
    if (previous_fault_action.sa_sigaction) previous_fault_action.sa_sigaction(sig, info, context);
    return;
  }
  if (previous_fault_action.sa_handler != SIG_DFL && previous_fault_action.sa_handler != SIG_IGN) {
    previous_fault_action.sa_handler(sig);
    return;
  }
  // The default: back in place, and the access faults again and ends the process.
  signal(sig, SIG_DFL);
}

void FiberBlock::install_fault_handler() {
#if !defined(TS_FIBER_ASAN)  // AddressSanitizer names overflows itself
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &FiberBlock::on_fault_signal;
    // SA_NODEFER: the handler of an overflow never returns, so SIGSEGV must
    // not stay blocked; SA_ONSTACK: the fiber's stack has no room left.
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_fault_action);
  });
  thread_local AltStack alt_stack;
  (void)alt_stack;
#endif
}

void FiberBlock::interrupt_if_stalled(pthread_t os_thread, uint64_t seen, double seconds) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    // SIGURG is ignored by default; SA_NODEFER: the handler never returns, so
    // the signal must not stay blocked.
    struct sigaction sa {};
    sa.sa_handler = &FiberBlock::on_stall_signal;
    sa.sa_flags = SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGURG, &sa, nullptr);
  });
  stall_seconds_.store(seconds);
  stall_seen_.store(seen);
  pthread_kill(os_thread, SIGURG);
}

std::string FiberBlock::who(int thread) const {
  const ThreadBuiltins& b = fibers_[size_t(thread)].builtins;
  return "thread " + dim_string(b.thread_idx) + " of block " + dim_string(b.block_idx);
}

void FiberBlock::step() {
  switch_to_scheduler(false);
}

void FiberBlock::barrier_wait() {
  Fiber& f = fibers_[current_];
  f.state = State::AtBarrier;
  ++f.arrivals;
  ++at_barrier_;
  --runnable_in_warp_[current_ / kWarpSize];
  switch_to_scheduler(false);  // resumed by the scheduler only after the release
}

void FiberBlock::step_warp(int warp) {
  ++clock_;
  const int first = warp * kWarpSize, last = std::min(first + kWarpSize, threads_);
  for (int t = first; t < last && error_.empty(); ++t)
    if (fibers_[t].state == State::Runnable) resume(t);
  // A warp meeting opens when every live lane of its mask is there (lanes at a
  // block barrier are live: a __syncwarp they skip is the kernel's bug, a deadlock).
  if (at_warp_barrier_[warp] > 0) release_warp_barrier(warp);
  // Lanes at a removed barrier go on once no lane of the warp can run.
  if (converging_[warp] > 0 && runnable_in_warp_[warp] == 0) release_converging(warp);
  if (step_limit_ && thread_steps_ > step_limit_ && error_.empty()) error_ = step_limit_error();
}

std::string FiberBlock::step_limit_error() const {
  // The thread that spins: the one that took the most steps in this block
  // (not the warp's first, which may wait at a barrier for it).
  int stuck = 0;
  for (int t = 0; t < threads_; ++t)
    if (fibers_[t].state != State::Exited &&
        (fibers_[stuck].state == State::Exited || fibers_[t].steps > fibers_[stuck].steps))
      stuck = t;
  const Fiber& f = fibers_[size_t(stuck)];
  const std::string limit =
      "the kernel did not finish within " + std::to_string(step_limit_) + " thread steps";
  // Every thread of this block within what the blocks before it took: the
  // launch is long (more blocks or accesses than the lesson's counts say), not stuck.
  if (blocks_done_ > 0 && f.steps <= 2 * most_steps_done_ + 16)
    return limit + " after " + std::to_string(blocks_done_) + " blocks of at most " +
           std::to_string(most_steps_done_) +
           " steps a thread, no block stuck: too many steps for the simulator (the lesson "
           "makes far more accesses than its counts say); use smaller sizes, or a GPU";
  std::string m = limit +
                  " (several times what it should need): it looks stuck in an endless "
                  "loop; " +
                  who(stuck) + " was at line " + std::to_string(f.line) + " after " +
                  std::to_string(f.steps) + " steps in this block, more than any other thread";
  // Where the others wait, when they wait for it.
  for (int t = 0; t < threads_; ++t)
    if (fibers_[t].state != State::Exited && fibers_[t].state != State::Runnable &&
        fibers_[t].line != f.line) {
      m += "; " + who(t) + " waits at line " + std::to_string(fibers_[t].line);
      break;
    }
  return m;
}

std::string FiberBlock::barrier_divergence() const {
  int waiting = -1;
  for (int t = 0; t < threads_ && waiting < 0; ++t)
    if (fibers_[t].state == State::AtBarrier) waiting = t;
  if (waiting < 0) return "";
  const Fiber& w = fibers_[size_t(waiting)];
  const std::string rule =
      ": a __syncthreads() inside a branch (or after a return) that not every thread of the "
      "block takes. CUDA asks that every thread of the block reaches it, or none; a GPU may "
      "hang there, or let threads go on before the data they wait for is written (the "
      "simulator opened the barrier, as the hardware often does)";
  const std::string here = who(waiting) + " waits at the __syncthreads() on line " +
                           std::to_string(w.line) + " (its barrier number " +
                           std::to_string(w.arrivals) + ")";
  for (int t = 0; t < threads_; ++t) {
    const Fiber& f = fibers_[size_t(t)];
    if (f.state == State::AtBarrier && (f.line != w.line || f.arrivals != w.arrivals))
      return "barrier divergence: " + here + ", " + who(t) + " at the one on line " +
             std::to_string(f.line) + " (its barrier number " + std::to_string(f.arrivals) + ")" +
             rule;
    if (f.state == State::Exited && f.arrivals < w.arrivals)
      return "barrier divergence: " + here + ", but " + who(t) + " has exited after " +
             std::to_string(f.arrivals) + (f.arrivals == 1 ? " barrier" : " barriers") +
             " (last at line " + std::to_string(f.line) + "): it skipped this one" + rule;
  }
  return "";
}

void FiberBlock::release_barrier() {
  // Said once per block; the barrier opens all the same, as it does on the
  // hardware when the others have exited or wait at another __syncthreads().
  if (!block_diverged_)
    if (std::string diverged = barrier_divergence(); !diverged.empty()) {
      block_diverged_ = true;
      divergences_.push_back(std::move(diverged));
    }
  for (int t = 0; t < threads_; ++t) {
    if (fibers_[t].state != State::AtBarrier) continue;
    fibers_[t].state = State::Runnable;
    ++runnable_in_warp_[t / kWarpSize];
  }
  at_barrier_ = 0;
  // Skewed warps fall behind again in every phase between barriers.
  if (schedule_.kind == ScheduleKind::WarpSkew)
    for (int w = 0; w < warps_; ++w)
      if (w < 32 && (schedule_.skew_warps >> w & 1u) && runnable_in_warp_[w] > 0)
        delay_[w] = std::max(0, schedule_.skew_steps);
}

std::string FiberBlock::run_block(const Dim3& grid, const Dim3& block, const Dim3& block_idx,
                                  void* dynamic_shared, const Schedule& schedule, Entry entry,
                                  void* user) {
  const uint64_t count = block.count();
  if (count == 0 || count > 1024)
    return "block of " + std::to_string(count) + " threads cannot be simulated";
  threads_ = int(count);
  warps_ = (threads_ + kWarpSize - 1) / kWarpSize;
  if (!ensure_stacks(threads_))
    return "out of memory for " + std::to_string(threads_) + " thread stacks of " +
           std::to_string(stack_bytes_ / 1024) + " KiB";
  install_fault_handler();

  schedule_ = schedule;
  entry_ = entry;
  user_ = user;
  dynamic_shared_ = dynamic_shared;
  error_.clear();
  block_diverged_ = false;
  exited_ = 0;
  at_barrier_ = 0;
  runnable_in_warp_.assign(warps_, 0);
  at_warp_barrier_.assign(warps_, 0);
  converging_.assign(warps_, 0);
  exchange_.assign(threads_, 0);
  delay_.assign(warps_, 0);

  for (int t = 0; t < threads_; ++t) {
    Fiber& f = fibers_[t];
    const uint32_t x = uint32_t(t) % block.x, y = uint32_t(t) / block.x % block.y,
                   z = uint32_t(t) / (block.x * block.y);
    f.builtins.thread_idx = {x, y, z};
    f.builtins.block_idx = {block_idx.x, block_idx.y, block_idx.z};
    f.builtins.block_dim = {block.x, block.y, block.z};
    f.builtins.grid_dim = {grid.x, grid.y, grid.z};
    f.state = State::Runnable;
    f.line = 0;
    f.arrivals = 0;
    f.steps = 0;
    f.asan_fake_stack = nullptr;
#if defined(TS_FIBER_ASAN)
    // A thread abandoned mid-run (deadlock) may have left its frames poisoned.
    ASAN_UNPOISON_MEMORY_REGION(f.stack, stack_bytes_);
#endif
#if TS_SIM_ASM_SWITCH && defined(__x86_64__)
    {
      // What ts_sim_switch pops, from the new stack pointer up: x87 control
      // word, MXCSR, r15, r14, r13, r12, rbx, rbp, then the address it
      // returns to (the trampoline) and a null return address for the
      // trampoline itself (which never returns), keeping the ABI's alignment.
      auto top = reinterpret_cast<uintptr_t>(f.stack + stack_bytes_) & ~uintptr_t(15);
      auto* slot = reinterpret_cast<uint64_t*>(top);
      slot[-1] = 0;
      slot[-2] = reinterpret_cast<uint64_t>(&FiberBlock::trampoline);
      for (int i = 3; i <= 8; ++i)
        slot[-i] = 0;
      slot[-9] = 0x1F80;   // MXCSR: default rounding, all exceptions masked
      slot[-10] = 0x037F;  // x87 control word: the default
      f.sp = &slot[-10];
    }
#elif TS_SIM_ASM_SWITCH
    {
      // What ts_sim_switch loads, 22 slots from the new stack pointer up:
      // x19 (the trampoline), x20-x28, x29 (no caller frame), x30 (where its
      // `ret` goes: ts_sim_fiber_start), d8-d15, FPCR (0: round to nearest,
      // no flush-to-zero, no traps: the default), padding.
      auto top = reinterpret_cast<uintptr_t>(f.stack + stack_bytes_) & ~uintptr_t(15);
      auto* slot = reinterpret_cast<uint64_t*>(top) - 22;
      std::memset(slot, 0, 22 * sizeof(uint64_t));
      slot[0] = reinterpret_cast<uint64_t>(&FiberBlock::trampoline);
      slot[11] = reinterpret_cast<uint64_t>(&ts_sim_fiber_start);
      f.sp = slot;
    }
#else
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack;
    f.ctx.uc_stack.ss_size = stack_bytes_;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, &FiberBlock::trampoline, 0);
#if defined(TS_FIBER_ASAN)
    // ASan's swapcontext interceptor clears the shadow of the target's
    // uc_stack on every switch: slow, and it would unpoison the redzones of a
    // live fiber. The stack was unpoisoned above, the switch annotations do
    // the rest, and only makecontext reads uc_stack.
    f.ctx.uc_stack.ss_sp = nullptr;
    f.ctx.uc_stack.ss_size = 0;
#endif
#endif
    ++runnable_in_warp_[t / kWarpSize];
  }
  if (schedule.kind == ScheduleKind::WarpSkew)
    for (int w = 0; w < warps_ && w < 32; ++w)
      if (schedule.skew_warps >> w & 1u) delay_[w] = std::max(0, schedule.skew_steps);

  // Each block gets its own random stream, so a block's schedule does not
  // depend on how many steps the blocks before it took.
  const uint64_t linear_block =
      block_idx.x + uint64_t(block_idx.y) * grid.x + uint64_t(block_idx.z) * grid.x * grid.y;
  uint64_t rng = schedule.seed ^ (linear_block * 0xD1B54A32D192ED03ull);
  std::vector<int> candidates;
  candidates.reserve(warps_);

  FiberBlock* const outer = tl_active;
  tl_active = this;
  std::string result;
  auto maybe_release = [&] {
    if (at_barrier_ > 0 && at_barrier_ + exited_ == threads_) release_barrier();
  };

  while (exited_ < threads_ && error_.empty()) {
    bool progressed = false, pending = false;
    if (schedule.kind == ScheduleKind::Random) {
      candidates.clear();
      for (int w = 0; w < warps_; ++w)
        if (runnable_in_warp_[w] > 0) candidates.push_back(w);
      if (!candidates.empty()) {
        const uint64_t r = splitmix64(rng);
        const auto pick = size_t((static_cast<unsigned __int128>(r) * candidates.size()) >> 64);
        step_warp(candidates[pick]);
        progressed = true;
        maybe_release();
      }
    } else {  // Lockstep, WarpSkew: one round of warps in order
      for (int w = 0; w < warps_ && error_.empty(); ++w) {
        if (delay_[w] > 0) {
          --delay_[w];
          pending = true;
          continue;
        }
        if (runnable_in_warp_[w] == 0) continue;
        step_warp(w);
        progressed = true;
        maybe_release();
      }
    }
    if (progressed || !error_.empty()) continue;
    if (pending) {
      // Nobody else can move: skip the rounds the delayed warps would sit out.
      int64_t m = INT64_MAX;
      for (int64_t d : delay_)
        if (d > 0) m = std::min(m, d);
      for (int64_t& d : delay_)
        if (d > 0) d -= m;
      continue;
    }
    if (at_barrier_ > 0 && at_barrier_ + exited_ == threads_) {
      release_barrier();
      continue;
    }
    // No thread can move and the barrier cannot open (a safety net: with
    // exited threads not counted, the model itself cannot get here).
    result = "deadlock in block " + dim_string({block_idx.x, block_idx.y, block_idx.z}) + ": " +
             std::to_string(at_barrier_) + " threads wait at a barrier, " +
             std::to_string(exited_) + " have exited, and no thread can move";
    // Who waits where: one thread per line (a __syncwarp() that lanes at a
    // __syncthreads() never reach, a barrier inside a divergent branch).
    std::vector<int> lines;
    for (int t = 0; t < threads_ && lines.size() < 4; ++t) {
      const Fiber& f = fibers_[size_t(t)];
      if (f.state == State::Exited || f.state == State::Runnable ||
          std::find(lines.begin(), lines.end(), f.line) != lines.end())
        continue;
      lines.push_back(f.line);
      result +=
          (lines.size() == 1 ? "; " : ", ") + who(t) + " waits at " +
          (f.state == State::AtBarrier ? "the __syncthreads() on line " + std::to_string(f.line)
                                       : warp_wait_text(t));
    }
    // A mask's meeting that cannot open: for whom it waits.
    for (int t = 0; t < threads_; ++t)
      if (fibers_[size_t(t)].state == State::AtWarpBarrier && fibers_[size_t(t)].warp_op) {
        result += warp_wait_reason(t);
        break;
      }
    break;
  }
  tl_active = outer;
  if (result.empty() && !error_.empty()) result = error_;
  if (result.empty()) {
    ++blocks_done_;
    for (int t = 0; t < threads_; ++t)
      most_steps_done_ = std::max(most_steps_done_, fibers_[t].steps);
  }
  return result;
}

}  // namespace ts::sim
