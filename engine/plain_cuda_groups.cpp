// The rewrite of cooperative groups in a plain CUDA file (docs/plain_cuda.md,
// lessons/plain_cuda_groups.hpp): each barrier, shuffle and vote of a group
// reaches the recorder as the intrinsic it stands for, at its line.
#include <set>
#include <string>

#include "engine/plain_cuda_editor.hpp"

namespace ts::plain_cuda {

// `#include <cooperative_groups.h>` (or its reduce.h): TileScope's groups,
// for the simulator and nvcc alike. Its other headers are not traced.
bool GroupRules::groups_include(size_t i) {
  const std::string_view line = str(i);
  if (line.find("include") == std::string_view::npos ||
      line.find("cooperative_groups") == std::string_view::npos)
    return false;
  if (line.find("cooperative_groups.h") == std::string_view::npos &&
      line.find("cooperative_groups/reduce.h") == std::string_view::npos) {
    fail(i, std::string(line) +
                ": TileScope traces the cooperative groups of <cooperative_groups.h> (the "
                "block, tiles of up to 32 threads, their sync, shuffles and votes) and "
                "cg::reduce of <cooperative_groups/reduce.h>, not this header");
    return true;
  }
  edit(i, "#include \"lessons/plain_cuda_groups.hpp\"");
  groups_ = true;
  return true;
}

// `g.sync()` -> `g.ts_sync(ts_rec, 3, __LINE__)` and `cg::sync(g)` ->
// `(g).ts_sync(ts_rec, 3, __LINE__)`: barrier 3, a __syncwarp where g is a
// tile; `g.shfl_down(` -> `g.ts_shfl_down(ts_rec, `; `cg::reduce(` ->
// `::ts::pc::group_reduce(ts_rec, `. What needs more than one block or
// copies around the trace is refused.
bool GroupRules::group_op(size_t lparen, const std::string& function,
                          const std::set<std::string>& device_names, size_t& i) {
  static const std::set<std::string_view> members = {"shfl",   "shfl_down", "shfl_up", "shfl_xor",
                                                     "ballot", "any",       "all"};
  static const std::set<std::string_view> refused = {
      "this_grid",        "grid_group",        "this_multi_grid", "multi_grid_group",
      "memcpy_async",     "coalesced_threads", "coalesced_group", "labeled_partition",
      "binary_partition", "inclusive_scan",    "exclusive_scan",  "thread_block_tile_base"};
  const std::string_view w = str(i);
  if (refused.count(w)) {
    fail(i, "cooperative_groups::" + std::string(w) + " in " + function +
                "(): TileScope runs one launch block by block and traces the block, tiles "
                "of up to 32 threads (tiled_partition), their sync, shuffles and votes, and "
                "cg::reduce; a grid-wide sync needs a cooperative launch: end the kernel "
                "there and launch a second one");
    return true;
  }
  if (is(i, ".") && ident(i + 1) && is(i + 2, "(")) {
    const std::string_view m = str(i + 1);
    if (m == "sync" && is(i + 3, ")")) {
      const int id = barrier(i + 1, is_tile(lparen, i - 1));
      edits_.push_back({t_[i + 1].begin, t_[i + 3].end,
                        "ts_sync(ts_rec, " + std::to_string(id) + ", __LINE__)"});
      i += 3;
      return true;
    }
    if (!members.count(m)) return false;
    out_.shuffles = out_.shuffles || m.substr(0, 4) == "shfl";
    edits_.push_back({t_[i + 1].begin, t_[i + 2].end, "ts_" + std::string(m) + "(ts_rec, "});
    i += 2;
    return true;
  }
  if ((w != "sync" && w != "reduce") || !is(i + 1, "(") || device_names.count(std::string(w)) ||
      (i > 0 && (is(i - 1, ".") || is(i - 1, "->"))))
    return false;
  const size_t start = i >= 2 && is(i - 1, "::") && ident(i - 2) ? i - 2 : i;
  if (w == "reduce") {
    edits_.push_back({t_[start].begin, t_[i + 1].end, "::ts::pc::group_reduce(ts_rec, "});
  } else {
    const int id = barrier(i, is_tile(lparen, i + 2));
    edits_.push_back({t_[start].begin, t_[i + 1].end, "("});
    insert_after(skip_group(i + 1) - 1, ".ts_sync(ts_rec, " + std::to_string(id) + ", __LINE__)");
  }
  i += 1;
  return true;
}

// Whether the group named at `obj` is a tile: its declaration in the
// function (a parameter or a variable) names thread_block_tile or
// tiled_partition. The barrier is then a __syncwarp.
bool GroupRules::is_tile(size_t lparen, size_t obj) const {
  if (!ident(obj)) return false;  // this_thread_block().sync()
  bool tile = false;
  for (size_t j = lparen + 1; j < obj; ++j) {
    if (!is(j, str(obj)) || !(is(j + 1, "=") || is(j + 1, ";") || is(j + 1, ",") ||
                              is(j + 1, ")") || is(j + 1, "(") || is(j + 1, "{")))
      continue;
    size_t a = j, b = j;
    while (a > lparen && !is(a - 1, ";") && !is(a - 1, "{") && !is(a - 1, "}") && !is(a - 1, ",") &&
           !is(a - 1, "("))
      --a;
    while (b < obj && !is(b, ";") && !is(b, ",") && !is(b, ")"))
      b = is(b, "(") || is(b, "{") ? skip_group(b) : b + 1;
    bool block = false, partition = false;
    for (size_t k = a; k < b; ++k) {
      partition = partition || is(k, "thread_block_tile") || is(k, "tiled_partition");
      block = block || is(k, "thread_block") || is(k, "this_thread_block");
    }
    if (partition || block) tile = partition;
  }
  return tile;
}

}  // namespace ts::plain_cuda
