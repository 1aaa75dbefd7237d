#!/usr/bin/env bash
# The bank and sector probe on the GPU machine (issue 22): builds
# bench/bank_probe.cu (headless preset, that target only), checks in its SASS
# that each probe kernel holds exactly one memory instruction of the intended
# kind and width (cuobjdump), runs every pattern of the table
# (bench/bank_probe_patterns.hpp) under Nsight Compute, one launch = one warp
# instruction, and writes ONE JSON file:
#   ${OUT:-build}/bank_probe_<gpu>.json   (e.g. bank_probe_h200.json)
# with the table (lanes' offsets, masks, kinds, widths), ncu's counters per
# pattern id, the GPU, driver, CUDA and ncu versions and the SASS found.
# Commit it as docs/measurements/bank_probe_<gpu>.json; the CPU test
# (tests/test_bank_probe.cpp) and `bank_probe_model FILE` compare it with the model.
#
# Time: the patterns are profiled in chunks (one ncu process each), in an
# order that takes every kind in turn, so that a run cut short by the budget
# still covers every kind; BUDGET seconds (default 360) bound the profiling, and
# a chunk is not started when the last one says it would not fit. The file then
# says "partial": true and how many patterns it holds.
#
# Usage:
#   scripts/bank_probe.sh [--limit N]       # N: profile only N patterns (round-robin over kinds)
#   BUDGET=300 CHUNK=120 NCU=/path/to/ncu scripts/bank_probe.sh
# Exit status: 0 written (complete), 1 written but partial or the SASS check
# failed, 2 a tool is missing or ncu may not read the counters (root, or
# NVreg_RestrictProfilingToAdminUsers=0).
set -u -o pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${OUT:-$ROOT/build}"
WORK="$DEST/bank_probe_work"
BUDGET="${BUDGET:-360}"
CHUNK="${CHUNK:-150}"
LIMIT=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --limit) LIMIT="$2"; shift 2 ;;
    *) echo "usage: scripts/bank_probe.sh [--limit N]" >&2; exit 2 ;;
  esac
done
mkdir -p "$WORK"
T0=$(date +%s)

NCU="${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}"
if [[ ! -x "$NCU" ]]; then
  echo "bank_probe: ncu not found (set NCU=/path/to/ncu)" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "bank_probe: python3 is needed" >&2; exit 2; }
export PATH="$(dirname "$NCU"):/usr/local/cuda/bin:$PATH"

echo "== building bank_probe (headless preset)"
(cd "$ROOT" && cmake --preset headless >"$WORK/configure.log" 2>&1) || {
  tail -40 "$WORK/configure.log"; exit 2; }
(cd "$ROOT" && cmake --build --preset headless --target bank_probe >"$WORK/build.log" 2>&1) || {
  tail -40 "$WORK/build.log"; exit 2; }
PROBE="$ROOT/build/headless/bench/bank_probe"
[[ -x "$PROBE" ]] || { echo "bank_probe: $PROBE was not built" >&2; exit 2; }
echo "   built in $(( $(date +%s) - T0 )) s"

"$PROBE" --patterns-only "$WORK/patterns.json" || exit 2

# SASS: one memory instruction per kernel, of the intended width.
CUOBJDUMP="$(command -v cuobjdump || true)"
if [[ -n "$CUOBJDUMP" ]]; then
  "$CUOBJDUMP" -sass "$PROBE" >"$WORK/sass.txt" 2>&1 || true
else
  echo "cuobjdump not found: the SASS is not checked" >"$WORK/sass.txt"
fi

METRICS=(
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  smsp__inst_executed_op_shared_ld.sum
  smsp__inst_executed_op_shared_st.sum
  smsp__inst_executed_op_shared_atom.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
  smsp__inst_executed_op_global_ld.sum
  smsp__inst_executed_op_global_st.sum
  smsp__inst_executed_op_global_red.sum
)
# Keep the names this ncu knows (an unknown name fails the whole run).
"$NCU" --query-metrics </dev/null >"$WORK/query.txt" 2>&1 || true
KEEP=()
for m in "${METRICS[@]}"; do
  if grep -qE "(^|[[:space:]])${m%.sum}([[:space:]]|$)" "$WORK/query.txt"; then
    KEEP+=("$m")
  else
    echo "   ncu --query-metrics does not list ${m%.sum}: left out"
  fi
done
if [[ ${#KEEP[@]} -eq 0 ]]; then
  echo "   (the query listed none of them: asking for all)"
  KEEP=("${METRICS[@]}")
fi
METRIC_LIST="$(IFS=,; echo "${KEEP[*]}")"

# The order of profiling: kinds in turn (id lists, one per chunk).
python3 - "$WORK/patterns.json" "$CHUNK" "$LIMIT" >"$WORK/chunks.txt" <<'PY'
import json, sys
ps = json.load(open(sys.argv[1]))["patterns"]
chunk, limit = int(sys.argv[2]), int(sys.argv[3])
by_kernel = {}
for p in ps:
    by_kernel.setdefault(p["kernel"], []).append(p["id"])
order, queues = [], list(by_kernel.values())
while any(queues):
    for q in queues:
        if q:
            order.append(q.pop(0))
if limit > 0:
    order = order[:limit]
for i in range(0, len(order), chunk):
    print(",".join(str(x) for x in order[i:i + chunk]))
PY

echo "== profiling $(tr ',' '\n' <"$WORK/chunks.txt" | grep -c .) launches in $(wc -l <"$WORK/chunks.txt") chunks (budget ${BUDGET} s, ${#KEEP[@]} metrics)"
T1=$(date +%s)
last=0
n=0
partial=0
rm -f "$WORK"/chunk_*.csv "$WORK"/chunk_*.out
while IFS= read -r ids; do
  now=$(date +%s)
  if (( now - T1 + last > BUDGET )); then
    echo "   budget: stopping before chunk $n (the last took ${last} s)"
    partial=1
    break
  fi
  "$NCU" --csv --page raw --print-units base --metrics "$METRIC_LIST" \
    --kernel-name regex:'^probe_' --log-file "$WORK/chunk_$n.csv" \
    "$PROBE" --run --ids "$ids" </dev/null >"$WORK/chunk_$n.out" 2>&1
  rc=$?
  if grep -q "ERR_NVGPUCTRPERM" "$WORK/chunk_$n.csv" "$WORK/chunk_$n.out" 2>/dev/null; then
    echo "bank_probe: ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM):" \
      "run as root or with NVreg_RestrictProfilingToAdminUsers=0" >&2
    exit 2
  fi
  if [[ $rc -ne 0 ]]; then
    echo "   chunk $n: ncu or the probe failed (exit $rc):"
    tail -5 "$WORK/chunk_$n.csv" "$WORK/chunk_$n.out"
    if [[ $n -eq 0 ]]; then exit 2; fi
    partial=1
    break
  fi
  echo "$ids" >"$WORK/chunk_$n.ids"
  last=$(( $(date +%s) - now ))
  echo "   chunk $n: $(tr ',' '\n' <<<"$ids" | grep -c .) launches in ${last} s"
  n=$((n + 1))
done <"$WORK/chunks.txt"
PROFILE_S=$(( $(date +%s) - T1 ))

GPU="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
DRIVER="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
NCU_VERSION="$("$NCU" --version 2>/dev/null | tail -1)"
NVCC_VERSION="$(nvcc --version 2>/dev/null | grep -i release | head -1)"

python3 - "$WORK" "$DEST" "$n" "$partial" "$METRIC_LIST" "$GPU" "$DRIVER" "$NCU_VERSION" \
  "$NVCC_VERSION" "$PROFILE_S" <<'PY'
import csv, json, os, re, sys
work, dest, chunks, partial, metrics = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5].split(",")
gpu, driver, ncu_version, nvcc_version, profile_s = sys.argv[6:11]
table = json.load(open(os.path.join(work, "patterns.json")))
by_id = {p["id"]: p for p in table["patterns"]}

def number(t):
    t = t.replace(",", "").replace('"', "").strip()
    try:
        v = float(t)
        return int(v) if v == int(v) else v
    except ValueError:
        return None

problems, passes = [], {}
for c in range(chunks):
    ids = [int(x) for x in open(os.path.join(work, f"chunk_{c}.ids")).read().strip().split(",")]
    text = open(os.path.join(work, f"chunk_{c}.csv")).read().splitlines()
    for line in text:
        m = re.search(r'Profiling "(\w+)".* (\d+) pass', line)
        if m:
            passes[m.group(1)] = int(m.group(2))
    rows = [r for r in csv.reader([l for l in text if not l.startswith("==")]) if r]
    if not rows:
        problems.append(f"chunk {c}: no CSV rows"); continue
    head = rows[0]
    data = [r for r in rows[1:] if r and r[0].strip().isdigit()]
    if len(data) != len(ids):
        problems.append(f"chunk {c}: {len(data)} profiled kernels for {len(ids)} launches")
    name_at = head.index("Kernel Name") if "Kernel Name" in head else None
    for r, pid in zip(data, ids):
        p = by_id[pid]
        if name_at is not None:
            k = re.search(r"probe_\w+", r[name_at])
            if not k or k.group(0) != p["kernel"]:
                problems.append(f"pattern {pid}: ncu profiled {r[name_at]}, expected {p['kernel']}")
                continue
        p["measured"] = {m: number(r[head.index(m)]) for m in metrics if m in head}

# SASS: the memory instructions of each probe kernel.
sass, fn = {}, None
mem = {"LDS", "STS", "ATOMS", "LDG", "STG", "RED", "ATOM", "ATOMG", "LD", "ST", "LDL", "STL", "LDSM", "LDGSTS", "REDG"}
for line in open(os.path.join(work, "sass.txt"), errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m:
        k = re.search(r"probe_[a-z]+_[a-z]+_\d+", m.group(1))
        fn = k.group(0) if k else None
        if fn: sass[fn] = []
        continue
    m = re.search(r"/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)\s*([^;]*);", line)
    if fn and m and m.group(2).split(".")[0] in mem:
        sass[fn].append((m.group(2) + " " + m.group(3)).strip())
def expected(kernel):
    kind, bits = kernel.rsplit("_", 1)
    root = {"probe_shared_ld": "LDS", "probe_shared_st": "STS", "probe_shared_atom": "ATOMS",
            "probe_global_ld": "LDG", "probe_global_st": "STG", "probe_global_red": "RED"}[kind]
    return root, int(bits)
sass_ok = bool(sass)
for kernel in sorted({p["kernel"] for p in table["patterns"]}):
    ins = sass.get(kernel)
    if ins is None:
        sass_ok = False; problems.append(f"SASS: {kernel} not found"); continue
    root, bits = expected(kernel)
    op = ins[0].split()[0] if len(ins) == 1 else ""
    parts = op.split(".")
    width = 128 if "128" in parts else 64 if "64" in parts else 32
    if len(ins) != 1 or parts[0] not in (root, root + "G") or width != bits:
        sass_ok = False
        problems.append(f"SASS: {kernel} has {ins}, expected one {root} of {bits} bits")

measured = [p for p in table["patterns"] if "measured" in p]
short = re.sub(r"[^a-z0-9]+", "_", gpu.lower().replace("nvidia", "")).strip("_") or "gpu"
out = dict(table)
out.update({"gpu": gpu, "driver": driver, "ncu": ncu_version, "nvcc": nvcc_version,
            "metrics": metrics, "partial": partial or len(measured) < len(table["patterns"]),
            "measured_patterns": len(measured), "profile_seconds": int(profile_s),
            "ncu_passes": passes, "sass": sass, "sass_ok": sass_ok, "problems": problems})
path = os.path.join(dest, f"bank_probe_{short}.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")

print(f"== {path}: {len(measured)} of {len(table['patterns'])} patterns measured on {gpu} "
      f"(driver {driver}, {ncu_version}) in {profile_s} s; ncu passes per kernel: {sorted(set(passes.values()))}")
print(f"   SASS: {'one instruction of the intended width per kernel' if sass_ok else 'CHECK FAILED or not checked'}")
for k in sorted(sass):
    print(f"     {k:22} {' | '.join(sass[k])}")
for p in problems[:20]:
    print("   problem:", p)
# The counters of each kind's instruction, summed, and a few patterns.
key = {"shared_ld": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
       "shared_st": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
       "shared_atom": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
       "global_ld": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
       "global_st": ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
       "global_red": ("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum")}
print(f"   {'kernel':22} {'patterns':>8} {'sum a':>8} {'sum b':>8}   (a, b: shared wavefronts, conflicts; global requests, sectors)")
for kernel in sorted({p["kernel"] for p in measured}):
    ps = [p for p in measured if p["kernel"] == kernel]
    a, b = key[ps[0]["kind"]]
    sa = sum((p["measured"].get(a) or 0) for p in ps)
    sb = sum((p["measured"].get(b) or 0) for p in ps)
    print(f"   {kernel:22} {len(ps):>8} {sa:>8} {sb:>8}")
for p in measured:
    if p["name"] in ("stride_2", "stride_32"):
        a, b = key[p["kind"]]
        print(f"   {p['id']:4} {p['kernel']:22} {p['name']:30} {p['measured'].get(a)} {p['measured'].get(b)}")
sys.exit(0 if not out["partial"] and sass_ok and not problems else 1)
PY
status=$?
echo "(total $(( $(date +%s) - T0 )) s; exit $status: 0 complete, 1 partial or a problem above, 2 a tool failed)"
exit $status
