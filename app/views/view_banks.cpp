// Banks: how the memory system serves the warp instruction the replay is at
// (analysis/warp_access.hpp states the rules). A shared access: the warp's 32
// lanes across the top, the 32 banks below, a line from each lane to its
// bank, the busiest bank marked and the conflict in words. A global access:
// the lanes and the 32-byte sectors their bytes fall in, lanes coloured by
// sector. A shared atomic: the same, and the lanes on one word as the queue
// the atomic unit serves one after another. A warp shuffle: the lanes twice,
// a line from each to the lane it got its value from (app/views/shuffle_diagram.hpp).
// Under the caption (what the source asks for), what the GPU executes for it
// (the compiled level: "this line's 4 loads per lane run as one LDS.128"),
// and under the diagram the run's counts at both levels.
// The caption, the GPU's note, the totals and the busiest bank also go to
// s.plot_marks (plot "banks"), so that the scripted mode's map tells the
// tests what was drawn.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "analysis/warp_access.hpp"
#include "app/core/palette.hpp"
#include "app/core/view.hpp"
#include "app/grid/grid_memory_overlay.hpp"
#include "app/views/compiled_note.hpp"
#include "app/views/shuffle_diagram.hpp"

namespace ts::app {

namespace {

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// A line drawn into the diagram (no wrapping there): the longest form that
// fits the pane's width, so that a narrow strip shortens it, never cuts it.
std::string fitting(const std::vector<std::string>& forms, float width) {
  for (const std::string& f : forms)
    if (ImGui::CalcTextSize(f.c_str()).x <= width) return f;
  return forms.back();
}

}  // namespace

class BanksView final : public View {
 public:
  const char* name() const override { return "Banks"; }
  Slot slot() const override { return Slot::Right; }
  int order() const override { return 30; }  // between Memory and Races

  void draw(AppState& s) override {
    if (!s.has_trace()) {
      ImGui::TextDisabled("Run a lesson to see how its warps' accesses are served.");
      return;
    }
    refresh(s);
    const WarpAccess* a = current(*s.replay);
    // A short pane (a large font at 720p): the diagram without its labels and notes.
    compact_ = ImGui::GetContentRegionAvail().y < ImGui::GetFontSize() * 10;
    ImGui::PushTextWrapPos(0);
    if (shuffle_ >= 0) {
      draw_shuffle_step(s);
      return;
    }
    if (!a) {
      text_wrapped_at_spaces(
          "No memory access yet. Step forward to a load or store (the timeline's warp button "
          "steps a warp instruction at a time): this panel then shows how the warp's 32 lanes "
          "reach shared memory's banks or global memory's sectors.");
      ImGui::PopTextWrapPos();
      return;
    }
    const Trace& t = s.trace();
    const std::vector<LaneAccess> lanes = lane_accesses(t, index_->accesses, *a);
    const std::string what = access_text(t, index_->accesses, *a) + ", line " +
                             std::to_string(a->line) + ": " +
                             (shared_access(a->kind) ? shared_words(*a, lanes) : global_words(*a));
    // The heading font while the caption fits in two lines; a narrow pane keeps its room for
    // the diagram.
    ImFont* big = static_cast<ImFont*>(s.present.big_font);
    if (big) {
      ImGui::PushFont(big);
      const float two_lines = ImGui::GetTextLineHeight() * 2.2f;
      if (ImGui::CalcTextSize(what.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y >
          two_lines) {
        ImGui::PopFont();
        big = nullptr;
      }
    }
    const ImVec2 caption_at = ImGui::GetCursorScreenPos();
    const float caption_w = ImGui::GetContentRegionAvail().x;
    text_wrapped_at_spaces(what);
    const float caption_h = ImGui::GetCursorScreenPos().y - caption_at.y;
    if (big) ImGui::PopFont();
    s.plot_marks.push_back(
        {"banks", "caption", what, caption_at.x, caption_at.y, caption_w, caption_h, 0});
    if (!compact_)
      ImGui::TextDisabled("source: %s by warp %d of block %u, %s%s", to_string(a->kind),
                          int(a->warp), a->block, plural(a->lane_count, "lane", "lanes").c_str(),
                          position_note_.c_str());
    // A short pane keeps the diagram right under the caption: the note follows it.
    if (!compact_) gpu_note(s, *a);
    ImGui::PopTextWrapPos();
    if (shared_access(a->kind))
      draw_banks(s, *a, lanes);
    else
      draw_sectors(s, lanes);
    if (compact_) {
      ImGui::PushTextWrapPos(0);
      gpu_note(s, *a);
      ImGui::PopTextWrapPos();
    }
    if (!compact_) totals(s);
  }

 private:
  // The run's warp accesses: built with the trace by the background job.
  void refresh(const AppState& s) {
    if (index_ == s.result.warp) return;
    index_ = s.result.warp;
    cached_position_ = ~0ull;
  }

  // The access of the last applied event, else the nearest one before it.
  const WarpAccess* current(const Replay& r) {
    if (!index_) return nullptr;
    if (cached_position_ != r.position() || cached_order_ != r.order()) {
      cached_position_ = r.position();
      cached_order_ = r.order();
      bool earlier = false;
      current_ = index_->current(r, &earlier);
      position_note_ = earlier ? " (the last access before this position)" : "";
      shuffle_ = index_->current_shuffle(r, &earlier);
      if (shuffle_ >= 0) position_note_ = earlier ? " (the last one before this position)" : "";
    }
    return current_ >= 0 ? &index_->accesses.accesses[size_t(current_)] : nullptr;
  }

  // The shuffle the replay is at: its caption in the heading font, the diagram below.
  void draw_shuffle_step(AppState& s) {
    const WarpIndex::Shuffle& sh = index_->shuffles[size_t(shuffle_)];
    const Trace& t = s.trace();
    std::vector<std::pair<int, int>> lane_source;
    for (uint32_t e : index_->lanes_of(sh))
      lane_source.push_back(
          {int(t.events[e].thread % kWarpLanes), int(t.events[e].element % kWarpLanes)});
    const std::string what = shuffle_caption(lane_source);
    caption(s, what);
    if (!compact_)
      ImGui::TextDisabled("line %u, warp %d of block %u, %s: registers to registers, no memory%s",
                          unsigned(sh.line), int(sh.warp), sh.block,
                          plural(int(sh.lane_count), "lane", "lanes").c_str(),
                          position_note_.c_str());
    ImGui::PopTextWrapPos();
    draw_shuffle(s, sh, compact_);
  }

  // What the GPU runs for the access (the compiled level), in its own colour:
  // the caption above is the source's teaching point, this the instruction.
  void gpu_note(AppState& s, const WarpAccess& a) {
    const std::string note = compiled_note(*index_, s.trace(), a);
    if (note.empty()) return;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    // Bluish green reads on the dark theme, blue on the light one.
    const Rgb c = s.present.theme == Theme::Dark ? okabe_ito::kGreen : okabe_ito::kBlue;
    ImGui::PushStyleColor(ImGuiCol_Text, c.abgr());
    text_wrapped_at_spaces(note);
    ImGui::PopStyleColor();
    s.plot_marks.push_back(
        {"banks", "compiled", note, at.x, at.y, w, ImGui::GetCursorScreenPos().y - at.y, c.abgr()});
  }

  // The run's counts at both levels, under the diagram.
  void totals(AppState& s) {
    const std::vector<std::string> lines = level_totals(*index_);
    if (lines.empty()) return;
    ImGui::Spacing();
    // Presenter mode's strip does not scroll: the lines that fit whole, none
    // cut at its foot (the panel scrolls to them all).
    float room = s.present.presenter ? ImGui::GetContentRegionAvail().y : 1e9f;
    auto fits = [&](const std::string& text) {
      const float h = wrapped_at_spaces_height(text);
      if (h > room) return false;
      room -= h;
      return true;
    };
    const std::string intro =
        std::string(
            "This run. Source: what the lesson's code asks for. GPU: what the "
            "compiled kernel executes (") +
        (index_->code ? "Nsight Compute's counts" : "not shown: the counts follow the source") +
        ").";
    if (!fits(intro)) return;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped_at_spaces(intro);
    ImGui::PopStyleColor();
    for (const std::string& l : lines) {
      if (!fits(l)) break;
      const ImVec2 at = ImGui::GetCursorScreenPos();
      text_wrapped_at_spaces(l);
      s.plot_marks.push_back({"banks", "totals", l, at.x, at.y, ImGui::GetContentRegionAvail().x,
                              ImGui::GetCursorScreenPos().y - at.y, 0});
    }
  }

  // The caption in the heading font while it fits in two lines, reported in the plot marks.
  void caption(AppState& s, const std::string& what) {
    ImFont* big = static_cast<ImFont*>(s.present.big_font);
    if (big) {
      ImGui::PushFont(big);
      if (ImGui::CalcTextSize(what.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y >
          ImGui::GetTextLineHeight() * 2.2f) {
        ImGui::PopFont();
        big = nullptr;
      }
    }
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    text_wrapped_at_spaces(what);
    const float h = ImGui::GetCursorScreenPos().y - at.y;
    if (big) ImGui::PopFont();
    s.plot_marks.push_back({"banks", "caption", what, at.x, at.y, w, h, 0});
  }

  // The longest queue of lanes on one word (a shared atomic's).
  static size_t longest_queue(const std::vector<LaneAccess>& lanes) {
    std::map<uint64_t, size_t> n;
    size_t most = 0;
    for (const LaneAccess& l : lanes)
      most = std::max(most, ++n[l.address / kBankWordBytes]);
    return most;
  }

  static std::string shared_words(const WarpAccess& a, const std::vector<LaneAccess>& lanes) {
    const BankService& b = a.bank;
    std::vector<uint64_t> words;
    for (const LaneAccess& l : lanes)
      words.push_back(l.address / kBankWordBytes);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    if (a.kind == EventKind::SharedAtomic) {
      // The warp_access model: twice a load's wavefronts (a read and a write),
      // lanes on one word no extra wavefront; the atomic unit queues them.
      const size_t q = longest_queue(lanes);
      std::string w = "atomic on " + plural(int(words.size()), "word", "words") + ": " +
                      plural(b.wavefronts, "wavefront", "wavefronts") +
                      (b.degree > 1 ? " (" + std::to_string(b.degree) + "-way bank conflict)"
                                    : std::string(" (a read and a write)"));
      w += q > 1 ? "; the atomic unit queues lanes on one word: longest queue " +
                       std::to_string(q) + " lanes"
                 : "; no two lanes on one word: no queue";
      return w;
    }
    if (b.degree <= 1) {
      std::string w = "no conflict";
      if (words.size() < lanes.size())
        w += " (broadcast of " + plural(int(words.size()), "word", "words") + ")";
      else
        w += ": " + plural(b.wavefronts, "wavefront", "wavefronts");
      return w;
    }
    return std::to_string(b.degree) +
           "-way conflict: " + plural(b.wavefronts, "wavefront", "wavefronts") + " instead of " +
           std::to_string(b.phases);
  }

  static std::string global_words(const WarpAccess& a) {
    if (is_atomic(a.kind)) {
      const SectorService& g = a.sector;
      return "atomic: " + plural(g.sectors, "sector", "sectors") + " (ideal " +
             std::to_string(g.ideal_sectors) + ")";
    }
    const SectorService& g = a.sector;
    if (g.sectors > g.ideal_sectors && g.sectors == int(a.lane_count) && a.lane_count > 1)
      return std::to_string(g.sectors) + " sectors: each lane its own sector (ideal " +
             std::to_string(g.ideal_sectors) + ")";
    return plural(g.sectors, "sector", "sectors") + " (ideal " + std::to_string(g.ideal_sectors) +
           ")";
  }

  // The geometry both diagrams share: 32 lane boxes across the pane.
  struct Rows {
    float x0 = 0, col = 0, box = 0;
    float top = 0, lane_y = 0, target_y = 0, bottom = 0;
    float lane_x(int lane) const { return x0 + (float(lane) + 0.5f) * col; }
  };
  Rows rows(float extra_below = 0) const {
    const float font = ImGui::GetFontSize();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    Rows g;
    g.x0 = at.x;
    g.col = std::max(4.0f, avail.x / float(kWarpLanes));
    g.box = std::clamp(g.col * 0.8f, 3.0f, font * 1.5f);
    const float above = compact_ ? 2.0f : font * 1.2f;  // the "lanes" labels
    const float below =
        (compact_ ? 2.0f : font * 2.6f) + extra_below;  // the "banks" labels and a note
    g.top = at.y;
    g.lane_y = at.y + above;
    // The lines get what the pane has left, within reason.
    const float lines_h =
        std::clamp(avail.y - above - below - 2 * g.box - font * 0.4f, font * 1.2f, font * 9.0f);
    g.target_y = g.lane_y + g.box + lines_h;
    g.bottom = g.target_y + g.box + below;
    return g;
  }

  void labels(ImDrawList* dl, const Rows& g, float y, const char* what, ImU32 col) const {
    if (compact_) return;
    const float font = ImGui::GetFontSize();
    dl->AddText(ImVec2(g.x0, y), col, what);
    const float what_w = ImGui::CalcTextSize(what).x + font * 0.5f;
    // Numbers every 8 lanes (every 4 when they fit), clear of the label.
    const int step = g.col * 4 >= ImGui::CalcTextSize("00 ").x * 1.2f ? 4 : 8;
    for (int i = 0; i < kWarpLanes; i += step) {
      char n[8];
      std::snprintf(n, sizeof n, "%d", i);
      const float w = ImGui::CalcTextSize(n).x;
      const float x = g.lane_x(i) - w * 0.5f;
      if (x < g.x0 + what_w) continue;
      dl->AddText(ImVec2(x, y), col, n);
    }
  }

  void draw_banks(AppState& s, const WarpAccess& a, const std::vector<LaneAccess>& lanes) {
    const Palette& pal = palette(s.present.theme);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize();
    ImGui::Spacing();
    const bool atomic = a.kind == EventKind::SharedAtomic;
    const size_t queue = atomic ? longest_queue(lanes) : 0;
    // A queue of lanes under its bank: small boxes, as many as fit.
    const float queue_h =
        queue > 1 ? std::min(ImGui::GetContentRegionAvail().y * 0.3f, font * 0.9f * float(queue))
                  : 0.0f;
    const Rows g = rows(queue_h);
    // Distinct words per bank (the busiest bank's count is the degree).
    std::map<uint64_t, std::vector<int>> word_lanes;  // word -> its lanes
    for (const LaneAccess& l : lanes)
      word_lanes[l.address / kBankWordBytes].push_back(l.lane);
    int words_in[kSharedBanks] = {};
    for (const auto& [word, ls] : word_lanes)
      ++words_in[bank_of(word * kBankWordBytes)];
    const int busiest = a.bank.degree > 1 ? a.bank.busiest_bank : -1;
    const Rgb hot = okabe_ito::kVermillion, used = okabe_ito::kSkyBlue, line = okabe_ito::kBlue;

    labels(dl, g, g.lane_y - font * 1.15f, "lanes", pal.text_dim.abgr());
    for (const auto& [word, ls] : word_lanes) {
      const int bank = bank_of(word * kBankWordBytes);
      const ImVec2 to(g.lane_x(bank), g.target_y);
      const bool worst = atomic && ls.size() == queue && queue > 1;
      const ImU32 c = (worst ? okabe_ito::kOrange : bank == busiest ? hot : line).abgr(200);
      const float thick = std::max(1.0f, font * 0.08f);
      if (ls.size() == 1 || atomic) {  // an atomic's lanes on one word: each its own pass
        for (int l : ls)
          dl->AddLine(ImVec2(g.lane_x(l), g.lane_y + g.box), to, c, thick);
      } else {
        // A broadcast: the lanes meet just above the bank, one thick line serves them all.
        const ImVec2 meet(to.x, to.y - (g.target_y - g.lane_y - g.box) * 0.25f);
        for (int l : ls)
          dl->AddLine(ImVec2(g.lane_x(l), g.lane_y + g.box), meet, c, thick);
        dl->AddLine(meet, to, c, thick * 3);
        dl->AddCircleFilled(meet, thick * 2.5f, c);
      }
    }
    for (int l = 0; l < kWarpLanes; ++l) {
      const bool on = (a.lane_mask >> l) & 1u;
      const float x = g.lane_x(l) - g.box * 0.5f;
      dl->AddRectFilled(ImVec2(x, g.lane_y), ImVec2(x + g.box, g.lane_y + g.box),
                        (on ? line : pal.cell).abgr());
    }
    for (int b = 0; b < kSharedBanks; ++b) {
      const float x = g.lane_x(b) - g.box * 0.5f;
      const Rgb fill = b == busiest ? hot : words_in[b] ? used : pal.cell;
      // The busiest bank stands out also by size: a projector washes colours out.
      const float grow = b == busiest ? g.box * 0.25f : 0.0f;
      const ImVec2 p0(x - grow, g.target_y - grow), p1(x + g.box + grow, g.target_y + g.box + grow);
      dl->AddRectFilled(p0, p1, fill.abgr());
      if (b == busiest)
        s.plot_marks.push_back({"banks", "busiest", "bank " + std::to_string(b), p0.x, p0.y,
                                p1.x - p0.x, p1.y - p0.y, fill.abgr()});
    }
    if (queue > 1) draw_queues(s, g, word_lanes, queue, queue_h);
    labels(dl, g, g.target_y + g.box + queue_h + font * 0.3f, "banks", pal.text_dim.abgr());
    if (busiest >= 0 && !compact_) {
      const std::string bank = "bank " + std::to_string(busiest) + ": ";
      const std::string words = plural(words_in[busiest], "word", "words");
      const std::string note =
          fitting({bank + std::to_string(words_in[busiest]) + " different words, one per wavefront",
                   bank + words + ", " + plural(words_in[busiest], "wavefront", "wavefronts"),
                   bank + words},
                  g.col * kWarpLanes);
      const ImVec2 at(g.x0, g.target_y + g.box + queue_h + font * 1.4f);
      dl->AddText(at, hot.abgr(), note.c_str());
      const ImVec2 size = ImGui::CalcTextSize(note.c_str());
      s.plot_marks.push_back({"banks", "note", note, at.x, at.y, size.x, size.y, hot.abgr()});
    }
    ImGui::Dummy(ImVec2(g.col * kWarpLanes, g.bottom - g.top));
  }

  // A shared atomic: under each bank, the lanes on one of its words as a
  // queue (the first is served, the others wait their turn at the atomic
  // unit), the longest in the highlight colour.
  void draw_queues(AppState& s, const Rows& g,
                   const std::map<uint64_t, std::vector<int>>& word_lanes, size_t longest,
                   float height) const {
    const Palette& pal = palette(s.present.theme);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize();
    const float top = g.target_y + g.box + font * 0.15f;
    const float step = (height - font * 0.15f) / float(longest);
    // Queues of one bank (a bank conflict: several words) side by side under it.
    int queues_in[kSharedBanks] = {}, drawn_in[kSharedBanks] = {};
    for (const auto& [word, ls] : word_lanes)
      if (ls.size() > 1) ++queues_in[bank_of(word * kBankWordBytes)];
    for (const auto& [word, ls] : word_lanes) {
      if (ls.size() < 2) continue;
      const int bank = bank_of(word * kBankWordBytes);
      const Rgb c = ls.size() == longest ? okabe_ito::kOrange : okabe_ito::kSkyBlue;
      const float span = g.box * 1.1f, w = span / float(queues_in[bank]) - 1;
      const float x = g.lane_x(bank) - span * 0.5f + float(drawn_in[bank]++) * (w + 1);
      for (size_t i = 0; i < ls.size(); ++i) {
        const float y = top + float(i) * step;
        if (i == 0)
          dl->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + step - 1), c.abgr());
        else
          dl->AddRect(ImVec2(x, y), ImVec2(x + w, y + step - 1), c.abgr(), 0, 0,
                      std::max(1.0f, font * 0.08f));
        const std::string n = std::to_string(ls[i]);
        const float size = std::min(font * 0.7f, step * 0.9f);
        const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0, n.c_str());
        if (size >= 9 && ts.x <= w)
          dl->AddText(ImGui::GetFont(), size,
                      ImVec2(x + (w - ts.x) * 0.5f, y + (step - 1 - ts.y) * 0.5f),
                      (i == 0 ? text_on(pal, c) : pal.text).abgr(), n.c_str());
      }
      std::string label =
          "word " + std::to_string(word) + " (bank " + std::to_string(bank) + "): lanes";
      for (int l : ls)
        label += " " + std::to_string(l);
      s.plot_marks.push_back(
          {"banks", "queue", label, x, top, w, step * float(ls.size()), c.abgr()});
    }
  }

  void draw_sectors(AppState& s, const std::vector<LaneAccess>& lanes) {
    const Palette& pal = palette(s.present.theme);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize();
    ImGui::Spacing();
    const Rows g = rows();
    std::vector<uint64_t> sectors;
    for (const LaneAccess& l : lanes)
      sectors.push_back(l.address / kSectorBytes);
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    auto index_of = [&](uint64_t sector) {
      return size_t(std::lower_bound(sectors.begin(), sectors.end(), sector) - sectors.begin());
    };
    // The sectors side by side under the lanes, as wide as the lanes allow.
    const float width = g.col * kWarpLanes;
    const float slot = width / float(std::max<size_t>(sectors.size(), 1));
    const float gap = std::min(slot * 0.15f, font * 0.5f);
    auto sector_x = [&](size_t i) { return g.x0 + (float(i) + 0.5f) * slot; };

    labels(dl, g, g.lane_y - font * 1.15f, "lanes", pal.text_dim.abgr());
    const float thick = std::max(1.0f, font * 0.08f);
    for (const LaneAccess& l : lanes) {
      const size_t i = index_of(l.address / kSectorBytes);
      dl->AddLine(ImVec2(g.lane_x(l.lane), g.lane_y + g.box), ImVec2(sector_x(i), g.target_y),
                  sector_colour(i).abgr(200), thick);
    }
    for (int l = 0; l < kWarpLanes; ++l) {
      Rgb fill = pal.cell;
      for (const LaneAccess& la : lanes)
        if (la.lane == l) fill = sector_colour(index_of(la.address / kSectorBytes));
      const float x = g.lane_x(l) - g.box * 0.5f;
      dl->AddRectFilled(ImVec2(x, g.lane_y), ImVec2(x + g.box, g.lane_y + g.box), fill.abgr());
    }
    for (size_t i = 0; i < sectors.size(); ++i) {
      const float x = g.x0 + float(i) * slot + gap * 0.5f;
      dl->AddRectFilled(ImVec2(x, g.target_y), ImVec2(x + slot - gap, g.target_y + g.box),
                        sector_colour(i).abgr());
    }
    const std::string count = plural(int(sectors.size()), "sector", "sectors");
    const std::string under =
        fitting({count + " of " + std::to_string(kSectorBytes) + " bytes", count}, width);
    if (!compact_)
      dl->AddText(ImVec2(g.x0, g.target_y + g.box + font * 0.3f), pal.text_dim.abgr(),
                  under.c_str());
    ImGui::Dummy(ImVec2(width, g.bottom - g.top));
  }

  std::shared_ptr<const WarpIndex> index_;
  uint64_t cached_position_ = ~0ull;
  ReplayOrder cached_order_ = ReplayOrder::AsRecorded;
  int32_t current_ = -1;
  int32_t shuffle_ = -1;  // the shuffle the replay is at, -1 when at an access
  std::string position_note_;
  bool compact_ = false;
};

TS_REGISTER_VIEW(BanksView);

}  // namespace ts::app
