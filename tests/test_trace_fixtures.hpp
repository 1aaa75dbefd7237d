// Hand-built traces for the trace tests: a tiled multiply written out event by
// event, the way a lockstep schedule would record it, so that these tests
// depend on neither the simulator nor a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/catalogue.hpp"
#include "model/trace.hpp"
#include "tests/lesson_picks.hpp"

namespace picks = ts::picks;

namespace ts::testing {

// C (n x n) = A x B with tile t (n a multiple of t), grid (n/t)^2, block t x t.
// Per thread and phase p: load A and B into the tiles (line 20, 21; global load
// then shared store), barrier 1, t multiply-adds reading both tiles (line 24),
// barrier 2; finally the store to C (line 28). The barriers are on the lines
// the catalogue gives (kTiledBarrierLine), as the loader checks.
// Barriers whose bit is clear in `barrier_mask` are left out.
inline const uint16_t kTiledBarrierLine[3] = {0, uint16_t(picks::default_lesson().barriers[0].line),
                                              uint16_t(picks::default_lesson().barriers[1].line)};

inline Trace tiled_matmul_trace(int n, int t, uint32_t barrier_mask = 3u) {
  Trace tr;
  RunConfig& c = tr.config;
  c.lesson_id = picks::default_lesson().id;
  c.params.n = c.params.m = c.params.k = n;
  c.params.tile = t;
  c.barrier_mask = barrier_mask;
  c.geometry.grid = {uint32_t(n / t), uint32_t(n / t), 1};
  c.geometry.block = {uint32_t(t), uint32_t(t), 1};
  c.geometry.static_shared_bytes = uint32_t(2 * t * t * sizeof(float));
  c.backend = BackendKind::Simulator;
  c.device_name = "CPU simulator";
  c.schedule.kind = ScheduleKind::Lockstep;
  c.input_seed = 7;
  c.arrays = arrays(*find_lesson(c.lesson_id), c.params);

  const ArraySlot kA = picks::default_lesson_slot("A"), kB = picks::default_lesson_slot("B"),
                  kC = picks::default_lesson_slot("C"),
                  kTileA = picks::default_lesson_slot("tileA"),
                  kTileB = picks::default_lesson_slot("tileB");
  BufferData a{kA, n, n, false, {}}, b{kB, n, n, false, {}}, out{kC, n, n, true, {}};
  for (int i = 0; i < n * n; ++i) {
    a.values.push_back(float(i % 5 - 2));
    b.values.push_back(float(i % 3 - 1));
  }
  out.values.assign(size_t(n) * n, 0.f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k)
        s += double(a.values[i * n + k]) * b.values[k * n + j];
      out.values[i * n + j] = float(s);
    }

  uint64_t step = 0;
  std::vector<uint16_t> instr(size_t(n / t) * (n / t) * t * t);  // per (block, thread)
  auto push = [&](uint32_t block, int thread, EventKind kind, ArraySlot buf, uint32_t elem, float v,
                  uint16_t line, uint8_t barrier = 0) {
    Event e{};
    e.clock = step;
    e.globaltimer = step;
    ++step;
    e.block = block;
    e.element = elem;
    e.value = v;
    e.thread = uint16_t(thread);
    e.line = line;
    e.instr = instr[size_t(block) * t * t + thread]++;
    e.sm = 0;
    e.kind = kind;
    e.array = buf;
    e.flags = 0;
    e.barrier = barrier;
    tr.events.push_back(e);
  };
  const int nb = n / t, threads = t * t;
  for (int by = 0; by < nb; ++by)
    for (int bx = 0; bx < nb; ++bx) {
      const uint32_t block = uint32_t(bx + by * nb);
      std::vector<float> tile_a(threads), tile_b(threads);
      auto barrier = [&](int id, uint16_t line) {
        if (!(barrier_mask & (1u << (id - 1)))) return;
        for (int th = 0; th < threads; ++th)
          push(block, th, EventKind::BarrierArrive, kNoArray, 0, 0, line, uint8_t(id));
        for (int th = 0; th < threads; ++th)
          push(block, th, EventKind::BarrierLeave, kNoArray, 0, 0, line, uint8_t(id));
      };
      for (int p = 0; p < nb; ++p) {
        for (int th = 0; th < threads; ++th) {
          const int tx = th % t, ty = th / t;
          const uint32_t ea = uint32_t((by * t + ty) * n + p * t + tx);
          const uint32_t eb = uint32_t((p * t + ty) * n + bx * t + tx);
          push(block, th, EventKind::GlobalLoad, kA, ea, a.values[ea], 20);
          push(block, th, EventKind::SharedStore, kTileA, uint32_t(th), a.values[ea], 20);
          push(block, th, EventKind::GlobalLoad, kB, eb, b.values[eb], 21);
          push(block, th, EventKind::SharedStore, kTileB, uint32_t(th), b.values[eb], 21);
          tile_a[th] = a.values[ea];
          tile_b[th] = b.values[eb];
        }
        barrier(1, kTiledBarrierLine[1]);
        for (int k = 0; k < t; ++k)
          for (int th = 0; th < threads; ++th) {
            const int tx = th % t, ty = th / t;
            push(block, th, EventKind::SharedLoad, kTileA, uint32_t(ty * t + k), tile_a[ty * t + k],
                 24);
            push(block, th, EventKind::SharedLoad, kTileB, uint32_t(k * t + tx), tile_b[k * t + tx],
                 24);
          }
        barrier(2, kTiledBarrierLine[2]);
      }
      for (int th = 0; th < threads; ++th) {
        const int tx = th % t, ty = th / t;
        const uint32_t ec = uint32_t((by * t + ty) * n + bx * t + tx);
        push(block, th, EventKind::GlobalStore, kC, ec, out.values[ec], 28);
      }
    }
  tr.buffers = {a, b, out};
  tr.capacity = tr.events.size() + 100;
  tr.events_dropped = 0;
  return tr;
}

}  // namespace ts::testing
