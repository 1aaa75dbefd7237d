#!/usr/bin/env python3
"""Extract the hazard records of a compute-sanitizer racecheck log into a small text file
that tests/test_racecheck_extracts.cpp replays against our analysis (analysis/hazards.hpp).

racecheck prints one record per BYTE of shared memory; this keeps one line per 4-byte word
and hazard (the same kind, threads and instructions: a loop that meets the same pair again
adds nothing), with the bytes of the word it reported and their values. Each access keeps its instruction (the offset in the kernel's SASS) and the source
line the SASS line table gives it, from a line map of the binary that ran (nvdisasm -gi of
engine/cuda/cuda_backend.cu compiled for sm_90 as the build compiles it; --sass makes the map).
The line table is the compiler's: it can put an access on a neighbouring line.

The map also keeps the kernel's warp syncs and loops, which --skeleton repeats in the
extract ("sass", "loop" lines): racecheck orders a warp's lanes at an executed WARPSYNC, not at a BSYNC
(analysis/hazards.hpp, "Warp syncs"), so a test can tell which pairs of instructions one lies
between.

  racecheck_extract.py LOG --lines MAP --case 'reduction.warp_volatile --barriers 1,2' \
      --gpu 'NVIDIA H200' > docs/measurements/racecheck_h200/NAME.txt
  racecheck_extract.py --sass ALL.sass --kernel 'matmul_tiled_square4BodyILi8EEENS_7MaskRec' > MAP
      # ALL.sass: nvdisasm -gi -c of a cubin; --kernel: a piece of the kernel's mangled name
      # (without it, the whole file is one kernel). MAP: offset line opcode per shared access,
      # WARPSYNC and BSYNC, and "loop TARGET BRANCH" per backward branch.
"""
import argparse
import re
import sys
from collections import OrderedDict

RECORD = re.compile(
    r"=+ (Error|Warning): (?:\(Warp Level Programming\) )?Potential (RAW|WAR|WAW) hazard "
    r"detected at __shared__ (0x[0-9a-f]+) in block \((\d+),(\d+),(\d+)\) :\n"
    r"=+\s+(Read|Write) Thread \((\d+),(\d+),(\d+)\) at .*?\+(0x[0-9a-f]+) in [^\n]*\n"
    r"=+\s+(Read|Write) Thread \((\d+),(\d+),(\d+)\) at .*?\+(0x[0-9a-f]+) in [^\n]*\n"
    r"=+\s+Current Value : (\d+)(?:, Incoming Value : (\d+))?")
SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")


def sass_lines(path, kernel=None):
    """nvdisasm -gi output -> ([(offset, line, opcode)] for LDS/STS/ATOMS, WARPSYNC and BSYNC;
    [(target, branch)] per backward branch). The line is the innermost lessons/*.hpp line of
    the inline chain (not access.hpp): the line the trace records for that access (for a
    barrier's WARPSYNC, the SYNCTHREADS line)."""
    chain, out, loops, open_block = [], [], [], False
    labels, branches = {}, []
    inside = kernel is None
    pending = []
    for text in open(path, errors="replace"):
        m = re.match(r"\s*\.section\s+\.text\.(\S+?),", text)
        if m:
            inside = kernel is None or kernel in m.group(1)
            continue
        if not inside:
            continue
        m = re.match(r"^(\.L_x_\d+):", text)
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', text)
        if m:
            if not open_block:
                chain, open_block = [], True
            chain.append((m.group(1), int(m.group(2))))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*)", text)
        if not m:
            continue
        open_block = False
        off, op = int(m.group(1), 16), m.group(2)
        for label in pending:
            labels[label] = off
        pending = []
        if op.startswith(("LDS", "STS", "ATOMS", "WARPSYNC", "BSYNC")):
            line = next((n for f, n in chain if "/lessons/" in f and not f.endswith("access.hpp")), 0)
            out.append((off, line, op))
        b = re.search(r"`\((\.L_x_\d+)\)", m.group(3))
        if op == "BRA" and b:
            branches.append((off, b.group(1)))
    for off, label in branches:
        if label in labels and labels[label] <= off:
            loops.append((labels[label], off))
    return out, loops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log", nargs="?")
    ap.add_argument("--sass", help="print the line map of one kernel's nvdisasm -gi output")
    ap.add_argument("--kernel", help="with --sass: a piece of the kernel's mangled name")
    ap.add_argument("--lines", help="the line map (offset line opcode per line)")
    ap.add_argument("--case", help="lesson id and the races options of the run")
    ap.add_argument("--gpu", default="NVIDIA H200")
    ap.add_argument("--note", default="")
    ap.add_argument("--print-limit", default="100000", help="racecheck's --print-limit in that run")
    ap.add_argument("--skeleton", action="store_true",
                    help="repeat the map (accesses, warp syncs, loops) in the extract")
    ap.add_argument("--blocks", help="keep the records of these blocks only (x,y,z;x,y,z): a "
                    "small file; the replay compares those blocks")
    a = ap.parse_args()
    if a.sass:
        accesses, loops = sass_lines(a.sass, a.kernel)
        if not accesses:
            sys.exit("no shared access in %s%s" % (a.sass, " for " + a.kernel if a.kernel else ""))
        for off, line, op in accesses:
            print("0x%x %d %s" % (off, line, op))
        for target, branch in loops:
            print("loop 0x%x 0x%x" % (target, branch))
        return 0
    lines, skeleton = {}, []
    for text in open(a.lines):
        w = text.split()
        if w[0] == "loop":
            skeleton.append(text.strip())
            continue
        lines[int(w[0], 16)] = (int(w[1]), w[2])
        skeleton.append("sass %s %s %s" % (w[0], w[1], w[2].split(".")[0]))
    log = open(a.log, errors="replace").read()
    keep = set(a.blocks.split(";")) if a.blocks else None
    words = OrderedDict()
    for m in RECORD.finditer(log):
        g = m.groups()
        if keep is not None and ",".join(g[3:6]) not in keep:
            continue
        addr = int(g[2], 16)
        key = (g[0][0], g[1], ",".join(g[3:6]), addr & ~3,
               g[6][0], ",".join(g[7:10]), int(g[10], 16),
               g[11][0], ",".join(g[12:15]), int(g[15], 16))
        cur, inc = int(g[16]), g[17]
        words.setdefault(key, []).append(
            "b%d=%02x" % (addr & 3, cur) + ("" if inc is None else ">%02x" % int(inc)))
    summ = SUMMARY.search(log)
    print("# compute-sanitizer racecheck, hazard records one per 4-byte word (scripts/racecheck_extract.py)")
    print("# gpu: %s" % a.gpu)
    print("# command: compute-sanitizer --tool racecheck --racecheck-report all --print-limit %s "
          "tilescope-cli races %s --backend cuda --launch-only" % (a.print_limit, a.case))
    if a.note:
        print("# note: %s" % a.note)
    print("# summary: %s hazards displayed (%s errors, %s warnings)" % (summ.groups() if summ else ("?",) * 3))
    print("case %s" % a.case)
    if keep is not None:
        print("# only the records of these blocks (the replay compares them alone):")
        print("blocks %s" % " ".join(sorted(keep)))
    if a.skeleton:
        print("# the kernel: its shared accesses, warp syncs (offset, source line as the SASS line")
        print("# table gives it, opcode; a barrier's WARPSYNC runs where the trace has that")
        print("# barrier) and loops (target, backward branch)")
        for text in skeleton:
            print(text)
    print("# severity kind block word first(R/W thread instruction:line) second(...), then each")
    print("# byte racecheck reported: bN=current>incoming value (RAW: how many bytes)")
    for k, values in words.items():
        sev, kind, block, word, t1, th1, pc1, t2, th2, pc2 = k
        l1, l2 = lines.get(pc1, (0, "?"))[0], lines.get(pc2, (0, "?"))[0]
        if not l1 or not l2:
            sys.exit("no line for instruction 0x%x or 0x%x" % (pc1, pc2))
        print("%s %s %s 0x%x %s %s 0x%x:%d %s %s 0x%x:%d %s"
              % (sev, kind, block, word, t1, th1, pc1, l1, t2, th2, pc2, l2,
                 "bytes=%d" % len({v[:2] for v in values}) if kind == "RAW"
                 else " ".join(sorted(set(values)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
