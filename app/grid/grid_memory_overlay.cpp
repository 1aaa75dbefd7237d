#include "app/grid/grid_memory_overlay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/core/view.hpp"

namespace ts::app {

namespace {

// Sectors per request on the heatmap's scale: 32 lanes, each its own sector.
constexpr float kWorstSectors = float(kWarpLanes);

Rgb hsv(float h, float s, float v) {
  const float c = v * s, x = c * (1 - std::fabs(std::fmod(h * 6, 2.0f) - 1)), m = v - c;
  float r = 0, g = 0, b = 0;
  switch (int(h * 6) % 6) {
    case 0:
      r = c, g = x;
      break;
    case 1:
      r = x, g = c;
      break;
    case 2:
      g = c, b = x;
      break;
    case 3:
      g = x, b = c;
      break;
    case 4:
      r = x, b = c;
      break;
    default:
      r = c, b = x;
      break;
  }
  auto u8 = [](float f) { return uint8_t(std::lround(std::clamp(f, 0.0f, 1.0f) * 255)); };
  return {u8(r + m), u8(g + m), u8(b + m)};
}

}  // namespace

const char* memory_colours_name(MemoryColours m) {
  switch (m) {
    case MemoryColours::State:
      return "state";
    case MemoryColours::Banks:
      return "banks";
    case MemoryColours::Conflicts:
      return "bank conflicts";
    case MemoryColours::Sectors:
      return "sectors / request";
    case MemoryColours::Coalescing:
      return "coalescing";
    case MemoryColours::Contention:
      return "atomic contention";
  }
  return "state";
}

namespace {

std::string number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// The element at (row, col) of a drawn array, -1 outside its data.
int64_t element_at(const GridArea& a, int row, int col) {
  if (row < 0 || col < 0 || row >= a.rows || col >= a.cols) return -1;
  const int64_t e =
      a.wrap ? int64_t(row) * a.wrap + col - a.lead
             : (row < a.data_rows && col < a.data_cols ? int64_t(row) * a.data_cols + col : -1);
  return e >= 0 && e < int64_t(a.data_rows) * a.data_cols ? e : -1;
}

int row_width(const GridArea& a) {
  return a.wrap ? a.wrap : a.data_cols;
}

using Ramp = Rgb (*)(float);

// A ramp from f(0) to f(1), `w` wide, at the cursor.
void ramp(float w, Ramp f = heat) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const int steps = 40;
  for (int i = 0; i < steps; ++i)
    ImGui::GetWindowDrawList()->AddRectFilled(
        ImVec2(p.x + w * float(i) / steps, p.y),
        ImVec2(p.x + w * float(i + 1) / steps + 0.5f, p.y + h),
        f(float(i) / float(steps - 1)).abgr());
  ImGui::Dummy(ImVec2(w, h));
}

// Dim text on this line when it fits; else a "(?)" that shows it when
// hovered, so that the legend keeps to one line and the cells their room.
void note(const std::string& text) {
  if (same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x)) {
    ImGui::TextDisabled("%s", text.c_str());
    return;
  }
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

uint64_t blocks_of(const Trace& t) {
  const Dim3 g = t.config.geometry.grid;
  return uint64_t(std::max(1u, g.x)) * std::max(1u, g.y) * std::max(1u, g.z);
}

// A bin's colour: its atomics on its memory space's scale, from none (f(0))
// to the space's hottest bin (f(1)).
Rgb contention_colour(uint64_t atomics, uint64_t most, Ramp f) {
  return f(most ? float(double(atomics) / double(most)) : 0.0f);
}

// The spaces that received atomics, each its own scale and ramp: shared
// memory (the per-block bins, the lesson's point) on heat(), global memory on
// heat() when alone, else on heat_warm(), so that a count never reads as
// another scale's colour.
struct SpaceScale {
  Space space = Space::Global;
  Ramp ramp = heat;
  uint64_t most = 0;
  std::string names;
};

std::vector<SpaceScale> contention_scales(const WarpIndex& index, const ArrayTable& table) {
  std::vector<SpaceScale> out;
  for (Space sp : {Space::Shared, Space::Global}) {
    SpaceScale sc;
    sc.space = sp;
    for (const ArrayContention& a : index.contention.arrays) {
      if (a.space != sp) continue;
      sc.most = std::max(sc.most, index.most_atomics_of(a.array));
      sc.names += (sc.names.empty() ? "" : ", ") + array_name(table, a.array);
    }
    if (sc.names.empty()) continue;
    sc.ramp = out.empty() ? heat : heat_warm;
    out.push_back(sc);
  }
  return out;
}

const SpaceScale* scale_of(const std::vector<SpaceScale>& scales, Space sp) {
  for (const SpaceScale& s : scales)
    if (s.space == sp) return &s;
  return nullptr;
}

}  // namespace

Rgb bank_colour(int bank) {
  bank = ((bank % kSharedBanks) + kSharedBanks) % kSharedBanks;
  return hsv(float(bank) / float(kSharedBanks), bank % 2 ? 0.85f : 0.6f, bank % 2 ? 0.78f : 1.0f);
}

Rgb sector_colour(size_t i) {
  using namespace okabe_ito;
  static constexpr Rgb kCycle[] = {kSkyBlue, kOrange, kGreen, kPurple, kYellow, kBlue, kVermillion};
  return kCycle[i % std::size(kCycle)];
}

uint32_t MemoryOverlay::conflict_scale() const {
  // The run's own worst element: a lesson whose worst is a 2-way conflict
  // shows it at the ramp's hot end, not at 1/31 of a 32-way scale where it
  // looked like none. A conflict-free run stays at the cold end (0 of 1).
  return std::max<uint32_t>(1, index_ ? index_->max_extra_wavefronts : 0);
}

// The ramp's place of `extra` wavefronts: 0 the cold end; any conflict at
// least a quarter up (one extra wavefront never reads as none).
static float conflict_fraction(uint32_t extra, uint32_t scale) {
  return extra == 0 ? 0.0f : 0.25f + 0.75f * float(extra) / float(std::max(1u, scale));
}

const ArrayInfo* MemoryOverlay::info(const AppState& s, ArraySlot id) const {
  return s.has_trace() ? s.trace().array(id) : nullptr;
}

void MemoryOverlay::prepare(AppState& s) {
  index_ = s.has_trace() ? s.result.warp : nullptr;
  mode_ = index_ ? s.present.memory : MemoryColours::State;
  current_ = -1;
  lane_of_element_.clear();
  lanes_.clear();
  sectors_.clear();
  caption_.clear();
  if (mode_ != MemoryColours::Coalescing) return;
  const Trace& t = s.trace();
  current_ = index_->current(*s.replay, &earlier_);
  if (current_ < 0) {
    caption_ = "No access yet: step to a load or store (Right, or the timeline's warp button).";
    return;
  }
  const WarpAccess& a = index_->accesses.accesses[size_t(current_)];
  // A 16-byte lane access covers four cells: all four carry its lane.
  lanes_ = lane_cells(t, index_->accesses, a);
  for (const LaneCells& l : lanes_)
    for (int j = 0; j < l.count; ++j)
      lane_of_element_.push_back({l.first + uint32_t(j), l.lane});
  std::sort(lane_of_element_.begin(), lane_of_element_.end());
  for (const LaneAccess& l : lane_accesses(t, index_->accesses, a))
    for (uint64_t x = l.address / kSectorBytes; x <= (l.address + l.bytes - 1) / kSectorBytes; ++x)
      sectors_.push_back(x);
  std::sort(sectors_.begin(), sectors_.end());
  sectors_.erase(std::unique(sectors_.begin(), sectors_.end()), sectors_.end());
  const char* arrow = s.present.have_symbols ? " \u2192 " : " -> ";
  const std::string what = std::to_string(a.lane_count) + (is_load(a.kind) ? " loads" : " stores") +
                           (a.bytes == 16 ? " of 16 bytes" : "");
  const std::string where =
      access_text(t, index_->accesses, a) + ", line " + std::to_string(a.line);
  if (is_shared(a.kind)) {
    const BankService& b = a.bank;
    caption_ = where + ": " + what + arrow +
               (b.degree <= 1 ? std::string("no bank conflict")
                              : std::to_string(b.degree) + "-way bank conflict") +
               " (" + std::to_string(b.wavefronts) + " wavefronts, ideal " +
               std::to_string(b.phases) + ")";
  } else {
    caption_ = where + ": " + what + arrow + std::to_string(a.sector.sectors) +
               (a.sector.sectors == 1 ? " sector" : " sectors") + " (ideal " +
               std::to_string(a.sector.ideal_sectors) + ")";
  }
}

void MemoryOverlay::selector(AppState& s) {
  const char* label = "colour by";
  float widest = 0;
  for (int m = 0; m < kMemoryColourModes; ++m)
    widest = std::max(widest, ImGui::CalcTextSize(memory_colours_name(MemoryColours(m))).x);
  const float w = widest + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2;
  // With the state colours it takes no line of its own (the View menu and M
  // reach it): the grid keeps its room.
  if (!same_line_if_fits(ImGui::CalcTextSize(label).x + w + ImGui::GetStyle().ItemInnerSpacing.x +
                         8) &&
      s.present.memory == MemoryColours::State)
    return;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::SetNextItemWidth(w);
  if (ImGui::BeginCombo("##memory", memory_colours_name(s.present.memory))) {
    for (int m = 0; m < kMemoryColourModes; ++m)
      if (ImGui::Selectable(memory_colours_name(MemoryColours(m)), int(s.present.memory) == m)) {
        s.present.memory = MemoryColours(m);
        if (s.present.memory != MemoryColours::State) s.present.heatmap = false;
      }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "What the cells' colours say (M cycles):\n"
        "state: loaded, written, stale (the replay)\n"
        "banks: each shared element in its bank's colour\n"
        "bank conflicts: the extra wavefronts of the accesses that touched it\n"
        "sectors / request: of the global accesses that touched it (ideal 4)\n"
        "coalescing: the warp access the replay is at, and its 32-byte sectors\n"
        "atomic contention: the atomics each bin received, its longest queue in it");
}

bool MemoryOverlay::legend(AppState& s) {
  if (mode_ == MemoryColours::State) return false;
  const float font = ImGui::GetFontSize();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  std::string said;
  switch (mode_) {
    case MemoryColours::State:
      break;
    case MemoryColours::Banks: {
      said = "Shared memory by bank:";
      ImGui::TextUnformatted(said.c_str());
      ImGui::SameLine();
      const float h = ImGui::GetTextLineHeight();
      const float w = std::clamp(ImGui::GetContentRegionAvail().x / 48.0f, 4.0f, h);
      ImGui::TextUnformatted("0");
      ImGui::SameLine(0, 4);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      for (int b = 0; b < kSharedBanks; ++b)
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x + w * float(b), p.y),
                                                  ImVec2(p.x + w * float(b + 1), p.y + h),
                                                  bank_colour(b).abgr());
      ImGui::Dummy(ImVec2(w * kSharedBanks, h));
      ImGui::SameLine(0, 4);
      ImGui::TextUnformatted("31");
      note("(4-byte words; lanes on one colour wait for each other)");
      break;
    }
    case MemoryColours::Conflicts: {
      said = "Bank conflicts per shared element:";
      ImGui::TextUnformatted(said.c_str());
      ImGui::SameLine();
      ramp(font * 6);
      ImGui::SameLine();
      ImGui::Text("0 .. %u", conflict_scale());
      note(
          "(the extra wavefronts of the warp accesses that touched it, summed over the run; "
          "0 = conflict-free, any conflict a quarter up the ramp; C: the next conflicting "
          "access)");
      break;
    }
    case MemoryColours::Sectors: {
      said = "Sectors per request:";
      ImGui::TextUnformatted(said.c_str());
      ImGui::SameLine();
      ramp(font * 6);
      ImGui::SameLine();
      ImGui::Text("0 .. %d", int(kWorstSectors));
      note(
          "(of the global warp accesses that touched each element; ideal 4: 32 lanes x 4 bytes, "
          "32: every lane its own sector)");
      break;
    }
    case MemoryColours::Coalescing: {
      said = caption_;
      // The heading font while the caption fits on one line; else wrapped.
      ImFont* big = static_cast<ImFont*>(s.present.big_font);
      if (big) {
        ImGui::PushFont(big);
        if (ImGui::CalcTextSize(said.c_str()).x > ImGui::GetContentRegionAvail().x) {
          ImGui::PopFont();
          big = nullptr;
        }
      }
      ImGui::PushTextWrapPos(0);
      ImGui::TextUnformatted(said.c_str());
      ImGui::PopTextWrapPos();
      if (big) ImGui::PopFont();
      if (current_ >= 0) {
        const WarpAccess& a = index_->accesses.accesses[size_t(current_)];
        char who[256];
        std::snprintf(who, sizeof who, "warp %d of block %u%s: %s%s", int(a.warp), a.block,
                      earlier_ ? " (the last access before this position)" : "",
                      is_shared(a.kind)
                          ? "its lanes' elements in their bank's colour, lane numbers in them"
                          : "its lanes' elements in their sector's colour, each 32-byte sector "
                            "they touch outlined",
                      a.bytes == 16 ? "; a lane's 16-byte access boxed as one (4 cells)" : "");
        note(who);
      }
      break;
    }
    case MemoryColours::Contention:
      said = contention_legend(s);
      break;
  }
  const ImVec2 end = ImGui::GetItemRectMax();
  if (mode_ != MemoryColours::Contention) s.grid_facts.legend.push_back({said, 0, 0});
  s.plot_marks.push_back({"memory", "legend", said, at.x, at.y, end.x - at.x, end.y - at.y, 0});
  ImGui::SameLine(0, 20);
  return true;
}

std::string MemoryOverlay::contention_legend(AppState& s) const {
  const AtomicContention& c = index_->contention;
  if (c.empty()) {
    const std::string said = "Atomic contention: this run makes no atomics.";
    ImGui::TextUnformatted(said.c_str());
    return said;
  }
  const Trace& t = s.trace();
  const std::string said = "Atomics per bin:";
  ImGui::TextUnformatted(said.c_str());
  // One line per memory space: its ramp and its scale ("local_bins in shared
  // memory: 0 .. 29" on one ramp, "bins in global memory: 0 .. 4" on another).
  const float indent = ImGui::CalcTextSize(said.c_str()).x + ImGui::GetStyle().ItemSpacing.x;
  std::string shared_names;
  bool first = true;
  for (const SpaceScale& sc : contention_scales(*index_, t.config.arrays)) {
    if (first)
      ImGui::SameLine();
    else
      ImGui::SetCursorPosX(ImGui::GetCursorPosX() + indent);
    first = false;
    ramp(ImGui::GetFontSize() * 5, sc.ramp);
    ImGui::SameLine();
    const std::string line = sc.names + " in " + (sc.space == Space::Shared ? "shared" : "global") +
                             " memory: 0 .. " + std::to_string(sc.most);
    ImGui::TextUnformatted(line.c_str());
    s.grid_facts.legend.push_back({said + " " + line, sc.ramp(0).abgr(), sc.ramp(1).abgr()});
    if (sc.space == Space::Shared) shared_names = sc.names;
  }
  std::string more =
      "(the number in a bin: its longest queue, the most lanes of one warp instruction on it at "
      "once; the atomic unit serves them one after another";
  if (!shared_names.empty())
    more += "; " + shared_names +
            ": one copy per block, every block's bin b coloured by bin b's "
            "atomics summed over all " +
            std::to_string(blocks_of(t)) + " blocks";
  if (c.partial) more += "; the trace is truncated: what it holds";
  note(more + ")");
  return said;
}

bool MemoryOverlay::is_current_array(const GridArea& a) const {
  if (current_ < 0) return false;
  const WarpAccess& w = index_->accesses.accesses[size_t(current_)];
  return w.array == a.id && (!a.shared || w.block == a.block);
}

void MemoryOverlay::recolour(const AppState& s, const GridArea& a, CellImage& img) const {
  const ArrayInfo* ai = info(s, a.id);
  if (mode_ == MemoryColours::State || !ai) return;
  const Palette& pal = palette(s.present.theme);
  const bool have_cost = a.id < index_->cost.size();
  const uint64_t count = ai->count();
  const std::vector<SpaceScale> scales = mode_ == MemoryColours::Contention
                                             ? contention_scales(*index_, s.trace().config.arrays)
                                             : std::vector<SpaceScale>{};
  for (int row = 0; row < a.rows; ++row)
    for (int col = 0; col < a.cols; ++col) {
      const int64_t e = element_at(a, row, col);
      if (e < 0) continue;
      switch (mode_) {
        case MemoryColours::State:
          return;
        case MemoryColours::Banks:
          if (a.shared) img.set(col, row, bank_colour(bank_of(byte_address(*ai, uint32_t(e)))));
          break;
        case MemoryColours::Conflicts:
          if (a.shared && have_cost) {
            const WarpIndex::Cost& c = index_->cost[a.id];
            const uint64_t i = uint64_t(a.block) * count + uint64_t(e);
            if (i >= c.requests.size()) break;
            img.set(col, row,
                    c.requests[i] ? heat(conflict_fraction(c.extra_wavefronts[i], conflict_scale()))
                                  : pal.cell);
          }
          break;
        case MemoryColours::Sectors:
          if (!a.shared && have_cost) {
            const WarpIndex::Cost& c = index_->cost[a.id];
            if (uint64_t(e) >= c.requests.size()) break;
            const uint32_t n = c.requests[size_t(e)];
            img.set(col, row,
                    n ? heat(float(c.sectors[size_t(e)]) / float(n) / kWorstSectors) : pal.cell);
          }
          break;
        case MemoryColours::Coalescing:
          if (is_current_array(a)) {
            const auto it = std::lower_bound(lane_of_element_.begin(), lane_of_element_.end(),
                                             std::make_pair(uint32_t(e), -1));
            if (it == lane_of_element_.end() || it->first != uint32_t(e)) {
              img.set(col, row, pal.cell);
            } else if (a.shared) {
              img.set(col, row, bank_colour(bank_of(byte_address(*ai, uint32_t(e)))));
            } else {
              const uint64_t sector = byte_address(*ai, uint32_t(e)) / kSectorBytes;
              img.set(
                  col, row,
                  sector_colour(size_t(std::lower_bound(sectors_.begin(), sectors_.end(), sector) -
                                       sectors_.begin())));
            }
          }
          break;
        case MemoryColours::Contention:
          if (const ArrayContention* c = index_->contention_of(a.id);
              c && e < int64_t(c->elements.size())) {
            if (const SpaceScale* sc = scale_of(scales, c->space))
              img.set(col, row,
                      contention_colour(c->elements[size_t(e)].atomics, sc->most, sc->ramp));
          }
          break;
      }
    }
}

std::optional<std::string> MemoryOverlay::cell_text(const AppState& s, const GridArea& a,
                                                    uint32_t element) const {
  const ArrayInfo* ai = info(s, a.id);
  if (!ai || mode_ == MemoryColours::State) return std::nullopt;
  const bool have_cost = a.id < index_->cost.size();
  switch (mode_) {
    case MemoryColours::State:
      return std::nullopt;
    case MemoryColours::Banks:
      if (!a.shared) return std::nullopt;
      return std::to_string(bank_of(byte_address(*ai, element)));
    case MemoryColours::Conflicts: {
      if (!a.shared) return std::nullopt;
      if (!have_cost) return std::string();
      const WarpIndex::Cost& c = index_->cost[a.id];
      const uint64_t i = uint64_t(a.block) * ai->count() + element;
      if (i >= c.requests.size() || !c.requests[i]) return std::string();
      return std::to_string(c.extra_wavefronts[i]);
    }
    case MemoryColours::Sectors: {
      if (a.shared) return std::nullopt;
      if (!have_cost) return std::string();
      const WarpIndex::Cost& c = index_->cost[a.id];
      if (element >= c.requests.size() || !c.requests[element]) return std::string();
      return number(double(c.sectors[element]) / double(c.requests[element]));
    }
    case MemoryColours::Coalescing: {
      if (!is_current_array(a)) return std::nullopt;
      const auto it = std::lower_bound(lane_of_element_.begin(), lane_of_element_.end(),
                                       std::make_pair(element, -1));
      if (it == lane_of_element_.end() || it->first != element) return std::string();
      return std::to_string(it->second);
    }
    case MemoryColours::Contention: {
      // The longest queue: a bin with 8 lanes of one warp on it at once reads "8".
      const ArrayContention* c = index_->contention_of(a.id);
      if (!c) return std::nullopt;
      if (element >= c->elements.size() || !c->elements[element].atomics) return std::string();
      return std::to_string(c->elements[element].most_lanes);
    }
  }
  return std::nullopt;
}

void MemoryOverlay::draw_over(AppState& s, ImDrawList* dl, const GridArea& a) const {
  if (mode_ != MemoryColours::Coalescing || !is_current_array(a)) return;
  const ArrayInfo* ai = info(s, a.id);
  if (!ai) return;
  const Palette& pal = palette(s.present.theme);
  const int eb = std::max(1, ai->elem_bytes);
  const int width = row_width(a);
  if (width <= 0) return;
  const uint64_t count = ai->count();
  auto cell_x = [&](int col) { return a.pos.x + float(col) * a.cell; };
  auto cell_y = [&](int row) { return a.pos.y + float(row) * a.cell; };
  // A lane's 16-byte access is one access: its four cells outlined as one
  // group, inside the sector outlines (shared arrays too).
  const float inset = std::clamp(a.cell * 0.2f, 3.0f, 8.0f);
  const float line = std::clamp(a.cell * 0.07f, 1.5f, 3.0f);
  for (const LaneCells& l : lanes_) {
    if (l.count < 2) continue;
    bool marked = false;
    const uint64_t lead = uint64_t(a.wrap ? a.lead : 0);  // cells before element 0
    for (uint64_t e = l.first; e < uint64_t(l.first) + uint64_t(l.count) && e < count;) {
      const int row = int((e + lead) / uint64_t(width));
      const uint64_t end = std::min(
          {uint64_t(l.first) + uint64_t(l.count), count, uint64_t(row + 1) * width - lead});
      const int c0 = int((e + lead) % uint64_t(width)),
                c1 = int((end - 1 + lead) % uint64_t(width));
      e = end;
      if (row >= a.rows || c0 >= a.cols) continue;
      const ImVec2 p0(cell_x(c0) + inset, cell_y(row) + inset),
          p1(cell_x(std::min(c1, a.cols - 1) + 1) - inset, cell_y(row + 1) - inset);
      dl->AddRect(p0, p1, pal.text.abgr(230), 0, 0, line);
      if (!marked)
        s.plot_marks.push_back({"coalescing", "lane", "lane " + std::to_string(l.lane), p0.x, p0.y,
                                p1.x - p0.x, p1.y - p0.y, pal.text.abgr(230)});
      marked = true;
    }
  }
  if (a.shared) return;  // the sectors are global memory's
  // The sector boundaries across the rows the lanes' elements are in.
  std::vector<int> rows;
  for (const auto& [e, lane] : lane_of_element_)
    rows.push_back(int(e / uint32_t(width)));
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  const float thin = std::max(1.0f, a.cell * 0.06f);
  for (int row : rows) {
    if (row >= a.rows) continue;
    for (int col = 1; col < width && col < a.cols; ++col) {
      const uint64_t e = uint64_t(row) * uint64_t(width) + uint64_t(col);
      if (e >= count || (e * uint64_t(eb)) % kSectorBytes != 0) continue;
      dl->AddLine(ImVec2(cell_x(col), cell_y(row) - a.cell * 0.2f),
                  ImVec2(cell_x(col), cell_y(row + 1) + a.cell * 0.2f), pal.text.abgr(200), thin);
    }
  }
  // Each touched sector outlined, one box per row it covers.
  const float thick = std::clamp(a.cell * 0.14f, 2.0f, 5.0f);
  for (size_t i = 0; i < sectors_.size(); ++i) {
    const uint64_t first = sectors_[i] * kSectorBytes / uint64_t(eb);
    const uint64_t last =
        std::min(count, ((sectors_[i] + 1) * kSectorBytes + eb - 1) / uint64_t(eb));
    bool marked = false;
    for (uint64_t e = first; e < last;) {
      const int row = int(e / uint64_t(width));
      const uint64_t row_end = std::min(last, uint64_t(row + 1) * uint64_t(width));
      const int c0 = int(e % uint64_t(width)), c1 = int((row_end - 1) % uint64_t(width));
      e = row_end;
      if (row >= a.rows || c0 >= a.cols) continue;
      const ImVec2 p0(cell_x(c0), cell_y(row)),
          p1(cell_x(std::min(c1, a.cols - 1) + 1), cell_y(row + 1));
      dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), IM_COL32(0, 0, 0, 220), 0,
                  0, thick + 2);
      dl->AddRect(p0, p1, sector_colour(i).abgr(), 0, 0, thick);
      if (!marked)
        s.plot_marks.push_back({"coalescing", "sector", "sector " + std::to_string(sectors_[i]),
                                p0.x, p0.y, p1.x - p0.x, p1.y - p0.y, sector_colour(i).abgr()});
      marked = true;
    }
  }
}

void MemoryOverlay::tooltip(const AppState& s, const GridArea& a, uint32_t element) const {
  const ArrayInfo* ai = info(s, a.id);
  if (!ai || !index_) return;
  if (const ArrayContention* c = index_->contention_of(a.id); c && element < c->elements.size()) {
    const ElementContention& e = c->elements[element];
    const std::string over =
        a.shared ? " (all " + std::to_string(blocks_of(s.trace())) + " blocks' copies of this bin)"
                 : "";
    if (e.atomics)
      ImGui::Text("%llu atomics%s; longest queue %u %s, %llu lanes waited in all",
                  (unsigned long long)e.atomics, over.c_str(), e.most_lanes,
                  e.most_lanes == 1 ? "lane" : "lanes of one warp instruction",
                  (unsigned long long)e.queued);
    else
      ImGui::Text("no atomics%s", over.c_str());
  }
  const uint64_t address = byte_address(*ai, element);
  if (a.shared) {
    ImGui::Text("bank %d (byte %llu of the block's shared memory)", bank_of(address),
                (unsigned long long)address);
    if (a.id < index_->cost.size()) {
      const WarpIndex::Cost& c = index_->cost[a.id];
      const uint64_t i = uint64_t(a.block) * ai->count() + element;
      if (i < c.requests.size() && c.requests[i])
        ImGui::Text("%u warp accesses touched it: %u extra wavefronts in all", c.requests[i],
                    c.extra_wavefronts[i]);
    }
  } else {
    ImGui::Text("sector %llu (bytes %llu..%llu of %s)",
                (unsigned long long)(address / kSectorBytes),
                (unsigned long long)(address / kSectorBytes * kSectorBytes),
                (unsigned long long)(address / kSectorBytes * kSectorBytes + kSectorBytes - 1),
                ai->name.c_str());
    if (a.id < index_->cost.size()) {
      const WarpIndex::Cost& c = index_->cost[a.id];
      if (element < c.requests.size() && c.requests[element])
        ImGui::Text("%u warp accesses touched it: %s sectors per request", c.requests[element],
                    number(double(c.sectors[element]) / double(c.requests[element])).c_str());
    }
  }
}

}  // namespace ts::app
