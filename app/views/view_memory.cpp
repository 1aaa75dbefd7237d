// Memory: the memory spaces a kernel uses, where each lives, who sees it and
// how long it lasts, with this machine's real figures (from the GPU) or the
// simulator's model of one.
#include <imgui.h>

#include <string>

#include "app/core/view.hpp"

namespace ts::app {

namespace {
std::string kib(long long b) {
  if (b <= 0) return "-";
  if (b >= (1ll << 30)) return std::to_string(b >> 30) + " GiB";
  if (b >= (1ll << 20)) return std::to_string(b >> 20) + " MiB";
  return std::to_string(b >> 10) + " KiB";
}
}  // namespace

class MemoryView final : public View {
 public:
  const char* name() const override { return "Memory"; }
  Slot slot() const override { return Slot::Right; }
  int order() const override { return 20; }

  void draw(AppState& s) override {
    const CudaStatus& gpu = cuda_status();
    const CudaStatus d = gpu.usable ? gpu : simulator_model();
    ImGui::PushTextWrapPos(0);
    if (gpu.usable)
      ImGui::Text("%s (compute capability %d.%d), %d SMs", d.device_name.c_str(), d.cc_major,
                  d.cc_minor, d.sm_count);
    else
      ImGui::Text("No GPU in use (%s): the figures are the CPU simulator's model of one.",
                  gpu.reason.c_str());
    ImGui::PopTextWrapPos();
    const LessonInfo* v = s.lesson();
    const LaunchGeometry g = s.has_trace()
                                 ? s.trace().config.geometry
                                 : (v ? geometry(*v, s.request.params) : LaunchGeometry{});
    const uint32_t shared = g.static_shared_bytes + g.dynamic_shared_bytes;
    struct Row {
      const char* space;
      std::string where;
      const char* lifetime;
      std::string here;
    };
    const Row rows[] = {
        {"registers", "in the SM, private to one thread (sum, row, col)", "the thread",
         std::to_string(d.registers_per_sm) + " per SM, " + std::to_string(d.registers_per_block) +
             " per block"},
        {"local", "device memory (cached), private to one thread: what spills from registers",
         "the thread", "none in these kernels"},
        {"shared", "on the SM, shared by the threads of one block (tileA, tileB, the halo array)",
         "the block",
         "this launch: " + std::to_string(shared) +
             " bytes per block; device: " + kib(d.shared_per_block) + " per block (" +
             kib(d.shared_per_block_optin) + " opt-in), " + kib(d.shared_per_sm) + " per SM"},
        {"global",
         "device memory (HBM/GDDR) behind the L2, seen by every thread of every block (A, B, C)",
         "the program", kib((long long)d.global_memory_bytes) + ", L2 " + kib(d.l2_bytes)},
        {"constant", "device memory with a broadcast cache, read-only for kernels", "the program",
         "64 KiB; not used here"},
    };
    ImGui::Spacing();
    if (ImGui::GetContentRegionAvail().x >= ImGui::GetFontSize() * 48) {
      // Wide: one table.
      const ImGuiTableFlags tf =
          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
      if (ImGui::BeginTable("##mem", 4, tf)) {
        ImGui::TableSetupColumn("space", 0, 0.8f);
        ImGui::TableSetupColumn("where, who sees it", 0, 2.0f);
        ImGui::TableSetupColumn("lifetime", 0, 1.0f);
        ImGui::TableSetupColumn("here", 0, 1.6f);
        ImGui::TableHeadersRow();
        for (const Row& r : rows) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(r.space);
          ImGui::TableNextColumn();
          ImGui::TextWrapped("%s", r.where.c_str());
          ImGui::TableNextColumn();
          ImGui::TextWrapped("%s", r.lifetime);
          ImGui::TableNextColumn();
          ImGui::TextWrapped("%s", r.here.c_str());
        }
        ImGui::EndTable();
      }
    } else {
      // Narrow (the right column): one entry per space, its name as a heading,
      // so that no sentence is squeezed into a column a word wide.
      ImGui::PushTextWrapPos(0);
      for (const Row& r : rows) {
        if (s.present.big_font) ImGui::PushFont(static_cast<ImFont*>(s.present.big_font));
        ImGui::TextUnformatted(r.space);
        if (s.present.big_font) ImGui::PopFont();
        ImGui::SameLine();
        ImGui::TextDisabled("lives as long as %s", r.lifetime);
        ImGui::Indent();
        ImGui::TextUnformatted(r.where.c_str());
        ImGui::Text("here: %s", r.here.c_str());
        ImGui::Unindent();
        ImGui::Spacing();
      }
      ImGui::PopTextWrapPos();
    }
    ImGui::TextDisabled(
        "warp size %d, at most %d threads per block; this launch: %u x %u blocks of %u x %u "
        "threads",
        d.warp_size, d.max_threads_per_block, g.grid.x, g.grid.y, g.block.x, g.block.y);
  }
};

TS_REGISTER_VIEW(MemoryView);

}  // namespace ts::app
