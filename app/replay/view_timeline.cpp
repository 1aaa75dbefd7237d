// Timeline: the replay's transport (play, speed, steps by event, warp
// instruction, phase, barrier, both ways) and, for the selected block, one
// lane per warp showing its barrier phases along the trace, with markers where
// its threads arrive at and leave each barrier. Click or drag to scrub.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/core/palette.hpp"
#include "app/core/view.hpp"

namespace ts::app {

class TimelineView final : public View {
 public:
  const char* name() const override { return "Timeline"; }
  Slot slot() const override { return Slot::Bottom; }
  int order() const override { return 0; }

  // The controls and at least two warp lanes (or every lane, up to four).
  float min_height() const override {
    const float lanes = float(std::clamp<size_t>(lanes_.size(), 2, 4));
    return controls_height_ + lanes * ImGui::GetFontSize() * lane_em_ + 8;
  }
  // Every lane at full height (up to eight; more share the room).
  float preferred_height() const override {
    const float lanes = float(std::clamp<size_t>(lanes_.size(), 2, 8));
    return controls_height_ + lanes * ImGui::GetFontSize() * lane_em_ + 8;
  }

  void draw(AppState& s) override {
    if (!s.has_trace()) {
      ImGui::TextDisabled("The timeline appears once a lesson has run.");
      return;
    }
    Replay& r = *s.replay;
    const Palette& pal = palette(s.present.theme);
    // The narrow desk (1280 x 720 at a projector's text) asks for lanes a
    // line high, not 1.4: the grid above gets the difference.
    lane_em_ = s.present.desk_narrow ? 1.0f : 1.4f;
    transport(s, r);
    refresh(s, r);
    lanes(s, r, pal);
  }

  // A slide: the marks' legend and the lanes, no transport.
  void draw_slide(AppState& s) override {
    if (!s.has_trace()) return;
    Replay& r = *s.replay;
    refresh(s, r);
    ImGui::Dummy(ImVec2(0, 0));  // legend() starts on this line or below it
    legend(s);
    lanes(s, r, palette(s.present.theme));
  }
  float slide_height() const override {
    const float lanes = float(std::clamp<size_t>(lanes_.size(), 2, 8));
    return ImGui::GetFrameHeightWithSpacing() + lanes * ImGui::GetFontSize() * 1.4f + 8 +
           2 * ImGui::GetStyle().WindowPadding.y;
  }

 private:
  struct Segment {
    uint64_t start = 0, end = 0;
  };
  struct Lane {
    std::vector<Segment> phases;   // index = phase
    std::vector<uint64_t> arrive;  // first arrival of the warp at each barrier
    std::vector<uint64_t> leave;   // first leave
    std::vector<uint64_t> stores;  // global stores (results written)
  };

  void refresh(const AppState& s, const Replay& r) {
    if (gen_ == s.result.generation && order_ == r.order() && block_ == s.selection.block) return;
    gen_ = s.result.generation;
    order_ = r.order();
    block_ = s.selection.block;
    lanes_.clear();
    lo_ = ~0ull;
    hi_ = 0;
    const auto& ev = r.trace().events;
    for (uint64_t p = 1; p <= r.size(); ++p) {
      const uint32_t i = r.event_at(p);
      const Event& e = ev[i];
      if (e.block != block_) continue;
      lo_ = std::min(lo_, p - 1);
      hi_ = std::max(hi_, p);
      const uint32_t warp = warp_of(e);
      if (warp >= lanes_.size()) lanes_.resize(size_t(warp) + 1);
      Lane& l = lanes_[warp];
      const int ph = r.phase_of(i);
      if (int(l.phases.size()) <= ph) l.phases.resize(size_t(ph) + 1, Segment{~0ull, 0});
      Segment& sg = l.phases[size_t(ph)];
      sg.start = std::min(sg.start, p);
      sg.end = std::max(sg.end, p);
      if (e.kind == EventKind::BarrierArrive && (l.arrive.size() < size_t(ph) + 1))
        l.arrive.push_back(p);
      if (e.kind == EventKind::BarrierLeave && (l.leave.size() < size_t(ph))) l.leave.push_back(p);
      if (e.kind == EventKind::GlobalStore && (l.stores.empty() || l.stores.back() + 1 < p))
        l.stores.push_back(p);
    }
  }

  void transport(AppState& s, Replay& r) {
    const uint64_t pos = r.position();
    const uint32_t blk = s.selection.block;
    auto go = [&](uint64_t p) {
      s.replay_ui.playing = false;
      s.request_position(p);
    };
    // The controls flow left to right and wrap onto another row when the pane
    // is too narrow for all of them (a 1280-pixel projector, a large font).
    bool first_item = true;
    auto place = [&](float width) {
      if (!first_item) same_line_if_fits(width);
      first_item = false;
    };
    auto button_width = [](const char* label) {
      return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
    };
    auto button = [&](const char* label, const char* tip) {
      place(button_width(label));
      const bool b = ImGui::Button(label);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
      mark_item(s, label);
      return b;
    };
    const bool sym = s.present.have_symbols;
    // One warp instruction: the next (previous) warp access with all its lanes
    // applied, whatever the order interleaves (app/core/warp_index.hpp); without the
    // index, the run of one warp's events.
    auto warp_step = [&](bool forward) {
      return s.result.warp ? s.access_stops.step(s.result.warp, r, pos, forward)
                           : r.warp_step(pos, forward);
    };
    // The grid focus (and the puzzle desk) at a projector's text keeps the
    // timeline to the transport (one row: a single event is Shift+Left /
    // Shift+Right), where we are and the lanes: the speed, the order and the
    // legend are in the panels' view (G), the keys still work.
    const bool compact =
        (s.present.focus_grid || s.present.puzzle_desk) && s.present.projector_text();
    // Where even that row would wrap (the desk at 1280 x 720: the grid's
    // half), play and two pairs of arrows: "warp < >  barrier < >".
    if (compact && !compact_row_fits(sym)) {
      arrows_row(s, r, sym, blk, warp_step, go);
    } else {
      full_row(s, r, sym, blk, compact, warp_step, go, button, place);
    }
    if (!compact) speed_and_order(s, r, place);
    status(s, r, place);
    if (!compact) legend(s);
    controls_height_ = ImGui::GetCursorScreenPos().y - ImGui::GetWindowPos().y;  // in its child
  }

  // For the window's map: where a transport button is (app/shell/scripted.cpp).
  static void mark_item(AppState& s, const char* label) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    s.plot_marks.push_back({"timeline", "button", label, a.x, a.y, b.x - a.x, b.y - a.y, 0});
  }

  // The stepping buttons' words, back then forward (play goes between the two
  // halves): what the full row shows and what the compact row's fit measures.
  static std::array<const char*, 8> step_labels(bool sym) {
    return {"Start",
            sym ? "\u25C0\u25C0 phase" : "<< phase",
            sym ? "\u25C0 barrier" : "< barrier",
            sym ? "\u25C0 warp" : "< warp",
            sym ? "warp \u25B6" : "warp >",
            sym ? "barrier \u25B6" : "barrier >",
            sym ? "phase \u25B6\u25B6" : "phase >>",
            "End"};
  }

  // The compact row's buttons on one line, measured.
  static bool compact_row_fits(bool sym) {
    const ImGuiStyle& st = ImGui::GetStyle();
    float w = ImGui::GetFontSize() * 5.5f;  // play
    for (const char* l : step_labels(sym))
      w += ImGui::CalcTextSize(l).x + 2 * st.FramePadding.x + st.ItemSpacing.x;
    return w <= ImGui::GetContentRegionAvail().x;
  }

  // The narrowest transport: play, then the warp instruction and the barrier
  // each with a back and a forward arrow (Home, End and the phase keys still work).
  template <class Step, class Go>
  void arrows_row(AppState& s, Replay& r, bool sym, uint32_t blk, Step& warp_step, Go& go) {
    const uint64_t pos = r.position();
    play_button(s, r, ImGui::GetFontSize() * 4.5f);
    const float inner = ImGui::GetStyle().ItemInnerSpacing.x;
    auto pair = [&](const char* word, const char* id, const char* back_tip,
                    const char* fwd_tip) -> int {
      ImGui::SameLine();
      ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted(word);
      int moved = 0;
      for (int forward = 0; forward < 2; ++forward) {
        ImGui::SameLine(0, inner);
        char label[32];
        std::snprintf(label, sizeof label, "%s##%s%d",
                      forward ? (sym ? "\u25B6" : ">") : (sym ? "\u25C0" : "<"), id, forward);
        if (ImGui::Button(label)) moved = forward ? 1 : -1;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", forward ? fwd_tip : back_tip);
        mark_item(s, label);
      }
      return moved;
    };
    if (const int m = pair("warp", "w", "the previous warp instruction, all its lanes (Left)",
                           "the next warp instruction, all its lanes (Right)"))
      go(warp_step(m > 0));
    if (const int m = pair("barrier", "b", "previous barrier (Shift+B)",
                           "next barrier: all threads of the block arrived (B)"))
      go(r.barrier_step(pos, m > 0, blk));
  }

  // Play / pause, green.
  void play_button(AppState& s, Replay& r, float width) {
    const bool sym = s.present.have_symbols;
    const char* play = s.replay_ui.playing ? (sym ? "\u275A\u275A pause" : "pause")
                                           : (sym ? "\u25B6 play" : "play");
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.0f, 0.62f, 0.45f, 0.85f));
    if (ImGui::Button(play, ImVec2(width, 0))) {
      if (!s.replay_ui.playing && r.position() >= r.size()) s.request_position(0);
      s.replay_ui.playing = !s.replay_ui.playing;
    }
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("play / pause (Space)");
    mark_item(s, play);
  }

  // Every step both ways, words on the buttons.
  template <class Step, class Go, class Button, class Place>
  void full_row(AppState& s, Replay& r, bool sym, uint32_t blk, bool compact, Step& warp_step,
                Go& go, Button& button, Place& place) {
    const uint64_t pos = r.position();
    const std::array<const char*, 8> l = step_labels(sym);
    if (button(l[0], "back to the start (Home)")) go(0);
    if (button(l[1], "previous barrier phase of the block (Up)")) go(r.phase_step(pos, false, blk));
    if (button(l[2], "previous barrier (Shift+B)")) go(r.barrier_step(pos, false, blk));
    if (button(l[3],
               "the previous warp instruction, all its lanes (Left): what the Banks view\n"
               "and the grid's coalescing colours show"))
      go(warp_step(false));
    if (!compact && button(sym ? "\u25C1##ev" : "<##ev", "one event back (Shift+Left)"))
      go(pos ? pos - 1 : 0);
    place(ImGui::GetFontSize() * 5.5f);
    play_button(s, r, ImGui::GetFontSize() * 5.5f);
    if (!compact && button(sym ? "\u25B7##ev" : ">##ev", "one event forward (Shift+Right)"))
      go(std::min(r.size(), pos + 1));
    if (button(l[4],
               "the next warp instruction: the position where a warp access has all\n"
               "its lanes applied (Right)"))
      go(warp_step(true));
    if (button(l[5], "next barrier: all threads of the block arrived (B)"))
      go(r.barrier_step(pos, true, blk));
    if (button(l[6], "next barrier phase of the block (Down)")) go(r.phase_step(pos, true, blk));
    if (button(l[7], "to the end (End)")) go(r.size());
  }

  // The speed: a knob with its number beside it, not under the knob; the replay's order.
  template <class Place>
  void speed_and_order(AppState& s, const Replay& r, Place& place) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.0f events/s", s.replay_ui.speed);
    const float knob_w = ImGui::GetFontSize() * 5;
    place(knob_w + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("100000 events/s").x);
    ImGui::SetNextItemWidth(knob_w);
    float speed = float(s.replay_ui.speed);
    if (ImGui::SliderFloat("##speed", &speed, 1.0f, 100000.0f, "", ImGuiSliderFlags_Logarithmic))
      s.replay_ui.speed = speed;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("playback speed");
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(rate);
    int order = s.replay_ui.order_request == ReplayOrder::Lockstep ? 1 : 0;
    place(ImGui::GetFontSize() * 8);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::Combo("##order", &order, "as recorded\0lockstep\0"))
      s.replay_ui.order_request = order ? ReplayOrder::Lockstep : ReplayOrder::AsRecorded;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "As recorded: the order the GPU's timestamps (or the simulator) give;\n"
          "warps drift apart. Lockstep: the idealised order, phase by phase.\n"
          "Switching keeps the current event.");
    // Lockstep never draws what the trace contradicts: on a racy run it draws
    // the threads that fell behind late, or shows the recorded order. Say so.
    if (r.order() == ReplayOrder::Lockstep && !r.lockstep_note().empty()) {
      const char* tag =
          r.lockstep_unavailable() ? "(recorded order shown)" : "(as the loads saw it)";
      same_line_if_fits(ImGui::CalcTextSize(tag).x);
      ImGui::TextColored(ImVec4(0.90f, 0.62f, 0.0f, 1.0f), "%s", tag);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.lockstep_note().c_str());
    }
  }

  // Position line: where we are, in words.
  template <class Place>
  void status(const AppState& s, const Replay& r, Place& place) {
    const Event* e = r.last_event();
    char where[256];
    if (e) {
      const uint32_t bx = std::max(1u, r.trace().config.geometry.block.x);
      std::snprintf(
          where, sizeof where,
          "step %llu of %llu   phase %d   last: %s %s  block %u thread (%u, %u)  line %u",
          (unsigned long long)r.position(), (unsigned long long)r.size(),
          r.current_phase(s.selection.block), to_string(e->kind),
          e->array == kNoArray ? "" : array_name(r.trace().config.arrays, e->array).c_str(),
          e->block, e->thread % bx, e->thread / bx, e->line);
    } else {
      std::snprintf(where, sizeof where, "step 0 of %llu: nothing has run yet",
                    (unsigned long long)r.size());
    }
    // The status flows after the speed and order controls when there is room;
    // its width is that of a long line, so that it does not jump between rows
    // while the replay plays.
    place(ImGui::CalcTextSize("step 0000000 of 0000000   phase 00   last: barrier arrive tileA  "
                              "block 000 thread (00, 00)  line 000")
              .x);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(where);
  }

  // What the lanes' marks mean, after the status where it fits.
  void legend(const AppState& s) {
    const Palette& pal = palette(s.present.theme);
    const float h = ImGui::GetTextLineHeight(), sp = ImGui::GetStyle().ItemSpacing.x;
    // The output array under its own name: "C written", "out written".
    std::string written = "output written";
    if (s.has_trace())
      for (const ReplayArray& a : s.replay->arrays())
        if (a.is_output) written = array_name(s.trace().config.arrays, a.id) + " written";
    const char* labels[] = {"arrive", "leave (barrier)", written.c_str(), "phases"};
    float w = 0;
    for (const char* l : labels)
      w += h + 4 + ImGui::CalcTextSize(l).x + sp;
    if (!same_line_if_fits(w + h)) ImGui::AlignTextToFramePadding();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    auto mark = [&](int kind, const char* label) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float y = p.y + ImGui::GetStyle().FramePadding.y;
      if (kind == 0)
        dl->AddTriangleFilled(ImVec2(p.x + 1, y + 1), ImVec2(p.x + h - 1, y + 1),
                              ImVec2(p.x + h * 0.5f, y + h * 0.6f), pal.barrier.abgr());
      else if (kind == 1)
        dl->AddLine(ImVec2(p.x + h * 0.5f, y), ImVec2(p.x + h * 0.5f, y + h), pal.barrier.abgr(),
                    2);
      else if (kind == 2)
        dl->AddCircleFilled(ImVec2(p.x + h * 0.5f, y + h * 0.5f), h * 0.25f, pal.written.abgr());
      else {
        dl->AddRectFilled(ImVec2(p.x, y + 2), ImVec2(p.x + h * 0.5f, y + h - 2),
                          pal.phase_a.abgr(220));
        dl->AddRectFilled(ImVec2(p.x + h * 0.5f, y + 2), ImVec2(p.x + h, y + h - 2),
                          pal.phase_b.abgr(220));
      }
      ImGui::Dummy(ImVec2(h, h));
      ImGui::SameLine(0, 4);
      ImGui::TextDisabled("%s", label);
    };
    for (int k = 0; k < 4; ++k) {
      if (k) ImGui::SameLine();
      mark(k, labels[k]);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", k == 0   ? "a warp's first thread arrives at a barrier"
                                : k == 1 ? "its threads leave the barrier: all of the block arrived"
                                : k == 2 ? "the warp stores results to global memory"
                                         : "barrier phases: the stretch between two barriers, "
                                           "shaded in turn");
    }
  }

  void lanes(AppState& s, Replay& r, const Palette& pal) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.y < 20 || avail.x < 80 || r.size() == 0) return;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const size_t n = std::max<size_t>(lanes_.size(), 1);
    const float font = ImGui::GetFontSize();
    const float lane_h = std::clamp((avail.y - 6) / float(n), 3.0f, font * 1.4f);
    // Labels stay readable from the back of the room: one per warp while a
    // lane is tall enough, else one per group of warps ("warps 8-15"), a
    // bracket beside the group's lanes.
    const float min_fs = std::min(font, std::max(13.0f, font * 0.75f));
    size_t group = 1;
    while (group < n && float(group) * lane_h < min_fs)
      group *= 2;
    const float fs = group == 1 ? std::min(font, std::max(min_fs, lane_h - 1)) : min_fs;
    char widest[32];
    if (group == 1)
      std::snprintf(widest, sizeof widest, "warp %zu ", n - 1);
    else
      std::snprintf(widest, sizeof widest, "warps %zu-%zu  ", n - group, n - 1);
    const float label_w = std::max(ImGui::GetFont()->CalcTextSizeA(fs, FLT_MAX, 0, widest).x,
                                   ImGui::CalcTextSize("warp 00 ").x);
    const float x0 = o.x + label_w, x1 = o.x + avail.x - 4;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // The selected block's span of the trace (all of it in lockstep order; in
    // recorded order blocks may run one after another).
    const uint64_t lo = lo_ <= hi_ ? lo_ : 0, hi = lo_ < hi_ ? hi_ : r.size();
    const double total = double(std::max<uint64_t>(1, hi - lo));
    auto X = [&](uint64_t p) {
      const double f = (double(std::clamp(p, lo, hi)) - double(lo)) / total;
      return x0 + float(f) * (x1 - x0);
    };
    for (size_t w = 0; w < lanes_.size(); ++w) {
      const Lane& l = lanes_[w];
      const float y = o.y + float(w) * lane_h;
      if (w % group == 0) {
        const size_t last = std::min(w + group, lanes_.size()) - 1;
        char lbl[32];
        if (group == 1 || last == w)
          std::snprintf(lbl, sizeof lbl, "warp %zu", w);
        else
          std::snprintf(lbl, sizeof lbl, "warps %zu-%zu", w, last);
        const float span = float(last - w + 1) * lane_h;
        const ImVec2 at(o.x, y + (span - fs) * 0.5f);
        dl->AddText(ImGui::GetFont(), fs, at, pal.text_dim.abgr(), lbl);
        if (group > 1)  // the bracket: which lanes the label names
          dl->AddLine(ImVec2(x0 - 4, y + 1), ImVec2(x0 - 4, y + span - 1), pal.text_dim.abgr(), 2);
        const ImVec2 size = ImGui::GetFont()->CalcTextSizeA(fs, FLT_MAX, 0, lbl);
        s.plot_marks.push_back(
            {"timeline", "label", lbl, at.x, at.y, size.x, size.y, pal.text_dim.abgr()});
      }
      for (size_t ph = 0; ph < l.phases.size(); ++ph) {
        const Segment& sg = l.phases[ph];
        if (sg.start > sg.end) continue;
        const Rgb c = ph % 2 ? pal.phase_b : pal.phase_a;
        dl->AddRectFilled(ImVec2(X(sg.start - 1), y + 2),
                          ImVec2(std::max(X(sg.end), X(sg.start - 1) + 2), y + lane_h - 2),
                          c.abgr(220));
      }
      for (uint64_t p : l.arrive)
        dl->AddTriangleFilled(ImVec2(X(p) - 4, y + 1), ImVec2(X(p) + 4, y + 1),
                              ImVec2(X(p), y + lane_h * 0.5f), pal.barrier.abgr());
      for (uint64_t p : l.leave)
        dl->AddLine(ImVec2(X(p), y + 1), ImVec2(X(p), y + lane_h - 1), pal.barrier.abgr(), 2);
      for (uint64_t p : l.stores)
        dl->AddCircleFilled(ImVec2(X(p), y + lane_h * 0.5f), std::min(4.0f, lane_h * 0.3f),
                            pal.written.abgr());
    }
    // The position line and scrubbing.
    const float ly1 = o.y + float(n) * lane_h;
    s.lanes_rect[0] = x0;
    s.lanes_rect[1] = o.y;
    s.lanes_rect[2] = x1 - x0;
    s.lanes_rect[3] = ly1 - o.y;
    dl->AddLine(ImVec2(X(r.position()), o.y), ImVec2(X(r.position()), ly1), pal.now.abgr(), 2.5f);
    ImGui::SetCursorScreenPos(ImVec2(x0, o.y));
    ImGui::InvisibleButton("##scrub", ImVec2(std::max(1.0f, x1 - x0), std::max(1.0f, ly1 - o.y)));
    if (ImGui::IsItemActive()) {
      const float f = std::clamp((ImGui::GetMousePos().x - x0) / (x1 - x0), 0.0f, 1.0f);
      s.replay_ui.playing = false;
      s.request_position(lo + uint64_t(std::llround(f * total)));
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Block %u: one lane per warp, bars = barrier phases,\n"
          "triangles = threads arrive at a barrier, lines = they leave,\n"
          "dots = results written. Click or drag to move.",
          s.selection.block);
  }

  float controls_height_ = 0;  // transport and status rows, as drawn last frame
  float lane_em_ = 1.4f;       // a lane's height asked for, in text heights
  uint64_t gen_ = ~0ull;
  ReplayOrder order_ = ReplayOrder::AsRecorded;
  uint32_t block_ = ~0u;
  uint64_t lo_ = 0, hi_ = 0;
  std::vector<Lane> lanes_;
};

TS_REGISTER_VIEW(TimelineView);

}  // namespace ts::app
