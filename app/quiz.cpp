#include "app/quiz.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <sstream>

#include "app/app_state.hpp"

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
  const Question* q = Q.question();
  if (!q || !s.replay) return;
  const ArrayInfo* a = s.trace().array(q->array);
  if (q->kind != QuestionKind::WrongWithout && q->kind != QuestionKind::Sectors &&
      (q->kind != QuestionKind::LoadCells || s.trace().config.geometry.grid.count() > 1))
    s.selection.block = q->block;  // the grid shows this block's shared memory and tiles
  s.selection.thread = q->kind == QuestionKind::SharedReads ? q->thread : -1;
  if (a && q->cells()) Q.cursor = 0;
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
  // A question about a removed barrier needs its run: the simulator runs it
  // now (the lessons' default sizes take milliseconds); where it cannot, the
  // question is left out.
  for (auto it = qs.begin(); it != qs.end();) {
    bool keep = it->settled;
    if (!keep && it->rerun) {
      const Variant* v = find_variant(it->rerun->variant);
      if (v && !check_simulator_steps(*v, it->rerun->params)) {
        const RunResult res = run(*it->rerun);
        keep = res.ok && settle_wrong_without(*it, res.trace);
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
  int c = std::clamp(Q.cursor, 0, count - 1);
  if (pressed(GLFW_KEY_RIGHT)) c = std::min(count - 1, c + 1);
  if (pressed(GLFW_KEY_LEFT)) c = std::max(0, c - 1);
  if (pressed(GLFW_KEY_DOWN) && c + cols < count) c += cols;
  if (pressed(GLFW_KEY_UP) && c - cols >= 0) c -= cols;
  Q.cursor = c;
  if (once(GLFW_KEY_SPACE)) toggle(Q, uint32_t(c));
  return true;
}

bool quiz_click(AppState& s, ArraySlot buffer, uint32_t block, uint32_t element) {
  QuizState& Q = s.quiz;
  const Question* q = Q.question();
  if (!q || !q->cells() || Q.revealed || buffer != q->array) return false;
  const ArrayInfo* a = s.trace().array(buffer);
  if (a && a->shared() && block != q->block) return false;
  toggle(Q, element);
  Q.cursor = int(element);
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
    if (q->cells() || n < 1 || size_t(n) > q->choices.size()) {
      *error = "--quiz-answer '" + spec + "': " +
               (q->cells() ? std::string("the question asks for cells, not a choice")
                           : "give choice:1 to choice:" + std::to_string(q->choices.size()));
      return false;
    }
    Q.answer.choice = n - 1;
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
  std::stringstream in(spec);
  std::string item;
  const ArrayInfo* a = s.replay ? s.replay->trace().array(q->array) : nullptr;
  while (std::getline(in, item, ',')) {
    try {
      Q.answer.cells.push_back(uint32_t(std::stoul(item)));
    } catch (const std::exception&) {
      *error = "--quiz-answer '" + spec +
               "': use truth, truth-1, truth+1, none, choice:N or cells such as 3,17,20";
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
