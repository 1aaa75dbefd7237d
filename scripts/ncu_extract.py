#!/usr/bin/env python3
"""Extracts what tests/test_compiled_access.cpp replays from an Nsight Compute
session: the kernel totals of scripts/ncu_compare.sh (KEEP_LOGS=1) for every
lesson, and the per-instruction source pages (SASS) of a few, each memory
instruction tied to its lesson source line by the compiled-code table
(tilescope-cli sass, matched by offset).

  scripts/ncu_extract.py --logs OUT/ncu_compare_logs --pages DIR --cli build/ci/tilescope-cli \\
      --gpu "NVIDIA H200" --out docs/measurements/ncu_h200.json

--logs: <lesson>.ours.json (tilescope-cli run --json, for the parameters) and
<lesson>.ncu.csv (ncu --csv --page raw) per lesson; --pages: <lesson>.sass.csv,
Nsight Compute's source page of that lesson's kernel at its defaults, as CSV
(ncu --import <lesson>.ncu-rep --page source --csv --print-source sass).
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys

# The source page's columns kept per instruction, and their names here.
PAGE_COLUMNS = {
    "Instructions Executed": "executed",
    "Thread Instructions Executed": "threads",
    "Predicated-On Thread Instructions Executed": "predicated_on",
    "L1 Wavefronts Shared": "wavefronts",
    "L1 Wavefronts Shared Ideal": "ideal_wavefronts",
    "L2 Theoretical Sectors Global": "sectors",
    "L2 Theoretical Sectors Global Ideal": "ideal_sectors",
}


def number(text):
    text = text.replace(",", "").replace('"', "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def ncu_totals(path):
    rows = [r for r in csv.reader(open(path, newline="")) if r and not r[0].startswith("==")]
    head, out = rows[0], {}
    for r in rows[1:]:
        if not r or not r[0].strip().isdigit():
            continue
        for i, m in enumerate(head):
            if (m.startswith(("l1tex__", "smsp__")) and m.endswith(".sum") and i < len(r)
                    and number(r[i]) is not None):
                out[m] = out.get(m, 0) + int(number(r[i]))
    return out


def page(path, table):
    """The memory instructions of one source page, with the table's line for each."""
    rows = list(csv.reader(open(path, newline="")))
    head = rows[1]
    at = {c: head.index(c) for c in ["Address", "Source", "Address Space"] + list(PAGE_COLUMNS)
          if c in head}
    body = [r for r in rows[2:] if len(r) >= len(head)]
    start = int(body[0][at["Address"]], 16)
    by_offset = {i["offset"]: (line["line"], i) for line in table["lines"]
                 for i in line["instructions"]}
    out, barriers = [], 0
    for r in body:
        words = [w for w in r[at["Source"]].split() if not w.startswith("@")]
        opcode = words[0] if words else ""
        if opcode.startswith("BAR.") and not opcode.startswith("BAR.ARV"):
            barriers += 1  # block barriers before each instruction, in program order
        if r[at["Address Space"]] in ("-", ""):
            continue
        offset = int(r[at["Address"]], 16) - start
        if offset not in by_offset:
            continue  # not a lesson array's access (a kernel parameter's LDC)
        line, ins = by_offset[offset]
        x = {"offset": offset, "sass": " ".join(r[at["Source"]].split()), "line": line,
             "space": ins["space"], "op": ins["op"], "bytes": ins["bytes"],
             "predicated": ins["predicated"], "barriers": barriers}
        for column, name in PAGE_COLUMNS.items():
            if column in at:
                x[name] = int(number(r[at[column]]) or 0)
        out.append(x)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--logs", required=True)
    ap.add_argument("--pages", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    lessons, pages = [], []
    for ours in sorted(glob.glob(os.path.join(a.logs, "*.ours.json"))):
        safe = os.path.basename(ours)[: -len(".ours.json")]
        run = json.load(open(ours))
        params = {k: v for k, v in run["params"].items() if v}
        lessons.append({"id": run["variant"], "params": params,
                        "ncu": ncu_totals(os.path.join(a.logs, safe + ".ncu.csv"))})
        sass = os.path.join(a.pages, safe + ".sass.csv")
        if os.path.exists(sass):
            args = [a.cli, "sass", run["variant"], "--json"]
            for k, v in params.items():
                args += ["--" + k, str(v)]
            table = json.loads(subprocess.run(args, capture_output=True, text=True,
                                              check=True).stdout)
            pages.append({"id": run["variant"], "params": params,
                          "instructions": page(sass, table)})
    doc = {
        "format": "tilescope-ncu-measurements",
        "gpu": a.gpu,
        "note": "Nsight Compute on launch_body<Body, PlainRec> (tilescope-cli run <id> --backend "
                "cuda --untraced), every lesson at its defaults: 'lessons' the kernel totals "
                "(scripts/ncu_compare.sh), 'pages' per memory instruction of the source page "
                "(SASS), its lesson line from the compiled-code table. Made by "
                "scripts/ncu_extract.py.",
        "lessons": lessons,
        "pages": pages,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
