// Source: the kernel's real header as it was compiled (the registry's embedded
// text, whose lines the recorded events and the barrier marks refer to); the
// line of the current event highlighted, each barrier line marked on or off.
// A lesson file that did not compile shows here instead, its errors at their lines.
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/core/jobs.hpp"
#include "app/core/palette.hpp"
#include "app/core/view.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"

namespace ts::app {

class SourceView final : public View {
 public:
  const char* name() const override { return "Source"; }
  Slot slot() const override { return Slot::RightLower; }
  int order() const override { return 0; }

  void draw(AppState& s) override {
    // A lesson file being compiled again after a save: said above what is shown.
    if (s.lesson_watch.compiling() || s.lesson_watch.rerun_pending || s.lesson_watch.awaiting_run)
      ImGui::TextColored(ImVec4(to_f(okabe_ito::kSkyBlue.r), to_f(okabe_ito::kSkyBlue.g),
                                to_f(okabe_ito::kSkyBlue.b), 1),
                         "%s %s...", s.lesson_watch.compiling() ? "Compiling" : "Running",
                         std::filesystem::path(s.lesson_watch.path).filename().c_str());
    if (s.lesson_file_failure) {
      draw_failure(s);
      return;
    }
    const LessonInfo* v = s.lesson();
    if (!v) {
      ImGui::TextDisabled("No lesson.");
      return;
    }
    load(v);
    if (!error_.empty()) {
      ImGui::TextWrapped("%s", error_.c_str());
      return;
    }
    const BarrierSet mask = s.has_trace() ? s.trace().config.barrier_mask : s.request.barrier_mask;
    const Event* e = s.has_trace() ? s.replay->last_event() : nullptr;
    const int current = e ? int(e->line) : -1;
    // The file and function, then the wrap toggle at the right; a narrow pane
    // shows the function alone (the file is in its tooltip). The narrow desk
    // (1280 x 720 at a projector's text) has no line to spare: the code
    // alone, wrapped, closely set.
    const bool desk = s.present.desk_narrow;
    if (!desk) title_row(v);
    const Palette& pal = palette(s.present.theme);
    ImGui::BeginChild("##code", ImVec2(0, 0), false,
                      wrap_ || desk ? 0 : ImGuiWindowFlags_HorizontalScrollbar);
    ImFont* mono = static_cast<ImFont*>(desk && s.present.mono_desk_font ? s.present.mono_desk_font
                                        : s.present.mono_small_font      ? s.present.mono_small_font
                                                                         : s.present.mono_font);
    if (mono) ImGui::PushFont(mono);
    if (desk)
      ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing,
                          ImVec2(ImGui::GetStyle().ItemSpacing.x, ImGui::GetFontSize() * 0.1f));
    const bool wrap = wrap_ || desk;
    lines(s, v, mask, current, pal, wrap);
    if (desk) ImGui::PopStyleVar();
    if (mono) ImGui::PopFont();
    ImGui::EndChild();
  }

 private:
  void title_row(const LessonInfo* v) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float cb_w =
        ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize("wrap").x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const std::string full = std::string(v->source_file) + "  -  " + v->function + "()";
    const std::string title = ImGui::CalcTextSize(full.c_str()).x + cb_w + st.ItemSpacing.x <= avail
                                  ? full
                                  : std::string(v->function) + "()";
    ImGui::TextDisabled("%s", title.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", full.c_str());
    ImGui::SameLine(std::max(ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + st.ItemSpacing.x,
                             ImGui::GetWindowContentRegionMax().x - cb_w));
    ImGui::Checkbox("wrap", &wrap_);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Long lines continue on the next row");
  }

  // The function's lines, the current one lit and kept in view.
  void lines(AppState& s, const LessonInfo* v, const BarrierSet& mask, int current,
             const Palette& pal, bool wrapped) {
    // A pane resized (a splitter, another tab in front above) centres the current line again.
    const ImVec2 pane = ImGui::GetWindowSize();
    if (pane.x != pane_.x || pane.y != pane_.y) scrolled_to_ = -1;
    pane_ = pane;
    const float cw = ImGui::CalcTextSize("M").x;
    // Soft wrap: long lines (trailing comments) continue on the next row under
    // their own indent, so that nothing is cut off in a narrow column. There
    // (under 40 characters of code a row: a projector's text) a barrier's
    // "[on]" is a mark one character wide, and the spaces that line trailing
    // comments up shrink to two: each row is worth its characters.
    const bool marks = s.present.show_barrier_lines && !v->barriers.empty();
    const int room_all = int(ImGui::GetContentRegionAvail().x / cw);
    const bool narrow = wrapped && (s.present.desk_narrow || room_all - 4 - (marks ? 6 : 0) < 40);
    // The line numbers: three digits and a space; narrow, as many digits as the last has.
    const int digits = narrow ? std::max(2, int(std::to_string(last_ + 1).size())) : 3;
    const int room = room_all - digits - 1;
    const int marker_w = !marks ? 0 : narrow ? 2 : 6;
    const int width_chars = wrapped ? std::max(narrow ? 16 : 24, room - marker_w) : 1 << 20;
    // The code's rows in view, whole, for the window's map.
    const ImVec2 clip_min = ImGui::GetWindowDrawList()->GetClipRectMin(),
                 clip_max = ImGui::GetWindowDrawList()->GetClipRectMax();
    const ImVec4 dim(to_f(pal.text_dim.r), to_f(pal.text_dim.g), to_f(pal.text_dim.b), 1);
    for (int i = first_; i <= last_ && i < int(lines_.size()); ++i) {
      const int line = i + 1;
      const BarrierInfo* bar = nullptr;
      for (const BarrierInfo& b : v->barriers)
        if (b.line == line) bar = &b;
      const std::vector<std::string> rows =
          wrap(narrow ? squeeze(lines_[size_t(i)]) : lines_[size_t(i)], width_chars, narrow);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      if (line == current) {
        ImGui::GetWindowDrawList()->AddRectFilled(
            p,
            ImVec2(p.x + ImGui::GetContentRegionAvail().x + (wrapped ? 0 : 2000),
                   p.y + ImGui::GetTextLineHeightWithSpacing() * float(rows.size()) -
                       ImGui::GetStyle().ItemSpacing.y),
            okabe_ito::kSkyBlue.abgr(90));
        s.plot_marks.push_back({"source", "current", lines_[size_t(i)], p.x, p.y,
                                ImGui::GetContentRegionAvail().x,
                                ImGui::GetTextLineHeight() * float(rows.size()), 0});
        if (line != scrolled_to_) {
          // Its top 40 % down the pane, higher where a line wrapped onto rows
          // would run past a short pane's foot.
          const float rows_h = ImGui::GetTextLineHeightWithSpacing() * float(rows.size());
          ImGui::SetScrollFromPosY(
              p.y - ImGui::GetWindowPos().y,
              std::clamp(1.0f - rows_h / ImGui::GetWindowHeight(), 0.0f, 0.4f));
          scrolled_to_ = line;
        }
      }
      const bool off = bar && s.present.show_barrier_lines && !mask.keeps(bar->id);
      for (size_t r = 0; r < rows.size(); ++r) {
        char num[16];
        if (r == 0)
          std::snprintf(num, sizeof num, "%*d ", digits, line);
        else
          std::snprintf(num, sizeof num, "%*s ", digits, "");
        ImGui::TextColored(dim, "%s", num);
        ImGui::SameLine(0, 0);
        if (marks) {
          if (bar && r == 0) {
            const Rgb c = off ? okabe_ito::kVermillion : okabe_ito::kGreen;
            // Narrow: a filled square on, a hollow one off (its tooltip says which).
            const char* sym = !narrow                  ? (off ? "[OFF]" : "[on] ")
                              : s.present.have_symbols ? (off ? "\u25A1" : "\u25A0")
                                                       : (off ? "-" : "+");
            ImGui::TextColored(ImVec4(to_f(c.r), to_f(c.g), to_f(c.b), 1), "%s", sym);
            if (narrow && ImGui::IsItemHovered())
              ImGui::SetTooltip("barrier %d %s", bar->id, off ? "removed" : "on");
          } else {
            ImGui::TextUnformatted(narrow ? " " : "     ");
          }
          ImGui::SameLine(0, cw);
        }
        if (off) {
          ImGui::TextDisabled("%s", rows[r].c_str());
          const ImVec2 q = ImGui::GetItemRectMin(), q2 = ImGui::GetItemRectMax();
          ImGui::GetWindowDrawList()->AddLine(ImVec2(q.x, (q.y + q2.y) * 0.5f),
                                              ImVec2(q2.x, (q.y + q2.y) * 0.5f),
                                              okabe_ito::kVermillion.abgr(), 1.5f);
        } else {
          ImGui::TextUnformatted(rows[r].c_str());
        }
      }
      // Every row of the line inside the pane's view: a line the student can read.
      const float bottom = ImGui::GetItemRectMax().y;
      if (p.y >= clip_min.y - 1 && bottom <= clip_max.y + 1)
        s.plot_marks.push_back(
            {"source", "line", lines_[size_t(i)], p.x, p.y, clip_max.x - p.x, bottom - p.y, 0});
    }
  }

  // A lesson file that did not compile: its text, each line with an error or
  // warning marked and the compiler's message under it, the first error in view.
  void draw_failure(AppState& s) {
    const LessonFile& f = *s.lesson_file_failure;
    // Another failure (a save since) reads the file again.
    const std::string key = f.path + "\n" + f.error + "\n" + f.compiler_output;
    if (failure_path_ != key) {
      failure_path_ = key;
      failure_lines_.clear();
      std::istringstream in{read_text(f.path)};
      for (std::string line; std::getline(in, line);)
        failure_lines_.push_back(line);
      failure_scrolled_ = false;
    }
    const ImVec4 red(to_f(okabe_ito::kVermillion.r), to_f(okabe_ito::kVermillion.g),
                     to_f(okabe_ito::kVermillion.b), 1);
    // Where the compiler said where: the file's name, and its lines below
    // carry the messages; otherwise (no file, a load or registry problem) the whole message.
    const CompilerDiagnostic* first = first_error_in_file(f);
    int errors = 0;
    for (const CompilerDiagnostic& d : f.diagnostics)
      errors += d.severity == "error" || d.severity == "fatal error";
    const std::string head = first && !f.compiler_output.empty()
                                 ? f.path.substr(f.path.rfind('/') + 1) +
                                       " did not compile: " + std::to_string(errors) +
                                       (errors == 1 ? " error" : " errors") +
                                       ", the first at line " + std::to_string(first->line)
                                 : lesson_file_error(f);
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(red, "%s", head.c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.error.c_str());
    if (ImGui::SmallButton("Dismiss")) {
      if (s.banner.text == lesson_file_banner(f)) s.banner.clear();
      s.lesson_file_failure.reset();
      return;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to the lesson's own source");
    // A pane too short for the file (a large font on a small window): the
    // first error's line and message alone, where they can be read.
    if (first && first->line <= int(failure_lines_.size()) &&
        ImGui::GetContentRegionAvail().y < ImGui::GetTextLineHeightWithSpacing() * 6) {
      ImFont* mono = static_cast<ImFont*>(s.present.mono_small_font ? s.present.mono_small_font
                                                                    : s.present.mono_font);
      if (mono) ImGui::PushFont(mono);
      std::string code = failure_lines_[size_t(first->line) - 1];
      code.erase(0, std::min(code.find_first_not_of(' '), code.size()));
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("%d", first->line);
      ImGui::SameLine();
      ImGui::TextUnformatted(code.c_str());
      ImGui::TextColored(red, "%s: %s", first->severity.c_str(), first->message.c_str());
      ImGui::PopTextWrapPos();
      if (mono) ImGui::PopFont();
      return;
    }
    ImGui::BeginChild("##failure", ImVec2(0, 0), false);
    ImFont* mono = static_cast<ImFont*>(s.present.mono_small_font ? s.present.mono_small_font
                                                                  : s.present.mono_font);
    if (mono) ImGui::PushFont(mono);
    // A pane resized (the layout settling, a splitter) brings the error into view again.
    const ImVec2 pane = ImGui::GetWindowSize();
    if (pane.x != failure_pane_.x || pane.y != failure_pane_.y) failure_scrolled_ = false;
    failure_pane_ = pane;
    // Wrapped as the source is, so that a message is read whole in a narrow pane.
    const int width_chars =
        std::max(24, int(ImGui::GetContentRegionAvail().x / ImGui::CalcTextSize("M").x) - 4);
    for (size_t i = 0; i < failure_lines_.size(); ++i) {
      const int line = int(i) + 1;
      std::vector<const CompilerDiagnostic*> here;
      for (const CompilerDiagnostic& d : f.diagnostics)
        if (d.file == f.path && d.line == line && d.severity != "note") here.push_back(&d);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      if (!here.empty())
        ImGui::GetWindowDrawList()->AddRectFilled(
            p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, p.y + ImGui::GetTextLineHeight()),
            okabe_ito::kVermillion.abgr(70));
      if (first && first->line == line && !failure_scrolled_) {
        ImGui::SetScrollHereY(0.25f);  // the messages under it in view too
        failure_scrolled_ = true;
      }
      const std::vector<std::string> rows = wrap(failure_lines_[i], width_chars);
      for (size_t r = 0; r < rows.size(); ++r) {
        ImGui::TextDisabled(r == 0 ? "%3d " : "    ", line);
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(rows[r].c_str());
      }
      for (const CompilerDiagnostic* d : here)
        for (const std::string& row :
             wrap("^ col " + std::to_string(d->column) + ", " + d->severity + ": " + d->message,
                  width_chars))
          ImGui::TextColored(red, "    %s", row.c_str());
    }
    if (mono) ImGui::PopFont();
    ImGui::EndChild();
  }

  // The file, where it is one the compiler could have read (never a FIFO or a
  // device: the lesson file's checks refused those, and reading one would not end).
  static std::string read_text(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) ||
        std::filesystem::file_size(path, ec) > (1u << 20))
      return "";
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // The spaces before a trailing comment (which line comments up in a wide
  // editor) down to two.
  static std::string squeeze(const std::string& line) {
    const size_t c = line.find("  //");
    if (c == std::string::npos) return line;
    const size_t code_end = line.find_last_not_of(' ', c);
    if (code_end == std::string::npos) return line;
    return line.substr(0, code_end + 1) + "  " + line.substr(line.find("//", c));
  }

  // A line cut at spaces into rows of at most `width` characters; rows after
  // the first keep the line's indent plus four.
  // tight: rows after the first two spaces in (a narrow pane).
  static std::vector<std::string> wrap(const std::string& text, int width, bool tight = false) {
    std::vector<std::string> rows;
    if (int(text.size()) <= width) return {text};
    const size_t indent = std::min(text.find_first_not_of(' '), text.size());
    const std::string pad(
        std::min<size_t>(indent + (tight ? 2 : 4), size_t(width / (tight ? 3 : 2))), ' ');
    std::string rest = text;
    bool first = true;
    while (true) {
      const std::string lead = first ? "" : pad;
      const size_t room = size_t(std::max(8, width - int(lead.size())));
      if (rest.size() <= room) {
        rows.push_back(lead + rest);
        break;
      }
      size_t cut = rest.rfind(' ', room);
      if (cut == std::string::npos || cut <= (first ? indent : 0) + 4) cut = room;
      rows.push_back(lead + rest.substr(0, cut));
      rest = rest.substr(cut);
      rest.erase(0, std::min(rest.find_first_not_of(' '), rest.size()));
      first = false;
    }
    return rows;
  }

  void load(const LessonInfo* v) {
    // A lesson file compiled again keeps its LessonInfo and gets a new text.
    const std::string_view text = lesson_source(v->source_file);
    if (v == loaded_ && text.data() == loaded_text_.data() && text.size() == loaded_text_.size())
      return;
    loaded_ = v;
    loaded_text_ = text;
    lines_.clear();
    error_.clear();
    scrolled_to_ = -1;
    // The embedded text, as the Narration view reads its own: a header edited
    // since the build cannot put other lines beside the recorded ones.
    std::istringstream f{std::string(lesson_source(v->source_file))};
    for (std::string line; std::getline(f, line);)
      lines_.push_back(line);
    if (lines_.empty()) {
      error_ = std::string("The kernel's source (") + v->source_file + ") is not in this build.";
      return;
    }
    // The function's own lines: from the template line before its name to its closing brace.
    first_ = 0;
    last_ = int(lines_.size()) - 1;
    const std::string sig = std::string(v->function) + "(";
    for (int i = 0; i < int(lines_.size()); ++i)
      if (lines_[size_t(i)].find(sig) != std::string::npos &&
          lines_[size_t(i)].find("TS_DEVICE") != std::string::npos) {
        first_ = i;
        while (first_ > 0 && lines_[size_t(first_) - 1].rfind("template", 0) == 0)
          --first_;
        while (first_ > 0 && lines_[size_t(first_) - 1].rfind("//", 0) == 0)
          --first_;
        for (int j = i; j < int(lines_.size()); ++j)
          if (lines_[size_t(j)] == "}") {
            last_ = j;
            break;
          }
        break;
      }
  }

  std::string failure_path_;  // the lesson file's failure shown (path, error, compiler output)
  std::vector<std::string> failure_lines_;
  bool failure_scrolled_ = false;
  ImVec2 failure_pane_{0, 0};
  const LessonInfo* loaded_ = nullptr;
  std::string_view loaded_text_;
  std::vector<std::string> lines_;
  std::string error_;
  int first_ = 0, last_ = 0, scrolled_to_ = -1;
  bool wrap_ = true;
  ImVec2 pane_{0, 0};
};

TS_REGISTER_VIEW(SourceView);

}  // namespace ts::app
