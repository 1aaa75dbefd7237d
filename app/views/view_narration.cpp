// Narration: a few sentences for the moment of the lesson on screen (why this
// load, why this barrier, what the halo is), from
// lessons/narration/<narration_key>.json (embedded). The moment comes from the last event:
//   start, load, store_shared, barrier1, barrier2, compute, shuffle, store, end,
//   atomic_shared, atomic_global
// and, when a barrier is removed, "without_barrier" text for it.
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string_view>

#include "app/core/view.hpp"
#include "engine/catalogue.hpp"

namespace ts::app {

class NarrationView final : public View {
 public:
  const char* name() const override { return "Narration"; }
  Slot slot() const override { return Slot::Right; }
  int order() const override { return 0; }

  void draw(AppState& s) override {
    const LessonInfo* v = s.lesson();
    if (!v) {
      ImGui::TextDisabled("No lesson.");
      return;
    }
    load(v);
    // Presenter mode draws this in the caption strip: the moment's text only, the grid keeps
    // the room (the lesson's title and note are for the panel).
    const bool strip = s.present.presenter;
    ImFont* big = static_cast<ImFont*>(s.present.big_font);
    if (big) ImGui::PushFont(big);
    if (!strip) ImGui::TextWrapped("%s", v->title);
    if (big) ImGui::PopFont();
    if (!error_.empty()) {
      ImGui::TextWrapped("%s", error_.c_str());
      return;
    }
    const std::string moment = current_moment(s);
    ImGui::PushTextWrapPos(0);
    const auto& moments = doc_.contains("moments") ? doc_["moments"] : nlohmann::json::object();
    std::string text;
    if (moments.contains(moment) && moments[moment].is_string())
      text = moments[moment].get<std::string>();
    if (text.empty() && moments.contains("start") && moments["start"].is_string())
      text = moments["start"].get<std::string>();
    if (!strip) ImGui::Spacing();
    ImGui::TextUnformatted(text.c_str());
    // A removed barrier: what it was protecting.
    const BarrierSet mask = s.has_trace() ? s.trace().config.barrier_mask : s.request.barrier_mask;
    if (doc_.contains("without_barrier") && doc_["without_barrier"].is_object())
      for (const BarrierInfo& b : v->barriers)
        if (!mask.keeps(b.id)) {
          const std::string key = std::to_string(b.id);
          if (doc_["without_barrier"].contains(key) && doc_["without_barrier"][key].is_string()) {
            ImGui::Spacing();
            ImGui::TextColored(ImVec4(0.84f, 0.37f, 0.0f, 1), "Barrier %d is off", b.id);
            ImGui::TextUnformatted(doc_["without_barrier"][key].get<std::string>().c_str());
          }
        }
    if (!strip && doc_.contains("note") && doc_["note"].is_string()) {
      ImGui::Spacing();
      ImGui::TextDisabled("%s", doc_["note"].get<std::string>().c_str());
    }
    ImGui::PopTextWrapPos();
  }

 private:
  static std::string current_moment(const AppState& s) {
    if (!s.has_trace()) return "start";
    const Replay& r = *s.replay;
    if (r.position() == 0) return "start";
    if (r.position() >= r.size()) return "end";
    const Event* e = r.last_event();
    switch (e->kind) {
      case EventKind::GlobalLoad: {
        // A read of a constant-memory array has its own moment where the lesson has one.
        const ArrayInfo* a = s.trace().array(e->array);
        return a && a->space == Space::Constant ? "load_constant" : "load";
      }
      case EventKind::SharedStore:
        return "store_shared";
      case EventKind::SharedLoad:
        return "compute";
      case EventKind::GlobalStore:
        return "store";
      case EventKind::SharedAtomic:
        return "atomic_shared";
      case EventKind::GlobalAtomic:
        return "atomic_global";
      case EventKind::BarrierArrive:
      case EventKind::BarrierLeave:
        return "barrier" + std::to_string(e->barrier);
      case EventKind::WarpShuffle:
        return "shuffle";
      default:
        return "start";
    }
  }

  void load(const LessonInfo* v) {
    if (v == loaded_) return;
    loaded_ = v;
    error_.clear();
    doc_ = nlohmann::json::object();
    // Embedded at build time (lessons/narration/<key>.json), like the header's text.
    const std::string file = std::string("lessons/narration/") + v->narration_key + ".json";
    const std::string_view text = lesson_narration(v->narration_key);
    if (text.empty()) {
      error_ = "No narration for this lesson (" + file + " not found).";
      return;
    }
    try {
      doc_ = nlohmann::json::parse(text);
      if (!doc_.is_object()) throw std::runtime_error("not a JSON object");
    } catch (const std::exception& ex) {
      error_ = "The narration " + file + " is damaged: " + ex.what();
      doc_ = nlohmann::json::object();
    }
  }

  const LessonInfo* loaded_ = nullptr;
  nlohmann::json doc_;
  std::string error_;
};

TS_REGISTER_VIEW(NarrationView);

}  // namespace ts::app
