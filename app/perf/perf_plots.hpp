// The Performance panel's two plots of a report: throughput against size
// (one line per kernel, cuBLAS as the reference) and the roofline (the
// measured copy bandwidth and FP32 peak, each kernel at two intensities).
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "io/perf_report.hpp"

namespace ts::app {

// One colour per kernel label in every plot, in the order first seen.
class SeriesColours {
 public:
  ImU32 of(const std::string& label);

 private:
  std::vector<std::string> order_;
};

// At the cursor, `size` large (an invisible button takes the room and the
// hover): one family's lessons ("matmul": not sgemm) with the reference of its
// metric. Every point, label, the legend and the x tick labels go into
// `marks` too (the scripted mode's map).
void draw_throughput(const PerfReport& r, const std::string& family, ImVec2 size, bool log_y,
                     SeriesColours& colours, std::vector<PlotMark>& marks);
void draw_roofline(const PerfReport& r, const std::string& family, ImVec2 size,
                   SeriesColours& colours, std::vector<PlotMark>& marks);

}  // namespace ts::app
