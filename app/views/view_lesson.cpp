// Lesson: pick a catalogue lesson, set its parameters (with the limits
// shown), switch each __syncthreads() on or off, choose the backend, run.
// Invalid parameters are refused here, with validate()'s reason, before anything runs.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <string>

#include "app/core/palette.hpp"
#include "app/core/view.hpp"

namespace ts::app {

class LessonView final : public View {
 public:
  const char* name() const override { return "Lesson"; }
  Slot slot() const override { return Slot::Left; }
  int order() const override { return 0; }
  // Its controls' height, so that the layout does not hide the last ones.
  float preferred_height() const override { return content_h_; }

  void draw(AppState& s) override {
    draw_controls(s);
    content_h_ = ImGui::GetCursorPosY();
  }

 private:
  float content_h_ = 0;

  void draw_controls(AppState& s) {
    const LessonInfo* v = find_lesson(s.request.lesson_id);
    draw_lesson_picker(s, v);
    if (!v) {
      ImGui::TextWrapped("Choose a lesson.");
      return;
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", v->summary);
    ImGui::PopTextWrapPos();
    draw_run_button(s);
    ImGui::Separator();
    const CudaStatus& gpu = cuda_status();
    const bool use_gpu = s.request.backend != BackendChoice::Sim && gpu.usable;
    const float w = ImGui::GetFontSize() * 7;
    bool changed = draw_parameters(s, *v, use_gpu, w);
    changed |= draw_barriers(s.request, *v);
    changed |= draw_backend(s.request, use_gpu, w);
    (void)changed;
  }

  // The lesson's combo, grouped by family.
  static void draw_lesson_picker(AppState& s, const LessonInfo* v) {
    RunRequest& req = s.request;
    ImGui::PushItemWidth(-1);
    // The title in the combo where it fits; in a narrow column (or a large
    // font) it is written out above it instead of clipped, and the list is as
    // wide as its longest title.
    const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() -
                       2 * ImGui::GetStyle().FramePadding.x;
    const bool fits = v && ImGui::CalcTextSize(v->title).x <= room;
    if (v && !fits) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextUnformatted(v->title);
      ImGui::PopTextWrapPos();
    }
    float widest = 0;
    for (const LessonInfo& c : all_lessons())
      widest = std::max(widest, ImGui::CalcTextSize(c.title).x);
    ImGui::SetNextWindowSizeConstraints(
        ImVec2(widest + 2 * ImGui::GetStyle().WindowPadding.x + ImGui::GetStyle().ScrollbarSize, 0),
        ImVec2(FLT_MAX, FLT_MAX));
    if (ImGui::BeginCombo("##lesson",
                          !v     ? "choose a lesson"
                          : fits ? v->title
                                 : "other lessons",
                          ImGuiComboFlags_HeightLarge)) {
      // Grouped by family, under the family's heading, in catalogue order.
      std::string_view last;
      for (const LessonInfo& c : all_lessons()) {
        if (c.family != last) {
          ImGui::TextDisabled("%s", c.family_title);
          last = c.family;
        }
        if (ImGui::Selectable(c.title, v == &c)) {
          req.lesson_id = c.id;
          req.params = c.defaults;
          req.barrier_mask = all_barriers(c);
          s.run_requested = true;  // a new lesson shows at once
        }
      }
      ImGui::EndCombo();
    }
    ImGui::PopItemWidth();
  }

  static void draw_run_button(AppState& s) {
    // Run sits on top so that it is always in view; it is refused while the parameters are invalid.
    const bool can_run = s.param_error.empty() && !s.job.active();
    if (!can_run) ImGui::BeginDisabled();
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.0f, 0.62f, 0.45f, 0.85f));
    if (ImGui::Button(s.job.active() ? "Running..." : "Run  (F5)",
                      ImVec2(-1, ImGui::GetFrameHeight() * 1.3f)))
      s.run_requested = true;
    ImGui::PopStyleColor();
    if (!can_run) ImGui::EndDisabled();
  }

  // Parameters the lesson reads, with their limits; sets s.param_error.
  static bool draw_parameters(AppState& s, const LessonInfo& lesson, bool use_gpu, float w) {
    const LessonInfo* v = &lesson;
    const CudaStatus& gpu = cuda_status();
    const DeviceLimits lim = use_gpu ? gpu.limits() : simulator_model().limits();
    Params& p = s.request.params;
    bool changed = false;
    // The lesson says what each of its parameters means; the name is the fallback.
    auto text_of = [&](const char* name) -> ParamText {
      for (const ParamText& t : v->param_text)
        if (std::string_view(t.name) == name) return t;
      return {name, name, name};
    };
    auto int_param = [&](const char* name, int* value, uint32_t bit, std::string hint = "") {
      if (!(v->uses & bit)) return;
      const ParamText t = text_of(name);
      ImGui::SetNextItemWidth(w);
      changed |= ImGui::InputInt(t.label, value, 1, 4);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hint.empty() ? t.hint : hint.c_str());
    };
    int_param("m", &p.m, kUsesM);
    int_param("k", &p.k, kUsesK);
    int_param("n", &p.n, kUsesN);
    if (v->uses & kUsesTile) {
      ImGui::SetNextItemWidth(w);
      const std::string cur = std::to_string(p.tile);
      if (ImGui::BeginCombo(text_of("tile").label, cur.c_str())) {
        for (int t : lesson_kit::tile_values(*v)) {
          // Threads from the lesson's geometry: a ladder step's block tile is
          // not its thread block.
          Params with = p;
          with.tile = t;
          const uint64_t threads =
              v->tile_choices.empty() ? uint64_t(t) * t : v->geometry(with).block.count();
          const std::string lbl = std::to_string(t) + " x " + std::to_string(t) + "  (" +
                                  std::to_string(threads) + " threads)";
          if (ImGui::Selectable(lbl.c_str(), t == p.tile)) {
            p.tile = t;
            changed = true;
          }
        }
        ImGui::EndCombo();
      }
    }
    int_param("length", &p.length, kUsesLength);
    int_param("radius", &p.radius, kUsesRadius);
    if (v->uses & kUsesBlock) {
      // The block this gives comes from the lesson's geometry.
      std::string hint = text_of("block").hint;
      if (!validate(*v, p, lim)) {
        const Dim3 b = geometry(*v, p).block;
        hint += ": " + std::to_string(b.x) + (b.y > 1 ? " x " + std::to_string(b.y) : "") + " = " +
                std::to_string(uint64_t(b.x) * b.y * b.z);
      }
      int_param("block", &p.block, kUsesBlock, hint);
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("limits: %d threads per block, %d KiB shared memory per block",
                        lim.max_threads_per_block, lim.max_shared_per_block / 1024);
    ImGui::PopTextWrapPos();
    if (auto err = validate(*v, p, lim))
      s.param_error = *err;
    else
      s.param_error.clear();
    if (!s.param_error.empty()) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(ImVec4(0.9f, 0.45f, 0.1f, 1), "Cannot run: %s", s.param_error.c_str());
      ImGui::PopTextWrapPos();
    }
    return changed;
  }

  // One checkbox per barrier, named by its line.
  static bool draw_barriers(RunRequest& req, const LessonInfo& v) {
    bool changed = false;
    if (!v.barriers.empty()) {
      ImGui::Separator();
      ImGui::TextUnformatted("Barriers");
      for (const BarrierInfo& b : v.barriers) {
        BarrierSet kept(req.barrier_mask);
        bool on = kept.keeps(b.id);
        const std::string lbl = "barrier " + std::to_string(b.id) + " (" + barrier_call(b) +
                                "), line " + std::to_string(b.line);
        if (ImGui::Checkbox(lbl.c_str(), &on)) {
          on ? kept.keep(b.id) : kept.remove(b.id);
          req.barrier_mask = kept.mask();
          changed = true;
        }
        ImGui::PushTextWrapPos(0);
        ImGui::Indent();
        ImGui::TextDisabled("%s", b.purpose);
        ImGui::Unindent();
        ImGui::PopTextWrapPos();
      }
    } else {
      ImGui::TextDisabled("This kernel has no barriers.");
    }
    return changed;
  }

  // Backend and, for the simulator, its schedule.
  static bool draw_backend(RunRequest& req, bool use_gpu, float w) {
    const CudaStatus& gpu = cuda_status();
    bool changed = false;
    ImGui::Separator();
    int be = int(req.backend);
    ImGui::SetNextItemWidth(w * 1.4f);
    if (ImGui::Combo("backend", &be, "auto\0GPU (CUDA)\0CPU simulator\0")) {
      req.backend = BackendChoice(be);
      changed = true;
    }
    ImGui::PushTextWrapPos(0);
    if (gpu.usable) {
      ImGui::TextDisabled("GPU: %s", gpu.device_name.c_str());
    } else {
      ImGui::TextDisabled("no GPU: the CPU simulator runs the same kernels");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", gpu.reason.c_str());
    }
    ImGui::PopTextWrapPos();
    if (!use_gpu) {
      int sk = int(req.schedule.kind);
      ImGui::SetNextItemWidth(w * 1.4f);
      if (ImGui::Combo("schedule", &sk, "lockstep\0warp skew\0random\0")) {
        req.schedule.kind = ScheduleKind(sk);
        changed = true;
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "How the simulator interleaves warps. Warp skew lets odd warps fall\n"
            "behind: with a barrier removed, that is when the race bites.");
    }
    return changed;
  }
};

TS_REGISTER_VIEW(LessonView);

}  // namespace ts::app
