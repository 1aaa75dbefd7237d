#include "app/core/budget_dialog.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "io/trace_file.hpp"

namespace ts::app {

namespace {

constexpr const char* kPopupId = "###budget";

std::string percent_text(uint64_t part, uint64_t whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", whole ? 100.0 * double(part) / double(whole) : 100.0);
  return buf;
}

std::string sizes_text(const LessonInfo& v, const Params& p, const char* sep, bool options) {
  std::string out;
  for (const NamedParam& s : size_params(v, p)) {
    if (!out.empty()) out += sep;
    out += options ? std::string("--") + s.name + " " + std::to_string(s.value)
                   : std::string(s.name) + " = " + std::to_string(s.value);
  }
  return out;
}

}  // namespace

std::string count_text(uint64_t n) {
  char buf[32];
  if (n >= 1000000)
    std::snprintf(buf, sizeof buf, "%.1f M", double(n) / 1e6);
  else if (n >= 10000)
    std::snprintf(buf, sizeof buf, "%.1f K", double(n) / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
  return buf;
}

BudgetCheck check_run(const RunRequest& req, uint64_t held) {
  BudgetCheck c;
  const LessonInfo* v = find_lesson(req.lesson_id);
  if (!v) return c;
  c.what = req.lesson_id + " " + describe(*v, req.params);
  c.capacity = req.trace_capacity;
  c.need = estimate_run(*v, req.params, c.capacity);
  c.held = held;
  c.need.bytes += held;
  c.budget = memory_budget(&c.budget_origin);
  // A bound is no count: a plain CUDA file runs, and its trace says if it was cut.
  c.verdict = c.need.bytes > c.budget                    ? BudgetCheck::OverBudget
              : c.need.truncated() && !c.need.bound_only ? BudgetCheck::Truncated
                                                         : BudgetCheck::Fits;
  if (c.verdict == BudgetCheck::Fits) return c;
  c.fitting = largest_size_that_fits(*v, req.params, c.capacity, c.budget, held);
  if (c.fitting) {
    c.fitting_need = estimate_run(*v, *c.fitting, c.capacity);
    c.fitting_need.bytes += held;
    c.fitting_label = sizes_text(*v, *c.fitting, ", ", false);
    c.fitting_options = sizes_text(*v, *c.fitting, " ", true);
  }
  return c;
}

BudgetCheck check_trace_file(const std::string& path) {
  BudgetCheck c;
  c.file = true;
  c.what = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return c;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return c;
  // Junk is not sized up as events: the loader says what it is instead.
  if (check_trace_file_header(path)) return c;
  c.need.events_needed = c.need.events_recorded = file_events_estimate(size);
  c.need.bytes = window_bytes(c.need.events_recorded, 0);
  c.budget = memory_budget(&c.budget_origin);
  if (c.need.bytes > c.budget) c.verdict = BudgetCheck::OverBudget;
  return c;
}

std::string BudgetCheck::message(bool scripted) const {
  const std::string budget_text =
      "the window's memory budget of " + format_bytes(budget) + " (" + budget_origin + ")";
  if (file)
    return what + " holds about " + count_text(need.events_recorded) +
           " events: the window would need " + format_bytes(need.bytes) +
           " of memory to show them, more than " + budget_text +
           ". tilescope-cli inspect and export read it without the window.";
  std::string m;
  if (verdict == OverBudget) {
    m = what + " would need " + format_bytes(need.bytes) + " of memory in the window (" +
        count_text(need.events_recorded) + " events" +
        (need.truncated() ? " recorded of the run's " + count_text(need.events_needed) : "") +
        (held ? ", with " + format_bytes(held) + " the trace beside it keeps" : "") +
        "), more than " + budget_text + ".";
  } else {
    m = what + " makes " + count_text(need.events_needed) + " events; the trace holds " +
        count_text(capacity) + ", so the replay would stop after the first " +
        percent_text(need.events_recorded, need.events_needed) + " of the run.";
  }
  if (fitting)
    m += " The largest size recorded whole within the budget: " + fitting_label + " (" +
         count_text(fitting_need.events_needed) + " events, " + format_bytes(fitting_need.bytes) +
         ")" + (scripted ? "; run it with " + fitting_options : "") + ".";
  else
    m += " No size of this lesson fits: raise TILESCOPE_MEMORY_BUDGET (bytes, or 2GB) or use "
         "tilescope-cli.";
  return m;
}

bool BudgetDialog::admit_run(AppState& s, bool scripted, uint64_t held) {
  const BudgetCheck c = check_run(s.request, held);
  if (c.verdict == BudgetCheck::Fits) return true;
  if (c.verdict == BudgetCheck::Truncated) {
    if (accepted_lesson_ == s.request.lesson_id && accepted_params_ == s.request.params &&
        accepted_capacity_ == s.request.trace_capacity)
      return true;
    if (scripted) {  // as before: recorded up to the capacity, and said so
      std::fprintf(stderr, "tilescope: note: %s\n", c.message(true).c_str());
      return true;
    }
  }
  s.banner.show(c.verdict == BudgetCheck::OverBudget ? Banner::Error : Banner::Warning,
                "Not run: " + c.message(scripted));
  open(c);
  return false;
}

bool BudgetDialog::admit_file(AppState& s, const std::string& path, bool scripted) {
  const BudgetCheck c = check_trace_file(path);
  if (c.verdict == BudgetCheck::Fits) return true;
  s.banner.show(Banner::Error, "Not opened: " + c.message(scripted));
  open(c);
  return false;
}

void BudgetDialog::open(BudgetCheck check) {
  check_ = std::move(check);
  open_ = true;
  just_opened_ = true;
}

void BudgetDialog::draw(AppState& s) {
  if (!open_) return;
  const BudgetCheck& c = check_;
  const bool over = c.verdict == BudgetCheck::OverBudget;
  const std::string title = std::string(c.file ? "Too large to open"
                                        : over ? "Too large for this window"
                                               : "The trace would be cut short") +
                            kPopupId;
  if (just_opened_) {
    ImGui::OpenPopup(title.c_str());
    just_opened_ = false;
  }
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  const float width = std::min(ds.x * 0.9f, ImGui::GetFontSize() * 36);
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, ds.y * 0.9f));
  bool keep = true;
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove)) {
    open_ = false;  // closed from outside
    return;
  }
  ImGui::PushTextWrapPos(0);
  const ImVec4 warn = over ? ImVec4(0.95f, 0.45f, 0.2f, 1) : ImVec4(0.95f, 0.75f, 0.2f, 1);
  ImGui::TextColored(warn, "%s",
                     c.file ? "This trace needs more memory than the window may use."
                     : over ? "This run needs more memory than the window may use."
                            : "This run makes more events than the trace holds.");
  ImGui::TextUnformatted(c.what.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Spacing();
  // The numbers, in two columns: what it needs, what there is.
  if (ImGui::BeginTable("##numbers", 2, ImGuiTableFlags_SizingFixedFit)) {
    auto row = [](const char* label, const std::string& value) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", label);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(value.c_str());
    };
    row("Events",
        c.file
            ? "about " + count_text(c.need.events_recorded)
            : count_text(c.need.events_needed) +
                  (c.need.truncated() ? "  (the trace holds " + count_text(c.capacity) + ")" : ""));
    row("Memory", format_bytes(c.need.bytes) +
                      (c.need.truncated()
                           ? "  (with the first " + count_text(c.need.events_recorded) + " events)"
                           : ""));
    row("Budget", format_bytes(c.budget) + "  (" + c.budget_origin + ")");
    if (c.fitting)
      row("Fits", c.fitting_label + ":  " + count_text(c.fitting_need.events_needed) + " events, " +
                      format_bytes(c.fitting_need.bytes));
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", c.file ? "tilescope-cli inspect and export read it without the window."
                            : over ? "The budget keeps the machine from swapping. "
                                     "TILESCOPE_MEMORY_BUDGET (bytes, or 2GB) changes it."
                                   : "A truncated replay stops part-way: later phases and "
                                     "blocks are missing.");
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  if (c.fitting && !c.file) {
    const std::string run = "Run " + c.fitting_label + " instead";
    if (ImGui::Button(run.c_str())) {
      s.request.params = *c.fitting;
      s.run_requested = true;
      keep = false;
    }
    ImGui::SameLine();
  }
  if (c.verdict == BudgetCheck::Truncated) {
    const std::string anyway = "Run it cut short (first " + count_text(c.capacity) + " events)";
    if (ImGui::Button(anyway.c_str())) {
      accepted_lesson_ = s.request.lesson_id;
      accepted_params_ = s.request.params;
      accepted_capacity_ = s.request.trace_capacity;
      s.run_requested = true;
      keep = false;
    }
    ImGui::SameLine();
  }
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
    keep = false;
  if (!keep) {
    ImGui::CloseCurrentPopup();
    open_ = false;
  }
  ImGui::EndPopup();
}

}  // namespace ts::app
