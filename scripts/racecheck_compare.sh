#!/usr/bin/env bash
# Our hazard verdict against compute-sanitizer racecheck, on the GPU machine.
#
# For every catalogue lesson and every subset of its barriers (plus a one-warp
# tile-4 case, where everything is a warning) this runs
#   - racecheck on ONE untraced launch:
#       compute-sanitizer --tool racecheck --racecheck-report all --show-backtrace no \
#         tilescope-cli races <lesson> --backend cuda --barriers <kept> --launch-only
#     (untraced, so that the trace recorder's own bookkeeping is not what
#     racecheck sees; racecheck instruments the kernel itself. With every
#     barrier that is the timed kernel, else MaskRec: the lesson's code minus
#     the removed barriers, without the race lab's stall, whose branch made
#     nvcc add WARPSYNCs that racecheck takes as ordering a warp
#     (analysis/hazards.hpp, "Warp syncs"). No host backtraces: they made
#     the SGEMM ladder's 20,000-record logs tens of MB),
#   - our analysis of a traced GPU run of the same launch:
#       tilescope-cli races <lesson> --backend cuda --barriers <kept> --json --runs 1
#   - and, for reference, our analysis of a simulator trace (what CI checks),
# and prints a table: lesson, barriers kept, ours (GPU trace), ours (sim),
# racecheck, kinds, presence, seconds. A verdict reads "none", or the hazard
# kinds per severity, e.g. "error RAW,WAR; warning WAR"; ours adds, where the
# errors' kinds depend on the order the warps ran in, every kind another order
# could show: "error RAW (order-dependent: RAW/WAR)" (analysis/hazards.hpp,
# rule "Order"). "kinds" compares our GPU verdict with racecheck's:
#   yes    the same kinds per severity;
#   order  not the same, but only where ours is marked order-dependent: the
#          warnings the same, errors on both sides or neither, and racecheck's
#          error kinds among those another order could show;
#   no     anything else.
# "presence" compares only whether each found any errors / any warnings.
#
# Usage (headless build). 127 cases in all: the SGEMM ladder 29, reduction 40,
# the other families 58. With host backtraces and the ladder at n = 64 an H200
# took about 22 s per ladder case and 5-7 s per other one; these settings
# (no backtraces, the ladder at its smallest size) are meant to bring each
# part below 10 minutes: give each part its own call, with a DEADLINE.
#   scripts/racecheck_compare.sh [build-dir]          # default build/headless
#   PART=ladder scripts/racecheck_compare.sh          # the SGEMM ladder (sgemm.*) alone
#   PART=reduction scripts/racecheck_compare.sh       # the reduction family
#   PART=other scripts/racecheck_compare.sh           # every other family
#   PART=rest scripts/racecheck_compare.sh            # reduction and other together
#   ONLY='transpose.*' scripts/racecheck_compare.sh   # only the lessons whose id matches
#   DEADLINE=540 scripts/racecheck_compare.sh         # start no case after 540 s; name those left
#   KEEP_LOGS=1 scripts/racecheck_compare.sh          # keep the racecheck logs in $OUT or /tmp
#   SIM=0 scripts/racecheck_compare.sh                # leave out the simulator column (CI has it)
#   PACK=1 scripts/racecheck_compare.sh               # the logs as one $OUT/racecheck_<PART>.tar.gz
#                                                     # (the device tool returns 8 files at most)
#   PRINT_LIMIT=N                                     # racecheck's --print-limit (default 100000
#                                                     # records: the ladder's largest need ~85,000)
set -u -o pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build/headless}"
CLI="$BUILD/tilescope-cli"
SANITIZER="${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}"
LOGDIR="${OUT:-/tmp}/racecheck_logs"
mkdir -p "$LOGDIR"

if [[ ! -x "$CLI" ]]; then
  echo "== building headless ($BUILD)"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTS_BUILD_GUI=OFF \
    -DTS_BUILD_BENCH=OFF -DTS_BUILD_TESTS=OFF -DTS_CUDA_ARCHITECTURES=90 >/dev/null || exit 1
  cmake --build "$BUILD" -j "$(nproc)" --target tilescope-cli >/dev/null || exit 1
fi
if [[ ! -x "$SANITIZER" ]]; then
  echo "compute-sanitizer not found (set COMPUTE_SANITIZER=/path/to/compute-sanitizer)" >&2
  exit 1
fi

# Parameters per lesson: blocks of two warps and two or more tiles, so that
# every barrier guards something; small, so racecheck stays quick.
params_for() {  # the sizes tests/test_hazards.cpp checks on the simulator
  case "$1" in
    matmul.naive_one_block) echo "--n 6" ;;
    matmul.naive_grid) echo "--n 10 --block 4" ;;
    matmul.row_shared | matmul.row_col_shared) echo "--n 16 --tile 8" ;;
    matmul.tiled_exact) echo "--n 32 --tile 8" ;;
    matmul.tiled_square) echo "--n 32 --tile 8" ;;
    matmul.tiled_rect) echo "--m 16 --k 24 --n 32 --tile 8" ;;
    stencil.*) echo "--length 128 --radius 3 --block 64" ;;
    histogram.*) echo "--length 256 --block 64" ;;
    # The ladder at its smallest size: one block tile, whole k steps of 8
    # (two warps or more, four k steps: every barrier guards something).
    sgemm.warptile | sgemm.hopper | sgemm.sized) echo "--n 64" ;;  # tiles of 64: n a multiple of 64
    sgemm.naive_uncoalesced) echo "" ;;
    sgemm.*) echo "--n 32" ;;
    *) echo "" ;;  # the catalogue's defaults
  esac
}

# racecheck's log -> {"error": kinds, "warning": kinds} and its verdict text,
# from the hazard records ("Error: Potential WAR hazard detected at __shared__
# ...", older versions "ERROR:" / "WARN:(Warp Level Programming) Potential RAW
# hazard"), checked against the summary line "RACECHECK SUMMARY: N hazards
# displayed (E errors, W warnings)"; then our GPU and simulator JSON, and the
# comparison. Prints one tab-separated line: gpu, sim, racecheck, kinds, presence.
compare_case() {
  python3 - "$1" "$2" "$3" "$PRINT_LIMIT" <<'PY'
import json, re, sys
ORDER = ["RAW", "WAR", "WAW"]

def text(kinds):
    parts = ["%s %s" % (s, ",".join(sorted(kinds[s], key=ORDER.index)))
             for s in ("error", "warning") if kinds[s]]
    return "; ".join(parts) if parts else "none"

def racecheck(path):
    log = open(path, errors="replace").read()
    kinds = {"error": set(), "warning": set()}
    for m in re.finditer(r"=+\s*(error|warning|warn)\b[^\n]*?potential\s+(raw|war|waw)\s+hazard", log, re.I):
        kinds["error" if m.group(1).lower() == "error" else "warning"].add(m.group(2).upper())
    summ = re.search(r"RACECHECK SUMMARY:\s*(\d+)\s+hazards?\s+displayed\s*\((\d+)\s+errors?,\s*(\d+)\s+warnings?\)", log)
    if not summ:
        return None, "NO SUMMARY (racecheck failed?)"
    if int(summ.group(1)) > 0 and not (kinds["error"] or kinds["warning"]):
        return None, "summary: %s hazards (%s errors, %s warnings), no records" % summ.groups()
    records = len(re.findall(r"potential\s+(?:raw|war|waw)\s+hazard", log, re.I))
    capped = " (CAPPED: %d records)" % records if records >= int(sys.argv[4]) else ""
    return kinds, text(kinds) + capped

def ours(path):
    try:
        j = json.load(open(path))
    except Exception as e:
        lines = open(path, errors="replace").read().strip().splitlines()
        return None, "FAILED: " + (lines[-1] if lines else str(e))[:40]
    if "hazards" not in j:
        return None, "FAILED: " + str(j.get("error", "no hazards in the output"))[:40]
    h = j["hazards"]
    v = h["verdict"] + (" (TRUNCATED)" if h.get("trace_truncated") else "")
    return h, v

rc, rc_text = racecheck(sys.argv[1])
gpu, gpu_text = ours(sys.argv[2])
sim, sim_text = ours(sys.argv[3])
kinds = presence = "no"
if rc is not None and gpu is not None:
    mine = {s: set(gpu["kinds"][s]) for s in ("error", "warning")}
    if mine == rc:
        kinds = "yes"
    elif (gpu["order_dependent"] and mine["warning"] == rc["warning"]
          and bool(mine["error"]) == bool(rc["error"])
          and rc["error"] <= set(gpu["error_kinds_by_order"])):
        kinds = "order"
    if all(bool(mine[s]) == bool(rc[s]) for s in ("error", "warning")):
        presence = "yes"
print("\t".join([gpu_text, sim_text, rc_text, kinds, presence]))
PY
}

PRINT_LIMIT="${PRINT_LIMIT:-100000}"
SANITIZER_FLAGS=(--tool racecheck --racecheck-report all --print-limit "$PRINT_LIMIT")
if "$SANITIZER" --help 2>/dev/null | grep -q -- '--show-backtrace'; then
  SANITIZER_FLAGS+=(--show-backtrace no)
fi

PART="${PART:-all}"
case "$PART" in
  all | rest | ladder | reduction | other) ;;
  *) echo "PART is all, ladder, reduction, other or rest (not '$PART')" >&2; exit 2 ;;
esac

printf "%-26s %-6s %-42s %-42s %-30s %-5s %-8s %s\n" lesson kept "ours (GPU trace)" "ours (sim)" \
  racecheck kinds presence s
rows=0
exact_n=0
order_n=0
presence_n=0
left=""
start=$(date +%s)

cases=$("$CLI" races --cases) || { echo "tilescope-cli races --cases failed" >&2; exit 1; }
# One extra case: tile 4 is one warp per block -> warnings only.
cases="$cases
matmul.tiled_square@tile4 2"

while read -r lesson nbar; do
  [[ -z "$lesson" ]] && continue
  id="${lesson%@*}"
  case "$PART" in
    ladder) [[ "$id" == sgemm.* ]] || continue ;;
    rest) [[ "$id" == sgemm.* ]] && continue ;;
    reduction) [[ "$id" == reduction.* ]] || continue ;;
    other) [[ "$id" == sgemm.* || "$id" == reduction.* ]] && continue ;;
  esac
  # shellcheck disable=SC2053  # ONLY is a glob
  [[ -n "${ONLY:-}" && "$id" != $ONLY ]] && continue
  if [[ "$lesson" == *@tile4 ]]; then p="--n 16 --tile 4"; else p="$(params_for "$id")"; fi
  for ((mask = 0; mask < (1 << nbar); ++mask)); do
    kept=""
    for ((b = 1; b <= nbar; ++b)); do
      if ((mask >> (b - 1) & 1)); then kept="${kept:+$kept,}$b"; fi
    done
    [[ -z "$kept" ]] && kept="none"
    if [[ -n "${DEADLINE:-}" ]] && (($(date +%s) - start >= DEADLINE)); then
      left="$left $lesson:$kept"
      continue
    fi
    case_start=$(date +%s)
    tag="${lesson//[^A-Za-z0-9_.]/_}_$kept"
    tag="${tag//,/_}"

    # shellcheck disable=SC2086
    timeout 120 "$SANITIZER" "${SANITIZER_FLAGS[@]}" \
      "$CLI" races "$id" $p --backend cuda --barriers "$kept" --launch-only \
      >"$LOGDIR/$tag.racecheck.log" 2>&1
    # shellcheck disable=SC2086
    timeout 120 "$CLI" races "$id" $p --backend cuda --barriers "$kept" --json --runs 1 --no-stale \
      >"$LOGDIR/$tag.gpu.json" 2>"$LOGDIR/$tag.gpu.err"
    if [[ "${SIM:-1}" != 0 ]]; then
      # shellcheck disable=SC2086
      timeout 120 "$CLI" races "$id" $p --backend sim --barriers "$kept" --json --runs 1 --no-stale \
        >"$LOGDIR/$tag.sim.json" 2>"$LOGDIR/$tag.sim.err"
    else
      echo '{"error": "not run (SIM=0)"}' >"$LOGDIR/$tag.sim.json"
    fi
    IFS=$'\t' read -r gpu sim rc_verdict kinds presence < <(compare_case \
      "$LOGDIR/$tag.racecheck.log" "$LOGDIR/$tag.gpu.json" "$LOGDIR/$tag.sim.json")

    [[ "$kinds" == yes ]] && exact_n=$((exact_n + 1))
    [[ "$kinds" == order ]] && order_n=$((order_n + 1))
    [[ "$presence" == yes ]] && presence_n=$((presence_n + 1))
    rows=$((rows + 1))
    printf "%-26s %-6s %-42s %-42s %-30s %-5s %-8s %s\n" "$lesson" "$kept" "$gpu" "$sim" \
      "$rc_verdict" "$kinds" "$presence" "$(($(date +%s) - case_start))"
  done
done <<<"$cases"

echo
echo "$rows cases: kinds the same in $exact_n, the same but for order-dependent kinds in $order_n," \
  "different in $((rows - exact_n - order_n)); presence and severity agree in $presence_n;" \
  "$(($(date +%s) - start)) s. Logs: $LOGDIR"
[[ -n "$left" ]] && echo "not run (DEADLINE=$DEADLINE):$left"
if [[ -n "${PACK:-}" ]]; then
  tar czf "${OUT:-/tmp}/racecheck_$PART.tar.gz" -C "$(dirname "$LOGDIR")" "$(basename "$LOGDIR")" &&
    rm -rf "$LOGDIR" && echo "Logs packed: ${OUT:-/tmp}/racecheck_$PART.tar.gz"
fi
[[ -z "${KEEP_LOGS:-}" && -z "${OUT:-}" ]] && rm -rf "$LOGDIR"
[[ $((exact_n + order_n)) -eq $rows && $presence_n -eq $rows && -z "$left" ]]
