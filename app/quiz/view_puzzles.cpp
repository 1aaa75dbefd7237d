// The Puzzles panel: every puzzle of assets/puzzles/ with the student's
// progress (solved, attempted), the chosen one's statement, its hints one at
// a time and its budgets; "Open my copy" loads the student's copy of the
// skeleton (made from the skeleton the first time, in my_puzzles/ of the
// folder the window keeps its settings in) as a lesson file and runs it;
// "Check" grades it with the command line's grader (analysis/puzzle.hpp) in
// the background and lists the rules; a puzzle's file on screen (opened here,
// with --lesson-file or File > Open) is graded as it opens, on the GPU too
// where the window runs there. Progress lives
// with the user's data (analysis/puzzle.hpp's puzzle_progress_path()).
#include <imgui.h>

#include <cfloat>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <optional>

#include "analysis/puzzle.hpp"
#include "app/core/app_state.hpp"
#include "app/core/jobs.hpp"
#include "app/core/palette.hpp"
#include "app/core/view.hpp"
#include "engine/catalogue.hpp"
#include "engine/lesson_file.hpp"
#include "engine/plain_cuda.hpp"

namespace ts::app {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCopiesDir = "my_puzzles";

ImVec4 colour(Rgb c) {
  return ImVec4(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1);
}

// Where the window runs on the GPU, the grade runs there too (rule "gpu",
// as `check --backend cuda`); the simulator's rules are graded either way.
GradeOptions grade_options(const AppState& s) {
  return {.gpu = s.request.backend != BackendChoice::Sim && cuda_status().usable};
}

class PuzzlesView final : public View {
 public:
  const char* name() const override { return "Puzzles"; }
  Slot slot() const override { return Slot::Right; }
  int order() const override { return 90; }
  // While the student's file is on screen, the news (the puzzle, the grade,
  // the buttons and why a grade failed): the narrow desk (app/shell/layout.cpp)
  // gives the panel no more, the source the rest. Else (choosing) no preference.
  float preferred_height() const override { return solving() ? news_h_ : 0; }

  // Every frame, in front or not: a puzzle's file opened while another tab
  // is in front is graded all the same, and brings this panel forward.
  void update(AppState& s) override {
    if (pending_.valid()) {
      s.mark_busy();
      if (pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
        record(pending_.get());
    }
    if (!loaded_) {
      list_ = load_puzzles();
      progress_ = read_puzzle_progress(puzzle_progress_path(), &progress_problem_);
      loaded_ = true;
    }
    follow_the_lesson(s);
  }

  void draw(AppState& s) override {
    update(s);  // a grade in flight keeps a scripted window waiting, whichever of the two runs
    if (list_.puzzles.empty()) {
      text_wrapped_at_spaces(list_.problems.empty() ? "No puzzles found." : list_.problems[0]);
      return;
    }
    const float y0 = ImGui::GetCursorPosY();
    news_h_ = 0;
    if (!progress_problem_.empty()) text_wrapped_at_spaces(progress_problem_);
    draw_list(s);
    if (selected_ < 0 || selected_ >= int(list_.puzzles.size())) return draw_count();
    draw_puzzle(s, list_.puzzles[size_t(selected_)], y0);
  }

 private:
  // A puzzle's copy or solution on screen selects its puzzle, and is graded
  // as it opens and again after every reload (a save the window compiled), in
  // the background, as `tilescope-cli check` would.
  void follow_the_lesson(AppState& s) {
    const LessonInfo* v = s.lesson();
    if (!v || !v->source_file) return;
    const bool same_file = v->source_file == followed_;
    if (same_file && (followed_id_.empty() || s.lesson_watch.reloads == graded_reloads_)) return;
    if (!same_file) {
      followed_ = v->source_file;
      followed_id_.clear();
      const std::string_view text = lesson_source(v->source_file);
      // A .cu names its puzzle in its launch block, a lesson header in its descriptor.
      std::string id = plain_cuda_puzzle_id(text);
      if (!is_plain_cuda_path(v->source_file)) {
        const size_t at = text.find("puzzles::setup(\"");
        if (at == std::string_view::npos) return;
        const size_t start = at + 16, end = text.find('"', start);
        id = std::string(text.substr(start, end - start));
      }
      for (size_t i = 0; i < list_.puzzles.size(); ++i)
        if (list_.puzzles[i].id == id) {
          if (selected_ != int(i)) select(int(i));
          followed_id_ = id;
        }
      if (followed_id_.empty()) return;
      // A puzzle is solved with its grade, source and verdict beside the grid
      // (app/shell/layout.cpp's puzzle desk): this panel in front, and the
      // presenter mode the app chose for the lesson before it leaves.
      if (s.present.presenter_auto) s.present.presenter = s.present.presenter_auto = false;
      if (!s.present.presenter) s.select_tab = name();
    }
    if (pending_.valid() || selected_ < 0) return;  // a grade in flight: this one next frame
    graded_reloads_ = s.lesson_watch.reloads;
    // The file is loaded already (the same text): the grader only runs it.
    const Puzzle copy = list_.puzzles[size_t(selected_)];
    const std::string path = followed_;
    const GradeOptions options = grade_options(s);
    pending_ = std::async(std::launch::async,
                          [copy, path, options] { return grade_puzzle(copy, path, options); });
    s.mark_busy();  // a scripted window waits for the grade
  }

  // A grade: shown, and the progress it makes saved (a solved puzzle stays solved).
  void record(PuzzleGrade g) {
    grade_ = std::move(g);
    graded_at_ = std::chrono::steady_clock::now();
    record_grade(progress_, *grade_);  // shown even where the file cannot take it
    if (auto e = record_puzzle_progress(*grade_, puzzle_progress_path()))
      progress_problem_ = *e;
    else
      progress_ = read_puzzle_progress(puzzle_progress_path(), &progress_problem_);
  }

  void select(int i) {
    selected_ = i;
    hints_ = 0;
    if (grade_ && grade_->puzzle != list_.puzzles[size_t(i)].id) grade_.reset();
  }

  // The puzzles in a combo (the panel shares its column): the chosen one's
  // title, each with its status; then how many are solved. Where the title
  // and the statement's toggle do not fit on one line (1280 x 720 at a
  // projector's text), the combo is its arrow alone and the title beside it
  // wraps: never cut.
  void draw_list(AppState& s) {
    auto label_of = [&](const Puzzle& p) {
      const auto it = progress_.find(p.id);
      const std::string status = it == progress_.end() ? "" : "  (" + it->second + ")";
      return std::to_string(p.number) + ". " + p.title + status;
    };
    const std::string current =
        selected_ >= 0 ? label_of(list_.puzzles[size_t(selected_)]) : "Choose a puzzle";
    // Beside the title, the toggle that shows and hides the statement (lit
    // while shown); on the narrow desk it joins the buttons.
    const bool toggle = selected_ >= 0 && !s.present.desk_narrow;
    const ImGuiStyle& st = ImGui::GetStyle();
    const float toggle_w = ImGui::CalcTextSize("Statement").x + 2 * st.FramePadding.x;
    const float right = toggle ? toggle_w + st.ItemSpacing.x : 0;
    const float avail = ImGui::GetContentRegionAvail().x;
    const float preview_w =
        avail - right - ImGui::GetFrameHeight() - 2 * st.FramePadding.x;  // less the arrow
    const bool fits = ImGui::CalcTextSize(current.c_str()).x <= preview_w;
    if (fits) ImGui::PushItemWidth(right > 0 ? -right : -FLT_MIN);
    const ImGuiComboFlags flags =
        ImGuiComboFlags_HeightLarge | (fits ? 0 : ImGuiComboFlags_NoPreview);
    const float row_y = ImGui::GetCursorPosY();
    if (ImGui::BeginCombo("##puzzle", current.c_str(), flags)) {
      for (size_t i = 0; i < list_.puzzles.size(); ++i) {
        const Puzzle& p = list_.puzzles[i];
        const auto it = progress_.find(p.id);
        const bool solved = it != progress_.end() && it->second == "solved";
        if (solved) ImGui::PushStyleColor(ImGuiCol_Text, colour(okabe_ito::kGreen));
        if (ImGui::Selectable(label_of(p).c_str(), selected_ == int(i))) select(int(i));
        if (solved) ImGui::PopStyleColor();
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Choose a puzzle");
    if (fits) {
      ImGui::PopItemWidth();
      // The title's text and the preview's room left of the arrow, for the window's map.
      const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
      const ImVec2 size = ImGui::CalcTextSize(current.c_str());
      s.plot_marks.push_back({"puzzles", "title", current, a.x + st.FramePadding.x,
                              a.y + st.FramePadding.y, size.x, size.y, 0});
      s.plot_marks.push_back({"puzzles", "title_room", current, a.x, a.y,
                              b.x - a.x - ImGui::GetFrameHeight(), b.y - a.y, 0});
    } else {
      ImGui::SameLine();
      ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x - right);
      ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted(current.c_str());
      ImGui::PopTextWrapPos();
      mark(s, "title", current);
    }
    if (!toggle) return;
    const float after_y = ImGui::GetCursorPosY();
    ImGui::SameLine();
    ImGui::SetCursorPos(ImVec2(ImGui::GetWindowContentRegionMax().x - toggle_w, row_y));
    statement_toggle(s);
    // Below the taller of the two: the title may have wrapped.
    ImGui::SetCursorPosY(std::max(after_y, ImGui::GetCursorPosY()));
  }
  void statement_toggle(AppState& s) {
    const bool lit = statement_open(s);
    if (lit)
      ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyle().Colors[ImGuiCol_ButtonActive]);
    if (ImGui::Button("Statement")) statement_choice_ = !lit;
    if (lit) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(lit ? "Hide the statement" : "Show the statement");
    mark(s, "statement", lit ? "statement shown" : "statement folded");
  }
  // The statement shows until the user folds it; the narrow desk folds it
  // while the student's file is on screen, until the user shows it (the grade
  // and the source want the lines).
  bool statement_open(const AppState& s) const {
    return statement_choice_.value_or(!(s.present.desk_narrow && solving()));
  }
  // The chosen puzzle's file (the student's copy, a solution) is on screen.
  bool solving() const {
    return selected_ >= 0 && selected_ < int(list_.puzzles.size()) &&
           followed_id_ == list_.puzzles[size_t(selected_)].id;
  }
  // How far the student is, at the panel's foot (the grade comes first).
  void draw_count() const {
    int solved = 0, attempted = 0;
    for (const auto& [id, st] : progress_)
      (st == "solved" ? solved : attempted) += 1;
    ImGui::TextDisabled("%d of %zu solved, %d attempted", solved, list_.puzzles.size(), attempted);
  }

  std::string copy_path(const Puzzle& p) const {
    return (fs::path(kCopiesDir) / (fs::path(p.folder).filename().string() + ".cu")).string();
  }
  // What Check grades: the puzzle's file on screen, else the student's copy.
  std::string graded_path(const Puzzle& p) const {
    return followed_id_ == p.id ? followed_ : copy_path(p);
  }

  // The student's copy, made from the skeleton the first time; loaded and run.
  void open_copy(AppState& s, const Puzzle& p) {
    const std::string path = copy_path(p);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      fs::create_directories(kCopiesDir, ec);
      fs::copy_file(p.skeleton_path(), path, ec);
      if (ec) {
        s.banner.show(Banner::Error, "cannot make " + path + ": " + ec.message());
        return;
      }
    }
    const LessonFile f = load_lesson_file(path);
    if (!f.ok) {
      s.lesson_file_failure = f;
      s.banner.show(Banner::Error, lesson_file_banner(f));
      s.select_tab = "Source";
      return;
    }
    const LessonInfo* v = find_lesson(f.lesson_id);
    if (!v) return;
    s.lesson_file_failure.reset();
    s.request.lesson_id = v->id;
    s.request.params = v->defaults;
    s.request.barrier_mask = all_barriers(*v);
    s.run_requested = true;
    s.banner.show(Banner::Info, "puzzle " + p.id + ": your copy is " +
                                    fs::absolute(path, ec).string() +
                                    " (edit it, then Open again or Check)");
  }

  // What the window's map reports of the last item (app/shell/scripted.cpp).
  static void mark(AppState& s, const char* kind, const std::string& text) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    s.plot_marks.push_back({"puzzles", kind, text, a.x, a.y, b.x - a.x, b.y - a.y, 0});
  }

  // The news first, in the few lines a short panel shows (1280 x 720 at a
  // projector's text): the grade's verdict and how fresh it is, then the
  // buttons, then why a grade failed and each
  // rule as a word (its reason on hover); then the statement, budgets,
  // hints and the rules with their reasons.
  void draw_puzzle(AppState& s, const Puzzle& p, float y0) {
    const bool graded = grade_ && grade_->puzzle == p.id;
    if (graded) {
      draw_headline(s, p);
    } else if (pending_.valid()) {
      ImGui::TextDisabled("Grading...");
      mark(s, "graded", "Grading...");
    }
    draw_buttons(s, p);
    news_h_ = ImGui::GetCursorPosY() - y0;
    if (graded && !grade_->passed) draw_failure(y0);
    if (statement_open(s)) {
      ImGui::Separator();
      text_wrapped_at_spaces(p.statement);
      for (const PuzzleBudget& b : p.budgets) {
        char max[16];
        std::snprintf(max, sizeof max, "%g", b.max);
        text_wrapped_at_spaces("Budget: " + b.metric + (b.array.empty() ? "" : " of " + b.array) +
                               " at most " + max + " at " + puzzle_params_text(p, b.at));
      }
    }
    for (int i = 0; i < hints_ && i < int(p.hints.size()); ++i)
      text_wrapped_at_spaces("Hint " + std::to_string(i + 1) + ": " + p.hints[size_t(i)]);
    if (s.present.desk_narrow && statement_open(s)) hint_button(p);
    if (graded) {
      ImGui::Separator();
      for (const RuleResult& r : grade_->rules) {
        ImGui::TextColored(colour(rule_colour(r.status)), "%s",
                           r.status == RuleStatus::Pass   ? "pass"
                           : r.status == RuleStatus::Fail ? "FAIL"
                                                          : "  - ");
        ImGui::SameLine();
        text_wrapped_at_spaces(r.rule + ": " + r.reason);
      }
    }
    draw_count();
  }

  // "Solved: every rule passes." or "Not yet: <rule>", and how fresh it is on
  // the same line where it fits (a grade of a text saved again since is stale).
  void draw_headline(AppState& s, const Puzzle& p) {
    const RuleResult* f = grade_->first_failure();
    const std::string verdict =
        grade_->passed ? "Solved: every rule passes." : "Not yet: " + f->rule;
    ImGui::TextColored(colour(grade_->passed ? okabe_ito::kGreen : okabe_ito::kVermillion), "%s",
                       verdict.c_str());
    mark(s, "grade", verdict);
    const bool stale = followed_id_ == p.id && s.lesson_watch.reloads != graded_reloads_;
    const int ago =
        int(std::chrono::duration<double>(std::chrono::steady_clock::now() - graded_at_).count());
    std::string fresh = stale              ? "stale: the file changed; grading again"
                        : pending_.valid() ? "grading again..."
                                           : "graded " + std::to_string(ago) + " s ago";
    // On the narrow desk a line saved: "(3 s ago)" beside the grade, where the whole does not fit.
    if (!same_line_if_fits(ImGui::CalcTextSize(fresh.c_str()).x) && s.present.desk_narrow &&
        !stale && !pending_.valid()) {
      const std::string brief = "(" + std::to_string(ago) + " s ago)";
      if (same_line_if_fits(ImGui::CalcTextSize(brief.c_str()).x)) fresh = brief;
    }
    ImGui::TextDisabled("%s", fresh.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("graded %d s ago", ago);
    mark(s, "graded", fresh);
  }

  // Why a grade failed, then the rules in a line that flows: "pass compiles  FAIL output ...".
  // The news ends with the reason (the rules' words can scroll).
  void draw_failure(float y0) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour(okabe_ito::kVermillion));
    text_wrapped_at_spaces(grade_->first_failure()->reason);
    ImGui::PopStyleColor();
    news_h_ = ImGui::GetCursorPosY() - y0;
    bool first = true;
    for (const RuleResult& r : grade_->rules) {
      const std::string word = std::string(r.status == RuleStatus::Pass   ? "pass "
                                           : r.status == RuleStatus::Fail ? "FAIL "
                                                                          : "- ") +
                               r.rule;
      if (!first) same_line_if_fits(ImGui::CalcTextSize(word.c_str()).x);
      first = false;
      ImGui::TextColored(colour(rule_colour(r.status)), "%s", word.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.reason.c_str());
    }
  }

  // The buttons flow onto a second line where the column is narrow (a
  // projector's text at 1280 x 720), never past its edge.
  void draw_buttons(AppState& s, const Puzzle& p) {
    const ImGuiStyle& st = ImGui::GetStyle();
    auto button_w = [&](const char* l) { return ImGui::CalcTextSize(l).x + 2 * st.FramePadding.x; };
    // The narrow desk: the hints with the statement, its toggle here (one row).
    const bool narrow = s.present.desk_narrow;
    const bool first = narrow || !hint_button(p);
    if (!first) same_line_if_fits(button_w("Open my copy"));
    if (ImGui::Button("Open my copy")) open_copy(s, p);
    same_line_if_fits(button_w("Checking..."));
    const bool busy = pending_.valid();
    std::error_code ec;
    const std::string path = graded_path(p);
    const bool have_copy = fs::exists(path, ec);
    if (busy || !have_copy) ImGui::BeginDisabled();
    if (ImGui::Button(busy ? "Checking..." : "Check")) {
      // Loaded here first (registering a lesson does not race the window's
      // reads); the grader then finds it loaded and only runs it.
      const LessonFile f = load_lesson_file(path);
      if (!f.ok) {
        s.lesson_file_failure = f;
        s.banner.show(Banner::Error, lesson_file_banner(f));
      }
      const Puzzle copy = p;
      grade_.reset();
      const GradeOptions options = grade_options(s);
      pending_ = std::async(std::launch::async,
                            [copy, path, options] { return grade_puzzle(copy, path, options); });
    }
    if (busy || !have_copy) ImGui::EndDisabled();
    if (!narrow) return;
    same_line_if_fits(button_w("Statement"));
    statement_toggle(s);
  }

  // "Hint 2 of 3": the next hint; none once all are shown.
  bool hint_button(const Puzzle& p) {
    if (hints_ >= int(p.hints.size())) return false;
    const std::string label =
        "Hint " + std::to_string(hints_ + 1) + " of " + std::to_string(p.hints.size());
    if (ImGui::Button(label.c_str())) ++hints_;
    return true;
  }

  static Rgb rule_colour(RuleStatus st) {
    return st == RuleStatus::Pass   ? okabe_ito::kGreen
           : st == RuleStatus::Fail ? okabe_ito::kVermillion
                                    : Rgb{128, 128, 128};
  }

  bool loaded_ = false;
  PuzzleList list_;
  PuzzleProgress progress_;
  std::string progress_problem_;  // why the progress file could not be read or written
  int selected_ = -1;
  int hints_ = 0;
  std::optional<bool> statement_choice_;  // the user's: the statement shown or folded
  float news_h_ = 0;                      // the panel's height down to its news' end
  std::string followed_;                  // the source file of the lesson on screen
  std::string followed_id_;               // its puzzle, when it is a puzzle's file
  std::future<PuzzleGrade> pending_;
  int graded_reloads_ = -1;  // the window's reload count at the last grade of the file on screen
  std::chrono::steady_clock::time_point graded_at_;
  std::optional<PuzzleGrade> grade_;
};

TS_REGISTER_VIEW(PuzzlesView);

}  // namespace
}  // namespace ts::app
