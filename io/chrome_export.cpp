// Chrome trace JSON, written as a stream: a 330,000-event trace would need
// gigabytes as a JSON tree in memory.
#include "io/chrome_export.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <ostream>

#include "analysis/decode.hpp"
#include "analysis/warp_access.hpp"
#include "io/trace_file.hpp"

namespace ts {

namespace {

// Names from an in-memory trace need not be valid UTF-8: replace bad bytes, never throw.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string num(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "\"nan\"" : (v > 0 ? "\"inf\"" : "\"-inf\"");
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

const char* category(EventKind k) {
  if (is_barrier(k)) return "barrier";
  if (k == EventKind::WarpShuffle) return "shuffle";
  return shared_access(k) ? "shared" : "global";
}

}  // namespace

bool write_chrome_trace(const Trace& t, std::ostream& out, const ChromeExportOptions& opt,
                        ChromeExportStats* stats) {
  ChromeExportStats st;
  const DecodedTrace d = decode(t);
  const RunConfig& c = t.config;
  const bool gpu = c.backend == BackendKind::Cuda;
  uint64_t t0 = UINT64_MAX;
  for (const Event& e : t.events)
    t0 = std::min(t0, event_time(e));
  // GPU: ns -> us. Simulator: one step -> 1 us.
  auto ts_of = [&](uint64_t time) { return gpu ? double(time - t0) / 1000.0 : double(time - t0); };
  const uint32_t threads_per_block = uint32_t(std::max<uint64_t>(c.geometry.block.count(), 1));
  bool per_thread = opt.lanes == ChromeExportOptions::Lanes::Threads;
  if (opt.lanes == ChromeExportOptions::Lanes::Auto) {
    uint32_t most = threads_per_block;
    for (const auto& b : d.blocks)
      most = std::max(most, b.threads);
    per_thread = most <= 64;
  }
  auto lane_of = [&](const Event& e) { return per_thread ? uint32_t(e.thread) : warp_of(e); };

  out << "{\"displayTimeUnit\":\"" << (gpu ? "ns" : "ms") << "\",\n\"otherData\":{";
  out << "\"variant\":" << quoted(c.lesson_id) << ",\"device\":" << quoted(c.device_name)
      << ",\"backend\":\"" << to_string(c.backend)
      << "\",\"time\":" << quoted(gpu ? "globaltimer (us)" : "simulator steps (1 step = 1 us)")
      << ",\"events\":" << t.events.size() << ",\"events_dropped\":" << t.events_dropped
      << ",\"lanes\":\"" << (per_thread ? "threads" : "warps") << "\"},\n\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&]() -> std::ostream& {
    if (!first) out << ",\n";
    first = false;
    return out;
  };

  const Dim3 grid = c.geometry.grid, block = c.geometry.block;
  for (const BlockStreams& b : d.blocks) {
    const uint32_t bx = b.block % std::max(grid.x, 1u), by = b.block / std::max(grid.x, 1u);
    begin_event() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << b.block
                  << ",\"args\":{\"name\":\"block " << b.block << " (x " << bx << ", y " << by
                  << ")\"}}";
    begin_event() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << b.block
                  << ",\"args\":{\"sort_index\":" << b.block << "}}";
    st.metadata += 2;
    // Lanes that have events.
    std::vector<uint32_t> lanes;
    for (uint32_t th = 0; th < b.threads; ++th)
      if (!b.thread_events[th].empty()) lanes.push_back(per_thread ? th : th / 32);
    lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
    for (uint32_t lane : lanes) {
      std::string name;
      if (per_thread) {
        const uint32_t bxd = std::max(block.x, 1u);
        name = "thread " + std::to_string(lane) + " (x " + std::to_string(lane % bxd) + ", y " +
               std::to_string(lane / bxd) + ")";
      } else {
        name = "warp " + std::to_string(lane);
      }
      begin_event() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << b.block
                    << ",\"tid\":" << lane << ",\"args\":{\"name\":\"" << name << "\"}}";
      ++st.metadata;
    }

    // Phase slices per lane: from the lane's first to its last event of the
    // interval. A barrier's leaving comes after every arrival, so the slices
    // of one lane do not overlap; clamp anyway for damaged traces.
    const size_t nph = b.phases.size();
    const uint32_t nlanes = per_thread ? b.threads : (b.threads + 31) / 32;
    std::vector<uint64_t> lo(size_t(nlanes) * nph, UINT64_MAX), hi(size_t(nlanes) * nph, 0);
    for (uint32_t th = 0; th < b.threads; ++th)
      for (uint32_t i : b.thread_events[th]) {
        const Event& e = t.events[i];
        const size_t k = size_t(per_thread ? th : th / 32) * nph + d.event_interval[i];
        lo[k] = std::min(lo[k], event_time(e));
        hi[k] = std::max(hi[k], event_time(e));
      }
    for (uint32_t lane = 0; lane < nlanes; ++lane) {
      uint64_t prev_end = 0;
      for (size_t p = 0; p < nph; ++p) {
        const size_t k = size_t(lane) * nph + p;
        if (lo[k] == UINT64_MAX) continue;
        const uint64_t start = std::max(lo[k], prev_end), end = std::max(hi[k], start);
        prev_end = end;
        const Phase& ph = b.phases[p];
        std::string name = "phase " + std::to_string(p);
        if (ph.opened_by) name += " after barrier " + std::to_string(ph.opened_by);
        if (ph.closed_by)
          name += std::string(ph.opened_by ? "," : "") + " before barrier " +
                  std::to_string(ph.closed_by);
        begin_event() << "{\"ph\":\"X\",\"cat\":\"phase\",\"name\":\"" << name
                      << "\",\"pid\":" << b.block << ",\"tid\":" << lane
                      << ",\"ts\":" << num(ts_of(start))
                      << ",\"dur\":" << num(ts_of(end) - ts_of(start))
                      << ",\"args\":{\"phase\":" << p << "}}";
        ++st.phase_slices;
      }
    }

    // Barrier instances of the block as async slices (they may overlap in time).
    for (size_t n = 0; n < b.barriers.size(); ++n) {
      const BarrierInstance& bi = b.barriers[n];
      if (bi.first_arrive == UINT64_MAX) continue;
      const uint64_t end =
          bi.last_leave ? std::max(bi.last_leave, bi.first_arrive) : bi.last_arrive;
      const std::string name =
          "barrier " + std::to_string(bi.barrier) + " (line " + std::to_string(bi.line) + ")";
      const uint64_t id = uint64_t(b.block) * 65536 + n;
      begin_event() << "{\"ph\":\"b\",\"cat\":\"barrier\",\"name\":\"" << name
                    << "\",\"pid\":" << b.block << ",\"tid\":0,\"id\":" << id
                    << ",\"ts\":" << num(ts_of(bi.first_arrive)) << ",\"args\":{\"instance\":" << n
                    << ",\"arrivals\":" << bi.arrivals << ",\"leaves\":" << bi.leaves << "}}";
      begin_event() << "{\"ph\":\"e\",\"cat\":\"barrier\",\"name\":\"" << name
                    << "\",\"pid\":" << b.block << ",\"tid\":0,\"id\":" << id
                    << ",\"ts\":" << num(ts_of(end)) << "}";
      ++st.barrier_slices;
    }
  }

  if (opt.accesses) {
    for (size_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      if (uint8_t(e.kind) >= kEventKindCount) continue;
      std::ostream& o = begin_event();
      o << "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"" << category(e.kind) << "\",\"name\":\"";
      if (is_barrier(e.kind))
        o << to_string(e.kind) << ' ' << int(e.barrier);
      else if (e.kind == EventKind::WarpShuffle)
        o << to_string(e.kind);
      else
        o << to_string(e.kind) << ' ' << array_name(c.arrays, e.array);
      o << "\",\"pid\":" << e.block << ",\"tid\":" << lane_of(e)
        << ",\"ts\":" << num(ts_of(event_time(e))) << ",\"args\":{\"thread\":" << e.thread
        << ",\"warp\":" << warp_of(e) << ",\"instr\":" << e.instr << ",\"line\":" << e.line;
      if (e.kind == EventKind::WarpShuffle) {
        o << ",\"src_lane\":" << e.element << ",\"value\":" << num(e.value);
      } else if (!is_barrier(e.kind)) {
        o << ",\"array\":" << quoted(array_name(c.arrays, e.array)) << ",\"element\":" << e.element;
        if (const BufferData* bd = t.buffer(e.array); bd && bd->cols > 0 && !is_shared(e.kind))
          o << ",\"row\":" << e.element / uint32_t(bd->cols)
            << ",\"col\":" << e.element % uint32_t(bd->cols);
        o << ",\"value\":" << num(e.value);
        if (e.flags & kFlagOutOfRange) o << ",\"out_of_range\":true";
      } else {
        o << ",\"barrier\":" << int(e.barrier);
        if (e.flags & kFlagWarpScope) o << ",\"scope\":\"warp\"";
      }
      o << ",\"interval\":" << d.event_interval[i];
      if (gpu) o << ",\"sm\":" << e.sm << ",\"clock\":" << e.clock;
      o << "}}";
      ++st.instants;
    }
  }
  out << "\n]}\n";
  if (stats) *stats = st;
  return bool(out);
}

bool export_chrome_trace(const Trace& t, const std::string& path, std::string* error,
                         const ChromeExportOptions& opt, ChromeExportStats* stats) {
  // As a trace is saved: an existing file is replaced only by a complete one.
  return write_file_safely(
      path, [&](std::ostream& out) { return write_chrome_trace(t, out, opt, stats); }, error);
}

}  // namespace ts
