#include "app/quiz/quiz.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <utility>

#include "app/core/app_state.hpp"

namespace ts::app {

namespace {

// The replay just before the question's first event (the phase about to
// run), or, revealed, right after its last one (what happened).
uint64_t position_for(const Replay& r, const Question& q, bool revealed) {
  if (q.events.empty()) return revealed ? r.size() : 0;
  uint64_t lo = r.size(), hi = 0;
  for (uint32_t i : q.events) {
    const uint64_t p = r.position_after(i);
    lo = std::min(lo, p);
    hi = std::max(hi, p);
  }
  return revealed ? hi : (lo ? lo - 1 : 0);
}

void ask(AppState& s, int index) {
  QuizState& Q = s.quiz;
  Q.index = index;
  Q.revealed = false;
  Q.answer = {};
  Q.grade = {};
  Q.cursor = -1;
  Q.drag_from = Q.drag_to = Q.anchor = -1;
  Q.before.clear();
  const Question* q = Q.question();
  if (!q || !s.replay) return;
  const ArrayInfo* a = s.trace().array(q->array);
  // The grid shows the block the question names: its shared memory, its
  // tiles and its part of the output outlined (a question about block (0, 0)
  // over block (1, 0)'s tiles could only be guessed).
  if (q->kind != QuestionKind::LoadCells || s.trace().config.geometry.grid.count() > 1)
    s.selection.block = q->block;
  s.selection.thread = q->thread;
  if (a && q->cells()) Q.cursor = 0;
  if (!q->cells() && !Q.pending_answer.empty()) {  // scripted: the choice meant for this one
    std::string err;
    const std::string spec = std::exchange(Q.pending_answer, std::string());
    if (!apply_quiz_answer(s, spec, &err)) s.option_error = err;  // scripted: main exits 2
  }
  s.replay_ui.playing = false;
  s.request_position(position_for(*s.replay, *q, false));
}

void start(AppState& s) {
  QuizState& Q = s.quiz;
  const uint64_t seed = Q.seed;
  Q = QuizState{};
  Q.seed = seed;
  if (!s.has_trace()) {
    s.banner.show(Banner::Warning, "Quiz: run a lesson first (F5), then Quiz > Start quiz (Q)");
    return;
  }
  std::vector<Question> qs = make_questions(s.trace(), Q.seed);
  // Only what a class can work out by reasoning: which cells a skewed run
  // spoils without a barrier depends on how far the warps drift (15 of 32 in
  // a lecture hall's run), so a room could only guess; the Compare view and
  // the race lab show that instead.
  qs.erase(std::remove_if(qs.begin(), qs.end(),
                          [](const Question& q) { return q.kind == QuestionKind::WrongWithout; }),
           qs.end());
  // A question about a removed barrier needs its run: the simulator runs it
  // now (the lessons' default sizes take milliseconds); where it cannot, the
  // question is left out.
  for (auto it = qs.begin(); it != qs.end();) {
    bool keep = it->settled;
    if (!keep && it->rerun) {
      const LessonInfo* v = find_lesson(it->rerun->lesson_id);
      if (v && !check_simulator_steps(*v, it->rerun->params)) {
        const RunResult res = run(*it->rerun);
        keep = res.ok && settle_wrong_without(*it, res.trace, &s.trace());
      }
    }
    it = keep ? it + 1 : qs.erase(it);
  }
  if (qs.empty()) {
    s.banner.show(Banner::Warning, "Quiz: this trace gives no question");
    return;
  }
  Q.questions = std::move(qs);
  Q.generation = s.result.generation;
  ask(s, 0);
}

void toggle(QuizState& Q, uint32_t element) {
  auto& c = Q.answer.cells;
  const auto it = std::find(c.begin(), c.end(), element);
  if (it == c.end())
    c.push_back(element);
  else
    c.erase(it);
}

// `base` with the rectangle replacing it, added or taken away (op 0, 1, 2).
std::vector<uint32_t> with_rectangle(std::vector<uint32_t> base, std::vector<uint32_t> rect,
                                     int op) {
  std::sort(base.begin(), base.end());
  base.erase(std::unique(base.begin(), base.end()), base.end());
  std::sort(rect.begin(), rect.end());
  if (op == 0) return rect;
  std::vector<uint32_t> out;
  if (op == 1)
    std::set_union(base.begin(), base.end(), rect.begin(), rect.end(), std::back_inserter(out));
  else
    std::set_difference(base.begin(), base.end(), rect.begin(), rect.end(),
                        std::back_inserter(out));
  return out;
}

// The answer while a rectangle is picked: by the mouse (a press without a move
// toggles its cell, as a click) or by Shift+arrows (added from the anchor).
void pick_rectangle(AppState& s) {
  QuizState& Q = s.quiz;
  const Question* q = Q.question();
  const ArrayInfo* a = q && s.has_trace() ? s.trace().array(q->array) : nullptr;
  if (!a || Q.revealed) {
    Q.drag_from = Q.anchor = -1;
    return;
  }
  if (Q.drag_from >= 0) {
    if (Q.drag_to == Q.drag_from && Q.rect_op == 0) {
      Q.answer.cells = Q.before;
      toggle(Q, uint32_t(Q.drag_from));
    } else {
      Q.answer.cells = with_rectangle(
          Q.before, quiz_rectangle(*a, uint32_t(Q.drag_from), uint32_t(Q.drag_to)), Q.rect_op);
    }
    Q.cursor = Q.drag_to;
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) Q.drag_from = Q.drag_to = -1;  // released
  }
}

void reveal(AppState& s) {
  QuizState& Q = s.quiz;
  const Question* q = Q.question();
  if (!q || Q.revealed) return;
  Q.grade = grade(*q, Q.answer);
  Q.revealed = true;
  ++Q.answered;
  if (Q.grade.right) ++Q.right;
  s.replay_ui.playing = false;
  if (s.replay) s.request_position(position_for(*s.replay, *q, true));
}

void paint(QuizState& Q) {
  Q.paint.clear();
  const Question* q = Q.question();
  if (!q || !q->cells()) return;
  auto add = [&](uint32_t e, QuizMark m) { Q.paint.push_back({q->array, q->block, e, m}); };
  for (uint32_t e : q->scope_cells)  // first: the marks below are drawn over it
    add(e, QuizMark::Scope);
  if (!Q.revealed) {
    for (uint32_t e : Q.answer.cells)
      add(e, QuizMark::Chosen);
    if (Q.cursor >= 0) add(uint32_t(Q.cursor), QuizMark::Cursor);
    return;
  }
  for (uint32_t e : Q.grade.hit)
    add(e, QuizMark::Right);
  for (uint32_t e : Q.grade.extra)
    add(e, QuizMark::Extra);
  for (uint32_t e : Q.grade.missed)
    add(e, QuizMark::Missed);
}

// A row of the question's array as the grid draws it: a matrix's row, or
// for a 1-D array the width it wraps at.
int drawn_columns(const AppState& s, const Question& q, const ArrayInfo& a) {
  if (a.rows > 1) return std::max(1, a.cols);
  for (const DrawnArray& d : s.drawn)
    if (d.id == q.array && (!d.shared || d.block == q.block)) return std::max(1, d.cols);
  return std::max(1, a.cols);
}

}  // namespace

void update_quiz(AppState& s) {
  QuizState& Q = s.quiz;
  if (Q.start_request && !s.job.active()) {
    Q.start_request = false;
    start(s);
  }
  if (Q.active() && Q.generation != s.result.generation) {  // another run or file
    Q.leave_request = true;
  }
  if (Q.leave_request) {
    Q.leave_request = false;
    Q.index = -1;
    Q.questions.clear();
  }
  if (Q.reveal_request) {
    Q.reveal_request = false;
    reveal(s);
  }
  pick_rectangle(s);
  if (Q.next_request) {
    Q.next_request = false;
    if (Q.active()) {
      if (Q.index + 1 < int(Q.questions.size()))
        ask(s, Q.index + 1);
      else
        s.banner.show(Banner::Info,
                      "Quiz done: " + Q.score_line() + ". Q starts it again; Esc leaves");
    }
  }
  paint(Q);
}

bool quiz_keys(AppState& s) {
  QuizState& Q = s.quiz;
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key, true); };
  auto once = [](int key) { return ImGui::IsKeyPressed(key, false); };
  if (!Q.active()) {
    if (once(GLFW_KEY_Q)) Q.start_request = true;
    return false;
  }
  if (once(GLFW_KEY_ESCAPE)) Q.leave_request = true;
  if (once(GLFW_KEY_Q) && Q.revealed && Q.index + 1 >= int(Q.questions.size()))
    Q.start_request = true;  // once more
  if (once(GLFW_KEY_N)) Q.next_request = true;
  if (once(GLFW_KEY_ENTER) || once(GLFW_KEY_KP_ENTER)) Q.reveal_request = true;
  const Question& q = *Q.question();
  if (Q.revealed) return true;
  if (!q.cells()) {
    for (int k = 0; k < 9 && k < int(q.choices.size()); ++k)
      if (once(GLFW_KEY_1 + k) || once(GLFW_KEY_KP_1 + k)) Q.answer.choice = k;
    return true;
  }
  const ArrayInfo* a = s.trace().array(q.array);
  const int count = a ? int(a->count()) : 0;
  if (count <= 0) return true;
  const int cols = drawn_columns(s, q, *a);
  const int from = std::clamp(Q.cursor, 0, count - 1);
  int c = from;
  if (pressed(GLFW_KEY_RIGHT)) c = std::min(count - 1, c + 1);
  if (pressed(GLFW_KEY_LEFT)) c = std::max(0, c - 1);
  if (pressed(GLFW_KEY_DOWN) && c + cols < count) c += cols;
  if (pressed(GLFW_KEY_UP) && c - cols >= 0) c -= cols;
  Q.cursor = c;
  const bool moved = pressed(GLFW_KEY_RIGHT) || pressed(GLFW_KEY_LEFT) || pressed(GLFW_KEY_DOWN) ||
                     pressed(GLFW_KEY_UP);
  if (moved && ImGui::GetIO().KeyShift) {  // Shift+arrows: a rectangle from where it began
    if (Q.anchor < 0) {
      Q.anchor = from;
      Q.before = Q.answer.cells;
    }
    Q.answer.cells =
        with_rectangle(Q.before, quiz_rectangle(*a, uint32_t(Q.anchor), uint32_t(c)), 1);
  } else if (moved) {
    Q.anchor = -1;
  }
  if (once(GLFW_KEY_SPACE)) {
    toggle(Q, uint32_t(c));
    Q.anchor = -1;
  }
  return true;
}

std::vector<uint32_t> quiz_rectangle(const ArrayInfo& a, uint32_t from, uint32_t to) {
  if (a.rows <= 1 || a.cols <= 0) return rectangle_cells(a, 0, int(from), 0, int(to));
  const uint32_t cols = uint32_t(a.cols);
  return rectangle_cells(a, int(from / cols), int(from % cols), int(to / cols), int(to % cols));
}

bool quiz_hover(AppState& s, ArraySlot buffer, uint32_t block, uint32_t element) {
  QuizState& Q = s.quiz;
  const Question* q = Q.question();
  if (!q || !q->cells() || Q.revealed || buffer != q->array) return false;
  const ArrayInfo* a = s.trace().array(buffer);
  if (!a || element >= a->count() || (a->shared() && block != q->block)) return false;
  if (Q.drag_from >= 0 && ImGui::IsMouseDown(ImGuiMouseButton_Left)) Q.drag_to = int(element);
  if (!ImGui::IsMouseClicked(ImGuiMouseButton_Left)) return false;
  const ImGuiIO& io = ImGui::GetIO();
  Q.drag_from = Q.drag_to = int(element);
  Q.rect_op = io.KeyShift ? 1 : io.KeyCtrl ? 2 : 0;
  Q.before = Q.answer.cells;
  Q.anchor = -1;
  return true;
}

bool apply_quiz_answer(AppState& s, const std::string& spec, std::string* error) {
  QuizState& Q = s.quiz;
  const Question* q = Q.question();
  if (!q) {
    *error = "--quiz-answer: no quiz question on screen (give --quiz)";
    return false;
  }
  Q.answer = {};
  if (spec == "none") return true;
  if (spec.rfind("choice:", 0) == 0) {
    const int n = std::atoi(spec.c_str() + 7);
    if (n < 1) {
      *error = "--quiz-answer '" + spec + "': choices count from 1";
      return false;
    }
    if (q->cells()) {
      Q.pending_answer = spec;  // for the first choice question asked
    } else if (size_t(n) > q->choices.size()) {
      *error = "--quiz-answer '" + spec +
               "': give choice:1 to choice:" + std::to_string(q->choices.size());
      return false;
    } else {
      Q.answer.choice = n - 1;
    }
    return true;
  }
  if (spec == "truth" || spec == "truth-1" || spec == "truth+1") {
    if (!q->cells()) {
      Q.answer.choice = q->truth_choice;
      return true;
    }
    Q.answer.cells = q->truth_cells;
    if (spec == "truth-1" && !Q.answer.cells.empty()) Q.answer.cells.pop_back();
    if (spec == "truth+1") {
      uint32_t e = 0;
      while (std::binary_search(q->truth_cells.begin(), q->truth_cells.end(), e))
        ++e;
      Q.answer.cells.push_back(e);
    }
    return true;
  }
  const ArrayInfo* a = s.trace().array(q->array);
  const std::string usage =
      "': use truth, truth-1, truth+1, none, choice:N, cells such as 3,17,20 or "
      "rectangles such as rect:" +
      array_name(s.trace().config.arrays, q->array) + ":0,0-3,7 (joined by ;)";
  if (spec.rfind("rect:", 0) == 0) {
    std::stringstream in(spec);
    std::string item;
    while (std::getline(in, item, ';')) {
      const size_t colon = item.rfind(':');
      int r0 = 0, c0 = 0, r1 = 0, c1 = 0;
      char tail = 0;
      if (item.rfind("rect:", 0) != 0 || colon < 5 || !a ||
          std::sscanf(item.c_str() + colon + 1, "%d,%d-%d,%d%c", &r0, &c0, &r1, &c1, &tail) != 4) {
        *error = "--quiz-answer '" + spec + usage;
        return false;
      }
      const std::string name = item.substr(5, colon - 5);
      if (name != array_name(s.trace().config.arrays, q->array)) {
        *error = "--quiz-answer '" + spec + "': the question asks about " +
                 array_name(s.trace().config.arrays, q->array) + ", not " + name;
        return false;
      }
      Q.answer.cells = with_rectangle(Q.answer.cells, rectangle_cells(*a, r0, c0, r1, c1), 1);
    }
    return true;
  }
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      Q.answer.cells.push_back(uint32_t(std::stoul(item)));
    } catch (const std::exception&) {
      *error = "--quiz-answer '" + spec + usage;
      return false;
    }
  }
  if (!q->cells()) {
    *error = "--quiz-answer '" + spec + "': the question is a choice: give choice:N";
    return false;
  }
  for (uint32_t c : Q.answer.cells)
    if (a && c >= a->count()) {
      *error = "--quiz-answer '" + spec + "': cell " + std::to_string(c) + " is outside " +
               a->name + " (0 to " + std::to_string(a->count() - 1) + ")";
      return false;
    }
  return true;
}

}  // namespace ts::app
