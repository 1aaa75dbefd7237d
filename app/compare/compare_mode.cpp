#include "app/compare/compare_mode.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>

#include "app/core/jobs.hpp"
#include "app/grid/layout_toggle.hpp"

namespace ts::app {

bool compare_active(const AppState& s) {
  return s.compare && s.compare->active;
}

void request_compare(AppState& s, const RunRequest& b) {
  if (!s.compare) s.compare = std::make_shared<CompareState>();
  CompareState& c = *s.compare;
  if (c.b.job.active()) {
    s.banner.show(Banner::Info, "The second run is still in progress; wait for it to finish.");
    return;
  }
  c.active = true;
  c.request = b;
  c.start_requested = true;
  c.dialog_open = false;
  c.b.replay.reset();
  c.b.result = {};
  c.gen_a = c.gen_b = ~0ull;
  c.label_b = describe_run(b);
  s.select_tab = "Compare";
  // Two grids need the width: the side panels make way, as G does, unless the
  // user chose the layout himself.
  if (s.present.focus_auto && !c.focus_forced) {
    c.focus_was = s.present.focus_grid;
    c.focus_forced = true;
    s.present.focus_grid = true;
  }
}

void close_compare(AppState& s) {
  if (!s.compare) return;
  CompareState& c = *s.compare;
  c.active = false;
  c.start_requested = false;
  // B's run in flight finishes on its own thread; update_compare drops it then.
  if (!c.b.job.active()) c.b.replay.reset();
  if (c.focus_forced && s.present.focus_auto) s.present.focus_grid = c.focus_was;
  c.focus_forced = false;
  s.select_tab = "Grid";
}

void open_compare_dialog(AppState& s) {
  if (!s.compare) s.compare = std::make_shared<CompareState>();
  s.compare->dialog_open = true;
  s.select_tab = "Compare";  // its view draws the dialog
}

namespace {

void start_b(AppState& s, CompareState& c, bool scripted) {
  c.start_requested = false;
  c.b.request = c.request;
  c.b.banner.clear();
  c.b.present = s.present;
  c.b.replay_ui.order_request = s.replay_ui.order_request;
  // The path of every run: checks, budget (beside what A keeps), a thread.
  const uint64_t held_a =
      s.replay ? window_held_bytes(s.replay->size(), s.replay->cells().size()) : 0;
  start_run(c.b, c.budget, scripted, held_a);
  if (!c.b.job.active()) {
    s.banner.show(Banner::Error,
                  "Cannot compare: the second run (B) did not start: " +
                      (c.b.banner.text.empty() ? std::string("nothing to run") : c.b.banner.text));
    c.active = false;
  }
}

void place_b(AppState& s, CompareState& c) {
  Replay& a = *s.replay;
  Replay& b = *c.b.replay;
  if (b.order() != a.order()) b.set_order(a.order());
  if (c.gen_a != s.result.generation || c.gen_b != c.b.result.generation || c.order != a.order()) {
    c.gen_a = s.result.generation;
    c.gen_b = c.b.result.generation;
    c.order = a.order();
    c.table_a = phase_table(a);
    c.table_b = phase_table(b);
    c.align = align_runs(c.table_a, c.table_b);
    // Each side says what it runs; where only the barriers differ, only them.
    RunRequest ra = s.request;
    ra.lesson_id = s.trace().config.lesson_id;
    ra.params = s.trace().config.params;
    ra.barrier_mask = s.trace().config.barrier_mask;
    c.label_a = describe_run(ra);
    c.label_b = describe_run(c.b.request);
    const std::string what_a = c.label_a.substr(0, c.label_a.find(", "));
    const std::string what_b = c.label_b.substr(0, c.label_b.find(", "));
    if (what_a == what_b && c.label_a.size() > what_a.size() && c.label_b.size() > what_b.size()) {
      c.label_a = c.label_a.substr(what_a.size() + 2);
      c.label_b = c.label_b.substr(what_b.size() + 2);
      c.common = what_a;
    } else {
      c.common.clear();
    }
    // The differences once both runs are over: what the race left behind.
    const uint64_t at = a.position();
    a.seek(a.size());
    b.seek(b.size());
    c.end = diff_cells(a, b, 0);
    a.seek(at);
    c.now_a = c.now_b = ~0ull;
  }
  b.seek(aligned_position(c.align, a.position()));
  if (c.now_a != a.position() || c.now_b != b.position()) {
    c.now_a = a.position();
    c.now_b = b.position();
    c.now = diff_cells(a, b);
  }
  // B shows the same block, in A's colours and text size.
  c.b.present = s.present;
  c.b.selection.block = std::min(s.selection.block, std::max(1u, b.block_count()) - 1);
}

}  // namespace

void update_compare(AppState& s, bool scripted, bool wait) {
  if (!s.compare) return;
  CompareState& c = *s.compare;
  if (c.b.job.active() &&
      (wait || c.b.job.future.wait_for(std::chrono::seconds(0)) == std::future_status::ready)) {
    std::unique_ptr<JobOutput> out = c.b.job.future.get();
    if (c.active) {
      install(c.b, std::move(out));
      if (!c.b.replay) {
        s.banner.show(Banner::Error, "The second run (B) failed: " + c.b.banner.text);
        c.active = false;
      } else if (!c.b.banner.text.empty()) {
        s.banner.show(c.b.banner.kind, "B: " + c.b.banner.text);
      }
      c.gen_a = ~0ull;
    }
  }
  if (c.active && c.start_requested && !c.b.job.active()) {
    start_b(s, c, scripted);
    if (wait && c.b.job.active()) update_compare(s, scripted, true);
    return;
  }
  if (c.active && s.replay && c.b.replay) place_b(s, c);
}

std::optional<std::string> compare_request_from_args(const std::string& text,
                                                     const LessonOptions& a,
                                                     const RunRequest& a_req,
                                                     const std::string& layout_a, RunRequest* out,
                                                     std::vector<std::string>* notes) {
  // A's options with B's on top, through the command line's own parser.
  LessonOptions o = a;
  std::string layout = layout_a;
  CLI::App cli{"--compare: the options that differ for the second run"};
  o.add_to(cli, LessonOptions::Naming::LessonFlag);
  cli.add_option("--layout", layout, "the shared-memory layout of B's lesson group");
  const std::string where = "--compare '" + text + "': ";
  try {
    cli.parse(text, false);
  } catch (const CLI::ParseError& e) {
    return where + e.what();
  }
  if (!cli.remaining().empty()) return where + "'" + cli.remaining().front() + "' is not an option";
  const bool other_lesson = o.given("--lesson") && o.lesson_id != a.lesson_id;
  if (other_lesson && !o.given("--layout")) layout.clear();
  if (auto err = o.to_request(*out, notes)) return where + *err;
  // What B's text leaves out stays A's: the sizes (for another lesson, the
  // ones A's command line gave, where that lesson has them) and, for the same
  // lesson, the barriers.
  const LessonInfo* v = find_lesson(out->lesson_id);
  for (const ParamField& f : kParamFields) {
    const std::string flag = std::string("--") + f.name;
    if (o.given(flag) || !v || !(v->uses & f.bit)) continue;
    if (!other_lesson || a.given(flag)) out->params.*f.field = a_req.params.*f.field;
  }
  if (!other_lesson && !o.given("--barriers") && !o.given("--no-barrier"))
    out->barrier_mask = a_req.barrier_mask;
  if (!layout.empty()) {
    const LessonInfo* to = nullptr;
    std::string labels;
    for (const LessonInfo* c : v ? layout_siblings(*v) : std::vector<const LessonInfo*>{}) {
      const std::string label = c->layout_label;
      // The whole label, or its first word: "padded" for "padded [32][33]".
      if (!to && (label == layout || label.substr(0, label.find(' ')) == layout)) to = c;
      labels += (labels.empty() ? "'" : ", '") + label + "'";
    }
    if (!to)
      return where + "--layout '" + layout + "': " +
             (labels.empty() ? out->lesson_id + " has no other layouts"
                             : "the lesson's layouts are " + labels);
    out->lesson_id = to->id;
    if (validate_barrier_mask(*to, out->barrier_mask)) out->barrier_mask = all_barriers(*to);
  }
  return std::nullopt;
}

RunRequest default_compare_request(const RunRequest& a) {
  RunRequest b = a;
  if (const LessonInfo* v = find_lesson(a.lesson_id)) {
    for (auto it = v->barriers.rbegin(); it != v->barriers.rend(); ++it)
      if (b.barrier_mask.keeps(it->id)) {
        b.barrier_mask.remove(it->id);
        break;
      }
  }
  return b;
}

std::string describe_run(const RunRequest& r) {
  std::string d = r.lesson_id;
  const LessonInfo* v = find_lesson(r.lesson_id);
  if (!v) return d;
  for (const NamedParam& p : used_params(v->uses, r.params))
    d += " " + std::string(p.name) + "=" + std::to_string(p.value);
  if (v->barriers.empty()) return d;
  std::string removed, kept;
  for (const BarrierInfo& b : v->barriers) {
    std::string& list = BarrierSet(r.barrier_mask).keeps(b.id) ? kept : removed;
    list += (list.empty() ? "" : ", ") + std::to_string(b.id);
  }
  if (removed.empty()) return d + ", all barriers";
  if (kept.empty()) return d + ", no barriers";
  return d + ", without barrier " + removed;
}

nlohmann::json compare_json(const AppState& s, float sx, float sy) {
  nlohmann::json j;
  j["active"] = compare_active(s);
  if (!compare_active(s)) return j;
  const CompareState& c = *s.compare;
  j["a"] = {{"label", c.label_a}};
  j["b"] = {{"label", c.label_b}, {"running", c.b.job.active()}};
  j["how"] = c.align.how;
  if (!s.replay || !c.b.replay) return j;
  const Replay &a = *s.replay, &b = *c.b.replay;
  j["a"]["position"] = a.position();
  j["a"]["events"] = a.size();
  j["a"]["phase"] = c.table_a.phase_at(a.position());
  j["a"]["phases"] = c.table_a.phases();
  j["b"]["position"] = b.position();
  j["b"]["events"] = b.size();
  j["b"]["phase"] = c.table_b.phase_at(b.position());
  j["b"]["phases"] = c.table_b.phases();
  j["b"]["variant"] = b.trace().config.lesson_id;
  j["b"]["barrier_mask"] = b.trace().config.barrier_mask.mask();
  j["differ"] = {{"value", c.now.value}, {"loads", c.now.loads}, {"compared", c.now.compared}};
  j["differ_at_end"] = {{"value", c.end.value}, {"loads", c.end.loads}};
  j["skipped"] = c.now.skipped;
  j["ring_px"] = c.ring_px;
  j["too_small"] = c.too_small;
  nlohmann::json cells = nlohmann::json::array();
  for (size_t i = 0; i < c.now.cells.size() && i < 4096; ++i) {
    const CellDiff& d = c.now.cells[i];
    cells.push_back({{"buffer", array_name(a.trace().config.arrays, d.a)},
                     {"block", d.block},
                     {"element", d.element},
                     {"value", d.value},
                     {"loads", d.loads}});
  }
  j["cells"] = cells;
  nlohmann::json arrays = nlohmann::json::array();
  for (const DrawnArray& d : c.b.drawn)
    arrays.push_back({{"buffer", array_name(b.trace().config.arrays, d.id)},
                      {"shared", d.shared},
                      {"block", d.block},
                      {"rows", d.rows},
                      {"cols", d.cols},
                      {"data_rows", d.data_rows},
                      {"data_cols", d.data_cols},
                      {"x", d.x * sx},
                      {"y", d.y * sy},
                      {"cell_w", d.cell_w * sx},
                      {"cell_h", d.cell_h * sy}});
  j["b_arrays"] = arrays;
  return j;
}

}  // namespace ts::app
