#!/usr/bin/env bash
# Our hazard verdict against compute-sanitizer racecheck, on the GPU machine.
#
# For every catalogue lesson and every subset of its barriers (plus a one-warp
# tile-4 case, where everything is a warning) this runs
#   - racecheck on ONE untraced launch:
#       compute-sanitizer --tool racecheck --racecheck-report all \
#         tilescope-cli races <lesson> --backend cuda --barriers <kept> --launch-only
#     (untraced, so that the trace recorder's own bookkeeping is not what
#     racecheck sees; racecheck instruments the kernel itself),
#   - our analysis of a traced GPU run of the same launch:
#       tilescope-cli races <lesson> --backend cuda --barriers <kept> --json --runs 1
#   - and, for reference, our analysis of a simulator trace (what CI checks),
# and prints a table: lesson, barriers kept, ours (GPU trace), ours (sim),
# racecheck, agree?  A verdict reads "none", or the hazard kinds per
# severity, e.g. "error RAW,WAR; warning WAR". "agree" compares our GPU
# verdict with racecheck's exactly; "presence" only whether each found any
# errors / any warnings (the RAW/WAR direction of an unordered pair is the
# order the two accesses happened to run in, which differs between runs).
#
# Usage (headless build, about 3-5 minutes on an H100):
#   scripts/racecheck_compare.sh [build-dir]          # default build/headless
#   KEEP_LOGS=1 scripts/racecheck_compare.sh          # keep the racecheck logs in $OUT or /tmp
#   ONLY='transpose.*' scripts/racecheck_compare.sh   # only the lessons whose id matches
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
    *) echo "" ;;  # the catalogue's defaults
  esac
}

# racecheck's log -> "none" / "error RAW,WAR; warning WAR", from the hazard
# records ("Error: Potential WAR hazard detected at __shared__ ...", older
# versions "ERROR:" / "WARN:(Warp Level Programming) Potential RAW hazard"),
# checked against the summary line
# "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
racecheck_verdict() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
kinds = {"error": set(), "warning": set()}
for m in re.finditer(r"=+\s*(error|warning|warn)\b[^\n]*?potential\s+(raw|war|waw)\s+hazard", text, re.I):
    sev = "error" if m.group(1).lower() == "error" else "warning"
    kinds[sev].add(m.group(2).upper())
# Analysis records name no kind, only the severity: count them as presence.
analysis = {"error": 0, "warning": 0}
for m in re.finditer(r"=+\s*(error|warning)\s*:\s*race reported between", text, re.I):
    analysis[m.group(1).lower()] += 1
summ = re.search(r"RACECHECK SUMMARY:\s*(\d+)\s+hazards?\s+displayed\s*\((\d+)\s+errors?,\s*(\d+)\s+warnings?\)", text)
parts = []
for sev in ("error", "warning"):
    ks = sorted(kinds[sev], key=["RAW", "WAR", "WAW"].index)
    if ks:
        parts.append(sev + " " + ",".join(ks))
    elif analysis[sev]:
        parts.append(sev + " ?")
verdict = "; ".join(parts) if parts else "none"
if not summ:
    verdict = "NO SUMMARY (racecheck failed?)"
elif int(summ.group(1)) > 0 and not parts:
    verdict = "summary: %s hazards (%s errors, %s warnings)" % summ.groups()
print(verdict)
PY
}

our_verdict() {  # json file -> hazards.verdict, or the error
  python3 - "$1" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    if "hazards" not in j:
        print("FAILED: " + str(j.get("error", "no hazards in the output"))[:40])
        sys.exit(0)
    v = j["hazards"]["verdict"]
    if j["hazards"].get("trace_truncated"):
        v += " (TRUNCATED)"
    print(v)
except Exception as e:
    txt = open(sys.argv[1], errors="replace").read().strip().splitlines()
    print("FAILED: " + (txt[-1] if txt else str(e))[:40])
PY
}

severities() {  # "error RAW; warning WAR" -> "error,warning"
  local v="$1" s=""
  [[ "$v" == FAILED* || "$v" == NO* ]] && { echo "failed"; return; }
  [[ "$v" == *error* ]] && s="error"
  [[ "$v" == *warning* ]] && s="${s:+$s,}warning"
  echo "${s:-none}"
}

printf "%-24s %-8s %-28s %-28s %-28s %-6s %s\n" lesson barriers "ours (GPU trace)" "ours (sim)" racecheck agree presence
rows=0
agree_n=0
presence_n=0
start=$(date +%s)

cases=$("$CLI" races --cases) || { echo "tilescope-cli races --cases failed" >&2; exit 1; }
# One extra case: tile 4 is one warp per block -> warnings only.
cases="$cases
matmul.tiled_square@tile4 2"

while read -r lesson nbar; do
  [[ -z "$lesson" ]] && continue
  id="${lesson%@*}"
  # shellcheck disable=SC2053  # ONLY is a glob
  [[ -n "${ONLY:-}" && "$id" != $ONLY ]] && continue
  if [[ "$lesson" == *@tile4 ]]; then p="--n 16 --tile 4"; else p="$(params_for "$id")"; fi
  for ((mask = 0; mask < (1 << nbar); ++mask)); do
    kept=""
    for ((b = 1; b <= nbar; ++b)); do
      if ((mask >> (b - 1) & 1)); then kept="${kept:+$kept,}$b"; fi
    done
    [[ -z "$kept" ]] && kept="none"
    tag="${lesson//[^A-Za-z0-9_.]/_}_$kept"
    tag="${tag//,/_}"

    # shellcheck disable=SC2086
    timeout 120 "$SANITIZER" --tool racecheck --racecheck-report all --print-limit 20000 \
      "$CLI" races "$id" $p --backend cuda --barriers "$kept" --launch-only \
      >"$LOGDIR/$tag.racecheck.log" 2>&1
    rc_verdict="$(racecheck_verdict "$LOGDIR/$tag.racecheck.log")"

    # shellcheck disable=SC2086
    timeout 120 "$CLI" races "$id" $p --backend cuda --barriers "$kept" --json --runs 1 --no-stale \
      >"$LOGDIR/$tag.gpu.json" 2>"$LOGDIR/$tag.gpu.err"
    gpu="$(our_verdict "$LOGDIR/$tag.gpu.json")"
    # shellcheck disable=SC2086
    timeout 120 "$CLI" races "$id" $p --backend sim --barriers "$kept" --json --runs 1 --no-stale \
      >"$LOGDIR/$tag.sim.json" 2>"$LOGDIR/$tag.sim.err"
    sim="$(our_verdict "$LOGDIR/$tag.sim.json")"

    agree="no"
    [[ "$gpu" == "$rc_verdict" ]] && agree="yes" && agree_n=$((agree_n + 1))
    presence="no"
    [[ "$(severities "$gpu")" == "$(severities "$rc_verdict")" ]] && presence="yes" && presence_n=$((presence_n + 1))
    rows=$((rows + 1))
    label="$lesson"
    printf "%-24s %-8s %-28s %-28s %-28s %-6s %s\n" "$label" "$kept" "$gpu" "$sim" "$rc_verdict" "$agree" "$presence"
  done
done <<<"$cases"

echo
echo "$agree_n of $rows agree exactly; $presence_n of $rows agree on presence and severity;" \
  "$(($(date +%s) - start)) s. Logs: $LOGDIR"
[[ -z "${KEEP_LOGS:-}" && -z "${OUT:-}" ]] && rm -rf "$LOGDIR"
[[ $presence_n -eq $rows ]]
