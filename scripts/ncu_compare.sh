#!/usr/bin/env bash
# Our memory counters (analysis/compiled_access.hpp: the trace's accesses
# grouped as the compiled kernel executes them, from a simulator trace)
# against Nsight Compute's, on the GPU machine, for every lesson at its
# defaults, and with LARGER=1 also at one larger size per lesson (tilescope-cli
# list --json: "larger", the lesson's tests.larger or its defaults with the
# sizes doubled; engine/catalogue.hpp larger_size).
#
# Per lesson and size:
#   - ours:  tilescope-cli run <id> [size] --backend sim --json -> counters.ncu
#            (the compiled level; counters.ncu_source is what the source asks
#            for, counters.ncu_level says which one counters.ncu is)
#   - ncu:   ncu --metrics <the same names> on ONE untraced launch:
#              tilescope-cli run <id> --backend cuda --untraced
#            (untraced: the trace recorder's own stores to its event buffer
#            would count as global stores; the plain kernel is
#            launch_body<Body, PlainRec>, engine/cuda/launch.cuh, the only
#            kernel such a run launches)
# and prints, metric by metric, ours, ncu's and a verdict:
#   exact  the two agree
#   DIFF   they do not: shared bank conflicts and wavefronts must agree
#          exactly (the rules are the hardware's); global requests and
#          sectors should too (arrays start on cudaMalloc's 256-byte
#          boundary, so the sectors a warp touches are fixed by its
#          offsets). The compiled level already follows the compiler's
#          merged loads (LDS.128), predicated-off issues and if/else stores
#          (analysis/compiled_access.hpp); a DIFF now means a rule is missing:
#          look at the SASS (cuobjdump -sass, or ncu --page source) of the
#          lesson, and at counters.compiled_code.sites in ours.json.
# The exit status is 1 when any metric differs, 2 when the tools could not run.
#
# Usage (about a minute on an H100, two with LARGER=1; ncu needs access to the
# GPU's counters: root, or NVreg_RestrictProfilingToAdminUsers=0):
#   scripts/ncu_compare.sh [build-dir]        # default build/headless (the headless preset)
#   LARGER=1 scripts/ncu_compare.sh           # the defaults, then one larger size per lesson
#   NCU=/path/to/ncu scripts/ncu_compare.sh
#   LESSONS="transpose.shared transpose.shared_padded" scripts/ncu_compare.sh
#   KEEP_LOGS=1 scripts/ncu_compare.sh        # keep ncu's CSV and logs in $OUT or /tmp
#   NO_BUILD=1 scripts/ncu_compare.sh DIR     # DIR/tilescope-cli as it is (built elsewhere for sm_90)
set -u -o pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build/headless}"
CLI="$BUILD/tilescope-cli"
NCU="${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}"
LOGDIR="${OUT:-/tmp}/ncu_compare_logs"
mkdir -p "$LOGDIR"

# The headless preset's tilescope-cli, brought up to date (incremental).
if [[ "${NO_BUILD:-0}" == 1 ]]; then
  [[ -x "$CLI" ]] || { echo "NO_BUILD=1, but $CLI is missing" >&2; exit 2; }
  echo "== tilescope-cli as built ($CLI)"
elif [[ "$BUILD" == "$ROOT/build/headless" ]]; then
  echo "== building tilescope-cli ($BUILD)"
  (cd "$ROOT" && cmake --preset headless >"$LOGDIR/configure.log" 2>&1) || {
    cat "$LOGDIR/configure.log"
    exit 2
  }
else
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTS_BUILD_GUI=OFF \
    -DTS_CUDA_ARCHITECTURES=90 >"$LOGDIR/configure.log" 2>&1 || {
    cat "$LOGDIR/configure.log"
    exit 2
  }
fi
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  cmake --build "$BUILD" -j "$(nproc)" --target tilescope-cli >"$LOGDIR/build.log" 2>&1 || {
    tail -40 "$LOGDIR/build.log"
    exit 2
  }
fi
if [[ ! -x "$NCU" ]]; then
  echo "ncu not found (set NCU=/path/to/ncu)" >&2
  exit 2
fi
command -v python3 >/dev/null || {
  echo "python3 is needed to read ncu's CSV" >&2
  exit 2
}

# Nsight Compute's names; counters.ncu in `run --json` uses the same ones.
# Every lesson is compared on these and on any other name its counters.ncu has.
METRICS=(
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  smsp__inst_executed_op_shared_ld.sum
  smsp__inst_executed_op_shared_st.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
)
METRIC_LIST="$(IFS=,; echo "${METRICS[*]}")"
# The one kernel of an untraced run, by its demangled name:
#   void ts::launch_body<ts::lessons::<lesson>::Body..., ts::PlainRec>(ts::PlainRec, ts::KernelArgs)
KERNEL_FILTER='regex:launch_body<.*PlainRec>'

LESSONS="${LESSONS:-$("$CLI" list | awk 'NR > 1 && $1 ~ /\./ { print $1 }')}"
[[ -n "$LESSONS" ]] || {
  echo "tilescope-cli list gave no lessons" >&2
  exit 2
}

cat >"$LOGDIR/compare.py" <<'PY'
# ours.json (run --json) and ncu.csv (--csv, raw or details page) -> table rows.
import csv, json, sys

lesson, ours_path, ncu_path, metrics = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")

def number(text):
    text = text.replace(",", "").replace('"', "").strip()
    try:
        return float(text)
    except ValueError:
        return None

with open(ours_path) as f:
    ours = json.load(f).get("counters", {}).get("ncu", {})

theirs, kernels = {}, 0
with open(ncu_path, newline="") as f:
    rows = [r for r in csv.reader(f) if r and not r[0].startswith("==")]
if rows:
    head = rows[0]
    if "Metric Name" in head:  # details page: one row per kernel and metric
        name_at, value_at = head.index("Metric Name"), head.index("Metric Value")
        ids = set()
        for r in rows[1:]:
            if len(r) > value_at and r[name_at] in metrics:
                v = number(r[value_at])
                if v is not None:
                    theirs[r[name_at]] = theirs.get(r[name_at], 0) + v
                    ids.add(r[0])
        kernels = len(ids)
    else:  # raw page: a header row, a units row, then one row per kernel
        for r in rows[1:]:
            if not r or not r[0].strip().isdigit():
                continue  # the units row
            kernels += 1
            for m in metrics:
                if m in head and len(r) > head.index(m):
                    v = number(r[head.index(m)])
                    if v is not None:
                        theirs[m] = theirs.get(m, 0) + v

short = {
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared ld bank conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared st bank conflicts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "shared ld wavefronts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "shared st wavefronts",
    "smsp__inst_executed_op_shared_ld.sum": "shared ld instructions",
    "smsp__inst_executed_op_shared_st.sum": "shared st instructions",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "global ld requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "global ld sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "global st requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "global st sectors",
}
if kernels != 1:
    print(f"{lesson:26} ncu profiled {kernels} kernels (want 1: check the filter and {ncu_path})")
differs = False
for m in metrics:
    a, b = ours.get(m), theirs.get(m)
    if a is None or b is None:
        verdict = "missing (" + ("ours" if a is None else "ncu") + ")"
        differs = True
    elif a == b:
        verdict = "exact"
    else:
        verdict = f"DIFF ({b - a:+,.0f})"
        differs = True
    fa = "-" if a is None else f"{a:,.0f}"
    fb = "-" if b is None else f"{b:,.0f}"
    print(f"{lesson:26} {short.get(m, m):26} {fa:>12} {fb:>12}  {verdict}")
# Sectors per request, ours and ncu's, for the global side.
for op in ("ld", "st"):
    req, sec = (f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum",
                f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum")
    if ours.get(req) and theirs.get(req):
        print(f"{lesson:26} {'global ' + op + ' sectors/request':26} "
              f"{ours[sec] / ours[req]:>12.2f} {theirs.get(sec, 0) / theirs[req]:>12.2f}")
sys.exit(1 if differs else 0)
PY

# The sizes to compare: the defaults (no arguments), and with LARGER=1 each
# lesson's larger size (its arguments, from tilescope-cli list --json).
"$CLI" list --json >"$LOGDIR/lessons.json" || {
  echo "tilescope-cli list --json failed" >&2
  exit 2
}
larger_args() {
  python3 -c 'import json, sys
for v in json.load(open(sys.argv[1])):
    if v["id"] == sys.argv[2]: print(v["larger_args"])' "$LOGDIR/lessons.json" "$1"
}

printf '%-26s %-26s %12s %12s  %s\n' "lesson" "counter" "ours (sim)" "ncu (GPU)" "verdict"
status=0
compare_one() {  # lesson id, tag ("" or "larger"), size arguments
  local id="$1" tag="$2" args="$3"
  local safe="${id//./_}${tag:+_$tag}" label="$id${tag:+ ($args)}"
  # shellcheck disable=SC2086  # the size arguments are words
  if ! "$CLI" run "$id" $args --backend sim --json >"$LOGDIR/$safe.ours.json" \
    2>"$LOGDIR/$safe.ours.log"; then
    echo "$label: the simulator run failed: $(tail -1 "$LOGDIR/$safe.ours.log")"
    status=2
    return
  fi
  # The fixed list plus whatever else the lesson's counters.ncu names (atomics, ...).
  local lesson_metrics
  lesson_metrics="$(python3 -c 'import json, sys
fixed = sys.argv[2].split(",")
ours = json.load(open(sys.argv[1])).get("counters", {}).get("ncu", {})
print(",".join(fixed + [m for m in ours if m not in fixed]))' "$LOGDIR/$safe.ours.json" "$METRIC_LIST")"
  rm -f "$LOGDIR/$safe.ncu.csv"
  # shellcheck disable=SC2086
  if ! "$NCU" --csv --page raw --print-units base --metrics "$lesson_metrics" \
    --kernel-name-base demangled \
    --kernel-name "$KERNEL_FILTER" --launch-count 1 --log-file "$LOGDIR/$safe.ncu.csv" \
    "$CLI" run "$id" $args --backend cuda --untraced >"$LOGDIR/$safe.run.log" 2>&1; then
    echo "$label: ncu failed (see $LOGDIR/$safe.ncu.csv and $safe.run.log):"
    tail -5 "$LOGDIR/$safe.ncu.csv" "$LOGDIR/$safe.run.log" 2>/dev/null
    status=2
    return
  fi
  if ! grep -q "GPU" "$LOGDIR/$safe.run.log"; then
    echo "$label: the untraced run did not use the GPU: $(head -1 "$LOGDIR/$safe.run.log")"
    status=2
    return
  fi
  python3 "$LOGDIR/compare.py" "$label" "$LOGDIR/$safe.ours.json" "$LOGDIR/$safe.ncu.csv" \
    "$lesson_metrics"
  local rc=$?
  [[ $rc -ne 0 && $status -eq 0 ]] && status=1
}
for id in $LESSONS; do
  compare_one "$id" "" ""
done
if [[ -n "${LARGER:-}" ]]; then
  for id in $LESSONS; do
    compare_one "$id" "larger" "$(larger_args "$id")"
  done
fi
[[ -n "${KEEP_LOGS:-}" ]] || rm -f "$LOGDIR"/*.ncu.csv "$LOGDIR"/*.log "$LOGDIR"/*.json
echo "(exit $status: 0 every counter agrees, 1 some differ, 2 a tool failed)"
exit $status
