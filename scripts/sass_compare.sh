#!/usr/bin/env bash
# Are the lesson accessors free? For each pair (a lesson's timed kernel,
# launch_body<Body, PlainRec> of engine/cuda/launch.cuh, and its plain twin in
# bench/: textbook_sgemm.cu, family_twins.cu), compiles both for one
# architecture with the project's flags, disassembles them and prints the SASS
# instruction count of each kernel and of its innermost loop (the largest
# loop that holds no other loop; loops are backward branches). The lesson is
# free when its loop is no longer than its twin's; for kernels without a loop,
# when the kernel is no longer, or no longer but for uniform-datapath
# instructions (U*, S2UR: once per warp, such as loading a kernel argument).
#
#   scripts/sass_compare.sh [--arch 90] [--root DIR] [--ops] [--keep DIR]
#
# --root DIR  compile the lessons and recorders of another tree (an older
#             commit, for a before/after), the twins of this one
# --ops       also print the opcodes of both innermost loops where they differ
# --keep DIR  keep the .cu, .cubin and .sass files there
# Needs nvcc and nvdisasm (on PATH, beside nvcc, or NVDISASM=...), no GPU.
# Exit status: 0 when every lesson is free, 1 when one is not, 2 on a tool error,
# 77 (a skip, for ctest) without nvcc or nvdisasm.
set -u
cd "$(dirname "$0")/.."
REPO=$PWD
ROOT=$REPO
ARCH=${TS_CUDA_ARCH:-90}
OPS=0
KEEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH=$2; shift 2 ;;
    --root) ROOT=$(cd "$2" && pwd); shift 2 ;;
    --ops) OPS=1; shift ;;
    --keep) KEEP=$2; shift 2 ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -z "${NVDISASM:-}" ]; then  # on PATH, beside nvcc, or the copy of the development machine
  for d in "$(command -v nvdisasm)" "$(dirname "$NVCC")/nvdisasm" /work/tools/bin/nvdisasm; do
    [ -n "$d" ] && [ -x "$d" ] && { NVDISASM=$d; break; }
  done
fi
NVDISASM=${NVDISASM:-}
[ -x "$NVCC" ] || { echo "sass_compare: skipped: nvcc not found"; exit 77; }
[ -n "$NVDISASM" ] || { echo "sass_compare: skipped: nvdisasm not found (put it on PATH or set NVDISASM)"; exit 77; }
TMP=${KEEP:-$(mktemp -d)}
mkdir -p "$TMP"
[ -n "$KEEP" ] || trap 'rm -rf "$TMP"' EXIT
FLAGS=(-cubin -arch=sm_$ARCH -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr -std=c++20)

# label | lesson namespace | Body's template arguments | twin source | twin kernel (mangled part)
PAIRS=(
  "matmul.tiled_square T16|matmul_tiled_square|16|bench/textbook_sgemm.cu|11tiled_sgemmILi16EE"
  "matmul.tiled_square T32|matmul_tiled_square|32|bench/textbook_sgemm.cu|11tiled_sgemmILi32EE"
  "transpose.shared_padded|transpose_shared_padded||bench/family_twins.cu|16transpose_padded"
  "transpose.shared_swizzled|transpose_shared_swizzled||bench/family_twins.cu|18transpose_swizzled"
  "reduction.warp_shuffle|reduction_warp_shuffle||bench/family_twins.cu|19reduce_warp_shuffle"
  "stencil.shared|stencil_shared||bench/family_twins.cu|14stencil_shared"
  "conv2d.tiled T8 R2|conv2d_tiled|8,2|bench/family_twins.cu|12conv2d_tiledILi8ELi2EE"
  "conv2d.tiled T16 R3|conv2d_tiled|16,3|bench/family_twins.cu|12conv2d_tiledILi16ELi3EE"
  "stencil.vectorized R3|stencil_vectorized|3|bench/family_twins.cu|18stencil_vectorizedILi3EE"
  "conv2d.double_buffer T16 R3|conv2d_double_buffer|16,3|bench/family_twins.cu|20conv2d_double_bufferILi16ELi3EE"
  "histogram.shared_atomics|histogram_shared_atomics||bench/family_twins.cu|16histogram_shared"
  "histogram.grid_stride|histogram_grid_stride||bench/family_twins.cu|21histogram_grid_stride"
  "scan.blelloch|scan_blelloch||bench/family_twins.cu|13scan_blelloch"
  "transpose.vectorized|transpose_vectorized||bench/family_twins.cu|16transpose_float4ILi32EE"
  "transpose.large_tile|transpose_large_tile||bench/family_twins.cu|16transpose_float4ILi64EE"
  "reduction.single_pass B256|reduction_single_pass|256|bench/family_twins.cu|18reduce_single_passILi256EE"
)

# Every lesson kernel in one file, instantiated as the harness launches it.
{
  echo '#include "engine/cuda/recorders.cuh"'
  echo '#include "engine/cuda/launch.cuh"'
  for p in "${PAIRS[@]}"; do
    IFS='|' read -r _ ns _ _ _ <<<"$p"
    echo "#include \"lessons/$ns.hpp\""
  done | sort -u
  echo 'template <class Body> const void* timed_kernel() { return (const void*)ts::body_kernel<Body, ts::PlainRec>(); }'
  for p in "${PAIRS[@]}"; do
    IFS='|' read -r _ ns targs _ _ <<<"$p"
    echo "template const void* timed_kernel<ts::lessons::$ns::Body${targs:+<$targs>}>();"
  done
} > "$TMP/lessons.cu"

compile() {  # source, cubin, include root
  if ! "$NVCC" "${FLAGS[@]}" -I"$3" -o "$2" "$1" > "$2.log" 2>&1; then
    echo "sass_compare: nvcc failed on $1:"; tail -20 "$2.log"; exit 2
  fi
}
compile "$TMP/lessons.cu" "$TMP/lessons.cubin" "$ROOT"
for src in $(printf '%s\n' "${PAIRS[@]}" | cut -d'|' -f4 | sort -u); do
  compile "$REPO/$src" "$TMP/$(basename "$src" .cu).cubin" "$REPO"
done

# Per function: name, instructions, loops, innermost loop sizes, the largest one,
# instructions outside the uniform datapath, the largest loop's opcodes.
# Plain POSIX awk (mawk, gawk): instruction indices, not hex addresses.
LOOPS_AWK='
function flush(   i, j, inner, best, bsz, sz, list, ops, k, nl) {
  if (fn == "") return
  nl = 0
  for (i = 0; i < ni; i++)
    if (tgt[i] != "" && (tgt[i] in lab) && lab[tgt[i]] < i) { nl++; lo[nl] = lab[tgt[i]]; hi[nl] = i }
  list = ""; best = 0; bsz = -1
  for (i = 1; i <= nl; i++) {
    inner = 1
    for (j = 1; j <= nl; j++)
      if (j != i && lo[j] >= lo[i] && hi[j] <= hi[i] && (lo[j] != lo[i] || hi[j] != hi[i])) inner = 0
    if (!inner) continue
    sz = hi[i] - lo[i] + 1
    list = list (list == "" ? "" : ",") sz
    if (sz > bsz) { bsz = sz; best = i }
  }
  ops = ""
  if (best > 0) {
    split("", cnt)
    for (k = lo[best]; k <= hi[best]; k++) cnt[op[k]]++
    for (k in cnt) ops = ops " " k "=" cnt[k]
  }
  printf "%s\t%d\t%d\t%s\t%s\t%d\t%s\n", fn, ni, nl, (list == "" ? "-" : list), (bsz < 0 ? "-" : bsz), nu, ops
  fn = ""
}
/^\.text\./ { flush(); fn = $1; sub(/^\.text\./, "", fn); sub(/:$/, "", fn)
              ni = 0; nu = 0; split("", lab); split("", tgt); split("", op); next }
fn == "" { next }
/^[ \t]*\.L_x_[0-9]+:/ { l = $1; sub(/:$/, "", l); lab[l] = ni; next }
/^[ \t]*\/\*[0-9a-f]+\*\// {
  t = $0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", t); sub(/[ \t]*;.*$/, "", t)
  if (t == "") next
  u = t; sub(/^@!?U?P[T0-9]+[ \t]+/, "", u); split(u, W, /[ \t]+/)
  # Padding is not counted: the NOPs up to the next 128-byte boundary, and the
  # branch to itself that follows the last EXIT.
  if (W[1] == "NOP") next
  if (W[1] == "BRA" && match(t, /\(\.L_x_[0-9]+\)/) && (substr(t, RSTART + 1, RLENGTH - 2) in lab) &&
      lab[substr(t, RSTART + 1, RLENGTH - 2)] == ni) next
  op[ni] = W[1]; tgt[ni] = ""
  # Uniform datapath: once per warp (kernel arguments, the shared base), not per thread.
  if (W[1] !~ /^(U|S2UR)/) nu++
  if (W[1] ~ /^BRA/ && match(t, /\(\.L_x_[0-9]+\)/)) tgt[ni] = substr(t, RSTART + 1, RLENGTH - 2)
  ni++
}
END { flush() }'
for c in "$TMP"/*.cubin; do
  "$NVDISASM" -c "$c" > "${c%.cubin}.sass" 2> "${c%.cubin}.sass.log" ||
    { echo "sass_compare: nvdisasm failed on $c:"; cat "${c%.cubin}.sass.log"; exit 2; }
  awk "$LOOPS_AWK" "${c%.cubin}.sass" > "${c%.cubin}.loops"
done

pick() {  # loops file, fixed string (and a second one) -> the function's line
  grep -F -- "$2" "$1" | grep -F -- "${3:-}" | head -1
}
echo "SASS sm_$ARCH, nvcc $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'): lesson = launch_body<Body, PlainRec> of ${ROOT/#$REPO/this tree}; twin = bench/"
printf "%-28s %9s %9s %9s %9s  %s\n" "pair" "lesson" "its loop" "twin" "its loop" "verdict"
bad=0
for p in "${PAIRS[@]}"; do
  IFS='|' read -r label ns targs src twin <<<"$p"
  mangled="${#ns}${ns}4Body"
  if [ -n "$targs" ]; then
    mangled+="I"
    IFS=',' read -ra a <<<"$targs"
    for x in "${a[@]}"; do mangled+="Li${x}E"; done
    mangled+="E"
  fi
  ours=$(pick "$TMP/lessons.loops" "${mangled}ENS_8PlainRec")
  theirs=$(pick "$TMP/$(basename "$src" .cu).loops" "$twin")
  if [ -z "$ours" ] || [ -z "$theirs" ]; then
    printf "%-28s %s\n" "$label" "not found in the SASS (lesson: ${ours:+found}${ours:-missing}, twin: ${theirs:+found}${theirs:-missing})"
    bad=1
    continue
  fi
  IFS=$'\t' read -r _ o_n _ o_list o_loop o_nu o_ops <<<"$ours"
  IFS=$'\t' read -r _ t_n _ t_list t_loop t_nu t_ops <<<"$theirs"
  if [ "$o_loop" != "-" ] && [ "$t_loop" != "-" ]; then
    if [ "$o_loop" -le "$t_loop" ]; then v="free (loop $o_loop <= $t_loop)"; else v="NOT FREE (loop +$((o_loop - t_loop)))"; bad=1; fi
  elif [ "$o_loop" = "-" ] && [ "$t_loop" = "-" ]; then
    if [ "$o_n" -le "$t_n" ]; then v="free (no loop; kernel $o_n <= $t_n)"
    elif [ "$o_nu" -le "$t_nu" ]; then v="free (no loop; +$((o_n - t_n)) uniform only: per thread $o_nu <= $t_nu)"
    else v="NOT FREE (no loop; kernel +$((o_n - t_n)), per thread +$((o_nu - t_nu)))"; bad=1; fi
  else
    v="NOT FREE (loops differ: lesson $o_list, twin $t_list)"; bad=1
  fi
  printf "%-28s %9s %9s %9s %9s  %s\n" "$label" "$o_n" "$o_loop" "$t_n" "$t_loop" "$v"
  if [ "$OPS" = 1 ] && [ "$o_ops" != "$t_ops" ]; then
    diff <(tr ' ' '\n' <<<"$o_ops" | sort) <(tr ' ' '\n' <<<"$t_ops" | sort) |
      sed -n 's/^< /    lesson only: /p; s/^> /    twin only:   /p'
  fi
done
echo "instructions without padding (NOPs, the branch to itself after EXIT); innermost loop = the largest loop that holds no other loop (an unrolled loop is none)"
if [ "$bad" = 0 ]; then echo "SASS COMPARE: every lesson kernel is as short as its twin"; else echo "SASS COMPARE: some lesson kernels are longer than their twins"; fi
exit "$bad"
