#include "app/views/shuffle_diagram.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/core/palette.hpp"

namespace ts::app {

namespace {

std::string lanes_range(int first, int last) {
  return first == last
             ? "lane " + std::to_string(first) + " keeps its own"
             : "lanes " + std::to_string(first) + "-" + std::to_string(last) + " keep their own";
}

// Whether every lane's source is f(lane).
template <class F>
bool all_follow(const std::vector<std::pair<int, int>>& ls, F f) {
  return std::all_of(ls.begin(), ls.end(), [&](const auto& p) { return p.second == f(p.first); });
}

std::string value_text(float v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", double(v));
  return b;
}

}  // namespace

std::string shuffle_caption(const std::vector<std::pair<int, int>>& ls) {
  if (ls.empty()) return "warp shuffle";
  if (all_follow(ls, [](int l) { return l; }))
    return "warp shuffle: every lane keeps its own value";
  for (int d = 1; d < kWarpLanes; ++d)
    if (all_follow(ls, [d](int l) { return l + d < kWarpLanes ? l + d : l; }))
      return "__shfl_down_sync, delta " + std::to_string(d) + ": lane i gets lane i+" +
             std::to_string(d) + "'s value (" + lanes_range(kWarpLanes - d, kWarpLanes - 1) + ")";
  for (int d = 1; d < kWarpLanes; ++d)
    if (all_follow(ls, [d](int l) { return l - d >= 0 ? l - d : l; }))
      return "__shfl_up_sync, delta " + std::to_string(d) + ": lane i gets lane i-" +
             std::to_string(d) + "'s value (" + lanes_range(0, d - 1) + ")";
  for (int m = 1; m < kWarpLanes; ++m)
    if (all_follow(ls, [m](int l) { return l ^ m; }))
      return "__shfl_xor_sync, lane mask " + std::to_string(m) + ": lane i gets lane (i xor " +
             std::to_string(m) + ")'s value, the lanes swap in pairs";
  const int src = ls.front().second;
  if (all_follow(ls, [src](int) { return src; }))
    return "__shfl_sync from lane " + std::to_string(src) + ": every lane gets lane " +
           std::to_string(src) + "'s value (a broadcast)";
  return "warp shuffle: each lane gets the value of the lane its line comes from";
}

void draw_shuffle(AppState& s, const WarpIndex::Shuffle& sh, bool compact) {
  const Trace& t = s.trace();
  const WarpIndex& w = *s.result.warp;
  const Palette& pal = palette(s.present.theme);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();

  // Per lane: its source and the value it received; per lane: the value it
  // sent, where some lane received it (a lane nobody reads from shows none).
  int source[kWarpLanes];
  bool present[kWarpLanes] = {}, sent_known[kWarpLanes] = {};
  float got[kWarpLanes] = {}, sent[kWarpLanes] = {};
  for (uint32_t e : w.lanes_of(sh)) {
    const Event& ev = t.events[e];
    const int lane = int(ev.thread % kWarpLanes);
    present[lane] = true;
    source[lane] = int(ev.element % kWarpLanes);
    got[lane] = ev.value;
  }
  for (int l = 0; l < kWarpLanes; ++l)
    if (present[l]) sent[source[l]] = got[l], sent_known[source[l]] = true;

  ImGui::Spacing();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float col = std::max(4.0f, avail.x / float(kWarpLanes));
  const float box = std::clamp(col * 0.86f, 3.0f, font * 2.0f);
  const float above = compact ? 2.0f : font * 1.2f;
  const float below = compact ? 2.0f : font * 1.3f;
  const float lines_h =
      std::clamp(avail.y - above - below - 2 * box - font * 0.4f, font * 1.5f, font * 9.0f);
  const float send_y = at.y + above, recv_y = send_y + box + lines_h;
  auto lane_x = [&](int l) { return at.x + (float(l) + 0.5f) * col; };

  // Values in the boxes when three characters fit at a readable size.
  const float value_size = std::min(font * 0.8f, box * 0.62f);
  ImFont* f = ImGui::GetFont();
  bool values = value_size >= 10.0f;
  for (int l = 0; l < kWarpLanes && values; ++l)
    for (const auto& [known, v] :
         {std::pair{present[l], got[l]}, std::pair{sent_known[l], sent[l]}})
      if (known && f->CalcTextSizeA(value_size, FLT_MAX, 0, value_text(v).c_str()).x > box - 2)
        values = false;

  auto labels = [&](float y, const char* what) {
    if (compact) return;
    dl->AddText(ImVec2(at.x, y), pal.text_dim.abgr(), what);
    const float what_w = ImGui::CalcTextSize(what).x + font * 0.5f;
    const int step = col * 4 >= ImGui::CalcTextSize("00 ").x * 1.2f ? 4 : 8;
    for (int i = 0; i < kWarpLanes; i += step) {
      const std::string n = std::to_string(i);
      const float x = lane_x(i) - ImGui::CalcTextSize(n.c_str()).x * 0.5f;
      if (x >= at.x + what_w) dl->AddText(ImVec2(x, y), pal.text_dim.abgr(), n.c_str());
    }
  };
  labels(send_y - font * 1.15f, "senders");

  const Rgb moved = okabe_ito::kBlue, kept = pal.text_dim;
  const float thick = std::max(1.5f, font * 0.1f);
  // The lanes that keep their own value first: the moved values' lines on top.
  for (int pass = 0; pass < 2; ++pass)
    for (int l = 0; l < kWarpLanes; ++l) {
      if (!present[l] || (source[l] == l) != (pass == 0)) continue;
      const ImVec2 from(lane_x(l), recv_y), to(lane_x(source[l]), send_y + box);
      const bool own = source[l] == l;
      dl->AddLine(from, to, (own ? kept : moved).abgr(own ? 120 : 230), own ? thick * 0.6f : thick);
      if (!own)
        s.plot_marks.push_back(
            {"banks", "shuffle",
             "lane " + std::to_string(l) + " gets lane " + std::to_string(source[l]), from.x,
             from.y, to.x - from.x, to.y - from.y, moved.abgr()});
    }
  auto lane_box = [&](int l, float y, bool on, bool known, float v, const char* kind) {
    const ImVec2 p0(lane_x(l) - box * 0.5f, y), p1(p0.x + box, y + box);
    const Rgb fill = on ? okabe_ito::kSkyBlue : pal.cell;
    dl->AddRectFilled(p0, p1, fill.abgr());
    s.plot_marks.push_back(
        {"banks", kind, "lane " + std::to_string(l), p0.x, p0.y, box, box, fill.abgr()});
    if (!values || !known) return;
    const std::string txt = value_text(v);
    const ImVec2 ts = f->CalcTextSizeA(value_size, FLT_MAX, 0, txt.c_str());
    dl->AddText(f, value_size, ImVec2(p0.x + (box - ts.x) * 0.5f, p0.y + (box - ts.y) * 0.5f),
                text_on(pal, fill).abgr(), txt.c_str());
  };
  for (int l = 0; l < kWarpLanes; ++l) {
    lane_box(l, send_y, sent_known[l], sent_known[l], sent[l], "sender");
    lane_box(l, recv_y, present[l], present[l], got[l], "receiver");
  }
  labels(recv_y + box + font * 0.2f, "receivers");
  ImGui::Dummy(ImVec2(col * kWarpLanes, recv_y + box + below - at.y));
  ImGui::PushTextWrapPos(0);
  if (!compact)
    ImGui::TextDisabled(values ? "in the boxes: the value each lane sent (where one read it) and "
                                 "got; grey lines: a lane keeps its own"
                               : "grey lines: a lane keeps its own (values need a wider pane)");
  ImGui::PopTextWrapPos();
}

}  // namespace ts::app
