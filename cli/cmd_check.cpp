// `tilescope-cli puzzles`: the puzzles (assets/puzzles/), their statements
// and hints; `tilescope-cli check PUZZLE SOLUTION.hpp`: grades a solution
// (analysis/puzzle.hpp), pass or fail per rule with the reason; exit 0 when
// every rule passes, 3 when one fails: what a course's autograder runs. With
// several solutions (or folders of them) it grades a class: a line each.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/puzzle.hpp"
#include "cli/command.hpp"
#include "cli/report.hpp"
#include "engine/backend.hpp"
#include "engine/lesson_child.hpp"
#include "engine/lesson_options.hpp"

namespace ts::cli {
namespace {

// The list, or a usage error naming the puzzles.
const Puzzle* find_or_say(const std::string& cmd, const PuzzleList& all, const std::string& name,
                          bool json, int& rc) {
  if (all.puzzles.empty()) {
    rc = failure(cmd, all.problems.empty() ? "no puzzles found in " + all.dir : all.problems[0],
                 json);
    return nullptr;
  }
  const Puzzle* p = find_puzzle(all, name);
  if (!p) {
    std::string ids;
    for (const Puzzle& q : all.puzzles)
      ids += (ids.empty() ? "" : ", ") + q.id;
    rc = usage_error(cmd, "no puzzle '" + name + "': the puzzles are " + ids, json);
  }
  return p;
}

// `text` wrapped at spaces to 100 columns, the lines after the first indented
// by `indent` (the first starts after a head that wide).
std::string hanging(const std::string& text, size_t indent, size_t width = 100) {
  std::string out;
  size_t col = indent;
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (col > indent && col + 1 + w.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (col > indent) {
      out += ' ';
      ++col;
    }
    out += w;
    col += w.size();
  }
  return out;
}

nlohmann::json grade_json(const Puzzle& pz, const PuzzleGrade& g) {
  nlohmann::json rules = nlohmann::json::array();
  for (const RuleResult& r : g.rules) {
    nlohmann::json j = {{"rule", r.rule},
                        {"status", to_string(r.status)},
                        {"passed", r.status == RuleStatus::Pass},
                        {"reason", r.reason}};
    if (!r.at.empty()) j["at"] = r.at;
    if (r.line) j["line"] = r.line;
    if (r.other_line) j["other_line"] = r.other_line;
    if (!r.cell.empty()) {
      j["cell"] = r.cell;
      j["expected"] = r.expected;
      if (r.never_written)
        j["never_written"] = true;
      else
        j["got"] = r.got;
    }
    if (r.rule.rfind("budget", 0) == 0 && r.status != RuleStatus::NotChecked) {
      j["measured"] = r.measured;
      j["max"] = r.limit;
    }
    rules.push_back(std::move(j));
  }
  return {{"ok", true},          {"puzzle", pz.id},        {"number", pz.number},
          {"title", pz.title},   {"solution", g.solution}, {"passed", g.passed},
          {"rules", rules},      {"cached", g.cached},     {"compile_seconds", g.compile_seconds},
          {"seconds", g.seconds}};
}

// The solutions named: each a file, or a folder of them (its .cu and .hpp
// files, sorted), as a course's teaching assistant collects a class's.
std::vector<std::string> solution_files(const std::vector<std::string>& given) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& g : given) {
    std::error_code ec;
    if (!fs::is_directory(g, ec)) {
      out.push_back(g);
      continue;
    }
    std::vector<std::string> in_folder;
    for (const fs::directory_entry& e : fs::directory_iterator(g, ec)) {
      const std::string ext = e.path().extension().string();
      if ((ext == ".cu" || ext == ".hpp") && e.is_regular_file(ec))
        in_folder.push_back(e.path().string());
    }
    std::sort(in_folder.begin(), in_folder.end());
    out.insert(out.end(), in_folder.begin(), in_folder.end());
  }
  return out;
}

// A field of a CSV row (RFC 4180): always quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A class's solutions: compiled side by side (engine/lesson_child.hpp), then
// graded one after another, a line each (or a row each) and the count that pass.
int check_class(const Puzzle& pz, const std::vector<std::string>& files,
                const GradeOptions& options, bool json, bool csv, unsigned jobs) {
  const auto start = std::chrono::steady_clock::now();
  compile_side_by_side(files, jobs);
  const double compiled =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<PuzzleGrade> grades;
  size_t passed = 0;
  for (const std::string& f : files) {
    grades.push_back(grade_puzzle(pz, f, options));
    passed += grades.back().passed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (csv) {  // a gradebook's rows: one a solution
    std::cout << "solution,passed,failed_rule,reason\n";
    for (const PuzzleGrade& g : grades) {
      const RuleResult* why = g.first_failure();
      std::cout << csv_field(g.solution) << "," << (g.passed ? "1" : "0") << ","
                << csv_field(why ? why->rule : "") << "," << csv_field(why ? why->reason : "")
                << "\n";
    }
  } else if (json) {
    nlohmann::json all = nlohmann::json::array();
    for (const PuzzleGrade& g : grades)
      all.push_back(grade_json(pz, g));
    std::cout << nlohmann::json{{"ok", true},        {"puzzle", pz.id},   {"number", pz.number},
                                {"title", pz.title}, {"passed", passed},  {"total", grades.size()},
                                {"grades", all},     {"seconds", seconds}}
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << "puzzle " << pz.number << " " << pz.id << " (" << pz.title << "): " << passed
              << " of " << grades.size() << " solutions pass\n";
    for (const PuzzleGrade& g : grades) {
      const RuleResult* why = g.first_failure();
      const std::string head = std::string(g.passed ? "  PASS  " : "  FAIL  ") + g.solution;
      std::cout << head;
      if (why) std::cout << "\n        " << hanging(why->rule + ": " + why->reason, 8);
      std::cout << "\n";
    }
    char took[96];
    std::snprintf(took, sizeof took, "graded in %.1f s (compiled side by side in %.1f s)\n",
                  seconds, compiled);
    std::cout << took;
  }
  return passed == grades.size() ? kExitOk : kExitWrongOutput;
}

int check(const std::string& puzzle, const std::vector<std::string>& solutions,
          const std::string& backend, bool json, bool csv, bool record, unsigned jobs) {
  const PuzzleList all = load_puzzles();
  int rc = kExitOk;
  const Puzzle* pz = find_or_say("check", all, puzzle, json, rc);
  if (!pz) return rc;
  const std::vector<std::string> files = solution_files(solutions);
  if (files.empty()) return failure("check", "no .cu or .hpp solution in " + solutions[0], json);
  // One file named as it is gets the rule-by-rule grade; a folder, several, or rows a class's.
  const bool as_class =
      solutions.size() != 1 || files.size() != 1 || files[0] != solutions[0] || csv;
  if (as_class && record)
    return usage_error(
        "check", "--record keeps one student's progress: name one solution (without --csv)", json);
  // The simulator always grades (its schedules prove the hazards); cuda adds
  // the GPU's runs, auto where there is a usable GPU.
  GradeOptions options;
  if (backend != "sim") {
    const CudaStatus& gpu = cuda_status();
    if (backend == "cuda" && !gpu.usable)
      return failure("check",
                     "the CUDA backend is not available: " + gpu.reason +
                         "; grade on the simulator (--backend sim, the default)",
                     json);
    options.gpu = gpu.usable;
  }
  if (as_class) return check_class(*pz, files, options, json, csv, jobs);
  const PuzzleGrade g = grade_puzzle(*pz, files[0], options);
  // The window's Puzzles panel shows it; a grade not recorded is a failure.
  const std::optional<std::string> not_recorded =
      record ? record_puzzle_progress(g, puzzle_progress_path()) : std::nullopt;
  if (json) {
    std::cout << grade_json(*pz, g).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << "puzzle " << pz->number << " " << pz->id << " (" << pz->title
              << "): " << (g.passed ? "PASS" : "FAIL") << "\n";
    size_t width = 0;
    for (const RuleResult& r : g.rules)
      width = std::max(width, r.rule.size());
    for (const RuleResult& r : g.rules) {
      const char* s = r.status == RuleStatus::Pass   ? "pass"
                      : r.status == RuleStatus::Fail ? "FAIL"
                                                     : "  - ";
      const std::string head =
          "  " + std::string(s) + "  " + r.rule + std::string(width - r.rule.size() + 2, ' ');
      std::cout << head << hanging(r.reason, head.size()) << "\n";
    }
    char took[64];
    std::snprintf(took, sizeof took, "%.1f s (compile and load %.1f s%s)", g.seconds,
                  g.compile_seconds, g.cached ? ", cached" : "");
    std::cout << "checked in " << took << "\n";
  }
  if (not_recorded) {
    std::cout.flush();
    std::cerr << "tilescope-cli check: error: the grade was not recorded: " << *not_recorded
              << "\n";
    return kExitFailed;
  }
  return g.passed ? kExitOk : kExitWrongOutput;
}

// `text` wrapped at spaces to lines of at most `width` characters, each
// after `indent` (the first too).
std::string wrapped(const std::string& text, size_t width = 78, const std::string& indent = "") {
  std::string out, line;
  auto flush = [&] {
    out += indent + line + "\n";
    line.clear();
  };
  std::istringstream paragraphs(text);
  for (std::string para; std::getline(paragraphs, para);) {
    std::istringstream words(para);
    for (std::string w; words >> w;) {
      if (!line.empty() && indent.size() + line.size() + 1 + w.size() > width) flush();
      line += (line.empty() ? "" : " ") + w;
    }
    flush();
  }
  return out;
}

int show(const std::string& name, int hints, bool skeleton, bool skeleton_hpp, bool json) {
  const PuzzleList all = load_puzzles();
  int rc = kExitOk;
  if (name.empty()) {  // the list
    if (all.puzzles.empty())
      return failure("puzzles", all.problems.empty() ? "no puzzles in " + all.dir : all.problems[0],
                     json);
    if (json) {
      nlohmann::json out = nlohmann::json::array();
      std::string problem;  // a corrupt file: named, kept, and the list shown without it
      const PuzzleProgress progress = read_puzzle_progress(puzzle_progress_path(), &problem);
      if (!problem.empty()) std::cerr << "tilescope-cli puzzles: " << problem << "\n";
      for (const Puzzle& p : all.puzzles)
        out.push_back({{"id", p.id},
                       {"number", p.number},
                       {"progress", progress.count(p.id) ? progress.at(p.id) : ""},
                       {"title", p.title},
                       {"hints", p.hints.size()},
                       {"budgets", p.budgets.size()},
                       {"skeleton", p.skeleton_path()}});
      std::cout << out.dump(2) << "\n";
    } else {
      std::string problem;  // a corrupt file: named, kept, and the list shown without it
      const PuzzleProgress progress = read_puzzle_progress(puzzle_progress_path(), &problem);
      if (!problem.empty()) std::cerr << "tilescope-cli puzzles: " << problem << "\n";
      for (const Puzzle& p : all.puzzles) {
        const auto st = progress.find(p.id);
        char line[160];
        std::snprintf(line, sizeof line, "%2d  %-11s %-34s %s", p.number, p.id.c_str(),
                      p.title.c_str(), st == progress.end() ? "" : st->second.c_str());
        std::string text = line;
        text.erase(text.find_last_not_of(' ') + 1);
        std::cout << text << "\n";
      }
      std::cout << "\n`tilescope-cli puzzles ID` shows one; `--skeleton > mine.cu` starts it; "
                   "`tilescope-cli check ID mine.cu` grades it.\n";
    }
    for (const std::string& problem : all.problems)
      std::cerr << "tilescope-cli puzzles: warning: " << problem << "\n";
    return kExitOk;
  }
  const Puzzle* p = find_or_say("puzzles", all, name, json, rc);
  if (!p) return rc;
  if (skeleton || skeleton_hpp) {
    const std::string path = skeleton ? p->skeleton_path() : p->skeleton_hpp_path();
    std::ifstream in(path, std::ios::binary);
    if (!in) return failure("puzzles", "cannot read " + path, json);
    std::cout << in.rdbuf();
    return kExitOk;
  }
  const int shown = std::clamp(hints, 0, int(p->hints.size()));
  if (json) {
    nlohmann::json budgets = nlohmann::json::array();
    for (const PuzzleBudget& b : p->budgets)
      budgets.push_back({{"metric", b.metric},
                         {"max", b.max},
                         {"at", puzzle_params_text(*p, b.at)},
                         {"why", b.why}});
    std::cout << nlohmann::json{{"id", p->id},
                                {"number", p->number},
                                {"title", p->title},
                                {"statement", p->statement},
                                {"hints", std::vector<std::string>(p->hints.begin(),
                                                                   p->hints.begin() + shown)},
                                {"hints_total", p->hints.size()},
                                {"budgets", budgets},
                                {"skeleton", p->skeleton_path()}}
                     .dump(2)
              << "\n";
    return kExitOk;
  }
  std::cout << "Puzzle " << p->number << ": " << p->title << "\n\n" << wrapped(p->statement);
  if (!p->budgets.empty()) {
    std::cout << "\nBudgets (measured from the trace):\n";
    for (const PuzzleBudget& b : p->budgets)
      std::cout << "  " << b.metric << (b.array.empty() ? "" : " of " + b.array) << " <= " << b.max
                << " at " << puzzle_params_text(*p, b.at) << (b.why.empty() ? "" : ": " + b.why)
                << "\n";
  }
  for (int i = 0; i < shown; ++i)
    std::cout << "\n" << wrapped("Hint " + std::to_string(i + 1) + ": " + p->hints[size_t(i)]);
  std::cout << "\n";
  if (shown < int(p->hints.size()))
    std::cout << "Hints: " << shown << " of " << p->hints.size() << " shown (--hints " << shown + 1
              << " for the next).\n";
  std::cout << "Start: tilescope-cli puzzles " << p->id << " --skeleton > my_" << p->id
            << ".cu\nCheck: tilescope-cli check " << p->id << " my_" << p->id << ".cu\n";
  return kExitOk;
}

TS_CLI_COMMAND(
    kCheck, "check",
    "Grade a puzzle's solution: compiles, setup, output at hidden sizes, hazards, "
    "budgets; exit 0 when it passes, 3 when a rule fails. Several solutions, or a folder of "
    "them: a class's, compiled side by side and graded a line each",
    [](CLI::App& sub) -> std::function<int()> {
      auto puzzle = std::make_shared<std::string>();
      auto solutions = std::make_shared<std::vector<std::string>>();
      auto json = std::make_shared<bool>(false);
      sub.add_option("puzzle", *puzzle, "The puzzle: id, folder name or number")->required();
      sub.add_option("solution", *solutions,
                     "Your solution (plain CUDA .cu, or a lesson file .hpp); or several, or "
                     "folders of them")
          ->required();
      auto jobs = std::make_shared<unsigned>(0);
      sub.add_option("--jobs", *jobs,
                     "Solutions compiled at once when there are several (default: one per core)")
          ->check(CLI::Range(1u, 256u));
      auto record = std::make_shared<bool>(false);
      auto json_flag = sub.add_flag("--json", *json, "Print the grade as JSON");
      auto csv = std::make_shared<bool>(false);
      sub.add_flag("--csv", *csv,
                   "Print a row per solution (solution, passed, failed_rule, reason), as a "
                   "gradebook imports it")
          ->excludes(json_flag);
      sub.add_flag("--record", *record,
                   "Record the progress (solved, attempted) as the window's Puzzles panel does: "
                   "in ~/.local/share/tilescope/puzzles.json ($TILESCOPE_PROGRESS names "
                   "another file)");
      auto backend = std::make_shared<std::string>("sim");
      sub.add_option("--backend", *backend,
                     "sim: the simulator grades (the default); cuda: the GPU runs every hidden "
                     "size too, and must give the simulator's output and accesses (rule gpu); "
                     "auto: cuda where there is a usable GPU")
          ->check(CLI::IsMember({"sim", "cuda", "auto"}));
      return [=] { return check(*puzzle, *solutions, *backend, *json, *csv, *record, *jobs); };
    });

TS_CLI_COMMAND(
    kPuzzles, "puzzles", "The puzzles: the list, one puzzle's statement and hints, or its skeleton",
    [](CLI::App& sub) -> std::function<int()> {
      auto name = std::make_shared<std::string>();
      auto hints = std::make_shared<int>(0);
      auto skeleton = std::make_shared<bool>(false);
      auto json = std::make_shared<bool>(false);
      sub.add_option("puzzle", *name, "The puzzle: id, folder name or number");
      sub.add_option("--hints", *hints, "Show the first N hints")->check(whole_number(0, 1000));
      auto skeleton_hpp = std::make_shared<bool>(false);
      sub.add_flag("--skeleton", *skeleton, "Print the skeleton to start from (plain CUDA, .cu)");
      sub.add_flag("--skeleton-hpp", *skeleton_hpp,
                   "Print the older skeleton, a lesson header (.hpp)")
          ->excludes("--skeleton");
      sub.add_flag("--json", *json, "Print as JSON");
      return [=] { return show(*name, *hints, *skeleton, *skeleton_hpp, *json); };
    });

}  // namespace
}  // namespace ts::cli
