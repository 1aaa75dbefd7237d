#include "analysis/verdict.hpp"

#include <vector>

#include "engine/catalogue.hpp"

namespace ts {

std::optional<Verdict> verdict_of(const Trace& t) {
  const LessonInfo* v = find_lesson(t.config.lesson_id);
  if (!v) return std::nullopt;
  std::vector<BufferData> inputs;
  const BufferData* out = nullptr;
  for (const auto& b : t.buffers) {
    if (b.is_output) {
      if (!out) out = &b;
    } else {
      inputs.push_back(b);
    }
  }
  if (!out) return std::nullopt;
  // The shapes must be the ones the lesson gives these parameters.
  const ArrayTable shapes = arrays(*v, t.config.params);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const ArrayInfo& s = shapes[i];
    if (s.shared()) continue;
    const BufferData* b = t.buffer(ArraySlot(i + 1));
    if (!b || b->rows != s.rows || b->cols != s.cols || b->values.size() != s.count())
      return std::nullopt;
  }
  return check_output(*v, t.config.params, *out, reference_output(*v, t.config.params, inputs));
}

}  // namespace ts
